package dev.lanceflink.compactor.core;

import dev.lanceflink.schema.LanceField;
import dev.lanceflink.table.CorruptTableException;
import dev.lanceflink.table.DataFile;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Computes a {@link CompactionPlan} from one manifest (overlay modes here; mode {@code fragments}
 * in {@link FragmentCompactionPlanner}). Pure: it reads no files, so it can run on
 * the client for {@code --dry-run} and be repeated cheaply when a commit must re-plan a fragment.
 */
public final class CompactionPlanner {
    private CompactionPlanner() {}

    /**
     * The plan for {@code manifest}, with the policy's triggers and budget applied (mode
     * {@code fragments}: {@link FragmentCompactionPlanner}).
     *
     * @throws CorruptTableException if an index's fragment bitmap cannot be read (mode {@code fragments})
     */
    public static CompactionPlan plan(String tableUri, Manifest manifest, CompactionMode mode, CompactionPolicy policy)
            throws CorruptTableException {
        return plan(tableUri, manifest, mode, policy, null);
    }

    /**
     * The plan for the fragments {@code only} of {@code manifest} (all if null), e.g. the
     * fragments a caller's own trigger chose; the policy's triggers and budget still apply.
     *
     * @throws CorruptTableException if an index's fragment bitmap cannot be read (mode {@code fragments})
     */
    public static CompactionPlan plan(
            String tableUri, Manifest manifest, CompactionMode mode, CompactionPolicy policy, Set<Long> only)
            throws CorruptTableException {
        if (mode == CompactionMode.FRAGMENTS) {
            return FragmentCompactionPlanner.plan(tableUri, manifest, policy, only);
        }
        List<CompactionTask> candidates = new ArrayList<>();
        List<SkippedFragment> skipped = new ArrayList<>();
        for (Fragment f : manifest.fragments()) {
            if (only != null && !only.contains(f.id())) {
                continue;
            }
            Evaluation e = evaluate(manifest, f, mode, policy);
            if (e.task != null) {
                candidates.add(e.task);
            } else if (e.skipReason != null) {
                skipped.add(new SkippedFragment(f.id(), e.skipReason));
            }
        }
        // Most overlays first (most read amplification removed per byte of budget), then by id.
        candidates.sort(
                Comparator.comparingInt((CompactionTask t) -> -t.overlayPaths().size())
                        .thenComparingLong(CompactionTask::fragmentId));
        List<CompactionTask> tasks = new ArrayList<>();
        long bytes = 0;
        for (CompactionTask t : candidates) {
            boolean overFragments = tasks.size() >= policy.maxFragments();
            boolean overBytes = !tasks.isEmpty() && bytes + t.inputBytes() > policy.maxBytes();
            if (overFragments || overBytes) {
                skipped.add(new SkippedFragment(
                        t.fragmentId(),
                        "deferred: the run's budget of "
                                + (overFragments
                                        ? policy.maxFragments() + " fragments"
                                        : policy.maxBytes() + " input bytes")
                                + " is used up"));
            } else {
                tasks.add(t);
                bytes += t.inputBytes();
            }
        }
        skipped.sort(Comparator.comparingLong(SkippedFragment::fragmentId));
        return new CompactionPlan(tableUri, manifest.version(), mode, policy, tasks, skipped, overlayCount(manifest));
    }

    /**
     * The task for one fragment of {@code manifest}, ignoring the budget (used to re-plan a
     * fragment that changed while the run was in flight); empty if it no longer needs compaction.
     */
    public static Optional<CompactionTask> planFragment(
            Manifest manifest, long fragmentId, CompactionMode mode, CompactionPolicy policy) {
        if (mode == CompactionMode.FRAGMENTS) {
            throw new IllegalArgumentException("Mode fragments plans groups of neighbours, not single fragments;"
                    + " re-plan with FragmentCompactionPlanner.plan(..., only)");
        }
        return manifest.fragment(fragmentId).map(f -> evaluate(manifest, f, mode, policy).task);
    }

    /** Overlays in the whole table at the planned version (what a run found). */
    static long overlayCount(Manifest manifest) {
        return manifest.fragments().stream().mapToLong(f -> f.overlays().size()).sum();
    }

    /** A task, or a reason to skip a triggered fragment, or neither (not a candidate). */
    private record Evaluation(CompactionTask task, String skipReason) {
        static final Evaluation NONE = new Evaluation(null, null);
    }

