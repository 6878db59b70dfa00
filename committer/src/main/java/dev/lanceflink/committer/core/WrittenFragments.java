package dev.lanceflink.committer.core;

import dev.lanceflink.table.Fragment;
import java.util.List;

/**
 * What one writer subtask wrote for one checkpoint: new, uncommitted fragments (ids 0) and
 * counters for metrics. Nothing in it is visible in the table until a committer commits it.
 *
 * @param rows rows in {@code fragments}
 * @param bytes total size of the data files in {@code fragments}
 */
public record WrittenFragments(List<Fragment> fragments, long rows, long bytes) {
    public WrittenFragments {
        fragments = List.copyOf(fragments);
        if (rows < 0 || bytes < 0) {
            throw new IllegalArgumentException("rows and bytes must not be negative, got " + rows + ", " + bytes);
        }
    }

    public boolean isEmpty() {
        return fragments.isEmpty();
    }
}
