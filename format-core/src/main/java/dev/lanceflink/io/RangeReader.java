package dev.lanceflink.io;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;

/** Random-access reads of one object. Implementations must be safe for concurrent reads. */
public interface RangeReader extends Closeable {

    /** The object's size in bytes. */
    long size() throws IOException;

    /**
     * Reads exactly {@code length} bytes at {@code offset}. The buffer is positioned at 0, has
     * limit {@code length}, and its byte order is unspecified: callers set the order they need.
     *
     * @throws java.io.EOFException if the range goes past the end of the object
     */
    ByteBuffer read(long offset, int length) throws IOException;

    /**
     * Reads several ranges; result {@code i} is range {@code i}. Remote stores override this to
     * coalesce nearby ranges and fetch in parallel.
     */
    default ByteBuffer[] readRanges(long[] offsets, int[] lengths) throws IOException {
        ByteBuffer[] out = new ByteBuffer[offsets.length];
        for (int i = 0; i < offsets.length; i++) {
            out[i] = read(offsets[i], lengths[i]);
        }
        return out;
    }

    /** Reads the last {@code length} bytes (or the whole object if it is shorter). */
    default ByteBuffer readTail(int length) throws IOException {
        long size = size();
        int n = (int) Math.min(size, length);
        return read(size - n, n);
    }

    @Override
    default void close() throws IOException {}
}
