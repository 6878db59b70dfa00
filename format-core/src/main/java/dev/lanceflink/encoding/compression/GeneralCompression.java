package dev.lanceflink.encoding.compression;

import io.airlift.compress.MalformedInputException;
import io.airlift.compress.lz4.Lz4Compressor;
import io.airlift.compress.lz4.Lz4Decompressor;
import io.airlift.compress.zstd.ZstdCompressor;
import io.airlift.compress.zstd.ZstdDecompressor;
import io.airlift.compress.zstd.ZstdInputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * {@code general} (CompressiveEncoding member 10, compression.md §3.9) and the whole-buffer
 * compression of 2.0 {@code flat} buffers (§9.2): one compressed <em>unit</em> per mini-block value
 * buffer, block buffer, full-zip value or 2.0 buffer, with Lance's exact framing:
 *
 * <ul>
 *   <li>LZ4: {@code [u32 LE uncompressed length][raw LZ4 block]} — the LZ4 <em>block</em> format,
 *       no frame header (verified against the 2.2 dictionary buffers of the fixtures, which start
 *       with the u32 length and continue with an LZ4 token byte).</li>
 *   <li>ZSTD: {@code [u64 LE uncompressed length][one zstd frame]}. Lance's reader also accepts a
 *       bare frame without the length, recognised by the frame magic {@code 28 b5 2f fd} and a
 *       clear bit 0x10 in byte 4; so does {@link #decompress}.</li>
 * </ul>
 *
 * <p>The codecs are aircompressor's pure-Java implementations, so nothing native has to ship with
 * a Flink job. Compressor and decompressor instances keep internal tables; they are cached per
 * thread to avoid re-allocating them for every 4 KiB chunk.
 *
 * <p>Compression level: {@code BufferCompression.level} is informational for readers. This
 * encoder always writes zstd at the library's default level (3, which is also what Lance's
 * recorded level 0 means); LZ4 has no level.
 */
public final class GeneralCompression {
    /** {@code lance.encodings21.CompressionScheme} values (and the 2.0 {@code Compression.scheme} names). */
    public enum Scheme {
        LZ4(1, "lz4", 4),
        ZSTD(2, "zstd", 8);

        private final int protoNumber;
        private final String lanceName;
        private final int lengthPrefixBytes;

        Scheme(int protoNumber, String lanceName, int lengthPrefixBytes) {
            this.protoNumber = protoNumber;
            this.lanceName = lanceName;
            this.lengthPrefixBytes = lengthPrefixBytes;
        }

        /** The {@code CompressionScheme} enum number in {@code encodings_v2_1.proto}. */
        public int protoNumber() {
            return protoNumber;
        }

        /** The lower-case name used in 2.0 {@code Compression.scheme} and in field metadata. */
        public String lanceName() {
            return lanceName;
        }

        /** Size of the uncompressed-length prefix Lance writes in front of each unit (4 or 8). */
        public int lengthPrefixBytes() {
            return lengthPrefixBytes;
        }

        /** Maps a {@code CompressionScheme} number; 0 (UNSPECIFIED) and unknown numbers are rejected. */
        public static Scheme fromProtoNumber(int number) {
            return switch (number) {
                case 1 -> LZ4;
                case 2 -> ZSTD;
                default ->
                    throw new CompressedDataException("general compression: CompressionScheme " + number
                            + " is not supported (known: 1 = LZ4, 2 = ZSTD); the file was written by a newer Lance"
                            + " or is corrupt");
            };
        }

        /** Maps a 2.0 {@code Compression.scheme} string such as {@code "zstd"} (case-insensitive). */
        public static Scheme fromLanceName(String name) {
            for (Scheme s : values()) {
                if (s.lanceName.equalsIgnoreCase(name)) {
                    return s;
                }
            }
            throw new CompressedDataException(
                    "general compression: scheme name '" + name + "' is not supported (known: lz4, zstd)");
        }
    }

    private static final int ZSTD_MAGIC = 0xFD2FB528;

    private static final ThreadLocal<Lz4Compressor> LZ4_COMPRESSOR = ThreadLocal.withInitial(Lz4Compressor::new);
    private static final ThreadLocal<Lz4Decompressor> LZ4_DECOMPRESSOR = ThreadLocal.withInitial(Lz4Decompressor::new);
    private static final ThreadLocal<ZstdCompressor> ZSTD_COMPRESSOR = ThreadLocal.withInitial(ZstdCompressor::new);
    private static final ThreadLocal<ZstdDecompressor> ZSTD_DECOMPRESSOR =
            ThreadLocal.withInitial(ZstdDecompressor::new);

