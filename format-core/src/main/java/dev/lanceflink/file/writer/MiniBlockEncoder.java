package dev.lanceflink.file.writer;

import dev.lanceflink.encoding.compression.FastLanesBitPacking;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import lance.encodings21.CompressiveEncoding;
import lance.encodings21.InlineBitpacking;
import lance.encodings21.MiniBlockLayout;
import lance.encodings21.PageLayout;
import lance.encodings21.RepDefLayer;

/**
 * Encodes a page of small values as a mini-block layout (file-format.md §8.3): chunks of a
 * power-of-two number of values (the last chunk takes the rest), each chunk holding its
 * rep/def levels and its values, every section padded to 8 bytes with
 * {@code 0xFE}; one metadata word per chunk.
 *
 * <p>The chunk grammar depends on the file version. 2.1 uses u16 metadata words and u16
 * value-buffer sizes in the chunk header, which caps a chunk at 32 KiB. 2.2 readers accept
 * only the large-chunk grammar ({@code has_large_chunk}): u32 words and u32 value-buffer
 * sizes (rep/def sizes and the level count stay u16), so chunks may grow to 2 GiB. The
 * values per chunk are chosen the same way in both, as Lance does.
 *
 * <p>Rep/def levels are bit-packed per chunk by {@link LevelCompressor} (raw u16 when bit-packing
 * is off or the page is tiny).
 *
 * <p>Levels follow their values: a chunk ends right after the level of its last value, so
 * invisible levels (empty or null lists) at a boundary open the next chunk, and trailing ones
 * close the last chunk — the split Lance itself makes.
 */
final class MiniBlockEncoder {
    /** Largest chunk a u16 metadata word (12 bits of 8-byte units) can describe. */
    static final long MAX_CHUNK_BYTES = 32 * 1024;
    /** Largest chunk a u32 metadata word (28 bits of 8-byte units) can describe. */
    static final long MAX_LARGE_CHUNK_BYTES = (1L << 28) * 8;
    /** Rep/def section sizes are u16 in both grammars. */
    private static final long MAX_LEVEL_BYTES = 0xFFFF;
    /** Lance's value budget per chunk (values, not levels). */
    private static final int MAX_VALUE_BYTES = 8186;

    private static final int MAX_CHUNK_VALUES = 4096;
    /** Target for variable-width chunks (Lance's default mini-chunk size). */
    private static final int VARIABLE_TARGET_BYTES = 4096;

    private static final byte CHUNK_PAD = (byte) 0xFE;
    private static final byte VALUE_PAD = (byte) 0x48;

    private final LeafPage page;
    private final WriterField leaf;
    private final short[] rep;
    private final short[] def;
    private final boolean[] visibleRaw;
    private final short[] rawCodes;
    private final int numBuffers;
    private final boolean fslValidity;
    /** Whether values are {@code inline_bitpacking}: one FastLanes unit per chunk of at most 1024 values. */
    private final boolean bitPacked;
    /**
     * Bit width of each 1024-value block of the page when {@link #bitPacked}: measured once, as
     * the pack decision, the chunk sizing, the chunk header and the packing all need it.
     */
    private final int[] blockWidths;

    private final LevelCompressor repLevels;
    private final LevelCompressor defLevels;
    /** 2.2 grammar: u32 metadata words and value-buffer sizes ({@code has_large_chunk}). */
    private final boolean largeChunks;

    private final ByteBuffer valuesView;
    /** Little-endian view of the output's current backing array (bit-packed blocks go straight in). */
    private ByteBuffer outView;

