package dev.lanceflink.compactor.core;

import dev.lanceflink.table.CorruptTableException;
import dev.lanceflink.table.DataFile;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.IndexEntry;
import dev.lanceflink.table.Manifest;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;

/**
 * Plans mode {@code fragments} on one manifest, with Lance's compaction rules
 * ({@code DefaultCompactionPlanner}): walking the fragments in table order, a fragment is a
 * candidate when its deleted rows exceed the policy's ratio (it is rewritten even alone) or when
 * it is small (it is rewritten only together with candidate neighbours). Consecutive candidates
 * form a bin as long as they have the <em>same index coverage</em> (the same set of index entries
 * whose {@code fragment_bitmap} contains them): mixing indexed and unindexed rows in one new
 * fragment would make a later index remap impossible, so the rule is kept even though this
 * library's {@code Rewrite} drops the old fragments from every bitmap. Bins are then split into
 * groups of at least the target row count each (the last group takes the remainder).
 *
 * <p>Pure: it reads no data files, so it can run on the client for {@code --dry-run} and be
 * repeated cheaply for a re-plan.
 */
public final class FragmentCompactionPlanner {
    private FragmentCompactionPlanner() {}

    /**
     * The plan for {@code manifest}.
     *
     * @param only if not null, only these fragments may be planned (a re-plan of fragments a
     *     concurrent writer changed); every other fragment ends a bin, like an exclusion in Lance
     * @throws CorruptTableException if an index's fragment bitmap cannot be read
     */
    public static CompactionPlan plan(String tableUri, Manifest manifest, CompactionPolicy policy, Set<Long> only)
            throws CorruptTableException {
        List<SkippedFragment> skipped = new ArrayList<>();
        String unwritable = unwritableFormat(manifest);
        List<Bin> bins = new ArrayList<>();
        Bin current = null;
        for (Fragment f : manifest.fragments()) {
            Candidacy c = candidacy(f, policy);
            String problem =
                    c == Candidacy.NONE || (only != null && !only.contains(f.id())) ? null : problem(f, unwritable);
            if (problem != null) {
                skipped.add(new SkippedFragment(f.id(), problem));
            }
            if (c == Candidacy.NONE || problem != null || (only != null && !only.contains(f.id()))) {
                current = close(current, bins);
                continue;
            }
            List<Integer> coverage = coverage(manifest, f);
            if (current != null && !current.coverage.equals(coverage)) {
                current = close(current, bins);
            }
            if (current == null) {
                current = new Bin(coverage);
            }
            current.add(f, c);
        }
        close(current, bins);

        List<CompactionTask> tasks = new ArrayList<>();
        int fragments = 0;
        long bytes = 0;
        boolean deferring = false;
        for (Bin bin : bins) {
            for (Bin group : bin.splitForSize(policy.targetRowsPerFragment(), Math.max(2, policy.maxFragments()))) {
                if (group.isNoop()) {
                    continue; // a lone small fragment cut off by the fragment bound
                }
                CompactionTask t = group.toTask(policy);
                int n = group.fragments.size();
                boolean overFragments = !tasks.isEmpty() && fragments + n > policy.maxFragments();
                boolean overBytes = !tasks.isEmpty() && bytes + t.inputBytes() > policy.maxBytes();
                // Like Lance's source budget: the first task that does not fit ends the run, so the
                // tasks taken are always a prefix of the table order.
                deferring |= overFragments || overBytes;
                if (deferring) {
                    String why = "deferred: the run's budget of "
                            + (overFragments
                                    ? policy.maxFragments() + " fragments"
                                    : policy.maxBytes() + " input bytes")
                            + " is used up";
                    group.fragments.forEach(x -> skipped.add(new SkippedFragment(x.id(), why)));
                } else {
                    tasks.add(t);
                    fragments += n;
                    bytes += t.inputBytes();
                }
            }
        }
        skipped.sort(Comparator.comparingLong(SkippedFragment::fragmentId));
        return new CompactionPlan(
                tableUri,
                manifest.version(),
                CompactionMode.FRAGMENTS,
                policy,
                tasks,
                skipped,
                CompactionPlanner.overlayCount(manifest));
    }

    private enum Candidacy {
        NONE,
        /** Only worth rewriting together with neighbours (Lance's CompactWithNeighbors). */
        SMALL,
        /** Worth rewriting alone: too many deleted rows (Lance's CompactItself). */
        DELETIONS
    }

    private static Candidacy candidacy(Fragment f, CompactionPolicy policy) {
        long physical = f.physicalRows();
        if (physical <= 0) {
            return Candidacy.NONE; // unknown row count: never planned (and nothing to gain)
        }
        double ratio = (double) f.numDeletedRows() / physical;
        if (policy.minDeletedRatio() < 1 && f.numDeletedRows() > 0 && ratio > policy.minDeletedRatio()) {
            return Candidacy.DELETIONS;
        }
        return physical < policy.smallFragmentRows() ? Candidacy.SMALL : Candidacy.NONE;
    }

