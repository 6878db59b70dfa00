package dev.lanceflink.flink.source.split;

/**
 * The mutable progress of a split while a reader emits its rows; updated once per row, read at
 * checkpoints.
 */
public final class LanceSplitState {
    private final LanceSplit split;
    private long nextOffset;
    private long rowsEmitted;

    public LanceSplitState(LanceSplit split) {
        this.split = split;
        this.nextOffset = split.nextOffset();
        this.rowsEmitted = split.rowsEmitted();
    }

    /** Records that the row at physical offset {@code offset} has been emitted. */
    public void emitted(long offset) {
        nextOffset = offset + 1;
        rowsEmitted++;
    }

    public LanceSplit toSplit() {
        return split.withProgress(nextOffset, rowsEmitted);
    }
}
