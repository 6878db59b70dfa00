package dev.lanceflink.encoding.v21;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import lance.encodings21.CompressiveEncoding;
import lance.encodings21.MiniBlockLayout;

/**
 * A mini-block page (file-format.md §8.3, compression.md §2.1). Opening it reads the small
 * buffers (chunk metadata, dictionary, repetition index); rows are then served by decoding only
 * the chunks that hold them, fetched with one range read per call.
 */
public final class MiniBlockPage implements StructuralPage {
    private final MiniBlockLayout layout;
    private final PageBufferSource source;
    private final long numRows;
    private final RepDefLayers layers;
    private final boolean hasRep;
    private final boolean hasDef;
    private final int numBuffers;
    private final boolean largeChunk;
    /** Byte offset of chunk c in buffer 1; chunkOffsets[numChunks] = end. */
    private final long[] chunkOffsets;
    /** Value slots before chunk c; itemStarts[numChunks] = num_items. */
    private final long[] itemStarts;
    /** Rows before chunk c as recorded by the repetition index (only with repetition). */
    private final long[] rowStarts;
    /** Whether chunk c starts at a row boundary (only with repetition). */
    private final boolean[] boundary;

    private final Values dictionary;

    private final FsstStrings.Tables fsstTables = new FsstStrings.Tables();
    private int cachedChunk = -1;
    private DecodedChunk cached;

    /** One decoded chunk: levels (null when absent; def canonical) and value slots. */
    private record DecodedChunk(short[] rep, short[] def, int numLevels, Values values) {
        int entries() {
            return numLevels == 0 ? values.count() : numLevels;
        }
    }

    /**
     * @param valueShape an empty builder of the leaf's value kind (used to decode the dictionary)
     */
    public MiniBlockPage(MiniBlockLayout layout, PageBufferSource source, long numRows, Values valueShape)
            throws IOException {
        this.layout = layout;
        this.source = source;
        this.numRows = numRows;
        this.layers = RepDefLayers.of(layout.getLayersList());
        this.hasRep = layout.hasRepCompression();
        this.hasDef = layout.hasDefCompression();
        this.numBuffers = Math.toIntExact(layout.getNumBuffers());
        this.largeChunk = layout.getHasLargeChunk();
        boolean hasDict = layout.hasDictionary();
        boolean hasRepIndex = layout.getRepetitionIndexDepth() > 0;
        int expectedBuffers = 2 + (hasDict ? 1 : 0) + (hasRepIndex ? 1 : 0);
        if (source.bufferCount() != expectedBuffers) {
            throw new EncodingException("mini-block page has " + source.bufferCount() + " buffers, expected "
                    + expectedBuffers + " (metadata, data" + (hasDict ? ", dictionary" : "")
                    + (hasRepIndex ? ", repetition index" : "") + ")");
        }
        if (hasRep != (layers.maxRep() > 0)) {
            throw new EncodingException("mini-block page has " + layers.maxRep() + " list layers but "
                    + (hasRep ? "has" : "has no") + " repetition levels");
        }

        // The small buffers (chunk metadata, dictionary, repetition index) are fetched together.
        int[] small = hasDict && hasRepIndex
                ? new int[] {0, 2, 3}
                : hasDict ? new int[] {0, 2} : hasRepIndex ? new int[] {0, 2} : new int[] {0};
        ByteBuffer[] smallBuffers = source.readAll(small);
        // Chunk metadata: one u16 (u32 with has_large_chunk) word per chunk.
        ByteBuffer meta = smallBuffers[0];
        int wordSize = largeChunk ? 4 : 2;
        if (meta.remaining() % wordSize != 0) {
            throw new EncodingException("chunk metadata of " + meta.remaining() + " bytes is not a whole number of "
                    + wordSize + "-byte words");
        }
        int numChunks = meta.remaining() / wordSize;
        chunkOffsets = new long[numChunks + 1];
        itemStarts = new long[numChunks + 1];
        long numItems = layout.getNumItems();
        for (int c = 0; c < numChunks; c++) {
            long word =
                    largeChunk ? Integer.toUnsignedLong(meta.getInt(4 * c)) : Short.toUnsignedInt(meta.getShort(2 * c));
            long bytes = ((word >>> 4) + 1) * 8;
            int log2 = (int) (word & 0xF);
            chunkOffsets[c + 1] = chunkOffsets[c] + bytes;
            long values = c == numChunks - 1 ? numItems - itemStarts[c] : 1L << log2;
            if (c < numChunks - 1 && log2 == 0) {
                throw new EncodingException(
                        "chunk " + c + " of " + numChunks + " is not the last but its metadata word "
                                + Long.toHexString(word) + " records log2(values) = 0");
            }
            if (values < 0) {
                throw new EncodingException("chunks hold more values than the page's num_items " + numItems);
            }
            itemStarts[c + 1] = itemStarts[c] + values;
        }
        if (chunkOffsets[numChunks] > source.bufferSize(1)) {
            throw new EncodingException("chunk metadata describes " + chunkOffsets[numChunks]
                    + " bytes of chunks but the data buffer has " + source.bufferSize(1));
        }

        if (hasDict) {
            long items = layout.getNumDictionaryItems();
            if (items > Integer.MAX_VALUE) {
                throw new EncodingException("dictionary of " + items + " items is too large");
            }
            dictionary =
                    BlockDecoder.decodeDictionary(layout.getDictionary(), smallBuffers[1], (int) items, valueShape);
        } else {
            dictionary = null;
        }

        if (hasRep) {
            if (!hasRepIndex) {
                throw new EncodingException("mini-block page with repetition has no repetition index");
            }
            int depth = layout.getRepetitionIndexDepth();
            ByteBuffer ri = smallBuffers[smallBuffers.length - 1];
            long need = 8L * (depth + 1) * numChunks;
            if (ri.remaining() < need) {
                throw new EncodingException(
                        "repetition index has " + ri.remaining() + " bytes, " + numChunks + " chunks need " + need);
            }
            rowStarts = new long[numChunks + 1];
            boundary = new boolean[numChunks + 1];
            boundary[0] = true;
            for (int c = 0; c < numChunks; c++) {
                long rows = ri.getLong(8 * (depth + 1) * c);
                long trailing = ri.getLong(8 * (depth + 1) * c + 8 * depth);
                rowStarts[c + 1] = rowStarts[c] + rows;
                boundary[c + 1] = trailing == 0;
            }
        } else {
            rowStarts = null;
            boundary = null;
        }
    }

