package dev.lanceflink.encoding.v20;

import dev.lanceflink.encoding.compression.CompressedDataException;
import dev.lanceflink.encoding.compression.FsstSymbolTable;
import java.io.IOException;
import java.nio.ByteBuffer;
import lance.encodings.ArrayEncoding;
import lance.encodings.Binary;
import lance.encodings.Dictionary;
import lance.encodings.Fsst;
import lance.encodings.Nullable;
import org.apache.arrow.vector.BitVectorHelper;

/**
 * Decodes 2.0 utf8 / binary pages (file-format.md §7.2, compression.md §9): {@code binary}
 * (u64 end offsets with null adjustment + concatenated bytes), {@code dictionary} (u8 indices,
 * 0 = null, items as {@code binary}), {@code fsst} around {@code binary}, optionally wrapped in
 * {@code nullable}.
 *
 * <p>Decoding is two-phase because an Arrow data buffer must be sized up front: {@link #plan}
 * reads only offsets / indices of the requested rows and reports how many value bytes they span;
 * {@link Slice#write} then copies the bytes (for {@code binary} a single ranged read of exactly
 * those bytes) and writes offsets and validity.
 */
final class VariableWidthDecoder {
    private VariableWidthDecoder() {}

    /** Plans rows {@code [first, first+count)} of a page. */
    static Slice plan(ArrayEncoding enc, PageBuffers page, long first, long count) throws IOException {
        switch (enc.getArrayEncodingCase()) {
            case NULLABLE -> {
                Nullable n = enc.getNullable();
                switch (n.getNullabilityCase()) {
                    case NO_NULLS:
                        return plan(n.getNoNulls().getValues(), page, first, count);
                    case SOME_NULLS: {
                        Slice s = plan(n.getSomeNulls().getValues(), page, first, count);
                        ArrayEncoding v = n.getSomeNulls().getValidity();
                        if (v.getArrayEncodingCase() != ArrayEncoding.ArrayEncodingCase.FLAT
                                || v.getFlat().getBitsPerValue() != 1) {
                            throw new V20DecodeException(page.where() + ": the validity of a nullable encoding must be"
                                    + " flat with 1 bit per value, found " + FixedWidthDecoder.describe(v));
                        }
                        s.extraValidity = FixedWidthDecoder.flatBytes(
                                v.getFlat(),
                                page,
                                first >>> 3,
                                ((first + count + 7) >>> 3) - (first >>> 3),
                                "validity bitmap");
                        s.extraValidityBit = first & 7;
                        return s;
                    }
                    case ALL_NULLS:
                        return new AllNullSlice(count);
                    default:
                        throw new V20DecodeException(page.where() + ": nullable encoding without a nullability case");
                }
            }
            case BINARY -> {
                return BinarySlice.plan(enc.getBinary(), page, first, count);
            }
            case DICTIONARY -> {
                return DictionarySlice.plan(enc.getDictionary(), page, first, count);
            }
            case FSST -> {
                return planFsst(enc.getFsst(), page, first, count);
            }
            default -> throw FixedWidthDecoder.unsupported(enc, page, "a utf8/binary field");
        }
    }

    /** The planned rows of one page: knows its byte count before anything is copied. */
    abstract static class Slice {
        final long count;
        /** Validity of an enclosing {@code nullable{some_nulls}}, ANDed with the slice's own. */
        ByteBuffer extraValidity;

        long extraValidityBit;

        Slice(long count) {
            this.count = count;
        }

        /** Value bytes of the planned rows. */
        abstract long dataBytes();

        /**
         * Writes offsets {@code [out+1, out+count]} (offset {@code out} already holds
         * {@code dataStart}), validity bits {@code [out, out+count)}, and the value bytes at
         * {@code dataStart}.
         */
        final void write(VarWidthTarget t, long out, long dataStart) throws IOException {
            writeOwn(t, out, dataStart);
            if (extraValidity != null) {
                for (long i = 0; i < count; i++) {
                    long bit = extraValidityBit + i;
                    if (((extraValidity.get((int) (bit >>> 3)) >>> (int) (bit & 7)) & 1) == 0) {
                        BitVectorHelper.unsetBit(t.validity, (int) (out + i));
                    }
                }
            }
        }

