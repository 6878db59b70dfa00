package dev.lanceflink.flink.sink.maintenance;

import dev.lanceflink.compactor.core.CompactionPlan;
import dev.lanceflink.compactor.core.CompactionPolicy;
import dev.lanceflink.compactor.core.FragmentCompactionPlanner;
import dev.lanceflink.table.DataFile;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.roaringbitmap.RoaringBitmap;

/**
 * Decides from one manifest (and the version listing) what maintenance is due. Pure: it reads
 * nothing but what it is given, so every trigger can be tested without a table.
 *
 * <ul>
 *   <li><b>overlay-fold</b> of a fragment whose overlays cover at least
 *       {@link MaintenanceSettings#foldMinCoverage} of one column's rows (scans then read the
 *       column mostly from overlays), and of every fragment with overlays once the sink has not
 *       committed for {@link MaintenanceSettings#foldQuietPeriod};
 *   <li><b>overlay-merge</b> of a fragment with at least {@link MaintenanceSettings#mergeMaxOverlays}
 *       overlays (which {@link TableMaintainer} lowers by what arrives during one check) or {@link MaintenanceSettings#mergeMaxOverlayBytes} overlay bytes (and two
 *       overlays at least), also when a fold is due: the merge runs first, so that a fragment whose
 *       fold cannot land (the sink keeps overlaying the folded columns) still has its overlays
 *       bounded;
 *   <li><b>cleanup</b> when half the retention's count of versions (at least one) is beyond the
 *       retention (older than the minimum age, not among the newest kept, older than the sink's
 *       newest commit).
 * </ul>
 */
public final class MaintenanceTriggers {
    private MaintenanceTriggers() {}

    /**
     * The numbers a check reports as metrics.
     *
     * @param liveRows rows not deleted
     * @param deletedRows rows marked deleted in deletion files (their bytes stay until fragment
     *     compaction rewrites them)
     * @param dataBytes bytes of the fragments' data files, as their manifest entries record them
     *     (files whose writer did not record a size count 0)
     * @param overlayBytes bytes of the overlay files
     * @param manifestBytes bytes of the version's manifest, which every reader and every commit
     *     reads, or -1 if unknown
     */
    public record TableHealth(
            long version,
            int fragments,
            int fragmentsWithOverlays,
            int maxOverlaysPerFragment,
            long overlays,
            long overlayBytes,
            long liveRows,
            long deletedRows,
            long dataBytes,
            long manifestBytes) {
        static TableHealth of(Manifest m, long manifestBytes) {
            int withOverlays = 0;
            int max = 0;
            long overlays = 0;
            long bytes = 0;
            long live = 0;
            long deleted = 0;
            long data = 0;
            for (Fragment f : m.fragments()) {
                int n = f.overlays().size();
                if (n > 0) {
                    withOverlays++;
                }
                max = Math.max(max, n);
                overlays += n;
                for (DataOverlayFile o : f.overlays()) {
                    bytes += o.dataFile().fileSizeBytes();
                }
                for (DataFile d : f.files()) {
                    data += Math.max(0, d.fileSizeBytes());
                }
                live += f.liveRows();
                deleted += f.numDeletedRows();
            }
            return new TableHealth(
                    m.version(),
                    m.fragments().size(),
                    withOverlays,
                    max,
                    overlays,
                    bytes,
                    live,
                    deleted,
                    data,
                    manifestBytes);
        }
    }

    /**
     * What is due.
     *
     * @param fold fragments to fold
     * @param merge fragments to merge (before the fold)
     * @param cleanup whether versions are beyond the retention
     * @param reasons why, for the log
     * @param compact fragments to rewrite (fragment compaction, mode {@code fragments}), as its
     *     planner groups them on the checked version
     */
    public record Due(Set<Long> fold, Set<Long> merge, boolean cleanup, List<String> reasons, Set<Long> compact) {
        public Due {
            fold = Set.copyOf(fold);
            merge = Set.copyOf(merge);
            reasons = List.copyOf(reasons);
            compact = Set.copyOf(compact);
        }

        /** Nothing for fragment compaction. */
        public Due(Set<Long> fold, Set<Long> merge, boolean cleanup, List<String> reasons) {
            this(fold, merge, cleanup, reasons, Set.of());
        }

        public boolean isEmpty() {
            return fold.isEmpty() && merge.isEmpty() && !cleanup && compact.isEmpty();
        }
    }

