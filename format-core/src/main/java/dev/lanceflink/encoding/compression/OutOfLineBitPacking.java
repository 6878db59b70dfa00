package dev.lanceflink.encoding.compression;

import java.nio.ByteBuffer;

/**
 * {@code out_of_line_bitpacking} (CompressiveEncoding member 4, compression.md §3.4), a block
 * compressor with one bit width {@code W} for the whole buffer, taken from the encoding
 * ({@code values.flat.bits_per_value}), not from the data. For {@code n} values with
 * {@code full = n / 1024} and {@code r = n % 1024}:
 *
 * <pre>
 * full × [FastLanes block, 128·W bytes]
 * if r &gt; 0: one more block (tail zero-padded to 1024), 128·W bytes
 *          or the r tail values raw, T/8 bytes each
 * </pre>
 *
 * The reader tells the tail forms apart by size alone: the tail is raw iff the buffer is exactly
 * {@code full·128·W + r·T/8} bytes; when both sizes coincide the writer chose raw, so the rule is
 * unambiguous. The writer packs the tail iff {@code W·(1024 − r) < (T − W)·r}, i.e. iff padding
 * wastes fewer bits than the raw tail would.
 */
public final class OutOfLineBitPacking {
    private static final String SCHEME = "out_of_line_bitpacking";

    private OutOfLineBitPacking() {}

    /** Whether Lance's writer packs a tail of {@code tailCount} (1 … 1023) values rather than storing it raw. */
    public static boolean packsTail(int bitsPerValue, int width, int tailCount) {
        int t = Buffers.checkWordBits(SCHEME, bitsPerValue);
        return (long) width * (1024 - tailCount) < (long) (t - width) * tailCount;
    }

    /** Size of the encoded buffer Lance writes for {@code count} values of width {@code width}. */
    public static long encodedSize(int bitsPerValue, int width, int count) {
        int t = Buffers.checkWordBits(SCHEME, bitsPerValue);
        checkWidth(t, width);
        Buffers.checkCount(SCHEME, count);
        long full = count / 1024;
        int r = count % 1024;
        long size = full * 128L * width;
        if (r > 0) {
            size += packsTail(t, width, r) ? 128L * width : (long) r * (t / 8);
        }
        return size;
    }

    // ---------------------------------------------------------------- decoding

    /**
     * Decodes {@code count} values of width {@code width} from the {@code srcLength}-byte buffer at
     * {@code srcOffset} into raw little-endian T-bit values at {@code dstOffset} of {@code dst}.
     */
    public static void decode(
            int bitsPerValue,
            int width,
            ByteBuffer src,
            int srcOffset,
            int srcLength,
            int count,
            ByteBuffer dst,
            int dstOffset) {
        int t = Buffers.checkWordBits(SCHEME, bitsPerValue);
        boolean rawTail = layout(t, width, src, srcOffset, srcLength, count);
        Buffers.checkOutput(dst, dstOffset, (long) count * (t / 8));
        ByteBuffer in = Buffers.le(src);
        ByteBuffer out = Buffers.le(dst);
        int bytes = t / 8;
        int blocks = rawTail ? count / 1024 : (count + 1023) / 1024;
        int pos = srcOffset;
        for (int b = 0; b < blocks; b++) {
            int first = b * 1024;
            FastLanesBitPacking.unpack(
                    t, in, pos, width, out, dstOffset + first * bytes, Math.min(1024, count - first));
            pos += 128 * width;
        }
        int done = blocks * 1024;
        for (int p = pos, d = dstOffset + done * bytes, end = pos + (count - Math.min(done, count)) * bytes;
                p < end;
                p++, d++) {
            out.put(d, in.get(p));
        }
    }

    /** Decodes {@code count} 16-bit values (rep/def levels). */
    public static void decode(
            int width, ByteBuffer src, int srcOffset, int srcLength, int count, short[] dst, int dstOffset) {
        boolean rawTail = layout(16, width, src, srcOffset, srcLength, count);
        Buffers.checkArray(SCHEME, "decoded values", dst.length, dstOffset, count);
        ByteBuffer in = Buffers.le(src);
        int blocks = rawTail ? count / 1024 : (count + 1023) / 1024;
        int pos = srcOffset;
        for (int b = 0; b < blocks; b++) {
            int first = b * 1024;
            FastLanesBitPacking.unpack(in, pos, width, dst, dstOffset + first, Math.min(1024, count - first));
            pos += 128 * width;
        }
        for (int i = blocks * 1024; i < count; i++, pos += 2) {
            dst[dstOffset + i] = in.getShort(pos);
        }
    }

    /** Decodes {@code count} 32-bit values. */
    public static void decode(
            int width, ByteBuffer src, int srcOffset, int srcLength, int count, int[] dst, int dstOffset) {
        boolean rawTail = layout(32, width, src, srcOffset, srcLength, count);
        Buffers.checkArray(SCHEME, "decoded values", dst.length, dstOffset, count);
        ByteBuffer in = Buffers.le(src);
        int blocks = rawTail ? count / 1024 : (count + 1023) / 1024;
        int pos = srcOffset;
        for (int b = 0; b < blocks; b++) {
            int first = b * 1024;
            FastLanesBitPacking.unpack(in, pos, width, dst, dstOffset + first, Math.min(1024, count - first));
            pos += 128 * width;
        }
        for (int i = blocks * 1024; i < count; i++, pos += 4) {
            dst[dstOffset + i] = in.getInt(pos);
        }
    }

