package dev.lanceflink.file.writer;

import java.util.Arrays;
import org.apache.arrow.memory.ArrowBuf;

/** A growable LSB-first bit array (Arrow validity / boolean layout). */
final class BitBuilder {
    private byte[] data = new byte[128];
    private long size;

    long size() {
        return size;
    }

    void clear() {
        Arrays.fill(data, 0, (int) Math.min(data.length, (size + 7) / 8), (byte) 0);
        size = 0;
    }

    private void ensure(long bits) {
        long bytes = (bits + 7) / 8;
        if (bytes > data.length) {
            data = Arrays.copyOf(data, (int) Math.max(bytes, (long) data.length * 2));
        }
    }

    void add(boolean bit) {
        ensure(size + 1);
        if (bit) {
            data[(int) (size >>> 3)] |= (byte) (1 << (size & 7));
        }
        size++;
    }

    void addRepeated(boolean bit, long count) {
        ensure(size + count);
        if (bit) {
            // Whole bytes at once (a page of non-null vectors adds dim bits per row), bit by bit
            // only up to the first byte boundary and after the last one.
            long p = size;
            long end = size + count;
            while (p < end && (p & 7) != 0) {
                data[(int) (p >>> 3)] |= (byte) (1 << (p & 7));
                p++;
            }
            int wholeBytes = (int) ((end - p) >>> 3);
            if (wholeBytes > 0) {
                int from = (int) (p >>> 3);
                Arrays.fill(data, from, from + wholeBytes, (byte) 0xFF);
                p += (long) wholeBytes << 3;
            }
            while (p < end) {
                data[(int) (p >>> 3)] |= (byte) (1 << (p & 7));
                p++;
            }
        }
        size += count;
    }

    /** Appends bits {@code [start, start + count)} of an Arrow bitmap. */
    void addArrowBits(ArrowBuf src, long start, long count) {
        ensure(size + count);
        if ((start & 7) == 0 && (size & 7) == 0) {
            int whole = (int) (count >>> 3);
            src.getBytes(start >>> 3, data, (int) (size >>> 3), whole);
            for (long i = (long) whole << 3; i < count; i++) {
                setIf(size + i, src, start + i);
            }
        } else {
            for (long i = 0; i < count; i++) {
                setIf(size + i, src, start + i);
            }
        }
        size += count;
    }

    private void setIf(long dst, ArrowBuf src, long srcBit) {
        if ((src.getByte(srcBit >>> 3) >> (srcBit & 7) & 1) != 0) {
            data[(int) (dst >>> 3)] |= (byte) (1 << (dst & 7));
        }
    }

    boolean get(long i) {
        return (data[(int) (i >>> 3)] >> (i & 7) & 1) != 0;
    }

    /** Appends bits {@code [start, start + count)} to {@code out}, re-aligned to start at bit 0. */
    void copyTo(ByteBuilder out, long start, long count) {
        int bytes = (int) ((count + 7) / 8);
        if ((start & 7) == 0) {
            out.putBytes(data, (int) (start >>> 3), bytes);
            int rem = (int) (count & 7);
            if (rem != 0) {
                int last = out.size() - 1;
                out.array()[last] &= (byte) ((1 << rem) - 1);
            }
            return;
        }
        for (int b = 0; b < bytes; b++) {
            int v = 0;
            for (int k = 0; k < 8; k++) {
                long i = (long) b * 8 + k;
                if (i < count && get(start + i)) {
                    v |= 1 << k;
                }
            }
            out.put(v);
        }
    }

    /** True iff any of the bits {@code [start, start + count)} is 0. */
    boolean anyClear(long start, long count) {
        for (long i = 0; i < count; i++) {
            if (!get(start + i)) {
                return true;
            }
        }
        return false;
    }
}
