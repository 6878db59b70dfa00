package dev.lanceflink.encoding.v20;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Locale;
import lance.encodings.ArrayEncoding;
import lance.encodings.Flat;
import lance.encodings.Nullable;
import org.apache.arrow.memory.ArrowBuf;

/**
 * Decodes the 2.0 encodings of fixed-width pages (file-format.md §7.2) into a
 * {@link FixedWidthTarget}: {@code nullable} (no/some/all nulls), {@code flat} (1 bit or whole
 * bytes per value, optionally with whole-buffer compression), {@code fixed_size_list} and
 * {@code constant}.
 *
 * <p>Validity convention: the caller marks the rows valid first ({@link FixedWidthTarget#markValid});
 * a {@code nullable} node then overwrites the bits it knows. That way a bare {@code flat} (no
 * {@code nullable} wrapper, as Lance writes for non-nullable fixed-size-list items) yields valid
 * rows without special cases.
 */
final class FixedWidthDecoder {
    private FixedWidthDecoder() {}

    /**
     * Decodes rows {@code [first, first+count)} of the page into rows {@code [out, out+count)} of
     * the target.
     */
    static void decode(ArrayEncoding enc, PageBuffers page, long first, long count, FixedWidthTarget t, long out)
            throws IOException {
        if (count == 0) {
            return;
        }
        switch (enc.getArrayEncodingCase()) {
            case NULLABLE -> decodeNullable(enc.getNullable(), page, first, count, t, out);
            case FLAT -> {
                if (t.values == null) {
                    throw new V20DecodeException(page.where() + ": found a flat encoding where the field's type needs a"
                            + " fixed_size_list encoding (dimension " + t.dimension + ")");
                }
                decodeFlat(enc.getFlat(), page, first, count, t, out);
            }
            case FIXED_SIZE_LIST -> {
                var fsl = enc.getFixedSizeList();
                if (t.child == null) {
                    throw new V20DecodeException(page.where() + ": found a fixed_size_list encoding (dimension "
                            + fsl.getDimension() + ") but the field's type is not a fixed-size list");
                }
                if (fsl.getDimension() != t.dimension) {
                    throw new V20DecodeException(page.where() + ": the fixed_size_list encoding has dimension "
                            + fsl.getDimension() + " but the field's type has list size " + t.dimension);
                }
                long d = t.dimension;
                decode(fsl.getItems(), page, first * d, count * d, t.child, out * d);
            }
            case CONSTANT -> decodeConstant(enc.getConstant().getValue().asReadOnlyByteBuffer(), page, count, t, out);
            default -> throw unsupported(enc, page, "a fixed-width field");
        }
    }

    private static void decodeNullable(
            Nullable n, PageBuffers page, long first, long count, FixedWidthTarget t, long out) throws IOException {
        switch (n.getNullabilityCase()) {
            case NO_NULLS -> decode(n.getNoNulls().getValues(), page, first, count, t, out);
            case SOME_NULLS -> {
                decode(n.getSomeNulls().getValues(), page, first, count, t, out);
                decodeValidity(n.getSomeNulls().getValidity(), page, first, count, t.validity, out);
            }
            case ALL_NULLS -> Bitmaps.clearRange(t.validity, out, count);
            default -> throw new V20DecodeException(page.where() + ": nullable encoding without a nullability case");
        }
    }

    /** Copies the validity bitmap (a {@code flat{bits_per_value: 1}}) into {@code dst}. */
    static void decodeValidity(ArrayEncoding enc, PageBuffers page, long first, long count, ArrowBuf dst, long out)
            throws IOException {
        if (enc.getArrayEncodingCase() != ArrayEncoding.ArrayEncodingCase.FLAT
                || enc.getFlat().getBitsPerValue() != 1) {
            throw new V20DecodeException(page.where() + ": the validity of a nullable encoding must be flat with 1 bit"
                    + " per value, found " + describe(enc));
        }
        ByteBuffer bits = flatBytes(
                enc.getFlat(), page, first >>> 3, ((first + count + 7) >>> 3) - (first >>> 3), "validity bitmap");
        Bitmaps.copy(bits, first & 7, dst, out, count);
    }

    private static void decodeFlat(Flat flat, PageBuffers page, long first, long count, FixedWidthTarget t, long out)
            throws IOException {
        long bits = flat.getBitsPerValue();
        if (bits != t.bitsPerValue) {
            throw new V20DecodeException(page.where() + ": flat encoding has " + bits
                    + " bits per value but the field's type stores " + t.bitsPerValue);
        }
        if (bits == 1) {
            ByteBuffer src = flatBytes(
                    flat, page, first >>> 3, ((first + count + 7) >>> 3) - (first >>> 3), "bit-packed values");
            Bitmaps.copy(src, first & 7, t.values, out, count);
            return;
        }
        long width = bits / 8;
        ByteBuffer src = flatBytes(flat, page, first * width, count * width, "values");
        t.values.setBytes(out * width, src, 0, src.limit());
    }

