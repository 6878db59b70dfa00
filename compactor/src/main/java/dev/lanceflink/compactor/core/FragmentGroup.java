package dev.lanceflink.compactor.core;

import java.io.Serializable;
import java.util.List;

/**
 * The fragments one {@code fragments}-mode task rewrites together: neighbours in table order with
 * the same index coverage, as the plan saw them.
 *
 * @param fragmentIds the fragments, in table order (the new fragments keep their rows in this order)
 * @param physicalRows their physical rows, deleted rows included
 * @param deletedRows their deleted rows, from the deletion files' recorded counts
 * @param targetRowsPerFragment rows per new fragment the output is sized for
 * @param reason why the group is rewritten (deletion ratio, small neighbours), for the plan JSON
 */
public record FragmentGroup(
        List<Long> fragmentIds, long physicalRows, long deletedRows, long targetRowsPerFragment, String reason)
        implements Serializable {
    private static final long serialVersionUID = 1L;

    public FragmentGroup {
        fragmentIds = List.copyOf(fragmentIds);
        if (fragmentIds.isEmpty()) {
            throw new IllegalArgumentException("A fragment group needs at least one fragment");
        }
        if (targetRowsPerFragment < 1) {
            throw new IllegalArgumentException("targetRowsPerFragment must be >= 1, got " + targetRowsPerFragment);
        }
        if (reason == null) {
            throw new IllegalArgumentException("reason is null");
        }
    }

    /** Rows the rewrite keeps. */
    public long liveRows() {
        return physicalRows - deletedRows;
    }

    /** New fragments the rewrite will write: {@code max(1, live / target)}, none without live rows. */
    public long outputFragments() {
        long live = liveRows();
        return live <= 0 ? 0 : Math.max(1, live / targetRowsPerFragment);
    }
}
