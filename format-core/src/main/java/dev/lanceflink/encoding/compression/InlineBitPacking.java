package dev.lanceflink.encoding.compression;

import java.nio.ByteBuffer;

/**
 * {@code inline_bitpacking} (CompressiveEncoding member 5, compression.md §3.3): a sequence of
 * units, one per 1024 values, each {@code [W as one T-bit little-endian word][FastLanes block of
 * 128·W bytes]}. The bit width is stored per unit, so every mini-block chunk (Lance makes each
 * chunk exactly one unit) picks its own W; the final unit is zero-padded to 1024 values and
 * decoders keep only the first values they were asked for.
 *
 * <p>Used as mini-block value compressor (one unit per chunk) and as block compressor for at most
 * 1024 values (rep/def levels of small pages, small 64-bit dictionaries). This class accepts any
 * number of consecutive units, which covers both.
 */
public final class InlineBitPacking {
    private static final String SCHEME = "inline_bitpacking";

    private InlineBitPacking() {}

    /** Bytes of one unit of width {@code width}: {@code T/8 + 128·W}. */
    public static int unitSize(int bitsPerValue, int width) {
        int t = Buffers.checkWordBits(SCHEME, bitsPerValue);
        if (width < 0 || width > t) {
            throw new IllegalArgumentException(SCHEME + ": bit width " + width + " outside [0, " + t + "]");
        }
        return t / 8 + 128 * width;
    }

    /** Upper bound of {@link #encode} output for {@code count} values: every unit at W = T. */
    public static long maxEncodedSize(int bitsPerValue, int count) {
        int t = Buffers.checkWordBits(SCHEME, bitsPerValue);
        Buffers.checkCount(SCHEME, count);
        long units = (count + 1023L) / 1024;
        return units * (t / 8 + 128L * t);
    }

    // ---------------------------------------------------------------- decoding

    /**
     * Decodes {@code count} values from the units starting at {@code srcOffset} (at most
     * {@code srcLength} bytes) into raw little-endian T-bit values at {@code dstOffset} of
     * {@code dst}.
     *
     * @return the number of encoded bytes consumed
     */
    public static int decode(
            int bitsPerValue, ByteBuffer src, int srcOffset, int srcLength, int count, ByteBuffer dst, int dstOffset) {
        int t = Buffers.checkWordBits(SCHEME, bitsPerValue);
        Buffers.checkCount(SCHEME, count);
        Buffers.checkOutput(dst, dstOffset, (long) count * (t / 8));
        ByteBuffer in = Buffers.le(src);
        int pos = srcOffset;
        for (int done = 0; done < count; done += FastLanesBitPacking.BLOCK_VALUES) {
            int width = readWidth(t, in, srcOffset, srcLength, pos);
            pos += t / 8;
            int n = Math.min(FastLanesBitPacking.BLOCK_VALUES, count - done);
            checkBlock(srcOffset, srcLength, pos, width, done);
            FastLanesBitPacking.unpack(t, in, pos, width, dst, dstOffset + done * (t / 8), n);
            pos += 128 * width;
        }
        return pos - srcOffset;
    }

    /** Decodes {@code count} 8-bit values; see {@link #decode(int, ByteBuffer, int, int, int, ByteBuffer, int)}. */
    public static int decode(ByteBuffer src, int srcOffset, int srcLength, int count, byte[] dst, int dstOffset) {
        Buffers.checkCount(SCHEME, count);
        ByteBuffer in = Buffers.le(src);
        int pos = srcOffset;
        for (int done = 0; done < count; done += FastLanesBitPacking.BLOCK_VALUES) {
            int width = readWidth(8, in, srcOffset, srcLength, pos);
            pos += 1;
            checkBlock(srcOffset, srcLength, pos, width, done);
            FastLanesBitPacking.unpack(
                    in, pos, width, dst, dstOffset + done, Math.min(FastLanesBitPacking.BLOCK_VALUES, count - done));
            pos += 128 * width;
        }
        return pos - srcOffset;
    }

