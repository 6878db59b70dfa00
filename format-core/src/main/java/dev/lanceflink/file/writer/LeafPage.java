package dev.lanceflink.file.writer;

import java.util.Arrays;
import java.util.Locale;
import lance.encodings21.CompressiveEncoding;
import lance.encodings21.RepDefLayer;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.NonNullableStructVector;

/**
 * The rows of one 2.1+ leaf column buffered for the next page: repetition levels, raw definition
 * codes and the leaf values of every value slot, shredded straight from Arrow buffers.
 *
 * <p>Definition levels depend on which layers actually hold nulls or empty lists in the page
 * (Lance writes {@code ALL_VALID_*} layers when a page has none), which is only known when the
 * page is complete. Entries therefore record a raw code first: {@code 0} = valid leaf value,
 * {@code 1 + 2·layer} = null at {@code layer}, {@code 2 + 2·layer} = empty list at {@code layer};
 * {@link #defMapping()} turns those into Lance's inside-out def levels at page time.
 */
final class LeafPage {
    final LeafPath path;
    final WriterField leaf;
    /** Repetition level per entry (only when the path has lists). */
    final ShortBuilder rep;
    /** Raw definition code per entry. */
    final ShortBuilder def;

    final boolean[] layerHasNull;
    final boolean[] layerHasEmpty;
    long numRows;
    /** Value slots (leaf values incl. null placeholders). */
    int numValues;
    /** Entries whose leaf value is valid (raw code 0). */
    int numValid;

    // Value storage, by leaf kind.
    final ByteBuilder fixed;
    final BitBuilder bools;
    final LongBuilder ends;
    final BitBuilder itemValidity;
    boolean anyItemNull;
    long maxValueBytes;
    /** The encoders' output buffer, shared with the file's other leaves. */
    private final EncodeBuffer encoded;

    // Set only on the views made by StringPageCompressor (the buffered page itself has none).
    /** Serialized FSST symbol table when {@link #fixed}/{@link #ends} hold FSST-compressed strings. */
    byte[] fsstSymbolTable;
    /** Dictionary page: the block buffer of the items (page buffer 2) when the values are indices. */
    ByteBuilder dictionary;

    CompressiveEncoding dictionaryEncoding;
    int dictionaryItems;

    LeafPage(LeafPath path, EncodeBuffer encoded) {
        this.path = path;
        this.encoded = encoded;
        this.leaf = path.leaf();
        this.rep = path.maxRep > 0 ? new ShortBuilder() : null;
        this.def = new ShortBuilder();
        this.layerHasNull = new boolean[path.numLayers()];
        this.layerHasEmpty = new boolean[path.numLayers()];
        this.fixed = leaf.kind() == WriterField.Kind.BOOL ? null : new ByteBuilder(64 * 1024);
        this.bools = leaf.kind() == WriterField.Kind.BOOL ? new BitBuilder() : null;
        this.ends = leaf.kind() == WriterField.Kind.VARIABLE ? new LongBuilder() : null;
        this.itemValidity = leaf.kind() == WriterField.Kind.FSL ? new BitBuilder() : null;
    }

    /**
     * A view of {@code page} with other leaf values: same rows, levels and layers, but the values
     * of {@code leaf} held in {@code fixed} (and {@code ends} for variable width). Used for
     * dictionary indices and FSST-compressed strings; nothing of {@code page} is copied.
     */
    LeafPage(LeafPage page, WriterField leaf, ByteBuilder fixed, LongBuilder ends) {
        this.path = page.path;
        this.encoded = page.encoded;
        this.leaf = leaf;
        this.rep = page.rep;
        this.layerHasNull = page.layerHasNull;
        this.layerHasEmpty = page.layerHasEmpty;
        this.fixed = fixed;
        this.bools = null;
        this.ends = ends;
        this.itemValidity = null;
        this.numRows = page.numRows;
        this.numValues = page.numValues;
        this.numValid = page.numValid;
        this.maxValueBytes = page.maxValueBytes;
        this.def = page.def;
    }

    /**
     * An empty buffer for the encoded page of at least {@code capacity} bytes, shared by all
     * leaves of the file ({@link EncodeBuffer}): write the page out before encoding another.
     */
    ByteBuilder encodeBuffer(long capacity) {
        return encoded.take(capacity);
    }

    /** The file's shared encoder buffers (see {@link EncodeBuffer}). */
    EncodeBuffer encodeBuffers() {
        return encoded;
    }

    int numLevels() {
        return def.size();
    }

    boolean isEmpty() {
        return numRows == 0;
    }

    /** Bytes the page would roughly take; drives page cuts. */
    long estimatedBytes() {
        long v = fixed != null ? fixed.size() : (bools.size() + 7) / 8;
        if (ends != null) {
            v += 4L * ends.size();
        }
        return v + 4L * def.size();
    }

