package dev.lanceflink.flink.sink.upsert;

import dev.lanceflink.schema.ColumnSet;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.table.data.RowData;

/**
 * The updates of one target fragment gathered during a checkpoint, in arrival order: per update
 * the row offset, the columns it sets and a row holding their values (the other columns NULL,
 * see {@link WrittenColumnsRow}). Ordering and de-duplication are the overlay stager's.
 */
final class OverlayBuffer {
    private long[] offsets = new long[16];
    /** Mostly one shared object: the updates of a checkpoint tend to set the same columns. */
    private ColumnSet[] columns = new ColumnSet[16];

    private final List<RowData> rows = new ArrayList<>();
    /** Union of the columns the updates set. */
    private ColumnSet union = ColumnSet.EMPTY;
    /** Whether all updates set the same columns. */
    private boolean uniform = true;

    void add(long offset, ColumnSet cols, RowData row) {
        int n = rows.size();
        if (n == offsets.length) {
            offsets = Arrays.copyOf(offsets, n * 2);
            columns = Arrays.copyOf(columns, n * 2);
        }
        offsets[n] = offset;
        columns[n] = cols;
        rows.add(row);
        if (n == 0) {
            union = cols;
        } else if (cols != columns[0] && !cols.equals(columns[0])) {
            uniform = false;
            union = union.union(cols);
        }
    }

    int size() {
        return rows.size();
    }

    /** The offsets, index {@code i} for update {@code i}; longer than {@link #size()}. */
    long[] offsets() {
        return offsets;
    }

    ColumnSet columns(int i) {
        return columns[i];
    }

    RowData row(int i) {
        return rows.get(i);
    }

    ColumnSet union() {
        return union;
    }

    /** True if every update sets the same columns (then the overlay is dense). */
    boolean uniform() {
        return uniform;
    }
}
