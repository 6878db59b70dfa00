package dev.lanceflink.encoding.compression;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The FastLanes bit-packing kernel that Lance vendors (compression.md §3.2): one block packs
 * exactly {@value #BLOCK_VALUES} values of {@code T} bits (T = 8, 16, 32, 64) into
 * {@code 1024·W/T} words of T bits, i.e. {@code 128·W} bytes, for a bit width {@code 0 ≤ W ≤ T}.
 *
 * <p>The word order is transposed, not natural: with {@code LANES = 1024/T}, lane {@code ℓ} owns
 * the W words at word positions {@code k·LANES + ℓ}; read as one little-endian bit stream they hold
 * the lane's T rows, row {@code r} in bits {@code [r·W, r·W + W)}, and row {@code r} of lane
 * {@code ℓ} is logical value {@code FL_ORDER[r/8]·16 + (r%8)·128 + ℓ} with
 * {@code FL_ORDER = [0, 4, 2, 6, 1, 5, 3, 7]}. Unpacking in natural order gives plausible but wrong
 * numbers, which is why every Lance bit-packed buffer must go through this class.
 *
 * <p>Values are raw unsigned bit patterns (no zig-zag, no frame of reference); bits above
 * {@code W} are ignored when packing. {@code W = 0} means "all zero" and occupies no bytes;
 * {@code W = T} is a pure permutation.
 *
 * <p>Why the loops look the way they do: unpacking walks rows outermost and lanes innermost, so for
 * one row the inner loop reads {@code LANES} consecutive packed words and writes {@code LANES}
 * consecutive output values with a loop-invariant shift (a shape the JIT unrolls and, for arrays,
 * vectorises). Packing walks lanes outermost and keeps the partially filled word in a register, so
 * each packed word is written exactly once and the output needs no pre-zeroing. Both loops are free
 * of per-value allocation and of data-dependent branches except the tail bound.
 *
 * <p>Packed bytes are always little-endian, whatever the {@link ByteBuffer#order()} of the buffers
 * passed in; all accesses are absolute, so positions and limits of the caller's buffers are never
 * changed. The {@code ByteBuffer} value variants read/write raw little-endian values (e.g. an Arrow
 * value buffer obtained through {@code ArrowBuf.nioBuffer}), so readers can unpack straight into
 * Arrow memory.
 */
public final class FastLanesBitPacking {
    /** Values per FastLanes block. */
    public static final int BLOCK_VALUES = 1024;

    private static final String SCHEME = "FastLanes bit-packing";
    private static final int[] FL_ORDER = {0, 4, 2, 6, 1, 5, 3, 7};
    private static final int[] ROW_BASE_8 = rowBases(8);
    private static final int[] ROW_BASE_16 = rowBases(16);
    private static final int[] ROW_BASE_32 = rowBases(32);
    private static final int[] ROW_BASE_64 = rowBases(64);

    private FastLanesBitPacking() {}

    /** Logical index of row {@code r}, lane 0, for each row of a T-bit block. */
    private static int[] rowBases(int t) {
        int[] bases = new int[t];
        for (int r = 0; r < t; r++) {
            bases[r] = FL_ORDER[r >>> 3] * 16 + (r & 7) * 128;
        }
        return bases;
    }

    /** Bytes of one packed block of bit width {@code width}: {@code 128·W}. */
    public static int packedBytes(int width) {
        if (width < 0 || width > 64) {
            throw new IllegalArgumentException(SCHEME + ": bit width must be in [0, 64], got " + width);
        }
        return 128 * width;
    }

    // ---------------------------------------------------------------- bit widths

    /** Bit length of the OR of {@code values[offset, offset+count)} as unsigned 8-bit patterns (0 … 8). */
    public static int bitWidth(byte[] values, int offset, int count) {
        Buffers.checkArray(SCHEME, "bit width of values", values.length, offset, count);
        int or = 0;
        for (int i = offset, end = offset + count; i < end; i++) {
            or |= values[i];
        }
        return 32 - Integer.numberOfLeadingZeros(or & 0xFF);
    }

    /** Bit length of the OR of {@code values[offset, offset+count)} as unsigned 16-bit patterns (0 … 16). */
    public static int bitWidth(short[] values, int offset, int count) {
        Buffers.checkArray(SCHEME, "bit width of values", values.length, offset, count);
        int or = 0;
        for (int i = offset, end = offset + count; i < end; i++) {
            or |= values[i];
        }
        return 32 - Integer.numberOfLeadingZeros(or & 0xFFFF);
    }

    /** Bit length of the OR of {@code values[offset, offset+count)} as unsigned 32-bit patterns (0 … 32). */
    public static int bitWidth(int[] values, int offset, int count) {
        Buffers.checkArray(SCHEME, "bit width of values", values.length, offset, count);
        int or = 0;
        for (int i = offset, end = offset + count; i < end; i++) {
            or |= values[i];
        }
        return 32 - Integer.numberOfLeadingZeros(or);
    }

    /** Bit length of the OR of {@code values[offset, offset+count)} as unsigned 64-bit patterns (0 … 64). */
    public static int bitWidth(long[] values, int offset, int count) {
        Buffers.checkArray(SCHEME, "bit width of values", values.length, offset, count);
        long or = 0;
        for (int i = offset, end = offset + count; i < end; i++) {
            or |= values[i];
        }
        return 64 - Long.numberOfLeadingZeros(or);
    }

    /**
     * Bit length of the OR of {@code count} raw little-endian {@code bitsPerValue}-bit values
     * starting at byte {@code offset} of {@code values}.
     */
    public static int bitWidth(int bitsPerValue, ByteBuffer values, int offset, int count) {
        Buffers.checkWordBits(SCHEME, bitsPerValue);
        Buffers.checkCount(SCHEME, count);
        Buffers.checkRange(SCHEME, "bit width of values", values, offset, (long) count * (bitsPerValue / 8));
        ByteBuffer in = Buffers.le(values);
        long or = 0;
        int pos = offset;
        // Eight bytes at a time whatever T is: the OR of raw bytes has the same highest set bit per
        // T-bit lane, and the lanes are folded together at the end.
        for (int end = offset + count * (bitsPerValue / 8); pos + 8 <= end; pos += 8) {
            or |= in.getLong(pos);
        }
        for (int end = offset + count * (bitsPerValue / 8); pos < end; pos++) {
            or |= (in.get(pos) & 0xFFL) << (8 * ((pos - offset) & 7));
        }
        switch (bitsPerValue) {
            case 8:
                or |= or >>> 32;
                or |= or >>> 16;
                or |= or >>> 8;
                return 32 - Integer.numberOfLeadingZeros((int) or & 0xFF);
            case 16:
                or |= or >>> 32;
                or |= or >>> 16;
                return 32 - Integer.numberOfLeadingZeros((int) or & 0xFFFF);
            case 32:
                or |= or >>> 32;
                return 32 - Integer.numberOfLeadingZeros((int) or);
            default:
                return 64 - Long.numberOfLeadingZeros(or);
        }
    }

    // ---------------------------------------------------------------- unpacking

    /**
     * Unpacks the first {@code count} values of the block of width {@code width} starting at byte
     * {@code srcOffset} of {@code src} into {@code dst[dstOffset, dstOffset+count)}.
     *
     * @param count 0 … 1024; the block always occupies {@code 128·W} bytes, values beyond
     *     {@code count} (zero padding of a short final block) are not written
     */
    public static void unpack(ByteBuffer src, int srcOffset, int width, byte[] dst, int dstOffset, int count) {
        checkUnpack(8, src, srcOffset, width, count);
        Buffers.checkArray(SCHEME, "unpacked values", dst.length, dstOffset, count);
        if (width == 0) {
            Arrays.fill(dst, dstOffset, dstOffset + count, (byte) 0);
        } else {
            unpack8(Buffers.le(src), srcOffset, width, dst, dstOffset, count);
        }
    }

    /** As {@link #unpack(ByteBuffer, int, int, byte[], int, int)} for T = 16. */
    public static void unpack(ByteBuffer src, int srcOffset, int width, short[] dst, int dstOffset, int count) {
        checkUnpack(16, src, srcOffset, width, count);
        Buffers.checkArray(SCHEME, "unpacked values", dst.length, dstOffset, count);
        if (width == 0) {
            Arrays.fill(dst, dstOffset, dstOffset + count, (short) 0);
        } else {
            unpack16(Buffers.le(src), srcOffset, width, dst, dstOffset, count);
        }
    }

    /** As {@link #unpack(ByteBuffer, int, int, byte[], int, int)} for T = 32. */
    public static void unpack(ByteBuffer src, int srcOffset, int width, int[] dst, int dstOffset, int count) {
        checkUnpack(32, src, srcOffset, width, count);
        Buffers.checkArray(SCHEME, "unpacked values", dst.length, dstOffset, count);
        if (width == 0) {
            Arrays.fill(dst, dstOffset, dstOffset + count, 0);
        } else {
            unpack32(Buffers.le(src), srcOffset, width, dst, dstOffset, count);
        }
    }

    /** As {@link #unpack(ByteBuffer, int, int, byte[], int, int)} for T = 64. */
    public static void unpack(ByteBuffer src, int srcOffset, int width, long[] dst, int dstOffset, int count) {
        checkUnpack(64, src, srcOffset, width, count);
        Buffers.checkArray(SCHEME, "unpacked values", dst.length, dstOffset, count);
        if (width == 0) {
            Arrays.fill(dst, dstOffset, dstOffset + count, 0L);
        } else {
            unpack64(Buffers.le(src), srcOffset, width, dst, dstOffset, count);
        }
    }

    /**
     * Unpacks the first {@code count} values of a T-bit block into raw little-endian values at byte
     * {@code dstOffset} of {@code dst} ({@code count·T/8} bytes written).
     */
    public static void unpack(
            int bitsPerValue, ByteBuffer src, int srcOffset, int width, ByteBuffer dst, int dstOffset, int count) {
        int t = Buffers.checkWordBits(SCHEME, bitsPerValue);
        checkUnpack(t, src, srcOffset, width, count);
        Buffers.checkOutput(dst, dstOffset, (long) count * (t / 8));
        ByteBuffer out = Buffers.le(dst);
        if (width == 0) {
            for (int p = dstOffset, end = dstOffset + count * (t / 8); p < end; p++) {
                out.put(p, (byte) 0);
            }
            return;
        }
        ByteBuffer in = Buffers.le(src);
        switch (t) {
            case 8 -> unpack8(in, srcOffset, width, out, dstOffset, count);
            case 16 -> unpack16(in, srcOffset, width, out, dstOffset, count);
            case 32 -> unpack32(in, srcOffset, width, out, dstOffset, count);
            default -> unpack64(in, srcOffset, width, out, dstOffset, count);
        }
    }

    // ---------------------------------------------------------------- packing

    /**
     * Packs {@code src[srcOffset, srcOffset+count)} as one block of width {@code width}, writing
     * {@code 128·W} bytes at {@code dstOffset} of {@code dst}; a short block ({@code count < 1024})
     * is zero-padded to 1024 values, as Lance does for the last chunk.
     */
    public static void pack(byte[] src, int srcOffset, int count, int width, ByteBuffer dst, int dstOffset) {
        checkPack(8, count, width, dst, dstOffset);
        Buffers.checkArray(SCHEME, "values to pack", src.length, srcOffset, count);
        if (width > 0) {
            pack8(src, srcOffset, count, width, Buffers.le(dst), dstOffset);
        }
    }

    /** As {@link #pack(byte[], int, int, int, ByteBuffer, int)} for T = 16. */
    public static void pack(short[] src, int srcOffset, int count, int width, ByteBuffer dst, int dstOffset) {
        checkPack(16, count, width, dst, dstOffset);
        Buffers.checkArray(SCHEME, "values to pack", src.length, srcOffset, count);
        if (width > 0) {
            pack16(src, srcOffset, count, width, Buffers.le(dst), dstOffset);
        }
    }

    /** As {@link #pack(byte[], int, int, int, ByteBuffer, int)} for T = 32. */
    public static void pack(int[] src, int srcOffset, int count, int width, ByteBuffer dst, int dstOffset) {
        checkPack(32, count, width, dst, dstOffset);
        Buffers.checkArray(SCHEME, "values to pack", src.length, srcOffset, count);
        if (width > 0) {
            pack32(src, srcOffset, count, width, Buffers.le(dst), dstOffset);
        }
    }

    /** As {@link #pack(byte[], int, int, int, ByteBuffer, int)} for T = 64. */
    public static void pack(long[] src, int srcOffset, int count, int width, ByteBuffer dst, int dstOffset) {
        checkPack(64, count, width, dst, dstOffset);
        Buffers.checkArray(SCHEME, "values to pack", src.length, srcOffset, count);
        if (width > 0) {
            pack64(src, srcOffset, count, width, Buffers.le(dst), dstOffset);
        }
    }

    /**
     * Packs {@code count} raw little-endian T-bit values read from byte {@code srcOffset} of
     * {@code src} as one block (zero-padded to 1024 values) at {@code dstOffset} of {@code dst}.
     */
    public static void pack(
            int bitsPerValue, ByteBuffer src, int srcOffset, int count, int width, ByteBuffer dst, int dstOffset) {
        int t = Buffers.checkWordBits(SCHEME, bitsPerValue);
        checkPack(t, count, width, dst, dstOffset);
        if (srcOffset < 0 || (long) srcOffset + (long) count * (t / 8) > src.limit()) {
            throw new IndexOutOfBoundsException(SCHEME + ": values to pack need bytes [" + srcOffset + ", "
                    + ((long) srcOffset + (long) count * (t / 8)) + ") but the source has " + src.limit());
        }
        if (width == 0) {
            return;
        }
        ByteBuffer in = Buffers.le(src);
        ByteBuffer out = Buffers.le(dst);
        switch (t) {
            case 8 -> pack8(in, srcOffset, count, width, out, dstOffset);
            case 16 -> pack16(in, srcOffset, count, width, out, dstOffset);
            case 32 -> pack32(in, srcOffset, count, width, out, dstOffset);
            default -> pack64(in, srcOffset, count, width, out, dstOffset);
        }
    }

    // ---------------------------------------------------------------- checks

    private static void checkWidth(int t, int width) {
        if (width < 0 || width > t) {
            throw new CompressedDataException(
                    SCHEME + ": bit width " + width + " is outside [0, " + t + "] for " + t + "-bit values");
        }
    }

    private static void checkUnpack(int t, ByteBuffer src, int srcOffset, int width, int count) {
        checkWidth(t, width);
        if (count < 0 || count > BLOCK_VALUES) {
            throw new IllegalArgumentException(SCHEME + ": a block holds 0 … 1024 values, asked to unpack " + count);
        }
        Buffers.checkRange(SCHEME, "a " + t + "-bit block of width " + width, src, srcOffset, 128L * width);
    }

    private static void checkPack(int t, int count, int width, ByteBuffer dst, int dstOffset) {
        if (width < 0 || width > t) {
            throw new IllegalArgumentException(
                    SCHEME + ": bit width " + width + " is outside [0, " + t + "] for " + t + "-bit values");
        }
        if (count < 0 || count > BLOCK_VALUES) {
            throw new IllegalArgumentException(SCHEME + ": a block holds 0 … 1024 values, asked to pack " + count);
        }
        Buffers.checkOutput(dst, dstOffset, 128L * width);
    }

    // ---------------------------------------------------------------- kernels (one per T and value container)

    private static void unpack8(ByteBuffer in, int srcOffset, int width, byte[] dst, int dstOffset, int count) {
        final int mask = width == 8 ? 0xFF : (1 << width) - 1;
        for (int r = 0; r < 8; r++) {
            final int base = ROW_BASE_8[r];
            final int n = Math.min(128, count - base);
            if (n <= 0) {
                continue;
            }
            final int bit = r * width;
            final int shift = bit & 7;
            final int lo = srcOffset + (bit >>> 3) * 128;
            final int d = dstOffset + base;
            if (shift + width <= 8) {
                for (int l = 0; l < n; l++) {
                    dst[d + l] = (byte) (((in.get(lo + l) & 0xFF) >>> shift) & mask);
                }
            } else {
                final int hi = lo + 128;
                final int up = 8 - shift;
                for (int l = 0; l < n; l++) {
                    dst[d + l] =
                            (byte) ((((in.get(lo + l) & 0xFF) >>> shift) | ((in.get(hi + l) & 0xFF) << up)) & mask);
                }
            }
        }
    }

    private static void unpack8(ByteBuffer in, int srcOffset, int width, ByteBuffer dst, int dstOffset, int count) {
        final int mask = width == 8 ? 0xFF : (1 << width) - 1;
        for (int r = 0; r < 8; r++) {
            final int base = ROW_BASE_8[r];
            final int n = Math.min(128, count - base);
            if (n <= 0) {
                continue;
            }
            final int bit = r * width;
            final int shift = bit & 7;
            final int lo = srcOffset + (bit >>> 3) * 128;
            final int d = dstOffset + base;
            if (shift + width <= 8) {
                for (int l = 0; l < n; l++) {
                    dst.put(d + l, (byte) (((in.get(lo + l) & 0xFF) >>> shift) & mask));
                }
            } else {
                final int hi = lo + 128;
                final int up = 8 - shift;
                for (int l = 0; l < n; l++) {
                    dst.put(d + l, (byte)
                            ((((in.get(lo + l) & 0xFF) >>> shift) | ((in.get(hi + l) & 0xFF) << up)) & mask));
                }
            }
        }
    }

    private static void pack8(byte[] src, int srcOffset, int count, int width, ByteBuffer out, int dstOffset) {
        final int mask = width == 8 ? 0xFF : (1 << width) - 1;
        for (int l = 0; l < 128; l++) {
            int acc = 0;
            int filled = 0;
            int pos = dstOffset + l;
            for (int r = 0; r < 8; r++) {
                final int i = ROW_BASE_8[r] + l;
                final int v = i < count ? (src[srcOffset + i] & 0xFF) & mask : 0;
                acc |= v << filled;
                filled += width;
                if (filled >= 8) {
                    out.put(pos, (byte) acc);
                    pos += 128;
                    filled -= 8;
                    acc = filled == 0 ? 0 : v >>> (width - filled);
                }
            }
        }
    }

    private static void pack8(ByteBuffer src, int srcOffset, int count, int width, ByteBuffer out, int dstOffset) {
        final int mask = width == 8 ? 0xFF : (1 << width) - 1;
        for (int l = 0; l < 128; l++) {
            int acc = 0;
            int filled = 0;
            int pos = dstOffset + l;
            for (int r = 0; r < 8; r++) {
                final int i = ROW_BASE_8[r] + l;
                final int v = i < count ? (src.get(srcOffset + i) & 0xFF) & mask : 0;
                acc |= v << filled;
                filled += width;
                if (filled >= 8) {
                    out.put(pos, (byte) acc);
                    pos += 128;
                    filled -= 8;
                    acc = filled == 0 ? 0 : v >>> (width - filled);
                }
            }
        }
    }

    private static void unpack16(ByteBuffer in, int srcOffset, int width, short[] dst, int dstOffset, int count) {
        final int mask = width == 16 ? 0xFFFF : (1 << width) - 1;
        for (int r = 0; r < 16; r++) {
            final int base = ROW_BASE_16[r];
            final int n = Math.min(64, count - base);
            if (n <= 0) {
                continue;
            }
            final int bit = r * width;
            final int shift = bit & 15;
            final int lo = srcOffset + (bit >>> 4) * 128;
            final int d = dstOffset + base;
            if (shift + width <= 16) {
                for (int l = 0; l < n; l++) {
                    dst[d + l] = (short) (((in.getShort(lo + l * 2) & 0xFFFF) >>> shift) & mask);
                }
            } else {
                final int hi = lo + 128;
                final int up = 16 - shift;
                for (int l = 0; l < n; l++) {
                    dst[d + l] = (short) ((((in.getShort(lo + l * 2) & 0xFFFF) >>> shift)
                                    | ((in.getShort(hi + l * 2) & 0xFFFF) << up))
                            & mask);
                }
            }
        }
    }

    private static void unpack16(ByteBuffer in, int srcOffset, int width, ByteBuffer dst, int dstOffset, int count) {
        final int mask = width == 16 ? 0xFFFF : (1 << width) - 1;
        for (int r = 0; r < 16; r++) {
            final int base = ROW_BASE_16[r];
            final int n = Math.min(64, count - base);
            if (n <= 0) {
                continue;
            }
            final int bit = r * width;
            final int shift = bit & 15;
            final int lo = srcOffset + (bit >>> 4) * 128;
            final int d = dstOffset + base * 2;
            if (shift + width <= 16) {
                for (int l = 0; l < n; l++) {
                    dst.putShort(d + l * 2, (short) (((in.getShort(lo + l * 2) & 0xFFFF) >>> shift) & mask));
                }
            } else {
                final int hi = lo + 128;
                final int up = 16 - shift;
                for (int l = 0; l < n; l++) {
                    dst.putShort(d + l * 2, (short) ((((in.getShort(lo + l * 2) & 0xFFFF) >>> shift)
                                    | ((in.getShort(hi + l * 2) & 0xFFFF) << up))
                            & mask));
                }
            }
        }
    }

    private static void pack16(short[] src, int srcOffset, int count, int width, ByteBuffer out, int dstOffset) {
        final int mask = width == 16 ? 0xFFFF : (1 << width) - 1;
        for (int l = 0; l < 64; l++) {
            int acc = 0;
            int filled = 0;
            int pos = dstOffset + l * 2;
            for (int r = 0; r < 16; r++) {
                final int i = ROW_BASE_16[r] + l;
                final int v = i < count ? (src[srcOffset + i] & 0xFFFF) & mask : 0;
                acc |= v << filled;
                filled += width;
                if (filled >= 16) {
                    out.putShort(pos, (short) acc);
                    pos += 128;
                    filled -= 16;
                    acc = filled == 0 ? 0 : v >>> (width - filled);
                }
            }
        }
    }

    private static void pack16(ByteBuffer src, int srcOffset, int count, int width, ByteBuffer out, int dstOffset) {
        final int mask = width == 16 ? 0xFFFF : (1 << width) - 1;
        for (int l = 0; l < 64; l++) {
            int acc = 0;
            int filled = 0;
            int pos = dstOffset + l * 2;
            for (int r = 0; r < 16; r++) {
                final int i = ROW_BASE_16[r] + l;
                final int v = i < count ? (src.getShort(srcOffset + i * 2) & 0xFFFF) & mask : 0;
                acc |= v << filled;
                filled += width;
                if (filled >= 16) {
                    out.putShort(pos, (short) acc);
                    pos += 128;
                    filled -= 16;
                    acc = filled == 0 ? 0 : v >>> (width - filled);
                }
            }
        }
    }

    private static void unpack32(ByteBuffer in, int srcOffset, int width, int[] dst, int dstOffset, int count) {
        final int mask = width == 32 ? -1 : (1 << width) - 1;
        for (int r = 0; r < 32; r++) {
            final int base = ROW_BASE_32[r];
            final int n = Math.min(32, count - base);
            if (n <= 0) {
                continue;
            }
            final int bit = r * width;
            final int shift = bit & 31;
            final int lo = srcOffset + (bit >>> 5) * 128;
            final int d = dstOffset + base;
            if (shift + width <= 32) {
                for (int l = 0; l < n; l++) {
                    dst[d + l] = ((in.getInt(lo + l * 4) >>> shift) & mask);
                }
            } else {
                final int hi = lo + 128;
                final int up = 32 - shift;
                for (int l = 0; l < n; l++) {
                    dst[d + l] = (((in.getInt(lo + l * 4) >>> shift) | (in.getInt(hi + l * 4) << up)) & mask);
                }
            }
        }
    }

    private static void unpack32(ByteBuffer in, int srcOffset, int width, ByteBuffer dst, int dstOffset, int count) {
        final int mask = width == 32 ? -1 : (1 << width) - 1;
        for (int r = 0; r < 32; r++) {
            final int base = ROW_BASE_32[r];
            final int n = Math.min(32, count - base);
            if (n <= 0) {
                continue;
            }
            final int bit = r * width;
            final int shift = bit & 31;
            final int lo = srcOffset + (bit >>> 5) * 128;
            final int d = dstOffset + base * 4;
            if (shift + width <= 32) {
                for (int l = 0; l < n; l++) {
                    dst.putInt(d + l * 4, ((in.getInt(lo + l * 4) >>> shift) & mask));
                }
            } else {
                final int hi = lo + 128;
                final int up = 32 - shift;
                for (int l = 0; l < n; l++) {
                    dst.putInt(d + l * 4, (((in.getInt(lo + l * 4) >>> shift) | (in.getInt(hi + l * 4) << up)) & mask));
                }
            }
        }
    }

    private static void pack32(int[] src, int srcOffset, int count, int width, ByteBuffer out, int dstOffset) {
        final int mask = width == 32 ? -1 : (1 << width) - 1;
        for (int l = 0; l < 32; l++) {
            int acc = 0;
            int filled = 0;
            int pos = dstOffset + l * 4;
            for (int r = 0; r < 32; r++) {
                final int i = ROW_BASE_32[r] + l;
                final int v = i < count ? (src[srcOffset + i]) & mask : 0;
                acc |= v << filled;
                filled += width;
                if (filled >= 32) {
                    out.putInt(pos, acc);
                    pos += 128;
                    filled -= 32;
                    acc = filled == 0 ? 0 : v >>> (width - filled);
                }
            }
        }
    }

    private static void pack32(ByteBuffer src, int srcOffset, int count, int width, ByteBuffer out, int dstOffset) {
        final int mask = width == 32 ? -1 : (1 << width) - 1;
        for (int l = 0; l < 32; l++) {
            int acc = 0;
            int filled = 0;
            int pos = dstOffset + l * 4;
            for (int r = 0; r < 32; r++) {
                final int i = ROW_BASE_32[r] + l;
                final int v = i < count ? (src.getInt(srcOffset + i * 4)) & mask : 0;
                acc |= v << filled;
                filled += width;
                if (filled >= 32) {
                    out.putInt(pos, acc);
                    pos += 128;
                    filled -= 32;
                    acc = filled == 0 ? 0 : v >>> (width - filled);
                }
            }
        }
    }

    private static void unpack64(ByteBuffer in, int srcOffset, int width, long[] dst, int dstOffset, int count) {
        final long mask = width == 64 ? -1L : (1L << width) - 1;
        for (int r = 0; r < 64; r++) {
            final int base = ROW_BASE_64[r];
            final int n = Math.min(16, count - base);
            if (n <= 0) {
                continue;
            }
            final int bit = r * width;
            final int shift = bit & 63;
            final int lo = srcOffset + (bit >>> 6) * 128;
            final int d = dstOffset + base;
            if (shift + width <= 64) {
                for (int l = 0; l < n; l++) {
                    dst[d + l] = ((in.getLong(lo + l * 8) >>> shift) & mask);
                }
            } else {
                final int hi = lo + 128;
                final int up = 64 - shift;
                for (int l = 0; l < n; l++) {
                    dst[d + l] = (((in.getLong(lo + l * 8) >>> shift) | (in.getLong(hi + l * 8) << up)) & mask);
                }
            }
        }
    }

    private static void unpack64(ByteBuffer in, int srcOffset, int width, ByteBuffer dst, int dstOffset, int count) {
        final long mask = width == 64 ? -1L : (1L << width) - 1;
        for (int r = 0; r < 64; r++) {
            final int base = ROW_BASE_64[r];
            final int n = Math.min(16, count - base);
            if (n <= 0) {
                continue;
            }
            final int bit = r * width;
            final int shift = bit & 63;
            final int lo = srcOffset + (bit >>> 6) * 128;
            final int d = dstOffset + base * 8;
            if (shift + width <= 64) {
                for (int l = 0; l < n; l++) {
                    dst.putLong(d + l * 8, ((in.getLong(lo + l * 8) >>> shift) & mask));
                }
            } else {
                final int hi = lo + 128;
                final int up = 64 - shift;
                for (int l = 0; l < n; l++) {
                    dst.putLong(
                            d + l * 8, (((in.getLong(lo + l * 8) >>> shift) | (in.getLong(hi + l * 8) << up)) & mask));
                }
            }
        }
    }

    private static void pack64(long[] src, int srcOffset, int count, int width, ByteBuffer out, int dstOffset) {
        final long mask = width == 64 ? -1L : (1L << width) - 1;
        for (int l = 0; l < 16; l++) {
            long acc = 0;
            int filled = 0;
            int pos = dstOffset + l * 8;
            for (int r = 0; r < 64; r++) {
                final int i = ROW_BASE_64[r] + l;
                final long v = i < count ? (src[srcOffset + i]) & mask : 0;
                acc |= v << filled;
                filled += width;
                if (filled >= 64) {
                    out.putLong(pos, acc);
                    pos += 128;
                    filled -= 64;
                    acc = filled == 0 ? 0 : v >>> (width - filled);
                }
            }
        }
    }

    private static void pack64(ByteBuffer src, int srcOffset, int count, int width, ByteBuffer out, int dstOffset) {
        final long mask = width == 64 ? -1L : (1L << width) - 1;
        for (int l = 0; l < 16; l++) {
            long acc = 0;
            int filled = 0;
            int pos = dstOffset + l * 8;
            for (int r = 0; r < 64; r++) {
                final int i = ROW_BASE_64[r] + l;
                final long v = i < count ? (src.getLong(srcOffset + i * 8)) & mask : 0;
                acc |= v << filled;
                filled += width;
                if (filled >= 64) {
                    out.putLong(pos, acc);
                    pos += 128;
                    filled -= 64;
                    acc = filled == 0 ? 0 : v >>> (width - filled);
                }
            }
        }
    }
}
