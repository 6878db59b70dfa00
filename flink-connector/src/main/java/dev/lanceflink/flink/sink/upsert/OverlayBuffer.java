package dev.lanceflink.flink.sink.upsert;

import dev.lanceflink.schema.ColumnSet;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.table.data.RowData;

/**
 * The updates of one target fragment gathered during a checkpoint: per update the row offset,
 * the columns it sets and a row holding their values. Sorted and de-duplicated (a later update of
 * the same offset replaces the earlier columns it sets) when the overlay is written.
 */
final class OverlayBuffer {
    private long[] offsets = new long[16];
    /** Mostly one shared object: the updates of a checkpoint tend to set the same columns. */
    private ColumnSet[] columns = new ColumnSet[16];
    private final List<RowData> rows = new ArrayList<>();

    void add(long offset, ColumnSet cols, RowData row) {
        int n = rows.size();
        if (n == offsets.length) {
            offsets = Arrays.copyOf(offsets, n * 2);
            columns = Arrays.copyOf(columns, n * 2);
        }
        offsets[n] = offset;
        columns[n] = cols;
        rows.add(row);
    }

    int size() {
        return rows.size();
    }

    long offset(int i) {
        return offsets[i];
    }

    ColumnSet columns(int i) {
        return columns[i];
    }

    RowData row(int i) {
        return rows.get(i);
    }

    /**
     * Positions of the updates in ascending offset order; for an offset updated more than once,
     * only the last update is kept (updates of one offset with different column sets are refused).
     */
    int[] sortedUnique() {
        int n = rows.size();
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> a.equals(b) ? 0
                : offsets[a] != offsets[b] ? Long.compare(offsets[a], offsets[b]) : Integer.compare(a, b));
        int[] out = new int[n];
        int m = 0;
        for (int k = 0; k < n; k++) {
            int i = order[k];
            if (m > 0 && offsets[out[m - 1]] == offsets[i]) {
                int prev = out[m - 1];
                if (!columns[i].containsAll(columns[prev])) {
                    throw new IllegalArgumentException("Offset " + offsets[i] + " is updated twice in one checkpoint"
                            + " with different column sets; send one update per row and checkpoint");
                }
                out[m - 1] = i;
            } else {
                out[m++] = i;
            }
        }
        return Arrays.copyOf(out, m);
    }
}