        abstract void writeOwn(VarWidthTarget t, long out, long dataStart) throws IOException;
    }

    /** A page (or part) whose rows are all null. */
    static final class AllNullSlice extends Slice {
        AllNullSlice(long count) {
            super(count);
        }

        @Override
        long dataBytes() {
            return 0;
        }

        @Override
        void writeOwn(VarWidthTarget t, long out, long dataStart) {
            for (long i = 1; i <= count; i++) {
                t.setOffset(out + i, dataStart);
            }
        }
    }

    /**
     * Rows of a {@code binary} encoding. Stored offsets are cumulative end positions without a
     * leading 0; a null row stores {@code previous end + null_adjustment}, so a stored value is
     * null iff it is {@code ≥ null_adjustment}, and its real end is the previous end.
     */
    static final class BinarySlice extends Slice {
        private final Binary enc;
        private final PageBuffers page;
        private final long[] stored;
        /** 1 when {@code stored[0]} is the row before the first requested row. */
        private final int skip;

        private final long byteStart;
        private final long byteEnd;

        private BinarySlice(
                Binary enc, PageBuffers page, long count, long[] stored, int skip, long byteStart, long byteEnd) {
            super(count);
            this.enc = enc;
            this.page = page;
            this.stored = stored;
            this.skip = skip;
            this.byteStart = byteStart;
            this.byteEnd = byteEnd;
        }

        static BinarySlice plan(Binary enc, PageBuffers page, long first, long count) throws IOException {
            int skip = first > 0 ? 1 : 0;
            long[] stored = count == 0
                    ? new long[0]
                    : FixedWidthDecoder.readUnsigned(
                            enc.getIndices(), page, first - skip, count + skip, "binary offsets");
            long adj = enc.getNullAdjustment();
            long start = skip == 1 ? unadjust(stored[0], adj) : 0;
            long end = count == 0 ? start : unadjust(stored[stored.length - 1], adj);
            if (end < start) {
                throw new V20DecodeException(page.where() + ": binary offsets decrease (" + start + " then " + end
                        + " around row " + first + "); the page is corrupt");
            }
            return new BinarySlice(enc, page, count, stored, skip, start, end);
        }

        static long unadjust(long stored, long adj) {
            return adj > 0 && Long.compareUnsigned(stored, adj) >= 0 ? stored - adj : stored;
        }

        @Override
        long dataBytes() {
            return byteEnd - byteStart;
        }

        @Override
        void writeOwn(VarWidthTarget t, long out, long dataStart) throws IOException {
            if (byteEnd > byteStart) {
                ByteBuffer bytes = readBytes(enc.getBytes(), page, byteStart, byteEnd - byteStart);
                t.data.setBytes(dataStart, bytes, 0, bytes.limit());
            }
            long adj = enc.getNullAdjustment();
            long prev = byteStart;
            for (int i = 0; i < count; i++) {
                long s = stored[skip + i];
                boolean valid = adj == 0 || Long.compareUnsigned(s, adj) < 0;
                long e = valid ? s : s - adj;
                if (e < prev || e > byteEnd) {
                    throw new V20DecodeException(page.where() + ": binary offset " + e + " of planned row " + i
                            + " lies outside [" + prev + ", " + byteEnd + "]; the page is corrupt");
                }
                prev = e;
                t.setOffset(out + i + 1, dataStart + e - byteStart);
                if (valid) {
                    BitVectorHelper.setBit(t.validity, out + i);
                }
            }
        }

