package dev.lanceflink.compactor.core;

import static java.util.Objects.requireNonNull;

import java.io.Serializable;
import java.util.Arrays;
import java.util.List;

/**
 * One fragment's share of a {@link CompactionPlan}: which overlays of the fragment to rewrite.
 *
 * <p>{@code overlayPaths} are the paths of the fragment's overlays at the planned version, in list
 * order; the runner refuses to run the task against a manifest whose fragment has other overlays,
 * so a task can never be applied to a version it was not planned on.
 *
 * @param fragmentId the fragment
 * @param mode what to do with its overlays
 * @param positions for a merge, the contiguous run of overlay positions (oldest first) to merge;
 *     for a fold, every position (a fold always takes all overlays)
 * @param overlayPaths the fragment's overlay files at the planned version, in list order
 * @param overlayBytes total size of those overlays
 * @param baseBytes total size of the fragment's base data files
 * @param trigger which policy trigger selected the fragment, for the plan JSON
 */
public record CompactionTask(long fragmentId, CompactionMode mode, int[] positions, List<String> overlayPaths,
        long overlayBytes, long baseBytes, String trigger) implements Serializable {
    private static final long serialVersionUID = 1L;

    public CompactionTask {
        requireNonNull(mode, "mode is null");
        requireNonNull(trigger, "trigger is null");
        positions = positions.clone();
        overlayPaths = List.copyOf(overlayPaths);
        if (positions.length == 0) {
            throw new IllegalArgumentException("Task for fragment " + fragmentId + " names no overlay positions");
        }
        for (int i = 0; i < positions.length; i++) {
            if (positions[i] < 0 || positions[i] >= overlayPaths.size()) {
                throw new IllegalArgumentException("Task for fragment " + fragmentId + ": overlay position "
                        + positions[i] + " does not exist (the fragment has " + overlayPaths.size() + " overlays)");
            }
            if (i > 0 && positions[i] != positions[i - 1] + 1) {
                throw new IllegalArgumentException("Task for fragment " + fragmentId + ": overlay positions "
                        + Arrays.toString(positions) + " are not one contiguous run in committed_version order;"
                        + " merging around overlay " + (positions[i - 1] + 1) + " would promote older values above"
                        + " newer ones. Merge a contiguous run");
            }
        }
        if (mode == CompactionMode.OVERLAY_MERGE && positions.length < 2) {
            throw new IllegalArgumentException("A merge task for fragment " + fragmentId + " needs a run of at least"
                    + " two overlays, got positions " + Arrays.toString(positions));
        }
        if (mode == CompactionMode.OVERLAY_FOLD && positions.length != overlayPaths.size()) {
            throw new IllegalArgumentException("A fold task for fragment " + fragmentId + " must take all "
                    + overlayPaths.size() + " overlays (a fold replaces the whole overlay list), got positions "
                    + Arrays.toString(positions));
        }
    }

    @Override
    public int[] positions() {
        return positions.clone();
    }

    /** Bytes the task reads: overlays for a merge, base plus overlays for a fold. */
    public long inputBytes() {
        return mode == CompactionMode.OVERLAY_FOLD ? overlayBytes + baseBytes : overlayBytes;
    }

    /** Overlays of the fragment after the task: a merge leaves one for its run, a fold none. */
    public int overlaysAfter() {
        return mode == CompactionMode.OVERLAY_FOLD ? 0 : overlayPaths.size() - positions.length + 1;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CompactionTask t && t.fragmentId == fragmentId && t.mode == mode
                && Arrays.equals(t.positions, positions) && t.overlayPaths.equals(overlayPaths)
                && t.overlayBytes == overlayBytes && t.baseBytes == baseBytes && t.trigger.equals(trigger);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(fragmentId) * 31 + Arrays.hashCode(positions);
    }

    @Override
    public String toString() {
        return "CompactionTask[fragment " + fragmentId + ", " + mode.cliName() + " overlays "
                + Arrays.toString(positions) + " of " + overlayPaths.size() + "]";
    }
}
