package dev.lanceflink.encoding.v20;

import java.io.IOException;
import java.nio.ByteBuffer;
import lance.encodings.ArrayEncoding;
import lance.encodings.Nullable;
import lance.encodings.PackedStruct;

/**
 * Decodes a 2.0 {@code packed_struct} page (compression.md §9.2, written when a struct field has
 * metadata {@code lance-encoding:packed = true}): one column for the whole struct, rows stored
 * row-major, each row the children's fixed-width values concatenated in field order;
 * {@code inner[i]} describes child i's width ({@code flat}, possibly inside
 * {@code nullable{no_nulls}}, or a {@code fixed_size_list} of flat items). Packed children have no
 * validity of their own.
 */
final class PackedStructDecoder {
    private PackedStructDecoder() {}

    /** Decodes rows {@code [first, first+count)} into rows {@code [out, out+count)} of the children. */
    static void decode(
            ArrayEncoding enc, PageBuffers page, long first, long count, FixedWidthTarget[] children, long out)
            throws IOException {
        if (enc.getArrayEncodingCase() != ArrayEncoding.ArrayEncodingCase.PACKED_STRUCT) {
            throw new V20DecodeException(page.where() + ": a packed struct column (field metadata"
                    + " lance-encoding:packed) must use the packed_struct encoding, found "
                    + FixedWidthDecoder.describe(enc));
        }
        PackedStruct ps = enc.getPackedStruct();
        if (ps.getInnerCount() != children.length) {
            throw new V20DecodeException(page.where() + ": packed_struct describes " + ps.getInnerCount()
                    + " children but the struct field has " + children.length);
        }
        int[] widths = new int[children.length];
        int rowWidth = 0;
        for (int c = 0; c < children.length; c++) {
            widths[c] = childBytes(ps.getInner(c), children[c], page, c);
            rowWidth += widths[c];
        }
        if (count == 0) {
            return;
        }
        if (!ps.hasBuffer()) {
            throw new V20DecodeException(page.where() + ": packed_struct encoding without a buffer reference");
        }
        ByteBuffer src = page.read(ps.getBuffer(), first * rowWidth, count * rowWidth, "packed struct rows");
        int offsetInRow = 0;
        for (int c = 0; c < children.length; c++) {
            FixedWidthTarget t = children[c];
            t.markValid(out, count);
            var dst = t.values != null ? t.values : t.child.values;
            int w = widths[c];
            long dstBase = out * w;
            int srcPos = offsetInRow;
            for (long r = 0; r < count; r++) {
                dst.setBytes(dstBase + r * w, src, srcPos, w);
                srcPos += rowWidth;
            }
            offsetInRow += w;
        }
    }

    /** Bytes one row of child {@code c} occupies, checked against the child's Arrow type. */
    private static int childBytes(ArrayEncoding inner, FixedWidthTarget t, PageBuffers page, int c)
            throws V20DecodeException {
        ArrayEncoding e = unwrap(inner);
        int dimension = 1;
        FixedWidthTarget leaf = t;
        if (e.getArrayEncodingCase() == ArrayEncoding.ArrayEncodingCase.FIXED_SIZE_LIST) {
            if (t.child == null || t.child.child != null || e.getFixedSizeList().getDimension() != t.dimension) {
                throw new V20DecodeException(page.where() + ": packed_struct child " + c
                        + " is a fixed_size_list of dimension "
                        + e.getFixedSizeList().getDimension()
                        + ", which does not match the child field's type");
            }
            dimension = t.dimension;
            leaf = t.child;
            e = unwrap(e.getFixedSizeList().getItems());
        }
        if (e.getArrayEncodingCase() != ArrayEncoding.ArrayEncodingCase.FLAT || leaf.values == null) {
            throw new V20DecodeException(page.where() + ": packed_struct child " + c + " must be a flat (or fixed-size"
                    + " list of flat) fixed-width value matching the child field, found "
                    + FixedWidthDecoder.describe(e));
        }
        long bits = e.getFlat().getBitsPerValue();
        if (bits != leaf.bitsPerValue || bits % 8 != 0) {
            throw new V20DecodeException(page.where() + ": packed_struct child " + c + " has " + bits
                    + " bits per value but the child field's type stores " + leaf.bitsPerValue
                    + " (only whole-byte widths can be packed)");
        }
        return (int) (bits / 8) * dimension;
    }

    private static ArrayEncoding unwrap(ArrayEncoding e) {
        while (e.getArrayEncodingCase() == ArrayEncoding.ArrayEncodingCase.NULLABLE
                && e.getNullable().getNullabilityCase() == Nullable.NullabilityCase.NO_NULLS) {
            e = e.getNullable().getNoNulls().getValues();
        }
        return e;
    }
}