    private GeneralCompression() {}

    // ---------------------------------------------------------------- decompression

    /**
     * The uncompressed length of the unit {@code [srcOffset, srcOffset+srcLength)}: its length
     * prefix, or for a bare zstd frame the frame's content size.
     */
    public static int decompressedLength(Scheme scheme, ByteBuffer src, int srcOffset, int srcLength) {
        String what = scheme.lanceName + " unit";
        Buffers.checkRange(scheme.lanceName, what, src, srcOffset, srcLength);
        ByteBuffer in = Buffers.le(src);
        if (scheme == Scheme.ZSTD && isBareZstdFrame(in, srcOffset, srcLength)) {
            byte[] head = new byte[Math.min(srcLength, 18)];
            in.get(srcOffset, head);
            long size = ZstdDecompressor.getDecompressedSize(head, 0, head.length);
            return size < 0 ? -1 : checkLength(scheme, size, srcLength);
        }
        if (srcLength < scheme.lengthPrefixBytes) {
            throw new CompressedDataException(what + " of " + srcLength + " bytes is shorter than its "
                    + scheme.lengthPrefixBytes + "-byte uncompressed-length prefix");
        }
        long size = scheme == Scheme.LZ4 ? in.getInt(srcOffset) & 0xFFFFFFFFL : in.getLong(srcOffset);
        return checkLength(scheme, size, srcLength);
    }

    /**
     * Decompresses one framed unit into {@code dst} at {@code dstOffset}.
     *
     * @return the number of bytes written, always equal to the unit's declared length
     */
    public static int decompress(
            Scheme scheme, ByteBuffer src, int srcOffset, int srcLength, ByteBuffer dst, int dstOffset) {
        int length = decompressedLength(scheme, src, srcOffset, srcLength);
        if (length < 0) {
            byte[] all = decompressBareZstdOfUnknownSize(src, srcOffset, srcLength);
            Buffers.checkOutput(dst, dstOffset, all.length);
            dst.put(dstOffset, all);
            return all.length;
        }
        Buffers.checkOutput(dst, dstOffset, length);
        int payload = scheme == Scheme.ZSTD && isBareZstdFrame(Buffers.le(src), srcOffset, srcLength)
                ? 0
                : scheme.lengthPrefixBytes;
        ByteBuffer input;
        if (src.isDirect() || src.hasArray()) {
            input = src.duplicate();
            input.limit(srcOffset + srcLength).position(srcOffset + payload);
        } else {
            // Read-only heap buffers expose neither an address nor an array to the codec: copy the unit.
            byte[] copy = new byte[srcLength - payload];
            src.get(srcOffset + payload, copy);
            input = ByteBuffer.wrap(copy);
        }
        ByteBuffer output = dst.duplicate();
        output.limit(dstOffset + length).position(dstOffset);
        try {
            if (scheme == Scheme.LZ4) {
                LZ4_DECOMPRESSOR.get().decompress(input, output);
            } else {
                ZSTD_DECOMPRESSOR.get().decompress(input, output);
            }
        } catch (MalformedInputException | IllegalArgumentException | IndexOutOfBoundsException e) {
            throw new CompressedDataException(
                    scheme.lanceName + " unit of " + srcLength + " bytes (declared " + length
                            + " bytes uncompressed) is corrupt: " + e.getMessage(),
                    e);
        }
        int written = output.position() - dstOffset;
        if (written != length) {
            throw new CompressedDataException(scheme.lanceName + " unit declares " + length
                    + " uncompressed bytes but decompresses to " + written);
        }
        return written;
    }

    /** Decompresses one framed unit into a new array of exactly the declared length. */
    public static byte[] decompress(Scheme scheme, ByteBuffer src, int srcOffset, int srcLength) {
        int length = decompressedLength(scheme, src, srcOffset, srcLength);
        if (length < 0) {
            return decompressBareZstdOfUnknownSize(src, srcOffset, srcLength);
        }
        byte[] out = new byte[length];
        decompress(scheme, src, srcOffset, srcLength, ByteBuffer.wrap(out), 0);
        return out;
    }