    @Override
    public long numRows() {
        return numRows;
    }

    public int numChunks() {
        return chunkOffsets.length - 1;
    }

    @Override
    public void readRows(long from, long to, LeafLevels levels, Values values) throws IOException {
        if (from < 0 || to > numRows || from > to) {
            throw new IllegalArgumentException(
                    "rows [" + from + ", " + to + ") outside the page's " + numRows + " rows");
        }
        if (from == to) {
            return;
        }
        if (!hasRep) {
            readFlatRows(from, to, levels, values);
        } else {
            readNestedRows(from, to, levels, values);
        }
    }

    /** Without lists every level entry is a row and owns a value slot. */
    private void readFlatRows(long from, long to, LeafLevels levels, Values values) throws IOException {
        int cs = chunkOf(itemStarts, from);
        int ce = chunkOf(itemStarts, to - 1);
        ByteBuffer bytes = fetch(cs, ce);
        for (int c = cs; c <= ce; c++) {
            DecodedChunk ch = chunk(c, bytes, cs);
            int a = (int) (Math.max(from, itemStarts[c]) - itemStarts[c]);
            int b = (int) (Math.min(to, itemStarts[c + 1]) - itemStarts[c]);
            levels.append(null, ch.def, a, b);
            appendSlots(ch.values, values, a, b);
        }
    }

    /** With lists: decode from a chunk that starts at a row boundary, then cut at row starts. */
    private void readNestedRows(long from, long to, LeafLevels levels, Values values) throws IOException {
        int n = numChunks();
        int cs = 0;
        for (int c = 0; c < n; c++) {
            if (boundary[c] && rowStarts[c] <= from) {
                cs = c;
            }
        }
        int ce = cs;
        while (ce < n - 1 && !(boundary[ce + 1] && rowStarts[ce + 1] >= to)) {
            ce++;
        }
        ByteBuffer bytes = fetch(cs, ce);
        int maxRep = layers.maxRep();
        long row = rowStarts[cs] - 1;
        boolean started = false;
        boolean done = false;
        for (int c = cs; c <= ce && !done; c++) {
            DecodedChunk ch = chunk(c, bytes, cs);
            int entries = ch.entries();
            int a = -1;
            int b = entries;
            int slot = 0;
            int slotA = 0;
            int slotB = -1;
            if (started) {
                a = 0;
            }
            for (int i = 0; i < entries; i++) {
                if (ch.rep[i] == maxRep) {
                    row++;
                    if (row == from && !started) {
                        started = true;
                        a = i;
                        slotA = slot;
                    } else if (row == to) {
                        b = i;
                        slotB = slot;
                        done = true;
                        break;
                    }
                }
                if (layers.visible(ch.def == null ? 0 : ch.def[i])) {
                    slot++;
                }
            }
            if (slotB < 0) {
                slotB = slot;
            }
            if (a >= 0) {
                levels.append(ch.rep, ch.def, a, b);
                appendSlots(ch.values, values, slotA, slotB);
            }
        }
        if (!started || (!done && row + 1 != to)) {
            throw new EncodingException("rows [" + from + ", " + to + ") were not found in chunks " + cs + ".." + ce
                    + " (the repetition index disagrees with the repetition levels)");
        }
    }

