package dev.lanceflink.file.writer;

import java.util.Arrays;

/** A growable array of 16-bit repetition or definition levels. */
final class ShortBuilder {
    private short[] data = new short[1024];
    private int size;

    int size() {
        return size;
    }

    short[] array() {
        return data;
    }

    short get(int i) {
        return data[i];
    }

    void add(int v) {
        if (size == data.length) {
            data = Arrays.copyOf(data, data.length * 2);
        }
        data[size++] = (short) v;
    }

    /** Appends {@code count} copies of {@code v}. */
    void addRepeated(int v, int count) {
        if (size + count > data.length) {
            data = Arrays.copyOf(data, Math.max(size + count, data.length * 2));
        }
        Arrays.fill(data, size, size + count, (short) v);
        size += count;
    }

    void clear() {
        size = 0;
    }
}
