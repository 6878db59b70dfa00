package dev.lanceflink.encoding.v21;

import dev.lanceflink.encoding.compression.FsstSymbolTable;
import dev.lanceflink.encoding.compression.GeneralCompression;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import lance.encodings21.CompressiveEncoding;
import lance.encodings21.FullZipLayout;
import lance.encodings21.VariablePackedStruct;
import org.apache.arrow.memory.ArrowBuf;

/**
 * A full-zip page (file-format.md §8.4): items stored one after the other as
 * {@code [control word][value]}. A row range is located through the repetition index (byte
 * offset of every row) or, for fixed-width items without lists, by arithmetic; only those bytes
 * are read.
 */
public final class FullZipPage implements StructuralPage {
    private final FullZipLayout layout;
    private final PageBufferSource source;
    private final long numRows;
    private final RepDefLayers layers;
    private final int ctrlBytes;
    private final int bitsDef;
    private final boolean hasRep;
    private final boolean fixed;
    private final int valueBytes;
    private final int repIndexWidth;
    /** Per-value decoder of variable-width items. */
    private final VariableItemDecoder variableDecoder;
    /** Fixed-width items without control words or per-list validity: values stored back to back. */
    private final boolean plainFixed;

    public FullZipPage(FullZipLayout layout, PageBufferSource source, long numRows, Values valueShape) {
        this.layout = layout;
        this.source = source;
        this.numRows = numRows;
        this.layers = RepDefLayers.of(layout.getLayersList());
        int bits = layout.getBitsRep() + layout.getBitsDef();
        this.ctrlBytes = bits == 0 ? 0 : bits <= 8 ? 1 : bits <= 16 ? 2 : 4;
        this.bitsDef = layout.getBitsDef();
        this.hasRep = layout.getBitsRep() > 0;
        this.fixed = layout.hasBitsPerValue();
        if (!fixed && !layout.hasBitsPerOffset()) {
            throw new EncodingException("full-zip page has neither bits_per_value nor bits_per_offset");
        }
        if (fixed && layout.getBitsPerValue() % 8 != 0) {
            throw new EncodingException(
                    "full-zip bits_per_value " + layout.getBitsPerValue() + " is not a whole number of bytes");
        }
        this.valueBytes = fixed ? layout.getBitsPerValue() / 8 : layout.getBitsPerOffset() / 8;
        if (!fixed && valueBytes != 4 && valueBytes != 8) {
            throw new EncodingException(
                    "full-zip bits_per_offset " + layout.getBitsPerOffset() + " (expected 32 or 64)");
        }
        boolean hasRepIndex = hasRep || !fixed;
        if (source.bufferCount() != (hasRepIndex ? 2 : 1)) {
            throw new EncodingException("full-zip page has " + source.bufferCount() + " buffers, expected "
                    + (hasRepIndex ? "2 (data, repetition index)" : "1 (data)"));
        }
        if (hasRepIndex) {
            long size = source.bufferSize(1);
            if (size % (numRows + 1) != 0) {
                throw new EncodingException(
                        "repetition index of " + size + " bytes is not " + (numRows + 1) + " equal entries");
            }
            repIndexWidth = (int) (size / (numRows + 1));
            if (repIndexWidth != 1 && repIndexWidth != 2 && repIndexWidth != 4 && repIndexWidth != 8) {
                throw new EncodingException(
                        "repetition index entries of " + repIndexWidth + " bytes (expected 1, 2, 4 or 8)");
            }
        } else {
            repIndexWidth = 0;
        }
        this.variableDecoder = fixed ? null : VariableItemDecoder.of(layout.getValueCompression(), valueShape);
        if (fixed) {
            // Validates the value compression against the column's kind once, for both read paths.
            new FixedItemSink(layout.getValueCompression(), valueShape);
        }
        CompressiveEncoding enc = layout.getValueCompression();
        this.plainFixed = fixed
                && ctrlBytes == 0
                && !(enc.hasFixedSizeList() && enc.getFixedSizeList().getHasValidity());
    }