    private static boolean isBareZstdFrame(ByteBuffer in, int offset, int length) {
        return length >= 5 && in.getInt(offset) == ZSTD_MAGIC && (in.get(offset + 4) & 0x10) == 0;
    }

    private static int checkLength(Scheme scheme, long size, int srcLength) {
        if (size < 0 || size > Integer.MAX_VALUE - 16) {
            throw new CompressedDataException(scheme.lanceName + " unit of " + srcLength
                    + " bytes declares an uncompressed length of " + Long.toUnsignedString(size)
                    + " bytes, more than one Java buffer can hold; the length prefix is corrupt");
        }
        return (int) size;
    }

    /** A bare zstd frame whose header omits the content size: stream it (never written by Lance 7.0.0). */
    private static byte[] decompressBareZstdOfUnknownSize(ByteBuffer src, int srcOffset, int srcLength) {
        byte[] compressed = new byte[srcLength];
        Buffers.le(src).get(srcOffset, compressed);
        ByteArrayOutputStream out = new ByteArrayOutputStream(Math.max(64, srcLength * 4));
        try (ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(compressed))) {
            in.transferTo(out);
        } catch (IOException | MalformedInputException e) {
            throw new CompressedDataException(
                    "zstd frame of " + srcLength + " bytes (without length prefix) is corrupt: " + e.getMessage(), e);
        }
        return out.toByteArray();
    }

    // ---------------------------------------------------------------- compression

    /** Upper bound of the framed unit's size for {@code length} input bytes (prefix included). */
    public static int maxCompressedLength(Scheme scheme, int length) {
        if (length < 0) {
            throw new IllegalArgumentException("length must be >= 0, got " + length);
        }
        int body = scheme == Scheme.LZ4
                ? LZ4_COMPRESSOR.get().maxCompressedLength(length)
                : ZSTD_COMPRESSOR.get().maxCompressedLength(length);
        return scheme.lengthPrefixBytes + body;
    }

    /**
     * Compresses {@code src[srcOffset, srcOffset+srcLength)} into one framed unit at
     * {@code dst[dstOffset…]}, which needs {@link #maxCompressedLength} bytes of room.
     *
     * @return bytes written (prefix included)
     */
    public static int compress(Scheme scheme, byte[] src, int srcOffset, int srcLength, byte[] dst, int dstOffset) {
        Buffers.checkArray(scheme.lanceName, "input", src.length, srcOffset, srcLength);
        int max = maxCompressedLength(scheme, srcLength);
        Buffers.checkArray(scheme.lanceName, "output", dst.length, dstOffset, max);
        ByteBuffer prefix = ByteBuffer.wrap(dst).order(ByteOrder.LITTLE_ENDIAN);
        int body = dstOffset + scheme.lengthPrefixBytes;
        int n;
        if (scheme == Scheme.LZ4) {
            prefix.putInt(dstOffset, srcLength);
            n = LZ4_COMPRESSOR.get().compress(src, srcOffset, srcLength, dst, body, max - scheme.lengthPrefixBytes);
        } else {
            prefix.putLong(dstOffset, srcLength);
            n = ZSTD_COMPRESSOR.get().compress(src, srcOffset, srcLength, dst, body, max - scheme.lengthPrefixBytes);
        }
        return scheme.lengthPrefixBytes + n;
    }

    /** Compresses {@code src[srcOffset, srcOffset+srcLength)} into a new array holding exactly one framed unit. */
    public static byte[] compress(Scheme scheme, byte[] src, int srcOffset, int srcLength) {
        byte[] out = new byte[maxCompressedLength(scheme, srcLength)];
        int n = compress(scheme, src, srcOffset, srcLength, out, 0);
        return Arrays.copyOf(out, n);
    }

    /** Compresses the bytes {@code [srcOffset, srcOffset+srcLength)} of a buffer into a new framed unit. */
    public static byte[] compress(Scheme scheme, ByteBuffer src, int srcOffset, int srcLength) {
        Buffers.checkRange(scheme.lanceName, "input", src, srcOffset, srcLength);
        if (src.hasArray()) {
            return compress(scheme, src.array(), src.arrayOffset() + srcOffset, srcLength);
        }
        byte[] copy = new byte[srcLength];
        src.get(srcOffset, copy);
        return compress(scheme, copy, 0, srcLength);
    }
}