    private MiniBlockEncoder(
            LeafPage page,
            short[] def,
            boolean[] visibleRaw,
            int[] blockWidths,
            boolean compressLevels,
            boolean largeChunks) {
        this.page = page;
        this.leaf = page.leaf;
        this.rep = page.rep == null ? null : page.rep.array();
        this.def = def;
        this.visibleRaw = visibleRaw;
        // Raw codes only tell value slots from invisible levels, which exist only with lists.
        this.rawCodes = rep == null ? null : page.def.array();
        this.fslValidity = leaf.kind() == WriterField.Kind.FSL && page.anyItemNull;
        this.numBuffers = fslValidity ? 2 : 1;
        this.blockWidths = blockWidths;
        this.bitPacked = blockWidths != null;
        this.repLevels = rep == null ? null : LevelCompressor.choose(rep, page.numLevels(), compressLevels);
        this.defLevels = def == null ? null : LevelCompressor.choose(def, page.numLevels(), compressLevels);
        this.largeChunks = largeChunks;
        this.valuesView = page.fixed == null
                ? null
                : ByteBuffer.wrap(page.fixed.array(), 0, page.fixed.size()).order(ByteOrder.LITTLE_ENDIAN);
    }

    /**
     * Encodes the page, or returns null when some chunk cannot fit the grammar's limits (32 KiB
     * chunks in 2.1, 64 KiB rep or def sections in both: levels of many invisible entries around
     * few values); the caller then uses full-zip.
     *
     * @param def final definition levels, or null when the page needs none
     * @param visibleRaw per raw def code: whether the entry has a value slot
     * @param largeChunks whether to write the 2.2 large-chunk grammar (u32 words and sizes)
     */
    static EncodedPage encode(
            LeafPage page,
            short[] def,
            boolean[] visibleRaw,
            RepDefLayer[] layers,
            boolean allowBitPacking,
            boolean largeChunks) {
        int[] widths = allowBitPacking ? bitPackedWidths(page) : null;
        return new MiniBlockEncoder(page, def, visibleRaw, widths, allowBitPacking, largeChunks).encode(layers);
    }

    /**
     * Lance's rule (compression.md §5.1): bit-pack 8/16/32/64-bit values when the estimate
     * {@code Σ over 1024-value blocks of (T/8 + 128·W)} is smaller than the flat size. Returns
     * the bit width of every 1024-value block if so, else null.
     */
    static int[] bitPackedWidths(LeafPage page) {
        WriterField leaf = page.leaf;
        if (leaf.kind() != WriterField.Kind.FIXED) {
            return null;
        }
        int w = leaf.byteWidth();
        if (w != 1 && w != 2 && w != 4 && w != 8) {
            return null;
        }
        int t = w * 8;
        int n = page.numValues;
        int block = FastLanesBitPacking.BLOCK_VALUES;
        int[] widths = new int[(n + block - 1) / block];
        ByteBuffer values =
                ByteBuffer.wrap(page.fixed.array(), 0, page.fixed.size()).order(ByteOrder.LITTLE_ENDIAN);
        long estimate = 0;
        for (int b = 0; b < widths.length; b++) {
            int v = b * block;
            widths[b] = FastLanesBitPacking.bitWidth(t, values, v * w, Math.min(block, n - v));
            estimate += w + 128L * widths[b];
        }
        return estimate < (long) n * w ? widths : null;
    }

    /** Bit width of values {@code [v, v + count)}: the cached one when that is exactly a block. */
    private int bitWidth(int v, int count) {
        int block = FastLanesBitPacking.BLOCK_VALUES;
        if (v % block == 0 && count == Math.min(block, page.numValues - v)) {
            return blockWidths[v / block];
        }
        return FastLanesBitPacking.bitWidth(leaf.bitsPerValue(), valuesView, v * leaf.byteWidth(), count);
    }