    /** Decodes {@code count} 64-bit values (2.2 dictionaries of 64-bit items). */
    public static void decode(
            int width, ByteBuffer src, int srcOffset, int srcLength, int count, long[] dst, int dstOffset) {
        boolean rawTail = layout(64, width, src, srcOffset, srcLength, count);
        Buffers.checkArray(SCHEME, "decoded values", dst.length, dstOffset, count);
        ByteBuffer in = Buffers.le(src);
        int blocks = rawTail ? count / 1024 : (count + 1023) / 1024;
        int pos = srcOffset;
        for (int b = 0; b < blocks; b++) {
            int first = b * 1024;
            FastLanesBitPacking.unpack(in, pos, width, dst, dstOffset + first, Math.min(1024, count - first));
            pos += 128 * width;
        }
        for (int i = blocks * 1024; i < count; i++, pos += 8) {
            dst[dstOffset + i] = in.getLong(pos);
        }
    }

    /** Validates the buffer size and returns whether the tail is stored raw. */
    private static boolean layout(int t, int width, ByteBuffer src, int srcOffset, int srcLength, int count) {
        checkWidth(t, width);
        Buffers.checkCount(SCHEME, count);
        Buffers.checkRange(SCHEME, "encoded buffer", src, srcOffset, srcLength);
        long full = count / 1024;
        int r = count % 1024;
        long rawSize = full * 128L * width + (long) r * (t / 8);
        long packedSize = (full + (r > 0 ? 1 : 0)) * 128L * width;
        if (srcLength == rawSize) {
            return true;
        }
        if (srcLength == packedSize) {
            return false;
        }
        throw new CompressedDataException(SCHEME + ": " + count + " values of " + t + " bits packed at width " + width
                + " take " + rawSize + " bytes (raw tail) or " + packedSize
                + " bytes (packed tail), but the buffer has "
                + srcLength + " bytes; the width in the encoding, the value count or the buffer size is wrong");
    }

    private static void checkWidth(int t, int width) {
        if (width < 0 || width > t) {
            throw new CompressedDataException(SCHEME + ": bit width " + width
                    + " (values.flat.bits_per_value) is outside [0, " + t + "] for " + t + "-bit values");
        }
    }

    // ---------------------------------------------------------------- encoding

    /**
     * Encodes {@code count} raw little-endian T-bit values at width {@code width} (which must hold
     * every value, e.g. {@link FastLanesBitPacking#bitWidth(int, ByteBuffer, int, int)} of the page),
     * choosing the tail form exactly as Lance does.
     *
     * @return bytes written, {@link #encodedSize}
     */
    public static int encode(
            int bitsPerValue, int width, ByteBuffer src, int srcOffset, int count, ByteBuffer dst, int dstOffset) {
        int t = Buffers.checkWordBits(SCHEME, bitsPerValue);
        long size = encodedSize(t, width, count);
        Buffers.checkOutput(dst, dstOffset, size);
        ByteBuffer in = Buffers.le(src);
        ByteBuffer out = Buffers.le(dst);
        int bytes = t / 8;
        int r = count % 1024;
        int blocks = count / 1024 + (r > 0 && packsTail(t, width, r) ? 1 : 0);
        int pos = dstOffset;
        for (int b = 0; b < blocks; b++) {
            int first = b * 1024;
            FastLanesBitPacking.pack(t, in, srcOffset + first * bytes, Math.min(1024, count - first), width, out, pos);
            pos += 128 * width;
        }
        for (int p = srcOffset + blocks * 1024 * bytes, end = srcOffset + count * bytes; p < end; p++) {
            out.put(pos++, in.get(p));
        }
        return pos - dstOffset;
    }

    /** Encodes 16-bit values (rep/def levels); see {@link #encode(int, int, ByteBuffer, int, int, ByteBuffer, int)}. */
    public static int encode(int width, short[] src, int srcOffset, int count, ByteBuffer dst, int dstOffset) {
        long size = encodedSize(16, width, count);
        Buffers.checkArray(SCHEME, "values to encode", src.length, srcOffset, count);
        Buffers.checkOutput(dst, dstOffset, size);
        ByteBuffer out = Buffers.le(dst);
        int r = count % 1024;
        int blocks = count / 1024 + (r > 0 && packsTail(16, width, r) ? 1 : 0);
        int pos = dstOffset;
        for (int b = 0; b < blocks; b++) {
            int first = b * 1024;
            FastLanesBitPacking.pack(src, srcOffset + first, Math.min(1024, count - first), width, out, pos);
            pos += 128 * width;
        }
        for (int i = blocks * 1024; i < count; i++, pos += 2) {
            out.putShort(pos, src[srcOffset + i]);
        }
        return pos - dstOffset;
    }

    /** Encodes 64-bit values (2.2 dictionary items). */
    public static int encode(int width, long[] src, int srcOffset, int count, ByteBuffer dst, int dstOffset) {
        long size = encodedSize(64, width, count);
        Buffers.checkArray(SCHEME, "values to encode", src.length, srcOffset, count);
        Buffers.checkOutput(dst, dstOffset, size);
        ByteBuffer out = Buffers.le(dst);
        int r = count % 1024;
        int blocks = count / 1024 + (r > 0 && packsTail(64, width, r) ? 1 : 0);
        int pos = dstOffset;
        for (int b = 0; b < blocks; b++) {
            int first = b * 1024;
            FastLanesBitPacking.pack(src, srcOffset + first, Math.min(1024, count - first), width, out, pos);
            pos += 128 * width;
        }
        for (int i = blocks * 1024; i < count; i++, pos += 8) {
            out.putLong(pos, src[srcOffset + i]);
        }
        return pos - dstOffset;
    }
}