    @Override
    public long numRows() {
        return numRows;
    }

    /**
     * Whether the page stores fixed-width items back to back without control words or per-list
     * validity (no nulls, no lists), so that a row range is one contiguous run of value bytes.
     */
    public boolean isPlainFixed() {
        return plainFixed;
    }

    /** Bytes per item of a fixed-width page (per-item offset width of a variable-width one). */
    public int valueBytes() {
        return valueBytes;
    }

    /**
     * Copies the value bytes of page rows {@code [from, to)} of a {@linkplain #isPlainFixed() plain}
     * page into {@code dst} at {@code dstOffset}: the whole decode is one copy into Arrow memory.
     */
    public void readPlainInto(long from, long to, ArrowBuf dst, long dstOffset) throws IOException {
        if (!plainFixed) {
            throw new IllegalStateException("the page's items carry control words or validity; it is not plain");
        }
        if (from < 0 || to > numRows || from > to) {
            throw new IllegalArgumentException(
                    "rows [" + from + ", " + to + ") outside the page's " + numRows + " rows");
        }
        long start = from * valueBytes;
        long end = to * valueBytes;
        if (end > source.bufferSize(0)) {
            throw new EncodingException("rows [" + from + ", " + to + ") map to bytes [" + start + ", " + end
                    + ") outside the " + source.bufferSize(0) + "-byte zipped buffer");
        }
        source.readInto(0, start, end - start, dst, dstOffset);
    }

    @Override
    public void readRows(long from, long to, LeafLevels levels, Values values) throws IOException {
        if (from == to) {
            return;
        }
        long start;
        long end;
        if (repIndexWidth > 0) {
            ByteBuffer idx = source.read(1, from * repIndexWidth, Math.toIntExact((to - from + 1) * repIndexWidth));
            start = entry(idx, 0);
            end = entry(idx, (int) (to - from));
        } else {
            long stride = ctrlBytes + valueBytes;
            start = from * stride;
            end = to * stride;
        }
        if (start > end || end > source.bufferSize(0)) {
            throw new EncodingException("rows [" + from + ", " + to + ") map to bytes [" + start + ", " + end
                    + ") outside the " + source.bufferSize(0) + "-byte zipped buffer");
        }
        ByteBuffer data = source.read(0, start, Math.toIntExact(end - start));
        if (plainFixed) {
            appendPlain(data, Math.toIntExact(to - from), levels, values);
        } else {
            parse(data, levels, values);
        }
    }

    /**
     * The common case of fixed-width items without control words (no lists, no nulls, e.g. an
     * embedding column): the zipped bytes are simply the values back to back, so they are appended
     * in one bulk copy instead of item by item.
     */
    private void appendPlain(ByteBuffer data, int n, LeafLevels levels, Values out) {
        if ((long) n * valueBytes != data.remaining()) {
            throw new EncodingException(n + " zipped items of " + valueBytes + " bytes need " + (long) n * valueBytes
                    + " bytes, the read returned " + data.remaining());
        }
        levels.appendRepeated((short) 0, (short) 0, n);
        if (out instanceof FixedSizeListValues fsl) {
            fsl.appendRows(data, 0, n);
        } else if (out instanceof FixedWidthValues f) {
            f.appendFrom(data, 0, n);
        } else {
            throw new EncodingException("fixed-width zipped values cannot fill a column of "
                    + out.getClass().getSimpleName());
        }
    }

    private long entry(ByteBuffer idx, int i) {
        return switch (repIndexWidth) {
            case 1 -> Byte.toUnsignedLong(idx.get(i));
            case 2 -> Short.toUnsignedLong(idx.getShort(2 * i));
            case 4 -> Integer.toUnsignedLong(idx.getInt(4 * i));
            default -> idx.getLong(8 * i);
        };
    }

