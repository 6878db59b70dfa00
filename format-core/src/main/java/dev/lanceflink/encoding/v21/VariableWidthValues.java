package dev.lanceflink.encoding.v21;

import dev.lanceflink.encoding.compression.FsstSymbolTable;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Variable-width value slots (strings, binaries): value {@code i} is
 * {@code data[offsets[i], offsets[i+1])}. Offsets are kept as {@code long} so that large_utf8 /
 * large_binary reads need no second representation.
 */
public final class VariableWidthValues implements Values {
    private long[] offsets;
    private byte[] data;
    private int count;

    private VariableWidthValues(long[] offsets, byte[] data, int count) {
        this.offsets = offsets;
        this.data = data;
        this.count = count;
    }

    /** Wraps (no copy) {@code count} values with {@code count + 1} offsets into {@code data}. */
    public static VariableWidthValues wrap(long[] offsets, byte[] data, int count) {
        if (offsets.length < count + 1) {
            throw new IllegalArgumentException(
                    count + " values need " + (count + 1) + " offsets, got " + offsets.length);
        }
        return new VariableWidthValues(offsets, data, count);
    }

    /** An empty builder. */
    public static VariableWidthValues builder(int capacity, int byteCapacity) {
        return new VariableWidthValues(new long[Math.max(capacity, 8) + 1], new byte[Math.max(byteCapacity, 64)], 0);
    }

    @Override
    public int count() {
        return count;
    }

    public long[] offsets() {
        return offsets;
    }

    public byte[] data() {
        return data;
    }

    public long start(int i) {
        return offsets[i];
    }

    public int length(int i) {
        return (int) (offsets[i + 1] - offsets[i]);
    }

    /** Total bytes of the values (from the first value's start, which is 0 for builders). */
    public long byteLength() {
        return offsets[count] - offsets[0];
    }

    @Override
    public VariableWidthValues emptyLike() {
        return builder(64, 256);
    }

    private void ensure(int values, long bytes) {
        if (values + 1 > offsets.length) {
            offsets = Arrays.copyOf(offsets, Math.max(values + 1, offsets.length * 2));
        }
        if (bytes > data.length) {
            if (bytes > Integer.MAX_VALUE - 16) {
                throw new IllegalStateException("more than 2 GiB of variable-width values in one read");
            }
            data = Arrays.copyOf(data, (int) Math.max(bytes, Math.min(Integer.MAX_VALUE - 16L, data.length * 2L)));
        }
    }

    /** Appends one value. */
    public void appendValue(byte[] src, int offset, int length) {
        long end = offsets[count] + length;
        ensure(count + 1, end);
        System.arraycopy(src, offset, data, (int) offsets[count], length);
        offsets[++count] = end;
    }

    /** Appends one value read from {@code src[at, at+length)} (absolute, position untouched). */
    public void appendValue(ByteBuffer src, int at, int length) {
        long end = offsets[count] + length;
        ensure(count + 1, end);
        src.get(at, data, (int) offsets[count], length);
        offsets[++count] = end;
    }

    /** Appends one FSST-compressed value from {@code src[at, at+length)}, decompressed in place. */
    public void appendFsst(FsstSymbolTable table, ByteBuffer src, int at, int length) {
        long out = table.decompressedLength(src, at, length);
        long end = offsets[count] + out;
        ensure(count + 1, end);
        table.decompress(src, at, length, data, (int) offsets[count]);
        offsets[++count] = end;
    }

    @Override
    public void append(Values src, int from, int to) {
        VariableWidthValues s = (VariableWidthValues) src;
        int n = to - from;
        long srcStart = s.offsets[from];
        long bytes = s.offsets[to] - srcStart;
        long base = offsets[count];
        ensure(count + n, base + bytes);
        System.arraycopy(s.data, (int) srcStart, data, (int) base, (int) bytes);
        long shift = base - srcStart;
        for (int i = 1; i <= n; i++) {
            offsets[count + i] = s.offsets[from + i] + shift;
        }
        count += n;
    }

    /** Sizes the offsets for {@code slots} more values; value bytes, unknown yet, grow on demand. */
    @Override
    public void expectSlots(int slots) {
        if (slots > 0) {
            ensure((int) Math.min(Integer.MAX_VALUE - 16L, (long) count + slots), offsets[count]);
        }
    }

    @Override
    public void appendPlaceholders(int n) {
        ensure(count + n, offsets[count]);
        long end = offsets[count];
        for (int i = 1; i <= n; i++) {
            offsets[count + i] = end;
        }
        count += n;
    }

    @Override
    public void appendGather(Values dictionary, FixedWidthValues indices, int from, int to) {
        VariableWidthValues d = (VariableWidthValues) dictionary;
        for (int i = from; i < to; i++) {
            long idx = indices.u32(i);
            if (idx >= d.count) {
                throw new IllegalArgumentException("dictionary index " + idx + " at slot " + i
                        + " is out of range for a dictionary of " + d.count + " items");
            }
            appendValue(d.data, (int) d.offsets[(int) idx], d.length((int) idx));
        }
    }
}
