package dev.lanceflink.flink.sink.upsert;

import dev.lanceflink.schema.ColumnSet;
import org.apache.flink.table.data.RowData;

/**
 * The net effect, so far in the current checkpoint, of one key's records (see
 * {@link ChangelogKeyResolver}). Mutable and short-lived: one per key changed in a checkpoint.
 */
final class KeyedChange {
    enum State {
        /** The key's row at the checkpoint's start still exists; {@link #row} holds overlay values. */
        EXISTING,
        /** The key gets a new row, {@link #row}. */
        NEW,
        /** The key has no row. */
        ABSENT
    }

    /** Where the key's row was at the checkpoint's start ({fileId, position}), or null. */
    final long[] original;

    State state;
    /** The original row must be deleted. */
    boolean deleteOriginal;
    /**
     * NEW: the whole row; EXISTING: a row whose {@link #columns} hold the new values (in update
     * mode rewrite-rows: whose written columns do).
     */
    RowData row;
    /** EXISTING: column positions whose values changed (to overlay, or a reason to rewrite the row). */
    ColumnSet columns = ColumnSet.EMPTY;
    /** The before-image of the next update (from an UPDATE_BEFORE record), or null. */
    RowData before;

    KeyedChange(long[] original) {
        this.original = original;
        this.state = original == null ? State.ABSENT : State.EXISTING;
    }
}