    /**
     * Bytes {@code [offset, offset+length)} of a flat encoding's buffer, decompressing it first
     * when the encoding says so.
     */
    static ByteBuffer flatBytes(Flat flat, PageBuffers page, long offset, long length, String what) throws IOException {
        if (!flat.hasBuffer()) {
            throw new V20DecodeException(page.where() + ": flat encoding without a buffer reference");
        }
        if (flat.hasCompression() && !flat.getCompression().getScheme().isEmpty()) {
            return page.readCompressed(flat.getBuffer(), flat.getCompression(), offset, length, what);
        }
        return page.read(flat.getBuffer(), offset, length, what);
    }

    private static void decodeConstant(ByteBuffer value, PageBuffers page, long count, FixedWidthTarget t, long out)
            throws IOException {
        if (t.values == null) {
            throw new V20DecodeException(page.where() + ": found a constant encoding where the field's type needs a"
                    + " fixed_size_list encoding");
        }
        if (t.bitsPerValue == 1) {
            boolean set = value.remaining() > 0 && value.get(0) != 0;
            if (set) {
                Bitmaps.setRange(t.values, out, count);
            } else {
                Bitmaps.clearRange(t.values, out, count);
            }
            return;
        }
        int width = t.bitsPerValue / 8;
        if (value.remaining() != width) {
            throw new V20DecodeException(page.where() + ": constant encoding has a " + value.remaining()
                    + "-byte value but the field's type stores " + width + " bytes per value");
        }
        for (long i = 0; i < count; i++) {
            t.values.setBytes((out + i) * width, value, 0, width);
        }
    }

    /**
     * Reads rows {@code [first, first+count)} of an unsigned integer array encoded as
     * {@code nullable{no_nulls{flat{8|16|32|64}}}} or a bare {@code flat} (offsets, dictionary
     * indices). Returns them zero-extended.
     */
    static long[] readUnsigned(ArrayEncoding enc, PageBuffers page, long first, long count, String what)
            throws IOException {
        ArrayEncoding e = enc;
        while (e.getArrayEncodingCase() == ArrayEncoding.ArrayEncodingCase.NULLABLE
                && e.getNullable().getNullabilityCase() == Nullable.NullabilityCase.NO_NULLS) {
            e = e.getNullable().getNoNulls().getValues();
        }
        if (e.getArrayEncodingCase() != ArrayEncoding.ArrayEncodingCase.FLAT) {
            throw new V20DecodeException(
                    page.where() + ": " + what + " must be a flat encoding without nulls, found " + describe(enc));
        }
        long bits = e.getFlat().getBitsPerValue();
        if (bits != 8 && bits != 16 && bits != 32 && bits != 64) {
            throw new V20DecodeException(
                    page.where() + ": " + what + " have " + bits + " bits per value; expected 8, 16, 32 or 64");
        }
        if (count > Integer.MAX_VALUE - 8) {
            throw new V20DecodeException(page.where() + ": too many " + what + " requested at once (" + count + ")");
        }
        int width = (int) (bits / 8);
        ByteBuffer src = flatBytes(e.getFlat(), page, first * width, count * width, what);
        long[] out = new long[(int) count];
        switch (width) {
            case 1 -> {
                for (int i = 0; i < out.length; i++) {
                    out[i] = src.get(i) & 0xFFL;
                }
            }
            case 2 -> {
                for (int i = 0; i < out.length; i++) {
                    out[i] = src.getShort(i << 1) & 0xFFFFL;
                }
            }
            case 4 -> {
                for (int i = 0; i < out.length; i++) {
                    out[i] = src.getInt(i << 2) & 0xFFFFFFFFL;
                }
            }
            default -> src.asLongBuffer().get(out);
        }
        return out;
    }

    static V20DecodeException unsupported(ArrayEncoding enc, PageBuffers page, String forWhat) {
        return new V20DecodeException(page.where() + ": the 2.0 encoding '" + describe(enc) + "' is not supported for "
                + forWhat + " (this reader implements nullable, flat, fixed_size_list, binary, dictionary, fsst, list,"
                + " struct, packed_struct and constant, which covers everything Lance writes to 2.0 files)");
    }

    static String describe(ArrayEncoding enc) {
        return enc.getArrayEncodingCase().name().toLowerCase(Locale.ROOT);
    }
}
