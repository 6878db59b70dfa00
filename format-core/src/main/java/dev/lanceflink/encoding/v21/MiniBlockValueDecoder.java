package dev.lanceflink.encoding.v21;

import dev.lanceflink.encoding.compression.ByteStreamSplit;
import dev.lanceflink.encoding.compression.GeneralCompression;
import dev.lanceflink.encoding.compression.InlineBitPacking;
import dev.lanceflink.encoding.compression.Rle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import lance.encodings21.CompressiveEncoding;

/**
 * Decoders of the <em>mini-block</em> kind (compression.md §2.1): the value buffers of one chunk
 * plus the chunk's value count give that chunk's values.
 */
public final class MiniBlockValueDecoder {
    private MiniBlockValueDecoder() {}

    /**
     * Decodes one chunk.
     *
     * @param buffers the chunk's value buffers (exact sizes, padding excluded), little-endian
     * @param count number of value slots in the chunk
     */
    public static Values decode(CompressiveEncoding enc, ByteBuffer[] buffers, int count) {
        return decode(enc, buffers, count, new FsstStrings.Tables());
    }

    /** Decodes one chunk of a page whose parsed FSST symbol tables {@code tables} keeps across chunks. */
    static Values decode(CompressiveEncoding enc, ByteBuffer[] buffers, int count, FsstStrings.Tables tables) {
        int[] next = {0};
        Values v = decode(enc, buffers, next, count, tables);
        if (next[0] != buffers.length) {
            throw new EncodingException("the chunk has " + buffers.length + " value buffers but its "
                    + enc.getCompressionCase() + " encoding used " + next[0]);
        }
        return v;
    }

    private static ByteBuffer take(ByteBuffer[] buffers, int[] next, CompressiveEncoding enc) {
        if (next[0] >= buffers.length) {
            throw new EncodingException("the chunk has only " + buffers.length + " value buffers; "
                    + enc.getCompressionCase() + " needs one more");
        }
        return buffers[next[0]++].slice().order(ByteOrder.LITTLE_ENDIAN);
    }