        /** All rows of this slice as standalone arrays (dictionary items, FSST input). */
        Materialized materialize() throws IOException {
            int n = (int) count;
            long len = byteEnd - byteStart;
            if (len > Integer.MAX_VALUE - 8) {
                throw new V20DecodeException(page.where() + ": " + len + " bytes of dictionary/FSST values in one page"
                        + " are more than this reader buffers in memory");
            }
            byte[] bytes = new byte[(int) len];
            if (len > 0) {
                readBytes(enc.getBytes(), page, byteStart, len).get(0, bytes);
            }
            long[] ends = new long[n + 1];
            boolean[] valid = new boolean[n];
            long adj = enc.getNullAdjustment();
            long prev = byteStart;
            for (int i = 0; i < n; i++) {
                long s = stored[skip + i];
                valid[i] = adj == 0 || Long.compareUnsigned(s, adj) < 0;
                long e = valid[i] ? s : s - adj;
                if (e < prev || e > byteEnd) {
                    throw new V20DecodeException(page.where() + ": binary offset " + e + " of row " + i
                            + " lies outside [" + prev + ", " + byteEnd + "]; the page is corrupt");
                }
                prev = e;
                ends[i + 1] = e - byteStart;
            }
            return new Materialized(ends, bytes, valid);
        }
    }

    /** Bytes {@code [offset, offset+length)} of a binary's {@code bytes} encoding (flat, 8 bits). */
    static ByteBuffer readBytes(ArrayEncoding enc, PageBuffers page, long offset, long length) throws IOException {
        ArrayEncoding e = enc;
        while (e.getArrayEncodingCase() == ArrayEncoding.ArrayEncodingCase.NULLABLE
                && e.getNullable().getNullabilityCase() == Nullable.NullabilityCase.NO_NULLS) {
            e = e.getNullable().getNoNulls().getValues();
        }
        if (e.getArrayEncodingCase() != ArrayEncoding.ArrayEncodingCase.FLAT
                || e.getFlat().getBitsPerValue() != 8) {
            throw new V20DecodeException(page.where() + ": the bytes of a binary encoding must be flat with 8 bits per"
                    + " value, found " + FixedWidthDecoder.describe(enc));
        }
        return FixedWidthDecoder.flatBytes(e.getFlat(), page, offset, length, "binary bytes");
    }

    /** Values held in heap arrays: {@code ends[0] = 0}, value i is {@code bytes[ends[i], ends[i+1])}. */
    record Materialized(long[] ends, byte[] bytes, boolean[] valid) {
        int size() {
            return valid.length;
        }

        long length(int i) {
            return ends[i + 1] - ends[i];
        }
    }

    /**
     * Rows of a 2.0 {@code dictionary}: one unsigned index per row, 0 = null, k ≥ 1 = item k−1;
     * the items are a {@code binary} array in the same page (decoded whole, they are few).
     */
    static final class DictionarySlice extends Slice {
        private final long[] indices;
        private final Materialized items;
        private final long bytes;

        private DictionarySlice(long count, long[] indices, Materialized items, long bytes) {
            super(count);
            this.indices = indices;
            this.items = items;
            this.bytes = bytes;
        }

        static DictionarySlice plan(Dictionary enc, PageBuffers page, long first, long count) throws IOException {
            long numItems = enc.getNumDictionaryItems() & 0xFFFFFFFFL;
            ArrayEncoding itemsEnc = enc.getItems();
            Materialized items;
            if (itemsEnc.getArrayEncodingCase() == ArrayEncoding.ArrayEncodingCase.BINARY) {
                items = BinarySlice.plan(itemsEnc.getBinary(), page, 0, numItems)
                        .materialize();
            } else {
                throw new V20DecodeException(page.where() + ": dictionary items must use the binary encoding, found "
                        + FixedWidthDecoder.describe(itemsEnc));
            }
            long[] indices = FixedWidthDecoder.readUnsigned(enc.getIndices(), page, first, count, "dictionary indices");
            long bytes = 0;
            for (int i = 0; i < indices.length; i++) {
                long k = indices[i];
                if (k == 0) {
                    continue;
                }
                if (k > numItems) {
                    throw new V20DecodeException(page.where() + ": dictionary index " + k + " at page row "
                            + (first + i) + " exceeds the " + numItems + " dictionary items; the page is corrupt");
                }
                bytes += items.length((int) (k - 1));
            }
            return new DictionarySlice(count, indices, items, bytes);
        }