    private void parse(ByteBuffer b, LeafLevels levels, Values out) {
        int n = b.remaining();
        int p = 0;
        int defMask = (1 << bitsDef) - 1;
        short[] rep1 = new short[1];
        short[] def1 = new short[1];
        // Items of a read are collected page-locally and appended once.
        Values local = out.emptyLike();
        ItemSink sink = fixed ? new FixedItemSink(layout.getValueCompression(), local) : null;
        while (p < n) {
            int ctrl = 0;
            if (ctrlBytes == 1) {
                ctrl = b.get(p) & 0xFF;
            } else if (ctrlBytes == 2) {
                ctrl = b.getShort(p) & 0xFFFF;
            } else if (ctrlBytes == 4) {
                ctrl = b.getInt(p);
            }
            p += ctrlBytes;
            int d = ctrl & defMask;
            short cd = bitsDef == 0 ? 0 : layers.canonical(d);
            rep1[0] = (short) (hasRep ? ctrl >>> bitsDef : 0);
            def1[0] = cd;
            levels.append(hasRep ? rep1 : null, def1, 0, 1);
            if (!layers.visible(cd)) {
                continue;
            }
            if (fixed) {
                // Lance zips a fixed-width value slot for EVERY visible item, null items included
                // (the slot of a null item holds arbitrary bytes, the def level marks it null);
                // only variable-width items drop the bytes of nulls.
                if (p + valueBytes > n) {
                    throw new EncodingException("zipped item at byte " + p + " needs " + valueBytes + " value bytes, "
                            + (n - p) + " remain");
                }
                sink.add(b, p, local);
                p += valueBytes;
            } else {
                if (cd != 0) {
                    local.appendPlaceholders(1);
                    continue;
                }
                long len = valueBytes == 4 ? Integer.toUnsignedLong(b.getInt(p)) : b.getLong(p);
                p += valueBytes;
                if (len < 0 || p + len > n) {
                    throw new EncodingException(
                            "zipped value at byte " + p + " declares " + len + " bytes, only " + (n - p) + " remain");
                }
                variableDecoder.decodeInto(b, p, (int) len, local);
                p += (int) len;
            }
        }
        out.append(local, 0, local.count());
    }

    /** Adds one fixed-width zipped value to a builder. */
    private interface ItemSink {
        void add(ByteBuffer b, int at, Values target);
    }

    /** Fixed-width items: flat (booleans widened to a byte), or a fixed-size list with validity. */
    private static final class FixedItemSink implements ItemSink {
        private final boolean listValidity;

        FixedItemSink(CompressiveEncoding enc, Values target) {
            if (!enc.hasFlat() && !enc.hasFixedSizeList()) {
                throw new EncodingException("full-zip fixed-width values compressed with " + enc.getCompressionCase()
                        + " are not supported (flat, fixed_size_list)");
            }
            if (enc.hasFixedSizeList() && enc.getFixedSizeList().getValues().hasFixedSizeList()) {
                throw new EncodingException("full-zip nested fixed-size lists are not supported");
            }
            this.listValidity = enc.hasFixedSizeList() && enc.getFixedSizeList().getHasValidity();
            if (enc.hasFixedSizeList() != (target instanceof FixedSizeListValues)) {
                throw new EncodingException("full-zip " + enc.getCompressionCase() + " values cannot fill a column of "
                        + target.getClass().getSimpleName());
            }
        }

        @Override
        public void add(ByteBuffer b, int at, Values target) {
            if (target instanceof FixedWidthValues f) {
                f.appendFrom(b, at);
            } else if (target instanceof FixedSizeListValues fsl) {
                fsl.appendRow(b, at, listValidity);
            } else {
                throw new EncodingException("fixed-width zipped values cannot fill a column of "
                        + target.getClass().getSimpleName());
            }
        }
    }

    /** Decoders of variable-width zipped values ({@code [length][bytes]} items). */
    abstract static class VariableItemDecoder {
        abstract void decodeInto(ByteBuffer b, int at, int len, Values out);

