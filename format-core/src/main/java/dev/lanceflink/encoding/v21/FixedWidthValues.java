package dev.lanceflink.encoding.v21;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Fixed-width value slots: {@code bitsPerValue / 8} little-endian bytes each, or for
 * {@code bitsPerValue == 1} (booleans) one bit each, LSB-first, as Arrow stores them.
 */
public final class FixedWidthValues implements Values {
    private final int bitsPerValue;
    private byte[] data;
    private int count;
    /** Slots announced by {@link #expectSlots}, applied at the next growth (0: none). */
    private int expected;

    private FixedWidthValues(int bitsPerValue, byte[] data, int count) {
        if (bitsPerValue != 1 && (bitsPerValue <= 0 || bitsPerValue % 8 != 0)) {
            throw new IllegalArgumentException("unsupported fixed width of " + bitsPerValue
                    + " bits: values must be 1 bit (booleans) or a whole number of bytes");
        }
        this.bitsPerValue = bitsPerValue;
        this.data = data;
        this.count = count;
    }

    /** Wraps {@code data} (not copied) holding {@code count} values. */
    public static FixedWidthValues wrap(int bitsPerValue, byte[] data, int count) {
        FixedWidthValues v = new FixedWidthValues(bitsPerValue, data, count);
        if (data.length < v.byteSize(count)) {
            throw new IllegalArgumentException(count + " values of " + bitsPerValue + " bits need " + v.byteSize(count)
                    + " bytes, got " + data.length);
        }
        return v;
    }

    /** An empty builder with room for {@code capacity} values. */
    public static FixedWidthValues builder(int bitsPerValue, int capacity) {
        FixedWidthValues v = new FixedWidthValues(bitsPerValue, new byte[0], 0);
        v.data = new byte[(int) v.byteSize(Math.max(capacity, 8))];
        return v;
    }

    public int bitsPerValue() {
        return bitsPerValue;
    }

    /** Backing bytes; valid up to {@link #byteSize(int) byteSize(count())}. */
    public byte[] data() {
        return data;
    }

    @Override
    public int count() {
        return count;
    }

    /** Bytes used by {@code n} values. */
    public long byteSize(int n) {
        return bitsPerValue == 1 ? (n + 7L) / 8 : (long) n * (bitsPerValue / 8);
    }

    /** Unsigned 32-bit value {@code i} (for 32-bit data, e.g. dictionary indices). */
    public long u32(int i) {
        int p = i * 4;
        return (data[p] & 0xFFL)
                | (data[p + 1] & 0xFFL) << 8
                | (data[p + 2] & 0xFFL) << 16
                | (data[p + 3] & 0xFFL) << 24;
    }

    /** Bit {@code i} of 1-bit data. */
    public boolean bit(int i) {
        return (data[i >>> 3] >>> (i & 7) & 1) != 0;
    }

    @Override
    public FixedWidthValues emptyLike() {
        return builder(bitsPerValue, 64);
    }

    private void ensure(int values) {
        long need = byteSize(values);
        if (need > data.length && expected > values) {
            long hinted = byteSize(expected);
            expected = 0;
            if (hinted <= Integer.MAX_VALUE - 16L) {
                need = hinted;
            }
        }
        if (need > data.length) {
            if (need > Integer.MAX_VALUE - 16) {
                throw new IllegalStateException("more than 2 GiB of fixed-width values in one read");
            }
            data = Arrays.copyOf(data, (int) Math.max(need, Math.min(Integer.MAX_VALUE - 16L, data.length * 2L)));
        }
    }

    @Override
    public void append(Values src, int from, int to) {
        FixedWidthValues s = (FixedWidthValues) src;
        if (s.bitsPerValue != bitsPerValue) {
            throw new IllegalArgumentException(
                    "cannot append " + s.bitsPerValue + "-bit values to " + bitsPerValue + "-bit values");
        }
        int n = to - from;
        ensure(count + n);
        if (bitsPerValue == 1) {
            for (int i = 0; i < n; i++) {
                setBit(count + i, s.bit(from + i));
            }
        } else {
            int w = bitsPerValue / 8;
            System.arraycopy(s.data, from * w, data, count * w, n * w);
        }
        count += n;
    }

    private void setBit(int i, boolean v) {
        if (v) {
            data[i >>> 3] |= (byte) (1 << (i & 7));
        } else {
            data[i >>> 3] &= (byte) ~(1 << (i & 7));
        }
    }

    /**
     * Appends one value from {@code src} at {@code at}: {@code bitsPerValue / 8} bytes, or for
     * booleans one byte whose non-zero value means true (full-zip widens booleans to a byte).
     */
    public void appendFrom(ByteBuffer src, int at) {
        ensure(count + 1);
        if (bitsPerValue == 1) {
            setBit(count, src.get(at) != 0);
        } else {
            int w = bitsPerValue / 8;
            src.get(at, data, count * w, w);
        }
        count++;
    }

    /**
     * Appends {@code n} consecutive values from {@code src} at {@code at}: {@code bitsPerValue / 8}
     * bytes each, or for booleans one byte each whose non-zero value means true.
     *
     * <p>When this builder is empty and {@code src} is a heap buffer whose backing array holds
     * exactly these values, the array is adopted instead of copied (a full read of a page range
     * then costs no copy at all). That is safe because slots {@code [0, count)} are never written
     * again and any later append first grows into a new array; it relies on
     * {@link PageBufferSource#read} handing out buffers that nobody modifies afterwards.
     */
    public void appendFrom(ByteBuffer src, int at, int n) {
        if (bitsPerValue == 1) {
            for (int i = 0; i < n; i++) {
                appendFrom(src, at + i);
            }
            return;
        }
        int w = bitsPerValue / 8;
        long bytes = (long) n * w;
        if (count == 0
                && src.hasArray()
                && src.arrayOffset() + at == 0
                && src.array().length == bytes
                && src.limit() - at >= bytes) {
            data = src.array();
            count = n;
            return;
        }
        ensure(count + n);
        src.get(at, data, count * w, n * w);
        count += n;
    }

    /**
     * Records the hint; the room is made at the next growth, so that a builder that adopts a
     * whole read buffer ({@link #appendFrom(ByteBuffer, int, int)}) allocates nothing.
     */
    @Override
    public void expectSlots(int slots) {
        expected = (int) Math.min(Integer.MAX_VALUE - 16L, (long) count + Math.max(0, slots));
    }

    @Override
    public void appendPlaceholders(int n) {
        ensure(count + n);
        if (bitsPerValue == 1) {
            for (int i = 0; i < n; i++) {
                setBit(count + i, false);
            }
        } else {
            int w = bitsPerValue / 8;
            Arrays.fill(data, count * w, (count + n) * w, (byte) 0);
        }
        count += n;
    }

    @Override
    public void appendGather(Values dictionary, FixedWidthValues indices, int from, int to) {
        FixedWidthValues d = (FixedWidthValues) dictionary;
        int n = to - from;
        ensure(count + n);
        int w = bitsPerValue / 8;
        for (int i = 0; i < n; i++) {
            long idx = indices.u32(from + i);
            if (idx >= d.count) {
                throw new IllegalArgumentException("dictionary index " + idx + " at slot " + (from + i)
                        + " is out of range for a dictionary of " + d.count + " items");
            }
            if (bitsPerValue == 1) {
                setBit(count + i, d.bit((int) idx));
            } else {
                System.arraycopy(d.data, (int) idx * w, data, (count + i) * w, w);
            }
        }
        count += n;
    }
}
