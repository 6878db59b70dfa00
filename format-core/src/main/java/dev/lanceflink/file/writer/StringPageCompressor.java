package dev.lanceflink.file.writer;

import com.google.protobuf.ByteString;
import dev.lanceflink.encoding.compression.FsstSymbolTable;
import dev.lanceflink.encoding.compression.GeneralCompression;
import dev.lanceflink.file.FileVersion;
import java.util.Arrays;
import java.util.List;
import lance.encodings21.BufferCompression;
import lance.encodings21.CompressionScheme;
import lance.encodings21.CompressiveEncoding;
import lance.encodings21.Fsst;
import lance.encodings21.General;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * The two string encodings Lance applies to variable-width pages by default (file versions 2.1
 * and 2.2; compression.md §5.1 and §5.3), as views of the buffered page that the mini-block and
 * full-zip encoders then write like any other page:
 *
 * <ul>
 *   <li>{@link #dictionary}: low-cardinality pages become int32 dictionary indices (bit-packed by
 *       the mini-block encoder) plus one block of distinct items, in first-occurrence order, in
 *       page buffer 2. Lance's eligibility rules: at least 100 values, at most
 *       {@code min(n / 2, 100000)} distinct ones, a stride sample that is not nearly unique, and
 *       an encoded size of at most 80 % of the plain one. In 2.2 the item block is LZ4-framed
 *       ({@code general{lz4}}) when that is smaller, as Lance does.
 *   <li>{@link #fsst}: utf8 pages whose longest value has at least 5 bytes and whose bytes and
 *       offsets reach 32 KiB are FSST-compressed with one symbol table per page, in mini-block
 *       and full-zip pages alike.
 * </ul>
 *
 * Where Lance would still write the encoding without gaining anything (an FSST table that does
 * not compress, an LZ4 block larger than its input), the plain form is written instead: it is
 * smaller and Lance reads both.
 */
final class StringPageCompressor {
    /** Lance: dictionaries need at least this many values in the page. */
    static final int MIN_DICTIONARY_VALUES = 100;
    /** Lance: at most this many distinct values (and at most half the values). */
    static final int MAX_DICTIONARY_ITEMS = 100_000;
    /** Lance: pages of at least this many values are sampled first; a nearly unique sample skips the dictionary. */
    private static final int SAMPLE_FROM = 1024;

    private static final int SAMPLE_SIZE = 4096;
    /** Lance: the dictionary must bring the page to at most 80 % of its plain size. */
    private static final double MAX_DICTIONARY_RATIO = 0.8;
    /** Lance: FSST is tried from this many bytes of strings plus offsets, and only if a value has 5 bytes or more. */
    static final int FSST_MIN_PAGE_BYTES = 32 * 1024;

    static final int FSST_MIN_MAX_VALUE_BYTES = 5;

    private static final WriterField INDICES = new WriterField(
            -1, "dictionary indices", true, WriterField.Kind.FIXED, 4, 0, new ArrowType.Int(32, false), List.of());

    private StringPageCompressor() {}

    /**
     * The page as dictionary indices with its items, or null when Lance's rules say no (or the
     * leaf is not variable width).
     */
    static LeafPage dictionary(LeafPage page, FileVersion version) {
        if (page.leaf.kind() != WriterField.Kind.VARIABLE || page.numValues < MIN_DICTIONARY_VALUES) {
            return null;
        }
        int n = page.numValues;
        byte[] data = page.fixed.array();
        long[] ends = page.ends.array();
        int w = page.leaf.byteWidth();
        if (n >= SAMPLE_FROM) {
            int stride = Math.max(1, n / SAMPLE_SIZE);
            int sampled = 0;
            Distinct sample = new Distinct(data, ends, SAMPLE_SIZE);
            for (int i = 0; i < n && sampled < SAMPLE_SIZE; i += stride) {
                sample.add(i);
                sampled++;
            }
            if (sample.count >= 0.98 * sampled) {
                return null;
            }
        }
        int limit = Math.min(n / 2, MAX_DICTIONARY_ITEMS);
        Distinct items = new Distinct(data, ends, Math.min(limit, 1024));
        EncodeBuffer scratch = page.encodeBuffers();
        ByteBuilder indices = scratch.scratchBytes != null ? scratch.scratchBytes : new ByteBuilder(4 * n);
        scratch.scratchBytes = indices;
        indices.clear();
        indices.ensureSpace(4 * n);
        for (int i = 0; i < n; i++) {
            int item = items.add(i);
            if (items.count > limit) {
                return null;
            }
            indices.putInt(item);
        }
        long itemBytes = 0;
        for (int k = 0; k < items.count; k++) {
            int v = items.values[k];
            itemBytes += ends[v] - start(ends, v);
        }
        long plain = (ends[n - 1]) + (long) w * (n + 1);
        long encoded = itemBytes + (long) w * (items.count + 1) + 4L * n;
        if (encoded > MAX_DICTIONARY_RATIO * plain) {
            return null;
        }
        ByteBuilder block = scratch.scratchDictionary != null ? scratch.scratchDictionary : new ByteBuilder(1024);
        scratch.scratchDictionary = block;
        block.clear();
        long dataStart = 2L * w + (long) w * (items.count + 1);
        block.putUnsigned(8L * w, w);
        block.putUnsigned(dataStart, w);
        long off = 0;
        block.putUnsigned(0, w);
        for (int k = 0; k < items.count; k++) {
            int v = items.values[k];
            off += ends[v] - start(ends, v);
            block.putUnsigned(off, w);
        }
        for (int k = 0; k < items.count; k++) {
            int v = items.values[k];
            int s = (int) start(ends, v);
            block.putBytes(data, s, (int) (ends[v] - s));
        }
        CompressiveEncoding itemEncoding = Encodings.variable(8 * w);
        ByteBuilder dictionary = block;
        if (version.compareTo(FileVersion.V2_2) >= 0) {
            byte[] lz4 = GeneralCompression.compress(GeneralCompression.Scheme.LZ4, block.array(), 0, block.size());
            if (lz4.length < block.size()) {
                dictionary = new ByteBuilder(lz4.length);
                dictionary.putBytes(lz4, 0, lz4.length);
                itemEncoding = general(GeneralCompression.Scheme.LZ4, itemEncoding);
            }
        }
        LeafPage view = new LeafPage(page, INDICES, indices, null);
        view.dictionary = dictionary;
        view.dictionaryEncoding = itemEncoding;
        view.dictionaryItems = items.count;
        return view;
    }

    /**
     * The page with FSST-compressed strings (one symbol table for the page), or null when Lance's
     * rules say no or the table would not make the page smaller.
     */
    static LeafPage fsst(LeafPage page) {
        WriterField leaf = page.leaf;
        if (leaf.kind() != WriterField.Kind.VARIABLE
                || page.numValues == 0
                || !(leaf.arrowType() instanceof ArrowType.Utf8 || leaf.arrowType() instanceof ArrowType.LargeUtf8)
                || page.maxValueBytes < FSST_MIN_MAX_VALUE_BYTES) {
            return null;
        }
        int n = page.numValues;
        long[] ends = page.ends.array();
        long bytes = ends[n - 1];
        if (bytes + (long) leaf.byteWidth() * (n + 1) < FSST_MIN_PAGE_BYTES) {
            return null;
        }
        long[] offsets = new long[n + 1];
        System.arraycopy(ends, 0, offsets, 1, n);
        byte[] data = page.fixed.array();
        FsstSymbolTable table = FsstSymbolTable.train(data, offsets, n);
        if (!table.isCompressed()) {
            return null;
        }
        EncodeBuffer scratch = page.encodeBuffers();
        ByteBuilder out =
                scratch.scratchBytes != null ? scratch.scratchBytes : new ByteBuilder((int) Math.min(bytes, 1 << 20));
        scratch.scratchBytes = out;
        LongBuilder outEnds = scratch.scratchEnds != null ? scratch.scratchEnds : new LongBuilder();
        scratch.scratchEnds = outEnds;
        out.clear();
        outEnds.clear();
        for (int i = 0; i < n; i++) {
            int s = (int) offsets[i];
            int len = (int) (offsets[i + 1] - s);
            out.ensureSpace(FsstSymbolTable.maxCompressedLength(len));
            int written = table.compress(data, s, len, out.array(), out.size());
            out.advance(written);
            outEnds.add(out.size());
        }
        if (out.size() + FsstSymbolTable.SERIALIZED_SIZE >= bytes) {
            return null;
        }
        LeafPage view = new LeafPage(page, leaf, out, outEnds);
        view.fsstSymbolTable = table.serialize();
        return view;
    }

    /** {@code fsst{symbol_table, variable}} around the plain variable encoding of the compressed strings. */
    static CompressiveEncoding fsstEncoding(byte[] table, int offsetBits) {
        return CompressiveEncoding.newBuilder()
                .setFsst(Fsst.newBuilder()
                        .setSymbolTable(ByteString.copyFrom(table))
                        .setValues(Encodings.variable(offsetBits)))
                .build();
    }

    static CompressiveEncoding general(GeneralCompression.Scheme scheme, CompressiveEncoding values) {
        CompressionScheme s = scheme == GeneralCompression.Scheme.LZ4
                ? CompressionScheme.COMPRESSION_ALGORITHM_LZ4
                : CompressionScheme.COMPRESSION_ALGORITHM_ZSTD;
        return CompressiveEncoding.newBuilder()
                .setGeneral(General.newBuilder()
                        .setCompression(BufferCompression.newBuilder().setScheme(s))
                        .setValues(values))
                .build();
    }

    private static long start(long[] ends, int v) {
        return v == 0 ? 0 : ends[v - 1];
    }

    /**
     * Distinct strings of the page by open addressing over value indices (no objects per value):
     * {@link #add} returns the item number of a value, a new one for bytes not seen before.
     */
    private static final class Distinct {
        private final byte[] data;
        private final long[] ends;
        /** Item number + 1 per slot, 0 = empty. */
        private int[] slots;

        private long[] slotHashes;
        /** First-occurrence value index per item. */
        int[] values;

        int count;

        Distinct(byte[] data, long[] ends, int expected) {
            this.data = data;
            this.ends = ends;
            int cap = Integer.highestOneBit(Math.max(16, expected * 2 - 1)) << 1;
            slots = new int[cap];
            slotHashes = new long[cap];
            values = new int[Math.max(16, expected)];
        }

        int add(int v) {
            int s = (int) start(ends, v);
            int e = (int) ends[v];
            long h = hash(data, s, e);
            int mask = slots.length - 1;
            int p = (int) (h ^ (h >>> 32)) & mask;
            while (true) {
                int item = slots[p];
                if (item == 0) {
                    break;
                }
                if (slotHashes[p] == h) {
                    int o = values[item - 1];
                    int os = (int) start(ends, o);
                    if (Arrays.equals(data, s, e, data, os, (int) ends[o])) {
                        return item - 1;
                    }
                }
                p = (p + 1) & mask;
            }
            if (count == values.length) {
                values = Arrays.copyOf(values, count * 2);
            }
            values[count] = v;
            slots[p] = ++count;
            slotHashes[p] = h;
            if (count * 2 > slots.length) {
                grow();
            }
            return count - 1;
        }

        private void grow() {
            int[] oldSlots = slots;
            long[] oldHashes = slotHashes;
            slots = new int[oldSlots.length * 2];
            slotHashes = new long[slots.length];
            int mask = slots.length - 1;
            for (int i = 0; i < oldSlots.length; i++) {
                if (oldSlots[i] != 0) {
                    long h = oldHashes[i];
                    int p = (int) (h ^ (h >>> 32)) & mask;
                    while (slots[p] != 0) {
                        p = (p + 1) & mask;
                    }
                    slots[p] = oldSlots[i];
                    slotHashes[p] = h;
                }
            }
        }

        private static long hash(byte[] data, int s, int e) {
            long h = 0xcbf29ce484222325L;
            for (int i = s; i < e; i++) {
                h = (h ^ data[i]) * 0x100000001b3L;
            }
            return h ^ (h >>> 29) ^ (e - s);
        }
    }
}