    /** Decodes {@code count} 16-bit values (e.g. rep/def levels). */
    public static int decode(ByteBuffer src, int srcOffset, int srcLength, int count, short[] dst, int dstOffset) {
        Buffers.checkCount(SCHEME, count);
        ByteBuffer in = Buffers.le(src);
        int pos = srcOffset;
        for (int done = 0; done < count; done += FastLanesBitPacking.BLOCK_VALUES) {
            int width = readWidth(16, in, srcOffset, srcLength, pos);
            pos += 2;
            checkBlock(srcOffset, srcLength, pos, width, done);
            FastLanesBitPacking.unpack(
                    in, pos, width, dst, dstOffset + done, Math.min(FastLanesBitPacking.BLOCK_VALUES, count - done));
            pos += 128 * width;
        }
        return pos - srcOffset;
    }

    /** Decodes {@code count} 32-bit values (e.g. dictionary indices). */
    public static int decode(ByteBuffer src, int srcOffset, int srcLength, int count, int[] dst, int dstOffset) {
        Buffers.checkCount(SCHEME, count);
        ByteBuffer in = Buffers.le(src);
        int pos = srcOffset;
        for (int done = 0; done < count; done += FastLanesBitPacking.BLOCK_VALUES) {
            int width = readWidth(32, in, srcOffset, srcLength, pos);
            pos += 4;
            checkBlock(srcOffset, srcLength, pos, width, done);
            FastLanesBitPacking.unpack(
                    in, pos, width, dst, dstOffset + done, Math.min(FastLanesBitPacking.BLOCK_VALUES, count - done));
            pos += 128 * width;
        }
        return pos - srcOffset;
    }

    /** Decodes {@code count} 64-bit values. */
    public static int decode(ByteBuffer src, int srcOffset, int srcLength, int count, long[] dst, int dstOffset) {
        Buffers.checkCount(SCHEME, count);
        ByteBuffer in = Buffers.le(src);
        int pos = srcOffset;
        for (int done = 0; done < count; done += FastLanesBitPacking.BLOCK_VALUES) {
            int width = readWidth(64, in, srcOffset, srcLength, pos);
            pos += 8;
            checkBlock(srcOffset, srcLength, pos, width, done);
            FastLanesBitPacking.unpack(
                    in, pos, width, dst, dstOffset + done, Math.min(FastLanesBitPacking.BLOCK_VALUES, count - done));
            pos += 128 * width;
        }
        return pos - srcOffset;
    }

    private static int readWidth(int t, ByteBuffer in, int srcOffset, int srcLength, int pos) {
        if (pos + t / 8 > srcOffset + srcLength) {
            throw new CompressedDataException(SCHEME + ": the " + t + "-bit width word of the unit at byte "
                    + (pos - srcOffset) + " lies beyond the " + srcLength + "-byte buffer; fewer units than values");
        }
        Buffers.checkRange(SCHEME, "width word", in, pos, t / 8);
        long width = switch (t) {
            case 8 -> in.get(pos) & 0xFFL;
            case 16 -> in.getShort(pos) & 0xFFFFL;
            case 32 -> in.getInt(pos) & 0xFFFFFFFFL;
            default -> in.getLong(pos);
        };
        if (width < 0 || width > t) {
            throw new CompressedDataException(SCHEME + ": the unit at byte " + (pos - srcOffset)
                    + " declares bit width " + width + ", outside [0, " + t + "] for " + t + "-bit values");
        }
        return (int) width;
    }

    private static void checkBlock(int srcOffset, int srcLength, int pos, int width, int firstValue) {
        if (pos + 128L * width > (long) srcOffset + srcLength) {
            throw new CompressedDataException(SCHEME + ": the block of values " + firstValue + "… (width " + width
                    + ", " + 128 * width + " bytes at byte " + (pos - srcOffset) + ") exceeds the "
                    + srcLength + "-byte buffer");
        }
    }

    // ---------------------------------------------------------------- encoding

