package dev.lanceflink.file.writer;

import java.util.Arrays;

/** A growable array of longs (variable-width end offsets). */
final class LongBuilder {
    private long[] data = new long[1024];
    private int size;

    int size() {
        return size;
    }

    long get(int i) {
        return data[i];
    }

    /** The backing array (valid up to {@link #size()}); replaced when the builder grows. */
    long[] array() {
        return data;
    }

    long last() {
        return size == 0 ? 0 : data[size - 1];
    }

    void add(long v) {
        if (size == data.length) {
            data = Arrays.copyOf(data, data.length * 2);
        }
        data[size++] = v;
    }

    void clear() {
        size = 0;
    }
}