    private EncodedPage encode(RepDefLayer[] layers) {
        int nv = page.numValues;
        int nl = page.numLevels();
        ByteBuilder meta = new ByteBuilder(64);
        ByteBuilder data = page.encodeBuffer(page.estimatedBytes() + 1024);
        ByteBuilder repIndex = rep != null ? new ByteBuilder(64) : null;
        long maxChunkBytes = largeChunks ? MAX_LARGE_CHUNK_BYTES : MAX_CHUNK_BYTES;
        int v = 0;
        int l = 0;
        while (v < nv) {
            int remaining = nv - v;
            int count = preferredCount(v, remaining);
            int levelEnd;
            while (true) {
                boolean last = count == remaining;
                levelEnd = last ? nl : levelEndAfter(l, count);
                long size = chunkSize(v, count, l, levelEnd - l);
                if (size <= maxChunkBytes) {
                    break;
                }
                count = last ? Integer.highestOneBit(count - 1) : count / 2;
                if (count < 2 && !(count == 1 && remaining == 1)) {
                    return null;
                }
            }
            boolean last = count == remaining;
            int chunkStart = data.size();
            writeChunk(data, v, count, l, levelEnd);
            int chunkBytes = data.size() - chunkStart;
            int log = last ? 0 : Integer.numberOfTrailingZeros(count);
            int word = ((chunkBytes / 8 - 1) << 4) | log;
            if (largeChunks) {
                meta.putInt(word);
            } else {
                meta.putShort(word);
            }
            if (repIndex != null) {
                writeRepIndexEntry(repIndex, l, levelEnd, nl);
            }
            v += count;
            l = levelEnd;
        }
        MiniBlockLayout.Builder layout = MiniBlockLayout.newBuilder()
                .setValueCompression(valueCompression())
                .setNumBuffers(numBuffers)
                .setNumItems(nv)
                .setHasLargeChunk(largeChunks);
        for (RepDefLayer layer : layers) {
            layout.addLayers(layer);
        }
        if (rep != null) {
            layout.setRepCompression(repLevels.encoding()).setRepetitionIndexDepth(1);
        }
        if (def != null) {
            layout.setDefCompression(defLevels.encoding());
        }
        List<ByteBuilder> buffers = new ArrayList<>(4);
        buffers.add(meta);
        buffers.add(data);
        if (page.dictionary != null) {
            // The dictionary is page buffer 2; a repetition index always comes last.
            layout.setDictionary(page.dictionaryEncoding).setNumDictionaryItems(page.dictionaryItems);
            buffers.add(page.dictionary);
        }
        if (repIndex != null) {
            buffers.add(repIndex);
        }
        byte[] any = Encodings.any(
                Encodings.PAGE_LAYOUT_URL,
                PageLayout.newBuilder().setMiniBlockLayout(layout).build());
        return new EncodedPage(buffers, any, page.numRows);
    }

    private CompressiveEncoding valueCompression() {
        if (bitPacked) {
            return CompressiveEncoding.newBuilder()
                    .setInlineBitpacking(InlineBitpacking.newBuilder().setUncompressedBitsPerValue(leaf.bitsPerValue()))
                    .build();
        }
        return switch (leaf.kind()) {
            case BOOL -> Encodings.flat(1);
            case FIXED -> Encodings.flat(leaf.bitsPerValue());
            case VARIABLE ->
                page.fsstSymbolTable != null
                        ? StringPageCompressor.fsstEncoding(page.fsstSymbolTable, leaf.byteWidth() * 8)
                        : Encodings.variable(leaf.byteWidth() * 8);
            case FSL -> Encodings.fixedSizeList(leaf.dimension(), leaf.byteWidth() * 8L, fslValidity);
            default -> throw new IllegalStateException(leaf.kind().name());
        };
    }

    /** Values in the chunk starting at value {@code v}, following Lance's chunk sizing (compression.md §6). */
    private int preferredCount(int v, int remaining) {
        int k;
        if (bitPacked) {
            k = FastLanesBitPacking.BLOCK_VALUES;
        } else if (leaf.kind() == WriterField.Kind.VARIABLE) {
            int w = leaf.byteWidth();
            if (remaining == 1 || varBytes(v, remaining) + (long) (remaining + 1) * w <= VARIABLE_TARGET_BYTES) {
                return remaining;
            }
            k = 2;
            while (k * 2 <= Math.min(MAX_CHUNK_VALUES, remaining)
                    && varBytes(v, k * 2) + (long) (k * 2 + 1) * w <= VARIABLE_TARGET_BYTES) {
                k *= 2;
            }
        } else {
            long rowBytes = switch (leaf.kind()) {
                case BOOL -> 0;
                case FSL -> (long) leaf.byteWidth() * leaf.dimension() + (fslValidity ? (leaf.dimension() + 7) / 8 : 0);
                default -> leaf.byteWidth();
            };
            k = MAX_CHUNK_VALUES;
            while (k > 2 && (long) k * rowBytes >= MAX_VALUE_BYTES) {
                k /= 2;
            }
        }
        return remaining <= k ? remaining : k;
    }