    /**
     * Encodes {@code count} raw little-endian T-bit values from byte {@code srcOffset} of
     * {@code src}: one unit per 1024 values, each with the bit length of its own values' OR.
     *
     * @return bytes written at {@code dstOffset} of {@code dst} (at most {@link #maxEncodedSize})
     */
    public static int encode(
            int bitsPerValue, ByteBuffer src, int srcOffset, int count, ByteBuffer dst, int dstOffset) {
        int t = Buffers.checkWordBits(SCHEME, bitsPerValue);
        Buffers.checkCount(SCHEME, count);
        ByteBuffer out = Buffers.le(dst);
        int pos = dstOffset;
        for (int done = 0; done < count; done += FastLanesBitPacking.BLOCK_VALUES) {
            int n = Math.min(FastLanesBitPacking.BLOCK_VALUES, count - done);
            int from = srcOffset + done * (t / 8);
            int width = FastLanesBitPacking.bitWidth(t, src, from, n);
            pos = writeWidth(t, out, pos, width);
            FastLanesBitPacking.pack(t, src, from, n, width, out, pos);
            pos += 128 * width;
        }
        return pos - dstOffset;
    }

    /** Encodes 8-bit values; see {@link #encode(int, ByteBuffer, int, int, ByteBuffer, int)}. */
    public static int encode(byte[] src, int srcOffset, int count, ByteBuffer dst, int dstOffset) {
        Buffers.checkCount(SCHEME, count);
        ByteBuffer out = Buffers.le(dst);
        int pos = dstOffset;
        for (int done = 0; done < count; done += FastLanesBitPacking.BLOCK_VALUES) {
            int n = Math.min(FastLanesBitPacking.BLOCK_VALUES, count - done);
            int width = FastLanesBitPacking.bitWidth(src, srcOffset + done, n);
            pos = writeWidth(8, out, pos, width);
            FastLanesBitPacking.pack(src, srcOffset + done, n, width, out, pos);
            pos += 128 * width;
        }
        return pos - dstOffset;
    }

    /** Encodes 16-bit values. */
    public static int encode(short[] src, int srcOffset, int count, ByteBuffer dst, int dstOffset) {
        Buffers.checkCount(SCHEME, count);
        ByteBuffer out = Buffers.le(dst);
        int pos = dstOffset;
        for (int done = 0; done < count; done += FastLanesBitPacking.BLOCK_VALUES) {
            int n = Math.min(FastLanesBitPacking.BLOCK_VALUES, count - done);
            int width = FastLanesBitPacking.bitWidth(src, srcOffset + done, n);
            pos = writeWidth(16, out, pos, width);
            FastLanesBitPacking.pack(src, srcOffset + done, n, width, out, pos);
            pos += 128 * width;
        }
        return pos - dstOffset;
    }

    /** Encodes 32-bit values. */
    public static int encode(int[] src, int srcOffset, int count, ByteBuffer dst, int dstOffset) {
        Buffers.checkCount(SCHEME, count);
        ByteBuffer out = Buffers.le(dst);
        int pos = dstOffset;
        for (int done = 0; done < count; done += FastLanesBitPacking.BLOCK_VALUES) {
            int n = Math.min(FastLanesBitPacking.BLOCK_VALUES, count - done);
            int width = FastLanesBitPacking.bitWidth(src, srcOffset + done, n);
            pos = writeWidth(32, out, pos, width);
            FastLanesBitPacking.pack(src, srcOffset + done, n, width, out, pos);
            pos += 128 * width;
        }
        return pos - dstOffset;
    }

    /** Encodes 64-bit values. */
    public static int encode(long[] src, int srcOffset, int count, ByteBuffer dst, int dstOffset) {
        Buffers.checkCount(SCHEME, count);
        ByteBuffer out = Buffers.le(dst);
        int pos = dstOffset;
        for (int done = 0; done < count; done += FastLanesBitPacking.BLOCK_VALUES) {
            int n = Math.min(FastLanesBitPacking.BLOCK_VALUES, count - done);
            int width = FastLanesBitPacking.bitWidth(src, srcOffset + done, n);
            pos = writeWidth(64, out, pos, width);
            FastLanesBitPacking.pack(src, srcOffset + done, n, width, out, pos);
            pos += 128 * width;
        }
        return pos - dstOffset;
    }

    private static int writeWidth(int t, ByteBuffer out, int pos, int width) {
        Buffers.checkOutput(out, pos, t / 8 + 128L * width);
        switch (t) {
            case 8 -> out.put(pos, (byte) width);
            case 16 -> out.putShort(pos, (short) width);
            case 32 -> out.putInt(pos, width);
            default -> out.putLong(pos, width);
        }
        return pos + t / 8;
    }
}