        @Override
        long dataBytes() {
            return bytes;
        }

        @Override
        void writeOwn(VarWidthTarget t, long out, long dataStart) {
            long pos = dataStart;
            for (int i = 0; i < count; i++) {
                long k = indices[i];
                if (k != 0) {
                    int item = (int) (k - 1);
                    if (items.valid()[item]) {
                        int start = (int) items.ends()[item];
                        long len = items.length(item);
                        t.data.setBytes(pos, items.bytes(), start, len);
                        pos += len;
                        BitVectorHelper.setBit(t.validity, out + i);
                    }
                }
                t.setOffset(out + i + 1, pos);
            }
        }
    }

    /**
     * 2.0 {@code fsst} (compression.md §9.2, §3.7): the inner {@code binary} holds the compressed
     * strings (its offsets and null adjustment refer to compressed bytes); every valid string is
     * decompressed with the page's symbol table. Only written with field metadata, so the
     * decompressed rows are simply held in memory until they are copied.
     */
    static Slice planFsst(Fsst enc, PageBuffers page, long first, long count) throws IOException {
        Slice inner = plan(enc.getBinary(), page, first, count);
        if (inner instanceof AllNullSlice) {
            return inner;
        }
        if (!(inner instanceof BinarySlice binary)) {
            throw new V20DecodeException(page.where() + ": the strings inside an fsst encoding must use the binary"
                    + " encoding, found " + FixedWidthDecoder.describe(enc.getBinary()));
        }
        Materialized compressed = binary.materialize();
        byte[] decoded;
        long[] ends = new long[compressed.size() + 1];
        try {
            ByteBuffer table = enc.getSymbolTable().asReadOnlyByteBuffer();
            FsstSymbolTable symbols = FsstSymbolTable.parse(table, 0, table.remaining());
            ByteBuffer src = ByteBuffer.wrap(compressed.bytes());
            long total = 0;
            for (int i = 0; i < compressed.size(); i++) {
                int from = (int) compressed.ends()[i];
                total += symbols.decompressedLength(src, from, (int) compressed.length(i));
                ends[i + 1] = total;
            }
            if (total > Integer.MAX_VALUE - 8) {
                throw new V20DecodeException(page.where() + ": FSST strings of the requested rows decompress to "
                        + total + " bytes, more than one read can hold; read fewer rows at a time");
            }
            decoded = new byte[(int) total];
            for (int i = 0; i < compressed.size(); i++) {
                symbols.decompress(src, (int) compressed.ends()[i], (int) compressed.length(i), decoded, (int) ends[i]);
            }
        } catch (CompressedDataException e) {
            throw new V20DecodeException(page.where() + ": malformed FSST data: " + e.getMessage(), e);
        }
        Slice s = new MaterializedSlice(new Materialized(ends, decoded, compressed.valid()));
        s.extraValidity = inner.extraValidity;
        s.extraValidityBit = inner.extraValidityBit;
        return s;
    }

    /** Rows already decoded into heap arrays (FSST output). */
    static final class MaterializedSlice extends Slice {
        private final Materialized values;

        MaterializedSlice(Materialized values) {
            super(values.size());
            this.values = values;
        }

        @Override
        long dataBytes() {
            return values.ends()[values.size()];
        }

        @Override
        void writeOwn(VarWidthTarget t, long out, long dataStart) {
            if (dataBytes() > 0) {
                t.data.setBytes(dataStart, values.bytes(), 0, dataBytes());
            }
            for (int i = 0; i < count; i++) {
                t.setOffset(out + i + 1, dataStart + values.ends()[i + 1]);
                if (values.valid()[i]) {
                    BitVectorHelper.setBit(t.validity, out + i);
                }
            }
        }
    }
}