    private long varBytes(int v, int count) {
        return page.ends.get(v + count - 1) - page.varStart(v);
    }

    /** Index just past the level entry of the {@code count}-th value slot at or after level {@code l}. */
    private int levelEndAfter(int l, int count) {
        if (rep == null) {
            return l + count;
        }
        int taken = 0;
        int i = l;
        while (taken < count) {
            if (visibleRaw[rawCodes[i]]) {
                taken++;
            }
            i++;
        }
        return i;
    }

    /** Value-buffer size fields of the chunk header: u32 in the large-chunk grammar, else u16. */
    private int valueSizeBytes() {
        return largeChunks ? 4 : 2;
    }

    private long chunkSize(int v, int count, int l0, int levels) {
        long size = pad8(2L + (rep != null ? 2 : 0) + (def != null ? 2 : 0) + (long) valueSizeBytes() * numBuffers);
        if (rep != null) {
            long bytes = repLevels.size(l0, levels);
            if (bytes > MAX_LEVEL_BYTES) {
                return Long.MAX_VALUE;
            }
            size += pad8(bytes);
        }
        if (def != null) {
            long bytes = defLevels.size(l0, levels);
            if (bytes > MAX_LEVEL_BYTES) {
                return Long.MAX_VALUE;
            }
            size += pad8(bytes);
        }
        long maxValueBytes = largeChunks ? 0xFFFF_FFFFL : 0xFFFF;
        for (int b = 0; b < numBuffers; b++) {
            long bytes = valueBufferBytes(b, v, count);
            if (bytes > maxValueBytes) {
                return Long.MAX_VALUE;
            }
            size += pad8(bytes);
        }
        return size;
    }

    private long valueBufferBytes(int b, int v, int count) {
        return switch (leaf.kind()) {
            case BOOL -> (count + 7) / 8;
            case FIXED -> bitPacked ? bitPackedBytes(v, count) : (long) count * leaf.byteWidth();
            case VARIABLE -> {
                int w = leaf.byteWidth();
                long raw = (long) (count + 1) * w + varBytes(v, count);
                yield raw + ByteBuilder.padding(raw, w);
            }
            case FSL ->
                fslValidity && b == 0
                        ? ((long) count * leaf.dimension() + 7) / 8
                        : (long) count * leaf.dimension() * leaf.byteWidth();
            default -> throw new IllegalStateException(leaf.kind().name());
        };
    }

    private void writeChunk(ByteBuilder out, int v, int count, int l0, int l1) {
        int levels = l1 - l0;
        boolean anyLevels = rep != null || def != null;
        out.putShort(anyLevels ? levels : 0);
        if (rep != null) {
            out.putShort((int) repLevels.size(l0, levels));
        }
        if (def != null) {
            out.putShort((int) defLevels.size(l0, levels));
        }
        for (int b = 0; b < numBuffers; b++) {
            out.putUnsigned(valueBufferBytes(b, v, count), valueSizeBytes());
        }
        out.padTo(8, CHUNK_PAD);
        if (rep != null) {
            repLevels.write(out, l0, levels);
            out.padTo(8, CHUNK_PAD);
        }
        if (def != null) {
            defLevels.write(out, l0, levels);
            out.padTo(8, CHUNK_PAD);
        }
        switch (leaf.kind()) {
            case BOOL -> page.bools.copyTo(out, v, count);
            case FIXED -> {
                if (bitPacked) {
                    putBitPacked(out, v, count);
                } else {
                    out.putBytes(page.fixed.array(), v * leaf.byteWidth(), count * leaf.byteWidth());
                }
            }
            case VARIABLE -> putVariable(out, v, count);
            case FSL -> {
                long items = (long) count * leaf.dimension();
                if (fslValidity) {
                    page.itemValidity.copyTo(out, (long) v * leaf.dimension(), items);
                    out.padTo(8, CHUNK_PAD);
                }
                out.putBytes(page.fixed.array(), (int) ((long) v * leaf.dimension() * leaf.byteWidth()), (int)
                        (items * leaf.byteWidth()));
            }
            default -> throw new IllegalStateException(leaf.kind().name());
        }
        out.padTo(8, CHUNK_PAD);
    }

