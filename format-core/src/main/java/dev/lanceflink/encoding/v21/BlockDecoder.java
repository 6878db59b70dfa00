package dev.lanceflink.encoding.v21;

import dev.lanceflink.encoding.compression.GeneralCompression;
import dev.lanceflink.encoding.compression.InlineBitPacking;
import dev.lanceflink.encoding.compression.OutOfLineBitPacking;
import dev.lanceflink.encoding.compression.Rle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import lance.encodings21.BufferCompression;
import lance.encodings21.CompressiveEncoding;
import lance.encodings21.Flat;

/**
 * Decoders of the <em>block</em> kind (compression.md §2.2): one buffer holding all values of a
 * unit — a mini-block chunk's rep or def section, a page dictionary, or the levels of a 2.2
 * constant page — plus the value count the context supplies.
 */
public final class BlockDecoder {
    private BlockDecoder() {}

    /** Decodes {@code count} u16 levels. */
    public static short[] decodeLevels(CompressiveEncoding enc, ByteBuffer buf, int count) {
        short[] out = new short[count];
        decodeLevels(enc, buf, count, out);
        return out;
    }

    /** Decodes {@code count} u16 levels into {@code out[0, count)}. */
    public static void decodeLevels(CompressiveEncoding enc, ByteBuffer buf, int count, short[] out) {
        ByteBuffer b = buf.slice().order(ByteOrder.LITTLE_ENDIAN);
        int len = b.remaining();
        switch (enc.getCompressionCase()) {
            case FLAT -> {
                requireBits(enc.getFlat(), 16, "rep/def levels");
                requireSize(len, 2L * count, "flat u16 levels");
                for (int i = 0; i < count; i++) {
                    out[i] = b.getShort(2 * i);
                }
            }
            case INLINE_BITPACKING -> {
                requireWordBits(
                        enc.getInlineBitpacking().getUncompressedBitsPerValue(), 16, "inline-bit-packed levels");
                InlineBitPacking.decode(b, 0, len, count, out, 0);
            }
            case OUT_OF_LINE_BITPACKING -> {
                requireWordBits(
                        enc.getOutOfLineBitpacking().getUncompressedBitsPerValue(),
                        16,
                        "out-of-line-bit-packed levels");
                int width = outOfLineWidth(enc);
                OutOfLineBitPacking.decode(width, b, 0, len, count, out, 0);
            }
            case RLE -> Rle.decodeBlock(b, 0, len, count, out, 0);
            case CONSTANT -> {
                short v = 0;
                if (enc.getConstant().hasValue()) {
                    ByteBuffer c =
                            enc.getConstant().getValue().asReadOnlyByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
                    v = c.remaining() >= 2 ? c.getShort(0) : (short) (c.remaining() == 1 ? c.get(0) & 0xFF : 0);
                }
                Arrays.fill(out, 0, count, v);
            }
            case GENERAL -> {
                byte[] raw =
                        GeneralCompression.decompress(scheme(enc.getGeneral().getCompression()), b, 0, len);
                decodeLevels(enc.getGeneral().getValues(), ByteBuffer.wrap(raw), count, out);
            }
            default ->
                throw new EncodingException(
                        "rep/def levels compressed with " + enc.getCompressionCase()
                                + " are not supported (expected flat, inline_bitpacking, out_of_line_bitpacking, rle or general)");
        }
    }

    /** Decodes a page dictionary of {@code count} items into a builder of the leaf's kind. */
    public static Values decodeDictionary(CompressiveEncoding enc, ByteBuffer buf, int count, Values shape) {
        ByteBuffer b = buf.slice().order(ByteOrder.LITTLE_ENDIAN);
        int len = b.remaining();
        switch (enc.getCompressionCase()) {
            case FLAT -> {
                int bits = checkedBits(enc.getFlat().getBitsPerValue());
                ByteBuffer data = b;
                if (enc.getFlat().hasData()) {
                    data = ByteBuffer.wrap(
                            GeneralCompression.decompress(scheme(enc.getFlat().getData()), b, 0, len));
                }
                FixedWidthValues v = FixedWidthValues.builder(bits, count);
                long need = v.byteSize(count);
                requireSize(data.remaining(), need, "flat dictionary of " + count + " items");
                byte[] arr = new byte[(int) need];
                data.get(0, arr);
                return FixedWidthValues.wrap(bits, arr, count);
            }
            case INLINE_BITPACKING, OUT_OF_LINE_BITPACKING -> {
                int t = (int)
                        (enc.hasInlineBitpacking()
                                ? enc.getInlineBitpacking().getUncompressedBitsPerValue()
                                : enc.getOutOfLineBitpacking().getUncompressedBitsPerValue());
                byte[] arr = new byte[count * (t / 8)];
                ByteBuffer dst = ByteBuffer.wrap(arr).order(ByteOrder.LITTLE_ENDIAN);
                if (enc.hasInlineBitpacking()) {
                    InlineBitPacking.decode(t, b, 0, len, count, dst, 0);
                } else {
                    OutOfLineBitPacking.decode(t, outOfLineWidth(enc), b, 0, len, count, dst, 0);
                }
                return FixedWidthValues.wrap(t, arr, count);
            }
            case RLE -> {
                int t = checkedBits(enc.getRle().getValues().getFlat().getBitsPerValue());
                byte[] arr = new byte[count * (t / 8)];
                Rle.decodeBlock(t, b, 0, len, count, ByteBuffer.wrap(arr).order(ByteOrder.LITTLE_ENDIAN), 0);
                return FixedWidthValues.wrap(t, arr, count);
            }
            case VARIABLE -> {
                return decodeVariableBlock(b, count);
            }
            case GENERAL -> {
                byte[] raw =
                        GeneralCompression.decompress(scheme(enc.getGeneral().getCompression()), b, 0, len);
                return decodeDictionary(enc.getGeneral().getValues(), ByteBuffer.wrap(raw), count, shape);
            }
            default ->
                throw new EncodingException(
                        "dictionary items compressed with " + enc.getCompressionCase()
                                + " are not supported (expected flat, variable, inline/out_of_line bit-packing, rle or general)");
        }
    }