    private static Evaluation evaluate(Manifest manifest, Fragment f, CompactionMode mode, CompactionPolicy policy) {
        List<DataOverlayFile> overlays = f.overlays();
        int n = overlays.size();
        if (n == 0) {
            return Evaluation.NONE;
        }
        if (mode == CompactionMode.OVERLAY_MERGE && n < 2) {
            return new Evaluation(null, "one overlay: nothing to merge");
        }
        long overlayBytes = 0;
        List<String> paths = new ArrayList<>(n);
        for (DataOverlayFile o : overlays) {
            overlayBytes += o.dataFile().fileSizeBytes();
            paths.add(o.dataFile().path());
        }
        long baseBytes = 0;
        for (DataFile d : f.files()) {
            baseBytes += d.fileSizeBytes();
        }
        String trigger = trigger(manifest.version(), overlays, overlayBytes, baseBytes, policy);
        if (trigger == null) {
            return new Evaluation(
                    null,
                    "no trigger fired: " + n + " overlays (" + overlayBytes + " bytes, base " + baseBytes
                            + " bytes, oldest from version " + overlays.get(0).committedVersion() + ")");
        }
        String problem = unsupported(manifest, f, mode);
        if (problem != null) {
            return new Evaluation(null, problem);
        }
        // The overlay list is stored oldest first (checked by unsupported()), so the whole list is one run
        // contiguous in committed_version; merging all of it leaves a single overlay.
        int[] positions = new int[n];
        for (int i = 0; i < n; i++) {
            positions[i] = i;
        }
        return new Evaluation(
                new CompactionTask(f.id(), mode, positions, paths, overlayBytes, baseBytes, trigger), null);
    }

    /** The first trigger that fires, described for the plan JSON, or null. */
    private static String trigger(
            long version, List<DataOverlayFile> overlays, long overlayBytes, long baseBytes, CompactionPolicy policy) {
        if (policy.minOverlays() > 0 && overlays.size() >= policy.minOverlays()) {
            return "overlays " + overlays.size() + " >= " + policy.minOverlays();
        }
        if (policy.minOverlayBytesRatio() > 0
                && baseBytes > 0
                && overlayBytes >= policy.minOverlayBytesRatio() * baseBytes) {
            return "overlay bytes " + overlayBytes + " >= " + policy.minOverlayBytesRatio() + " x base bytes "
                    + baseBytes;
        }
        long oldest = overlays.get(0).committedVersion();
        if (policy.minVersionGap() > 0 && version - oldest >= policy.minVersionGap()) {
            return "oldest overlay committed at version " + oldest + ", " + (version - oldest) + " >= "
                    + policy.minVersionGap() + " versions ago";
        }
        return null;
    }

    /** Why the fragment's overlays cannot be compacted in this mode, or null. */
    private static String unsupported(Manifest manifest, Fragment f, CompactionMode mode) {
        try {
            f.checkOverlayOrder();
        } catch (RuntimeException e) {
            return "overlays are not stored oldest first, refusing to touch them: " + e.getMessage();
        }
        boolean anyLive = false;
        for (LanceField field : manifest.schema().fields()) {
            for (DataOverlayFile o : f.overlays()) {
                if (carries(o.dataFile(), field)) {
                    if (field.isStruct() && mode == CompactionMode.OVERLAY_MERGE) {
                        return "overlay " + o.dataFile().path() + " replaces values inside struct field '"
                                + field.name() + "', which can be folded but not merged; run --mode overlay-fold";
                    }
                    anyLive = true;
                }
            }
        }
        return anyLive
                ? null
                : "the overlays carry no field of the current schema (only tombstoned or dropped"
                        + " columns); a later column rewrite drops them";
    }

    /** Whether {@code file} has a live slot for {@code field} or one of its descendants. */
    private static boolean carries(DataFile file, LanceField field) {
        for (int i = 0; i < file.fieldCount(); i++) {
            int id = file.fieldId(i);
            if (id != DataFile.TOMBSTONE && inSubtree(field, id)) {
                return true;
            }
        }
        return false;
    }

    private static boolean inSubtree(LanceField field, int id) {
        if (field.id() == id) {
            return true;
        }
        for (LanceField c : field.children()) {
            if (inSubtree(c, id)) {
                return true;
            }
        }
        return false;
    }
}