    /** Size of the chunk's inline bit-packing units: per 1024-value block a T-bit width word and 128·W bytes. */
    private long bitPackedBytes(int v, int count) {
        long bytes = 0;
        for (int done = 0; done < count; done += FastLanesBitPacking.BLOCK_VALUES) {
            int n = Math.min(FastLanesBitPacking.BLOCK_VALUES, count - done);
            bytes += leaf.byteWidth() + 128L * bitWidth(v + done, n);
        }
        return bytes;
    }

    /**
     * The chunk's inline bit-packing units, {@code [W as a T-bit word][FastLanes block]} per
     * 1024 values (chunks hold one block), packed straight into the output.
     */
    private void putBitPacked(ByteBuilder out, int v, int count) {
        int t = leaf.bitsPerValue();
        for (int done = 0; done < count; done += FastLanesBitPacking.BLOCK_VALUES) {
            int n = Math.min(FastLanesBitPacking.BLOCK_VALUES, count - done);
            int width = bitWidth(v + done, n);
            out.putUnsigned(width, t / 8);
            int bytes = 128 * width;
            out.ensureSpace(bytes);
            if (outView == null || outView.array() != out.array()) {
                outView = ByteBuffer.wrap(out.array()).order(ByteOrder.LITTLE_ENDIAN);
            }
            FastLanesBitPacking.pack(t, valuesView, (v + done) * leaf.byteWidth(), n, width, outView, out.size());
            out.advance(bytes);
        }
    }

    /** {@code (count+1)} offsets relative to the buffer start, the bytes, then 0x48 padding to the offset width. */
    private void putVariable(ByteBuilder out, int v, int count) {
        int w = leaf.byteWidth();
        long base = page.varStart(v);
        long first = (long) (count + 1) * w;
        out.putUnsigned(first, w);
        for (int i = 0; i < count; i++) {
            out.putUnsigned(first + page.ends.get(v + i) - base, w);
        }
        long bytes = page.ends.get(v + count - 1) - base;
        out.putBytes(page.fixed.array(), (int) base, (int) bytes);
        int start = out.size() - (int) (first + bytes);
        int pad = ByteBuilder.padding(out.size() - start, w);
        for (int i = 0; i < pad; i++) {
            out.put(VALUE_PAD);
        }
    }

    /**
     * Repetition index entry: rows that end inside the chunk, and the number of level entries at
     * the chunk's end that belong to a row continuing into the next chunk.
     */
    private void writeRepIndexEntry(ByteBuilder out, int l0, int l1, int nl) {
        int maxRep = page.path.maxRep;
        int starts = 0;
        int lastStart = -1;
        for (int i = l0; i < l1; i++) {
            if (rep[i] == maxRep) {
                starts++;
                lastStart = i;
            }
        }
        boolean carriedIn = l0 > 0 && l0 < nl && rep[l0] != maxRep;
        boolean continuesOut = l1 < nl && rep[l1] != maxRep;
        long rows = starts + (carriedIn ? 1 : 0) - (continuesOut ? 1 : 0);
        long trailing = continuesOut ? l1 - (lastStart >= 0 ? lastStart : l0) : 0;
        out.putLong(rows);
        out.putLong(trailing);
    }

    private static long pad8(long n) {
        return (n + 7) & ~7L;
    }
}
