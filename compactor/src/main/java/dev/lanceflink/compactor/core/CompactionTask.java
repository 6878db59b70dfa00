package dev.lanceflink.compactor.core;

import static java.util.Objects.requireNonNull;

import java.io.Serializable;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * One task of a {@link CompactionPlan}: in the overlay modes, which overlays of one fragment to
 * rewrite; in mode {@code fragments}, which group of neighbouring fragments to rewrite into new
 * fragments ({@code group}).
 *
 * <p>{@code overlayPaths} are the paths of the fragment's overlays at the planned version, in list
 * order; the runner refuses to run the task against a manifest whose fragment has other overlays,
 * so a task can never be applied to a version it was not planned on.
 *
 * @param fragmentId the fragment (in mode {@code fragments}: the group's first fragment)
 * @param mode what to do with its overlays
 * @param positions for a merge, the contiguous run of overlay positions (oldest first) to merge;
 *     for a fold, every position (a fold always takes all overlays); empty in mode {@code fragments}
 * @param overlayPaths the overlay files at the planned version, in list order (in mode
 *     {@code fragments}: of every fragment of the group, group order)
 * @param overlayBytes total size of those overlays
 * @param baseBytes total size of the base data files
 * @param trigger which policy trigger selected the fragment, for the plan JSON
 * @param group in mode {@code fragments}, the fragments to rewrite together; null otherwise
 */
public record CompactionTask(
        long fragmentId,
        CompactionMode mode,
        int[] positions,
        List<String> overlayPaths,
        long overlayBytes,
        long baseBytes,
        String trigger,
        FragmentGroup group)
        implements Serializable {
    private static final long serialVersionUID = 2L;

    public CompactionTask {
        requireNonNull(mode, "mode is null");
        requireNonNull(trigger, "trigger is null");
        positions = positions.clone();
        overlayPaths = List.copyOf(overlayPaths);
        if (mode == CompactionMode.FRAGMENTS) {
            if (group == null || group.fragmentIds().get(0) != fragmentId || positions.length != 0) {
                throw new IllegalArgumentException("A fragments-mode task needs a fragment group starting with"
                        + " fragment " + fragmentId + " and no overlay positions, got group " + group
                        + " and positions " + Arrays.toString(positions));
            }
        } else {
            checkOverlayTask(fragmentId, mode, positions, overlayPaths, group);
        }
    }

    private static void checkOverlayTask(
            long fragmentId, CompactionMode mode, int[] positions, List<String> overlayPaths, FragmentGroup group) {
        if (group != null) {
            throw new IllegalArgumentException(
                    "Only a fragments-mode task rewrites a fragment group, not " + mode.cliName());
        }
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

    /** An overlay-mode task ({@code overlay-merge}, {@code overlay-fold}) of one fragment. */
    public CompactionTask(
            long fragmentId,
            CompactionMode mode,
            int[] positions,
            List<String> overlayPaths,
            long overlayBytes,
            long baseBytes,
            String trigger) {
        this(fragmentId, mode, positions, overlayPaths, overlayBytes, baseBytes, trigger, null);
    }

    /** A {@code fragments}-mode task rewriting {@code group}. */
    public static CompactionTask rewrite(
            FragmentGroup group, List<String> overlayPaths, long overlayBytes, long baseBytes) {
        return new CompactionTask(
                group.fragmentIds().get(0),
                CompactionMode.FRAGMENTS,
                new int[0],
                overlayPaths,
                overlayBytes,
                baseBytes,
                group.reason(),
                group);
    }

    @Override
    public int[] positions() {
        return positions.clone();
    }

    /** Every fragment the task replaces or changes: the group in mode {@code fragments}, else the one fragment. */
    public List<Long> fragmentIds() {
        return group != null ? group.fragmentIds() : List.of(fragmentId);
    }

    /** Bytes the task reads: overlays for a merge, base plus overlays for a fold or a rewrite. */
    public long inputBytes() {
        return mode == CompactionMode.OVERLAY_MERGE ? overlayBytes : overlayBytes + baseBytes;
    }

    /** Overlays left after the task: a merge leaves one for its run, a fold or a rewrite none. */
    public int overlaysAfter() {
        return mode == CompactionMode.OVERLAY_MERGE ? overlayPaths.size() - positions.length + 1 : 0;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CompactionTask t
                && t.fragmentId == fragmentId
                && t.mode == mode
                && Arrays.equals(t.positions, positions)
                && t.overlayPaths.equals(overlayPaths)
                && t.overlayBytes == overlayBytes
                && t.baseBytes == baseBytes
                && t.trigger.equals(trigger)
                && Objects.equals(t.group, group);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(fragmentId) * 31 + Arrays.hashCode(positions);
    }

    @Override
    public String toString() {
        if (group != null) {
            return "CompactionTask[fragments " + group.fragmentIds() + ", rewrite: " + trigger + "]";
        }
        return "CompactionTask[fragment " + fragmentId + ", " + mode.cliName() + " overlays "
                + Arrays.toString(positions) + " of " + overlayPaths.size() + "]";
    }
}
