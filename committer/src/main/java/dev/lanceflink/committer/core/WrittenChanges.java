package dev.lanceflink.committer.core;

import dev.lanceflink.table.Fragment;
import java.util.List;

/**
 * What one writer subtask wrote for one checkpoint: new, uncommitted fragments (ids 0), data
 * overlay files for updated cells of existing rows, and rows to delete, plus counters for
 * metrics. Nothing in it is visible in the table until a committer commits it.
 *
 * @param rows rows in {@code fragments}
 * @param cells cells the overlays carry
 * @param bytes total size of the data and overlay files written
 */
public record WrittenChanges(
        List<Fragment> fragments,
        List<TargetedOverlay> overlays,
        List<TargetedDeletion> deletions,
        long rows,
        long cells,
        long bytes) {
    public WrittenChanges {
        fragments = List.copyOf(fragments);
        overlays = List.copyOf(overlays);
        deletions = List.copyOf(deletions);
        if (rows < 0 || cells < 0 || bytes < 0) {
            throw new IllegalArgumentException(
                    "rows, cells and bytes must not be negative, got " + rows + ", " + cells + ", " + bytes);
        }
    }

    /** New fragments only (an append-only writer). */
    public static WrittenChanges ofFragments(List<Fragment> fragments, long rows, long bytes) {
        return new WrittenChanges(fragments, List.of(), List.of(), rows, 0, bytes);
    }

    public boolean isEmpty() {
        return fragments.isEmpty() && overlays.isEmpty() && deletions.isEmpty();
    }
}
