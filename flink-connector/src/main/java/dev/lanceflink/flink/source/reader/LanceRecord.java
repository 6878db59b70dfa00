package dev.lanceflink.flink.source.reader;

import org.apache.flink.table.data.columnar.ColumnarRowData;

/**
 * The record handed from the fetcher to the emitter: a view of one row of the current batch and
 * the row's physical offset. One instance per batch is reused for all its rows, so emitting a
 * row allocates nothing.
 */
public final class LanceRecord {
    final ColumnarRowData row;
    long offset;

    LanceRecord(ColumnarRowData row) {
        this.row = row;
    }

    public ColumnarRowData row() {
        return row;
    }

    public long offset() {
        return offset;
    }
}