    /**
     * The policy of the standalone job's mode {@code fragments} for the sink's settings; a value
     * that policy refuses is reported with the sink option it came from.
     */
    public static CompactionPolicy fragmentPolicy(MaintenanceSettings s) {
        MaintenanceSettings.FragmentCompaction f = s.fragments();
        try {
            // The overlay trigger is required by the policy but unused by mode fragments.
            return new CompactionPolicy(
                    1,
                    0,
                    0,
                    s.maxFragmentsPerRun(),
                    Long.MAX_VALUE,
                    f.minDeletedRatio(),
                    f.targetRowsPerFragment(),
                    f.effectiveSmallFragmentRows());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "The fragment compaction options ('"
                            + MaintenanceSettings.FRAGMENTS_TARGET_ROWS + "' = " + f.targetRowsPerFragment() + ", '"
                            + MaintenanceSettings.FRAGMENTS_SMALL_ROWS + "' = " + f.smallFragmentRows() + ", '"
                            + MaintenanceSettings.FRAGMENTS_MIN_DELETED_RATIO + "' = " + f.minDeletedRatio() + ", '"
                            + MaintenanceSettings.MAX_FRAGMENTS_PER_RUN + "' = " + s.maxFragmentsPerRun()
                            + ") are refused by the compaction planner: " + e.getMessage(),
                    e);
        }
    }

    /**
     * The fragments a fragment compaction of {@code m} would rewrite (the standalone job's planner,
     * Lance's rules), if at least {@code fragments.min-fragments} of them; empty otherwise or when
     * fragment compaction is off.
     */
    static Set<Long> fragmentsToCompact(Manifest m, MaintenanceSettings s, List<String> reasons) throws IOException {
        if (!s.fragments().enabled()) {
            return Set.of();
        }
        // Planned without the run's fragment budget: a run takes a prefix of the table order, and
        // when the prefix ended on a group below min-fragments (a few fragments with many deleted
        // rows before a group of small ones too big for the rest of the budget), compaction was
        // never due again and the sink's small fragments piled up (maintenance benchmark: 57 ->
        // 115 fragments in 30 s). The check takes what is due in runs of the budget's size.
        CompactionPolicy unbounded = fragmentPolicy(s);
        unbounded = unbounded.withBudget(Integer.MAX_VALUE, unbounded.maxBytes());
        CompactionPlan plan = FragmentCompactionPlanner.plan("(checked version)", m, unbounded, null);
        Set<Long> planned = new TreeSet<>();
        plan.tasks().forEach(t -> planned.addAll(t.fragmentIds()));
        if (planned.isEmpty() || planned.size() < s.fragments().minFragments()) {
            return Set.of();
        }
        reasons.add(
                "compact " + planned.size() + " fragments into " + plan.tasks().size() + " group(s): small"
                        + " (< " + s.fragments().effectiveSmallFragmentRows() + " rows) or more than "
                        + s.fragments().minDeletedRatio() + " of their rows deleted; "
                        + m.fragments().size()
                        + " fragments in the table");
        return planned;
    }

    /**
     * @param sinceLastCommit time since the sink's last commit (for the quiet period)
     * @param removableVersions versions beyond the retention ({@link #removableVersions})
     */
    public static Due decide(Manifest m, MaintenanceSettings s, Duration sinceLastCommit, int removableVersions)
            throws IOException {
        Set<Long> fold = new TreeSet<>();
        Set<Long> merge = new TreeSet<>();
        List<String> reasons = new ArrayList<>();
        // Planned first: a fragment that is rewritten needs no merge or fold of its overlays (the
        // rewrite reads them resolved).
        Set<Long> compact = fragmentsToCompact(m, s, reasons);
        boolean quiet = !s.foldQuietPeriod().isZero() && sinceLastCommit.compareTo(s.foldQuietPeriod()) >= 0;
        int byCoverage = 0;
        int byCount = 0;
        int byBytes = 0;
        double maxCoverage = 0;
        for (Fragment f : m.fragments()) {
            List<DataOverlayFile> overlays = f.overlays();
            if (overlays.isEmpty() || compact.contains(f.id())) {
                continue;
            }
            if (quiet) {
                fold.add(f.id());
            } else if (s.foldMinCoverage() > 0) {
                double coverage = maxColumnCoverage(f);
                maxCoverage = Math.max(maxCoverage, coverage);
                if (coverage >= s.foldMinCoverage()) {
                    fold.add(f.id());
                    byCoverage++;
                }
            }
            if (overlays.size() < 2) {
                continue; // one overlay is merged already
            }
            if (s.mergeMaxOverlays() > 0 && overlays.size() >= s.mergeMaxOverlays()) {
                merge.add(f.id());
                byCount++;
            } else if (s.mergeMaxOverlayBytes() > 0 && overlayBytes(f) >= s.mergeMaxOverlayBytes()) {
                merge.add(f.id());
                byBytes++;
            }
        }
        if (quiet && !fold.isEmpty()) {
            reasons.add("fold " + fold.size() + " fragments: no commit for " + sinceLastCommit.toSeconds() + " s >= "
                    + s.foldQuietPeriod().toSeconds() + " s");
        }
        if (byCoverage > 0) {
            reasons.add("fold " + byCoverage + " fragments: overlays cover >= " + s.foldMinCoverage() + " of a column"
                    + " (max " + String.format("%.2f", maxCoverage) + ")");
        }
        if (byCount > 0) {
            reasons.add("merge " + byCount + " fragments: >= " + s.mergeMaxOverlays() + " overlays");
        }
        if (byBytes > 0) {
            reasons.add("merge " + byBytes + " fragments: >= " + s.mergeMaxOverlayBytes() + " overlay bytes");
        }
        // A cleanup reads every manifest it removes and lists the data directories: batch it until
        // half the retention (at least one version) can go, instead of paying that at every commit.
        boolean cleanup =
                s.cleanupEnabled() && removableVersions > 0 && removableVersions >= Math.max(1, s.retainVersions() / 2);
        if (cleanup) {
            reasons.add("cleanup: " + removableVersions + " versions beyond the retention");
        }
        return new Due(fold, merge, cleanup, reasons, compact);
    }

    /**
     * The largest fraction of the fragment's rows that its overlays cover in one column (field):
     * the union of the coverage of every overlay that carries the field, over the physical rows.
     */
    static double maxColumnCoverage(Fragment f) throws IOException {
        if (f.physicalRows() <= 0) {
            return 0;
        }
        Map<Integer, RoaringBitmap> byField = new HashMap<>();
        for (DataOverlayFile o : f.overlays()) {
            DataFile file = o.dataFile();
            for (int i = 0; i < file.fieldCount(); i++) {
                int id = file.fieldId(i);
                if (id != DataFile.TOMBSTONE) {
                    byField.computeIfAbsent(id, k -> new RoaringBitmap())
                            .or(o.coverage().bitmap(i));
                }
            }
        }
        long max = 0;
        for (RoaringBitmap b : byField.values()) {
            max = Math.max(max, b.getLongCardinality());
        }
        return (double) max / f.physicalRows();
    }

    static long overlayBytes(Fragment f) {
        long bytes = 0;
        for (DataOverlayFile o : f.overlays()) {
            bytes += o.dataFile().fileSizeBytes();
        }
        return bytes;
    }

    /** A version as the listing of {@code _versions/} shows it. */
    public record ListedVersion(long version, long lastModifiedMillis) {}

    /**
     * Versions a cleanup at {@code now} would remove: not among the newest
     * {@link MaintenanceSettings#retainVersions}, older than {@link MaintenanceSettings#retainMinAge}
     * (by the listing's modification time; unknown counts as young), and older than
     * {@code keepFrom} (the sink's newest commit, which the commit of its next checkpoint looks
     * back to). Counted from the listing alone, so a check costs no manifest reads.
     */
    public static int removableVersions(
            List<ListedVersion> versions, MaintenanceSettings s, Instant now, long keepFrom) {
        List<ListedVersion> sorted = new ArrayList<>(versions);
        sorted.sort((a, b) -> Long.compare(b.version(), a.version()));
        long cutoff = now.minus(s.retainMinAge()).toEpochMilli();
        int removable = 0;
        for (int rank = s.retainVersions(); rank < sorted.size(); rank++) {
            ListedVersion v = sorted.get(rank);
            if (v.version() < keepFrom && v.lastModifiedMillis() > 0 && v.lastModifiedMillis() < cutoff) {
                removable++;
            }
        }
        return removable;
    }
}
