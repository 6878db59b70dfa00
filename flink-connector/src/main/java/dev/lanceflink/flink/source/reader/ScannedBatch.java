package dev.lanceflink.flink.source.reader;

import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * One batch read from a split: the rows (output columns, then {@code _rowaddr} if asked) and the
 * physical offset of each row within its fragment, which becomes the split's resume position.
 */
record ScannedBatch(VectorSchemaRoot rows, long[] offsets) implements AutoCloseable {
    @Override
    public void close() {
        rows.close();
    }
}