    /**
     * The block form of {@code variable} (compression.md §3.6):
     * {@code [uW W][uW S][uW × (k+1) offsets, first 0][bytes]} with W = 32 or 64.
     */
    static VariableWidthValues decodeVariableBlock(ByteBuffer b, int count) {
        if (b.remaining() < 8) {
            throw new EncodingException("variable block of " + b.remaining() + " bytes is too short for its header");
        }
        int width = b.getInt(0);
        if (width != 32 && width != 64) {
            throw new EncodingException("variable block declares offset width " + width + " (expected 32 or 64)");
        }
        int w = width / 8;
        long start = width == 32 ? Integer.toUnsignedLong(b.getInt(4)) : b.getLong(8);
        int offBase = 2 * w;
        requireSize(b.remaining(), offBase + (long) (count + 1) * w, "variable block offsets");
        if (start != offBase + (long) (count + 1) * w) {
            throw new EncodingException("variable block says its bytes start at " + start + " but " + count
                    + " items with " + width + "-bit offsets put them at " + (offBase + (long) (count + 1) * w));
        }
        long[] offsets = new long[count + 1];
        for (int i = 0; i <= count; i++) {
            offsets[i] = w == 4 ? Integer.toUnsignedLong(b.getInt(offBase + 4 * i)) : b.getLong(offBase + 8 * i);
            if (i > 0 && offsets[i] < offsets[i - 1]) {
                throw new EncodingException("variable block offsets decrease at item " + i);
            }
        }
        requireSize(b.remaining() - start, offsets[count], "variable block bytes");
        byte[] data = new byte[(int) offsets[count]];
        b.get((int) start, data);
        return VariableWidthValues.wrap(offsets, data, count);
    }

    static int outOfLineWidth(CompressiveEncoding enc) {
        CompressiveEncoding inner = enc.getOutOfLineBitpacking().getValues();
        if (!inner.hasFlat()) {
            throw new EncodingException(
                    "out_of_line_bitpacking values must be flat{W}, got " + inner.getCompressionCase());
        }
        return checkedBits(inner.getFlat().getBitsPerValue());
    }

    static GeneralCompression.Scheme scheme(BufferCompression c) {
        return switch (c.getScheme()) {
            case COMPRESSION_ALGORITHM_LZ4 -> GeneralCompression.Scheme.LZ4;
            case COMPRESSION_ALGORITHM_ZSTD -> GeneralCompression.Scheme.ZSTD;
            default ->
                throw new EncodingException(
                        "general compression scheme " + c.getScheme() + " is not supported (lz4, zstd)");
        };
    }

    static int checkedBits(long bits) {
        if (bits <= 0 || bits > 1 << 20) {
            throw new EncodingException("implausible bits_per_value " + bits);
        }
        return (int) bits;
    }

    private static void requireBits(Flat f, int bits, String what) {
        if (f.getBitsPerValue() != bits) {
            throw new EncodingException(what + " stored flat with " + f.getBitsPerValue() + " bits, expected " + bits);
        }
    }

    private static void requireWordBits(long t, int expected, String what) {
        if (t != expected) {
            throw new EncodingException(what + " declare " + t + "-bit words, expected " + expected);
        }
    }

    static void requireSize(long have, long need, String what) {
        if (have < need) {
            throw new EncodingException(what + " needs " + need + " bytes but the buffer has " + have);
        }
    }
}