    void reset() {
        if (rep != null) {
            rep.clear();
        }
        def.clear();
        Arrays.fill(layerHasNull, false);
        Arrays.fill(layerHasEmpty, false);
        numRows = 0;
        numValues = 0;
        numValid = 0;
        if (fixed != null) {
            fixed.clear();
        }
        if (bools != null) {
            bools.clear();
        }
        if (ends != null) {
            ends.clear();
        }
        if (itemValidity != null) {
            itemValidity.clear();
        }
        anyItemNull = false;
        maxValueBytes = 0;
    }

    // ------------------------------------------------------------------ shredding

    /** Appends top-level rows {@code [start, end)} of {@code top}. */
    void appendRows(FieldVector top, int start, int end) {
        if (end <= start) {
            return;
        }
        visit(0, top, start, end, path.maxRep, path.maxRep);
        numRows += end - start;
    }

    private void visit(int j, FieldVector vec, int start, int end, int firstRep, int contRep) {
        WriterField f = path.fields[j];
        int layer = path.layerOf(j);
        switch (f.kind()) {
            case STRUCT -> {
                FieldVector child =
                        ((NonNullableStructVector) vec).getChildrenFromFields().get(path.childOrdinal[j + 1]);
                int i = start;
                while (i < end) {
                    int r = i == start ? firstRep : contRep;
                    if (vec.isNull(i)) {
                        special(r, 1 + 2 * layer, layer);
                        layerHasNull[layer] = true;
                        i++;
                    } else {
                        int k = i + 1;
                        while (k < end && !vec.isNull(k)) {
                            k++;
                        }
                        visit(j + 1, child, i, k, r, contRep);
                        i = k;
                    }
                }
            }
            case LIST, LARGE_LIST, MAP -> {
                // A MapVector is a ListVector (i32 offsets) whose items are the entries struct.
                boolean large = f.kind() == WriterField.Kind.LARGE_LIST;
                ArrowBuf offsets = vec.getOffsetBuffer();
                FieldVector items =
                        large ? ((LargeListVector) vec).getDataVector() : ((ListVector) vec).getDataVector();
                int inner = path.listLevel[j] - 1;
                for (int i = start; i < end; i++) {
                    int r = i == start ? firstRep : contRep;
                    if (vec.isNull(i)) {
                        special(r, 1 + 2 * layer, layer);
                        layerHasNull[layer] = true;
                        continue;
                    }
                    long s = large ? offsets.getLong(8L * i) : offsets.getInt(4L * i);
                    long e = large ? offsets.getLong(8L * (i + 1)) : offsets.getInt(4L * (i + 1));
                    if (s == e) {
                        special(r, 2 + 2 * layer, layer);
                        layerHasEmpty[layer] = true;
                    } else {
                        if (e > Integer.MAX_VALUE) {
                            throw new IllegalArgumentException(f.kind().name().toLowerCase(Locale.ROOT) + " field '"
                                    + f.name() + "' has more than 2^31 items in one batch");
                        }
                        visit(j + 1, items, (int) s, (int) e, r, inner);
                    }
                }
            }
            default -> leafValues(vec, start, end, firstRep, contRep);
        }
    }

    /** A null struct/list or an empty list: one level entry, plus a placeholder slot if visible. */
    private void special(int r, int code, int layer) {
        if (rep != null) {
            rep.add(r);
        }
        def.add(code);
        if (path.slotAt(layer)) {
            placeholder();
            numValues++;
        }
    }

    private void placeholder() {
        switch (leaf.kind()) {
            case BOOL -> bools.add(false);
            case FIXED -> fixed.putZeros(leaf.byteWidth());
            case VARIABLE -> ends.add(fixed.size());
            case FSL -> {
                fixed.putZeros(leaf.byteWidth() * leaf.dimension());
                itemValidity.addRepeated(true, leaf.dimension());
            }
            default -> throw new IllegalStateException(leaf.kind().name());
        }
    }

    private void leafValues(FieldVector vec, int start, int end, int firstRep, int contRep) {
        int n = end - start;
        if (rep != null) {
            rep.add(firstRep);
            rep.addRepeated(contRep, n - 1);
        }
        int nulls = 0;
        if (leaf.nullable() && vec.getNullCount() > 0) {
            for (int i = start; i < end; i++) {
                if (vec.isNull(i)) {
                    def.add(1);
                    nulls++;
                } else {
                    def.add(0);
                }
            }
            if (nulls > 0) {
                layerHasNull[0] = true;
            }
        } else {
            def.addRepeated(0, n);
        }
        numValid += n - nulls;
        numValues += n;
        switch (leaf.kind()) {
            case BOOL -> bools.addArrowBits(((BitVector) vec).getDataBuffer(), start, n);
            case FIXED -> {
                int w = leaf.byteWidth();
                fixed.putArrow(((BaseFixedWidthVector) vec).getDataBuffer(), (long) start * w, n * w);
            }
            case VARIABLE -> appendVariable(vec, start, end);
            case FSL -> appendFsl((FixedSizeListVector) vec, start, n);
            default -> throw new IllegalStateException(leaf.kind().name());
        }
    }

