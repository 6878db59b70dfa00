package dev.lanceflink.encoding.compression;

import java.nio.ByteBuffer;

/**
 * {@code byte_stream_split} (CompressiveEncoding member 9, compression.md §3.10): {@code n} values
 * of {@code B} = 4 or 8 bytes are stored as {@code B} planes of {@code n} bytes, byte {@code j} of
 * value {@code i} at {@code j·n + i}. It compresses nothing by itself; grouping the exponent and
 * high-order bytes of floats makes the following zstd/lz4 pass ({@link GeneralCompression}) much
 * more effective. Lance writes it per mini-block chunk (1024 values of 32 bits, 512 of 64 bits),
 * usually wrapped in {@code general}.
 */
public final class ByteStreamSplit {
    private static final String SCHEME = "byte_stream_split";

    private ByteStreamSplit() {}

    /**
     * Splits {@code count} raw little-endian values of {@code bitsPerValue} (32 or 64) bits at
     * {@code srcOffset} of {@code src} into byte planes at {@code dstOffset} of {@code dst}
     * ({@code count·bitsPerValue/8} bytes).
     */
    public static void encode(
            int bitsPerValue, ByteBuffer src, int srcOffset, int count, ByteBuffer dst, int dstOffset) {
        int b = checkBits(bitsPerValue);
        Buffers.checkCount(SCHEME, count);
        long size = (long) count * b;
        if (srcOffset < 0 || srcOffset + size > src.limit()) {
            throw new IndexOutOfBoundsException(SCHEME + ": values need bytes [" + srcOffset + ", " + (srcOffset + size)
                    + ") but the source has " + src.limit());
        }
        Buffers.checkOutput(dst, dstOffset, size);
        for (int j = 0; j < b; j++) {
            int plane = dstOffset + j * count;
            for (int i = 0, p = srcOffset + j; i < count; i++, p += b) {
                dst.put(plane + i, src.get(p));
            }
        }
    }

    /** Reassembles {@code count} values from the byte planes at {@code srcOffset} of {@code src}. */
    public static void decode(
            int bitsPerValue, ByteBuffer src, int srcOffset, int count, ByteBuffer dst, int dstOffset) {
        int b = checkBits(bitsPerValue);
        Buffers.checkCount(SCHEME, count);
        long size = (long) count * b;
        Buffers.checkRange(SCHEME, count + " values of " + bitsPerValue + " bits", src, srcOffset, size);
        Buffers.checkOutput(dst, dstOffset, size);
        for (int j = 0; j < b; j++) {
            int plane = srcOffset + j * count;
            for (int i = 0, p = dstOffset + j; i < count; i++, p += b) {
                dst.put(p, src.get(plane + i));
            }
        }
    }

    private static int checkBits(int bitsPerValue) {
        if (bitsPerValue != 32 && bitsPerValue != 64) {
            throw new CompressedDataException(SCHEME + ": values must be 32 or 64 bits wide, got " + bitsPerValue);
        }
        return bitsPerValue / 8;
    }
}