    private static Values decode(
            CompressiveEncoding enc, ByteBuffer[] buffers, int[] next, int count, FsstStrings.Tables tables) {
        switch (enc.getCompressionCase()) {
            case FLAT: {
                ByteBuffer b = take(buffers, next, enc);
                if (enc.getFlat().hasData()) {
                    b = ByteBuffer.wrap(GeneralCompression.decompress(
                            BlockDecoder.scheme(enc.getFlat().getData()), b, 0, b.remaining()));
                }
                return flat(BlockDecoder.checkedBits(enc.getFlat().getBitsPerValue()), b, count);
            }
            case INLINE_BITPACKING: {
                int t = (int) enc.getInlineBitpacking().getUncompressedBitsPerValue();
                ByteBuffer b = take(buffers, next, enc);
                byte[] out = new byte[count * (t / 8)];
                InlineBitPacking.decode(
                        t, b, 0, b.remaining(), count, ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN), 0);
                return FixedWidthValues.wrap(t, out, count);
            }
            case RLE: {
                CompressiveEncoding valuesEnc = enc.getRle().getValues();
                if (!valuesEnc.hasFlat()) {
                    throw new EncodingException("rle run values must be flat, got " + valuesEnc.getCompressionCase());
                }
                int t = BlockDecoder.checkedBits(valuesEnc.getFlat().getBitsPerValue());
                ByteBuffer runValues = take(buffers, next, enc);
                ByteBuffer runLengths = take(buffers, next, enc);
                byte[] out = new byte[count * (t / 8)];
                Rle.decode(
                        t,
                        runValues,
                        0,
                        runValues.remaining(),
                        runLengths,
                        0,
                        runLengths.remaining(),
                        count,
                        ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN),
                        0);
                return FixedWidthValues.wrap(t, out, count);
            }
            case BYTE_STREAM_SPLIT: {
                CompressiveEncoding inner = enc.getByteStreamSplit().getValues();
                if (!inner.hasFlat()) {
                    throw new EncodingException(
                            "byte_stream_split values must be flat, got " + inner.getCompressionCase());
                }
                int t = BlockDecoder.checkedBits(inner.getFlat().getBitsPerValue());
                ByteBuffer b = take(buffers, next, enc);
                byte[] out = new byte[count * (t / 8)];
                ByteStreamSplit.decode(t, b, 0, count, ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN), 0);
                return FixedWidthValues.wrap(t, out, count);
            }
            case VARIABLE:
                return variable(enc, take(buffers, next, enc), count);
            case FSST: {
                VariableWidthValues compressed =
                        (VariableWidthValues) decode(enc.getFsst().getValues(), buffers, next, count, tables);
                return FsstStrings.decode(tables.of(enc.getFsst().getSymbolTable()), compressed);
            }
            case GENERAL: {
                // Only value buffer 0 of each chunk is compressed; the others stay raw.
                ByteBuffer b = take(buffers, next, enc);
                ByteBuffer[] inner = buffers.clone();
                inner[next[0] - 1] = ByteBuffer.wrap(GeneralCompression.decompress(
                                BlockDecoder.scheme(enc.getGeneral().getCompression()), b, 0, b.remaining()))
                        .order(ByteOrder.LITTLE_ENDIAN);
                int[] innerNext = {next[0] - 1};
                Values v = decode(enc.getGeneral().getValues(), inner, innerNext, count, tables);
                next[0] = innerNext[0];
                return v;
            }
            case FIXED_SIZE_LIST:
                return fixedSizeList(enc, buffers, next, count, tables);
            case PACKED_STRUCT:
                return packedStruct(enc, buffers, next, count, tables);
            case CONSTANT: {
                return constant(enc, count);
            }
            default:
                throw new EncodingException(
                        "mini-block values compressed with " + enc.getCompressionCase() + " are not supported");
        }
    }

    static FixedWidthValues flat(int bits, ByteBuffer b, int count) {
        long need = bits == 1 ? (count + 7L) / 8 : (long) count * (bits / 8);
        if (bits != 1 && bits % 8 != 0) {
            throw new EncodingException("flat values of " + bits + " bits are neither booleans nor whole bytes");
        }
        BlockDecoder.requireSize(b.remaining(), need, "flat chunk of " + count + " " + bits + "-bit values");
        byte[] out = new byte[(int) need];
        b.get(0, out);
        return FixedWidthValues.wrap(bits, out, count);
    }

    /** Mini-block variable: {@code (k+1)} offsets relative to the buffer start, then the bytes. */
    private static VariableWidthValues variable(CompressiveEncoding enc, ByteBuffer b, int count) {
        CompressiveEncoding off = enc.getVariable().getOffsets();
        if (!off.hasFlat()
                || (off.getFlat().getBitsPerValue() != 32 && off.getFlat().getBitsPerValue() != 64)) {
            throw new EncodingException("variable offsets must be flat{32} or flat{64}, got " + off);
        }
        if (enc.getVariable().hasValues()) {
            throw new EncodingException(
                    "variable with a compressed values buffer is not supported in mini-block chunks");
        }
        int w = (int) off.getFlat().getBitsPerValue() / 8;
        BlockDecoder.requireSize(
                b.remaining(), (long) (count + 1) * w, "variable chunk offsets of " + count + " values");
        long first = w == 4 ? Integer.toUnsignedLong(b.getInt(0)) : b.getLong(0);
        long last = w == 4 ? Integer.toUnsignedLong(b.getInt(count * 4)) : b.getLong(count * 8);
        if (first != (long) (count + 1) * w || last < first || last > b.remaining()) {
            throw new EncodingException("variable chunk offsets [" + first + " .. " + last + "] do not fit a "
                    + b.remaining() + "-byte buffer of " + count + " values");
        }
        long[] offsets = new long[count + 1];
        for (int i = 0; i <= count; i++) {
            long o = (w == 4 ? Integer.toUnsignedLong(b.getInt(4 * i)) : b.getLong(8 * i)) - first;
            if (i > 0 && o < offsets[i - 1]) {
                throw new EncodingException("variable chunk offsets decrease at value " + i);
            }
            offsets[i] = o;
        }
        byte[] data = new byte[(int) (last - first)];
        b.get((int) first, data);
        return VariableWidthValues.wrap(offsets, data, count);
    }

    private static Values fixedSizeList(
            CompressiveEncoding enc, ByteBuffer[] buffers, int[] next, int count, FsstStrings.Tables tables) {
        // Validity buffers of every FSL layer come first (outermost first), then the flattened values.
        List<Integer> dims = new ArrayList<>();
        List<Boolean> validity = new ArrayList<>();
        CompressiveEncoding cur = enc;
        while (cur.hasFixedSizeList()) {
            long d = cur.getFixedSizeList().getItemsPerValue();
            if (d <= 0 || d > Integer.MAX_VALUE) {
                throw new EncodingException("fixed_size_list items_per_value " + d + " is invalid");
            }
            dims.add((int) d);
            validity.add(cur.getFixedSizeList().getHasValidity());
            cur = cur.getFixedSizeList().getValues();
        }
        byte[][] bitmaps = new byte[dims.size()][];
        int items = count;
        for (int l = 0; l < dims.size(); l++) {
            items = Math.multiplyExact(items, dims.get(l));
            if (validity.get(l)) {
                ByteBuffer vb = take(buffers, next, enc);
                int bytes = (items + 7) / 8;
                BlockDecoder.requireSize(vb.remaining(), bytes, "fixed_size_list validity of " + items + " items");
                bitmaps[l] = new byte[bytes];
                vb.get(0, bitmaps[l]);
            }
        }
        Values inner = decode(cur, buffers, next, items, tables);
        for (int l = dims.size() - 1; l >= 0; l--) {
            if (l > 0 && bitmaps[l] != null) {
                throw new EncodingException(
                        "validity on an inner fixed_size_list layer (nested FSL with item nulls) is not supported");
            }
            inner = FixedSizeListValues.wrap(dims.get(l), inner, bitmaps[l]);
        }
        return inner;
    }

    private static Values packedStruct(
            CompressiveEncoding enc, ByteBuffer[] buffers, int[] next, int count, FsstStrings.Tables tables) {
        List<Long> bits = enc.getPackedStruct().getBitsPerValueList();
        Values packed = decode(enc.getPackedStruct().getValues(), buffers, next, count, tables);
        if (!(packed instanceof FixedWidthValues rows)) {
            throw new EncodingException("packed_struct values must decode to fixed-width rows");
        }
        return splitRows(rows, bits, count);
    }

    /** Splits row-major packed rows into one fixed-width child per {@code bits} entry. */
    static StructValues splitRows(FixedWidthValues rows, List<Long> bits, int count) {
        int rowBytes = rows.bitsPerValue() / 8;
        int sum = 0;
        for (long b : bits) {
            if (b % 8 != 0) {
                throw new EncodingException("packed struct child of " + b + " bits is not byte aligned");
            }
            sum += (int) b / 8;
        }
        if (sum != rowBytes) {
            throw new EncodingException(
                    "packed struct children add up to " + sum + " bytes per row, values have " + rowBytes);
        }
        List<Values> children = new ArrayList<>(bits.size());
        int at = 0;
        byte[] src = rows.data();
        for (long b : bits) {
            int w = (int) b / 8;
            byte[] out = new byte[count * w];
            for (int r = 0; r < count; r++) {
                System.arraycopy(src, r * rowBytes + at, out, r * w, w);
            }
            children.add(FixedWidthValues.wrap((int) b, out, count));
            at += w;
        }
        return new StructValues(children, count);
    }

    private static Values constant(CompressiveEncoding enc, int count) {
        if (!enc.getConstant().hasValue()) {
            throw new EncodingException("a constant encoding without a value cannot be decoded into value slots");
        }
        byte[] v = enc.getConstant().getValue().toByteArray();
        byte[] out = new byte[count * v.length];
        for (int i = 0; i < count; i++) {
            System.arraycopy(v, 0, out, i * v.length, v.length);
        }
        return FixedWidthValues.wrap(v.length * 8, out, count);
    }
}