    private void appendVariable(FieldVector vec, int start, int end) {
        ArrowBuf offsets = vec.getOffsetBuffer();
        boolean large = leaf.byteWidth() == 8;
        if (large != (vec instanceof BaseLargeVariableWidthVector)) {
            throw new IllegalArgumentException(
                    "field '" + leaf.name() + "' (id " + leaf.id() + ") is declared as " + leaf.arrowType()
                            + " but the batch holds a " + vec.getField().getType() + " vector");
        }
        long first = large ? offsets.getLong(8L * start) : offsets.getInt(4L * start);
        long last = large ? offsets.getLong(8L * end) : offsets.getInt(4L * end);
        long base = fixed.size() - first;
        long prev = first;
        long maxLen = maxValueBytes;
        for (int i = start + 1; i <= end; i++) {
            long o = large ? offsets.getLong(8L * i) : offsets.getInt(4L * i);
            long len = o - prev;
            if (len > maxLen) {
                maxLen = len;
            }
            ends.add(base + o);
            prev = o;
        }
        maxValueBytes = maxLen;
        long bytes = last - first;
        if (bytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(
                    "field '" + leaf.name() + "' has more than 2 GiB of values in one batch");
        }
        ArrowBuf data = vec instanceof BaseVariableWidthVector v
                ? v.getDataBuffer()
                : ((BaseLargeVariableWidthVector) vec).getDataBuffer();
        fixed.putArrow(data, first, (int) bytes);
    }

    private void appendFsl(FixedSizeListVector vec, int start, int n) {
        int dim = vec.getListSize();
        if (dim != leaf.dimension()) {
            throw new IllegalArgumentException("field '" + leaf.name() + "' (id " + leaf.id()
                    + ") expects fixed_size_list of " + leaf.dimension() + " items, the batch holds " + dim);
        }
        FieldVector items = vec.getDataVector();
        int w = leaf.byteWidth();
        long first = (long) start * dim;
        long count = (long) n * dim;
        fixed.putArrow(((BaseFixedWidthVector) items).getDataBuffer(), first * w, (int) (count * w));
        if (items.getNullCount() == 0) {
            itemValidity.addRepeated(true, count);
        } else {
            long before = itemValidity.size();
            itemValidity.addArrowBits(items.getValidityBuffer(), first, count);
            if (!anyItemNull && itemValidity.anyClear(before, count)) {
                anyItemNull = true;
            }
        }
    }

    // ------------------------------------------------------------------ page-time helpers

    /** Lance layer kinds for this page, innermost first. */
    RepDefLayer[] layers() {
        RepDefLayer[] out = new RepDefLayer[path.numLayers()];
        for (int layer = 0; layer < out.length; layer++) {
            WriterField f = path.fields[path.depth() - layer];
            boolean nulls = layerHasNull[layer];
            if (f.kind().isList()) {
                boolean empty = layerHasEmpty[layer];
                out[layer] = nulls && empty
                        ? RepDefLayer.REPDEF_NULL_AND_EMPTY_LIST
                        : nulls
                                ? RepDefLayer.REPDEF_NULLABLE_LIST
                                : empty ? RepDefLayer.REPDEF_EMPTYABLE_LIST : RepDefLayer.REPDEF_ALL_VALID_LIST;
            } else {
                out[layer] = nulls ? RepDefLayer.REPDEF_NULLABLE_ITEM : RepDefLayer.REPDEF_ALL_VALID_ITEM;
            }
        }
        return out;
    }

    /** Maps raw codes to Lance definition levels (index = raw code); element 0 is 0. */
    int[] defMapping() {
        int[] map = new int[1 + 2 * path.numLayers()];
        int c = 0;
        for (int layer = 0; layer < path.numLayers(); layer++) {
            if (layerHasNull[layer]) {
                map[1 + 2 * layer] = ++c;
            }
            if (layerHasEmpty[layer]) {
                map[2 + 2 * layer] = ++c;
            }
        }
        return map;
    }

    /** Largest value in bytes (drives the mini-block / full-zip choice). */
    long maxValueBytes() {
        return switch (leaf.kind()) {
            case BOOL -> 1;
            case FIXED -> leaf.byteWidth();
            case FSL -> (long) leaf.byteWidth() * leaf.dimension();
            case VARIABLE -> maxValueBytes;
            default -> 0;
        };
    }

    /** Start (byte offset in {@link #fixed}) of variable-width value {@code i}. */
    long varStart(int i) {
        return i == 0 ? 0 : ends.get(i - 1);
    }
}