        static VariableItemDecoder of(CompressiveEncoding enc, Values shape) {
            switch (enc.getCompressionCase()) {
                case VARIABLE:
                    return new VariableItemDecoder() {
                        @Override
                        void decodeInto(ByteBuffer b, int at, int len, Values out) {
                            ((VariableWidthValues) out).appendValue(b, at, len);
                        }
                    };
                case FSST: {
                    FsstSymbolTable table = FsstStrings.table(enc.getFsst().getSymbolTable());
                    return new VariableItemDecoder() {
                        @Override
                        void decodeInto(ByteBuffer b, int at, int len, Values out) {
                            ((VariableWidthValues) out).appendFsst(table, b, at, len);
                        }
                    };
                }
                case GENERAL: {
                    GeneralCompression.Scheme scheme =
                            BlockDecoder.scheme(enc.getGeneral().getCompression());
                    VariableItemDecoder inner = of(enc.getGeneral().getValues(), shape);
                    return new VariableItemDecoder() {
                        @Override
                        void decodeInto(ByteBuffer b, int at, int len, Values out) {
                            byte[] raw = GeneralCompression.decompress(scheme, b, at, len);
                            inner.decodeInto(ByteBuffer.wrap(raw).order(ByteOrder.LITTLE_ENDIAN), 0, raw.length, out);
                        }
                    };
                }
                case VARIABLE_PACKED_STRUCT:
                    return new PackedStructItemDecoder(enc.getVariablePackedStruct(), shape);
                default:
                    throw new EncodingException(
                            "full-zip variable-width values compressed with " + enc.getCompressionCase()
                                    + " are not supported (variable, fsst, general, variable_packed_struct)");
            }
        }
    }

    /** One 2.2 variable packed struct row: children in order, fixed or length-prefixed. */
    private static final class PackedStructItemDecoder extends VariableItemDecoder {
        private final List<VariablePackedStruct.FieldEncoding> fields;
        private final List<VariableItemDecoder> variableChildren = new ArrayList<>();
        private final List<FixedItemSink> fixedChildren = new ArrayList<>();

        PackedStructItemDecoder(VariablePackedStruct enc, Values shape) {
            this.fields = enc.getFieldsList();
            if (!(shape instanceof StructValues s) || s.children().size() != fields.size()) {
                throw new EncodingException("variable packed struct of " + fields.size()
                        + " fields does not match the column's struct type");
            }
            for (int i = 0; i < fields.size(); i++) {
                VariablePackedStruct.FieldEncoding f = fields.get(i);
                variableChildren.add(
                        f.hasBitsPerLength() ? of(f.getValue(), s.children().get(i)) : null);
                fixedChildren.add(
                        f.hasBitsPerValue()
                                ? new FixedItemSink(f.getValue(), s.children().get(i))
                                : null);
            }
        }

        @Override
        void decodeInto(ByteBuffer b, int at, int len, Values out) {
            StructValues s = (StructValues) out;
            int p = at;
            int end = at + len;
            for (int i = 0; i < fields.size(); i++) {
                VariablePackedStruct.FieldEncoding f = fields.get(i);
                Values child = s.children().get(i);
                if (f.hasBitsPerValue()) {
                    int w = (int) (f.getBitsPerValue() / 8);
                    if (p + w > end) {
                        throw new EncodingException(
                                "packed struct child " + i + " needs " + w + " bytes past the row end");
                    }
                    fixedChildren.get(i).add(b, p, child);
                    p += w;
                } else {
                    int lw = (int) (f.getBitsPerLength() / 8);
                    long l = lw == 4 ? Integer.toUnsignedLong(b.getInt(p)) : b.getLong(p);
                    p += lw;
                    if (p + l > end) {
                        throw new EncodingException(
                                "packed struct child " + i + " declares " + l + " bytes past the row end");
                    }
                    variableChildren.get(i).decodeInto(b, p, (int) l, child);
                    p += (int) l;
                }
            }
            s.incrementCount();
        }
    }
}
