package dev.lanceflink.file.writer;

import java.util.Arrays;

/**
 * A growable array of 16-bit repetition or definition levels.
 *
 * <p>Zeros appended after the last non-zero entry are only counted, not stored, until something
 * reads the array: the definition codes of a column without nulls are all zero, and most pages
 * never need them (mini-block without lists reads no raw codes), so neither the 2 bytes per
 * value nor the array's growth are paid for them.
 */
final class ShortBuilder {
    private short[] data = new short[1024];
    private int size;
    /** Entries {@code [zerosFrom, size)} are zero and not yet written to {@link #data}. */
    private int zerosFrom;

    int size() {
        return size;
    }

    /** The entries (valid up to {@link #size()}); writes any pending zeros first. */
    short[] array() {
        materialize();
        return data;
    }

    short get(int i) {
        return i >= zerosFrom ? 0 : data[i];
    }

    void add(int v) {
        if (v == 0) {
            size++;
            return;
        }
        materialize();
        if (size == data.length) {
            data = Arrays.copyOf(data, data.length * 2);
        }
        data[size++] = (short) v;
        zerosFrom = size;
    }

    /** Appends {@code count} copies of {@code v}. */
    void addRepeated(int v, int count) {
        if (count <= 0) {
            return;
        }
        if (v == 0) {
            size += count;
            return;
        }
        materialize();
        ensureCapacity(size + count);
        Arrays.fill(data, size, size + count, (short) v);
        size += count;
        zerosFrom = size;
    }

    void clear() {
        size = 0;
        zerosFrom = 0;
    }

    private void materialize() {
        if (zerosFrom < size) {
            ensureCapacity(size);
            Arrays.fill(data, zerosFrom, size, (short) 0);
            zerosFrom = size;
        }
    }

    private void ensureCapacity(int needed) {
        if (needed > data.length) {
            data = Arrays.copyOf(data, Math.max(needed, data.length * 2));
        }
    }
}
