package dev.lanceflink.encoding.v20;

import java.nio.ByteBuffer;
import org.apache.arrow.memory.ArrowBuf;

/**
 * LSB-first bitmaps (Arrow validity / boolean layout, which is also what Lance 2.0 writes for
 * {@code flat{bits_per_value: 1}}) copied between a page slice and an Arrow buffer at arbitrary
 * bit offsets.
 *
 * <p>Why not per-bit loops: a page boundary rarely falls on a multiple of eight output rows, so
 * the copy works a byte of destination at a time, assembling each byte from at most two source
 * bytes; only the first and last destination bytes are merged with what is already there.
 */
final class Bitmaps {
    private Bitmaps() {}

    /**
     * Copies {@code count} bits starting at bit {@code srcBit} of {@code src} (absolute indexing
     * from 0, position and limit ignored) to bit {@code dstBit} of {@code dst}. Destination bits
     * outside the range are preserved.
     */
    static void copy(ByteBuffer src, long srcBit, ArrowBuf dst, long dstBit, long count) {
        if (count <= 0) {
            return;
        }
        long done = 0;
        // Head: bring the destination to a byte boundary.
        int headBits = (int) ((8 - (dstBit & 7)) & 7);
        if (headBits > 0) {
            int n = (int) Math.min(headBits, count);
            writeBits(dst, dstBit, readBits(src, srcBit, n), n);
            done = n;
        }
        // Body: whole destination bytes.
        long dstByte = (dstBit + done) >>> 3;
        long wholeBytes = (count - done) >>> 3;
        long s = srcBit + done;
        if ((s & 7) == 0) {
            int srcByte = (int) (s >>> 3);
            for (long i = 0; i < wholeBytes; i++) {
                dst.setByte(dstByte + i, src.get(srcByte + (int) i));
            }
        } else {
            for (long i = 0; i < wholeBytes; i++) {
                dst.setByte(dstByte + i, readBits(src, s + (i << 3), 8));
            }
        }
        done += wholeBytes << 3;
        // Tail.
        int tail = (int) (count - done);
        if (tail > 0) {
            writeBits(dst, dstBit + done, readBits(src, srcBit + done, tail), tail);
        }
    }

    /** Sets {@code count} bits starting at {@code dstBit} to 1. */
    static void setRange(ArrowBuf dst, long dstBit, long count) {
        fillRange(dst, dstBit, count, true);
    }

    /** Sets {@code count} bits starting at {@code dstBit} to 0. */
    static void clearRange(ArrowBuf dst, long dstBit, long count) {
        fillRange(dst, dstBit, count, false);
    }

    private static void fillRange(ArrowBuf dst, long dstBit, long count, boolean one) {
        if (count <= 0) {
            return;
        }
        long end = dstBit + count;
        long firstFull = (dstBit + 7) >>> 3;
        long lastFull = end >>> 3; // exclusive
        if (firstFull > lastFull) {
            // Range inside one byte.
            int mask = ((1 << count) - 1) << (int) (dstBit & 7);
            merge(dst, dstBit >>> 3, mask, one);
            return;
        }
        if ((dstBit & 7) != 0) {
            int mask = 0xFF & (0xFF << (int) (dstBit & 7));
            merge(dst, dstBit >>> 3, mask, one);
        }
        if (lastFull > firstFull) {
            if (one) {
                dst.setOne(firstFull, lastFull - firstFull);
            } else {
                dst.setZero(firstFull, lastFull - firstFull);
            }
        }
        if ((end & 7) != 0) {
            int mask = (1 << (int) (end & 7)) - 1;
            merge(dst, lastFull, mask, one);
        }
    }

    private static void merge(ArrowBuf dst, long byteIndex, int mask, boolean one) {
        int b = dst.getByte(byteIndex) & 0xFF;
        dst.setByte(byteIndex, one ? (b | mask) : (b & ~mask));
    }

    /** Reads {@code n ≤ 8} bits starting at absolute bit {@code bit} of {@code src}, LSB-first. */
    private static int readBits(ByteBuffer src, long bit, int n) {
        int byteIndex = (int) (bit >>> 3);
        int shift = (int) (bit & 7);
        int v = (src.get(byteIndex) & 0xFF) >>> shift;
        if (shift + n > 8) {
            v |= (src.get(byteIndex + 1) & 0xFF) << (8 - shift);
        }
        return v & ((1 << n) - 1);
    }

    /** Writes the low {@code n ≤ 8} bits of {@code value} at absolute bit {@code bit} of {@code dst}. */
    private static void writeBits(ArrowBuf dst, long bit, int value, int n) {
        long byteIndex = bit >>> 3;
        int shift = (int) (bit & 7);
        int mask = ((1 << n) - 1) << shift;
        int b = dst.getByte(byteIndex) & 0xFF;
        b = (b & ~mask) | ((value << shift) & mask);
        dst.setByte(byteIndex, b);
        if (shift + n > 8) {
            int rest = shift + n - 8;
            int mask2 = (1 << rest) - 1;
            int b2 = dst.getByte(byteIndex + 1) & 0xFF;
            b2 = (b2 & ~mask2) | ((value >>> (8 - shift)) & mask2);
            dst.setByte(byteIndex + 1, b2);
        }
    }

    /** Whether bit {@code bit} of {@code buf} is set. */
    static boolean get(ArrowBuf buf, long bit) {
        return ((buf.getByte(bit >>> 3) >>> (int) (bit & 7)) & 1) != 0;
    }
}