    /** Why a candidate cannot be rewritten, or null. */
    private static String problem(Fragment f, String unwritable) {
        if (unwritable != null) {
            return unwritable;
        }
        try {
            f.checkOverlayOrder();
        } catch (RuntimeException e) {
            return "overlays are not stored oldest first, refusing to read them: " + e.getMessage();
        }
        if (f.physicalRows() > Integer.MAX_VALUE) {
            return "physical_rows " + f.physicalRows() + " exceeds what one fragment can address (2^31-1)";
        }
        return null;
    }

    private static String unwritableFormat(Manifest manifest) {
        if (manifest.dataFormat() == null) {
            return "the table records no data_format, so the file version of new data files is unknown";
        }
        String v = manifest.dataFormat().version();
        if (v.startsWith("0.") || v.equalsIgnoreCase("legacy")) {
            return "the table uses the legacy data format " + v + ", which this library does not write";
        }
        return null;
    }

    /** Positions (in the manifest's index list) of the index entries covering {@code f}. */
    private static List<Integer> coverage(Manifest manifest, Fragment f) throws CorruptTableException {
        List<Integer> out = new ArrayList<>();
        List<IndexEntry> indices = manifest.indices();
        for (int i = 0; i < indices.size(); i++) {
            if (indices.get(i).coversFragment(f.id())) {
                out.add(i);
            }
        }
        return out;
    }

    private static Bin close(Bin bin, List<Bin> bins) {
        if (bin != null && !bin.isNoop()) {
            bins.add(bin);
        }
        return null;
    }

    /** Consecutive candidates with one index coverage (Lance's CandidateBin). */
    private static final class Bin {
        final List<Integer> coverage;
        final List<Fragment> fragments = new ArrayList<>();
        final List<Candidacy> candidacy = new ArrayList<>();

        Bin(List<Integer> coverage) {
            this.coverage = coverage;
        }

        void add(Fragment f, Candidacy c) {
            fragments.add(f);
            candidacy.add(c);
        }

        /** A lone small fragment gains nothing from a rewrite. */
        boolean isNoop() {
            return fragments.isEmpty() || (fragments.size() == 1 && candidacy.get(0) == Candidacy.SMALL);
        }

        /**
         * Splits into groups of at least {@code target} live rows, cutting only where the rest
         * can still form such a group (so the last group absorbs the remainder), and of at most
         * {@code maxFragments} fragments: a run's fragment budget bounds each task too, so that a
         * table of many small fragments is compacted in short tasks (a task over all of them
         * would run for long and, next to a sink that changes them every checkpoint, carry over
         * ever more of its changes) instead of one task that the budget let through whole.
         */
        List<Bin> splitForSize(long target, int maxFragments) {
            long remaining = 0;
            for (Fragment f : fragments) {
                remaining += f.liveRows();
            }
            List<Bin> out = new ArrayList<>();
            Bin cur = new Bin(coverage);
            long rows = 0;
            for (int i = 0; i < fragments.size(); i++) {
                Fragment f = fragments.get(i);
                cur.add(f, candidacy.get(i));
                rows += f.liveRows();
                remaining -= f.liveRows();
                boolean full = rows >= target && remaining > 0 && remaining >= target;
                if ((full || cur.fragments.size() >= maxFragments) && i + 1 < fragments.size()) {
                    out.add(cur);
                    cur = new Bin(coverage);
                    rows = 0;
                }
            }
            if (!cur.fragments.isEmpty()) {
                out.add(cur);
            }
            return out;
        }

        CompactionTask toTask(CompactionPolicy policy) {
            List<Long> ids = new ArrayList<>();
            List<Long> deletionIds = new ArrayList<>();
            List<Long> smallIds = new ArrayList<>();
            List<String> overlayPaths = new ArrayList<>();
            long physical = 0;
            long deleted = 0;
            long overlayBytes = 0;
            long baseBytes = 0;
            for (int i = 0; i < fragments.size(); i++) {
                Fragment f = fragments.get(i);
                ids.add(f.id());
                (candidacy.get(i) == Candidacy.DELETIONS ? deletionIds : smallIds).add(f.id());
                physical += f.physicalRows();
                deleted += f.numDeletedRows();
                for (DataFile d : f.files()) {
                    baseBytes += d.fileSizeBytes();
                }
                for (DataOverlayFile o : f.overlays()) {
                    overlayPaths.add(o.dataFile().path());
                    overlayBytes += o.dataFile().fileSizeBytes();
                }
            }
            StringBuilder reason = new StringBuilder();
            if (!deletionIds.isEmpty()) {
                reason.append("materialize deletions of ")
                        .append(deletionIds)
                        .append(" (deleted ratio > ")
                        .append(policy.minDeletedRatio())
                        .append(')');
            }
            if (!smallIds.isEmpty()) {
                reason.append(reason.length() > 0 ? "; " : "")
                        .append("merge small fragments ")
                        .append(smallIds)
                        .append(" (< ")
                        .append(policy.smallFragmentRows())
                        .append(" rows)");
            }
            FragmentGroup group =
                    new FragmentGroup(ids, physical, deleted, policy.targetRowsPerFragment(), reason.toString());
            return CompactionTask.rewrite(group, overlayPaths, overlayBytes, baseBytes);
        }
    }
}