    private void appendSlots(Values chunkValues, Values out, int from, int to) {
        if (from == to) {
            return;
        }
        if (dictionary != null) {
            if (!(chunkValues instanceof FixedWidthValues idx) || idx.bitsPerValue() != 32) {
                throw new EncodingException("dictionary indices must be 32-bit integers");
            }
            out.appendGather(dictionary, idx, from, to);
        } else {
            out.append(chunkValues, from, to);
        }
    }

    private static int chunkOf(long[] starts, long item) {
        int lo = 0;
        int hi = starts.length - 2;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (starts[mid] <= item) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }

    private ByteBuffer fetch(int cs, int ce) throws IOException {
        if (cs == ce && cachedChunk == cs) {
            return null;
        }
        long len = chunkOffsets[ce + 1] - chunkOffsets[cs];
        return source.read(1, chunkOffsets[cs], Math.toIntExact(len));
    }

    private DecodedChunk chunk(int c, ByteBuffer fetched, int firstFetched) {
        if (c == cachedChunk) {
            return cached;
        }
        int at = (int) (chunkOffsets[c] - chunkOffsets[firstFetched]);
        int len = (int) (chunkOffsets[c + 1] - chunkOffsets[c]);
        ByteBuffer b = fetched.duplicate().position(at).limit(at + len).slice().order(ByteOrder.LITTLE_ENDIAN);
        DecodedChunk d;
        try {
            d = decodeChunk(b, (int) (itemStarts[c + 1] - itemStarts[c]));
        } catch (RuntimeException e) {
            throw new EncodingException(
                    "chunk " + c + " (bytes [" + chunkOffsets[c] + ", " + chunkOffsets[c + 1]
                            + ") of the data buffer): " + e.getMessage(),
                    e);
        }
        cachedChunk = c;
        cached = d;
        return d;
    }

    private DecodedChunk decodeChunk(ByteBuffer b, int valueCount) {
        int p = 0;
        int numLevels = Short.toUnsignedInt(b.getShort(p));
        p += 2;
        int repSize = 0;
        int defSize = 0;
        if (hasRep) {
            repSize = Short.toUnsignedInt(b.getShort(p));
            p += 2;
        }
        if (hasDef) {
            defSize = Short.toUnsignedInt(b.getShort(p));
            p += 2;
        }
        int[] sizes = new int[numBuffers];
        for (int i = 0; i < numBuffers; i++) {
            if (largeChunk) {
                long s = Integer.toUnsignedLong(b.getInt(p));
                sizes[i] = Math.toIntExact(s);
                p += 4;
            } else {
                sizes[i] = Short.toUnsignedInt(b.getShort(p));
                p += 2;
            }
        }
        p = pad8(p);
        short[] rep = null;
        short[] def = null;
        if ((hasRep || hasDef) && numLevels == 0 && valueCount > 0 && (repSize > 0 || defSize > 0)) {
            throw new EncodingException("chunk has level sections but num_levels = 0");
        }
        // A 16-bit num_levels overflows for a chunk of exactly 65536 levels; none are written that large.
        if (hasRep) {
            rep = BlockDecoder.decodeLevels(layout.getRepCompression(), section(b, p, repSize), numLevels);
            p = pad8(p + repSize);
        }
        if (hasDef) {
            def = BlockDecoder.decodeLevels(layout.getDefCompression(), section(b, p, defSize), numLevels);
            layers.canonicalize(def, 0, numLevels);
            p = pad8(p + defSize);
        }
        ByteBuffer[] buffers = new ByteBuffer[numBuffers];
        for (int i = 0; i < numBuffers; i++) {
            buffers[i] = section(b, p, sizes[i]);
            p = pad8(p + sizes[i]);
        }
        if (!hasRep && !hasDef) {
            numLevels = 0;
        } else if (!hasRep && numLevels != valueCount) {
            throw new EncodingException("chunk has " + numLevels + " def levels but " + valueCount + " values");
        }
        Values v = MiniBlockValueDecoder.decode(layout.getValueCompression(), buffers, valueCount, fsstTables);
        if (v.count() != valueCount) {
            throw new EncodingException("chunk decoded to " + v.count() + " values, expected " + valueCount);
        }
        return new DecodedChunk(rep, def, numLevels, v);
    }

    private static ByteBuffer section(ByteBuffer b, int at, int len) {
        if (at + len > b.limit()) {
            throw new EncodingException(
                    "section [" + at + ", +" + len + ") runs past the end of the " + b.limit() + "-byte chunk");
        }
        return b.duplicate().position(at).limit(at + len).slice().order(ByteOrder.LITTLE_ENDIAN);
    }

    private static int pad8(int p) {
        return (p + 7) & ~7;
    }

    /** The page's value compression (for diagnostics). */
    public CompressiveEncoding valueCompression() {
        return layout.getValueCompression();
    }
}
