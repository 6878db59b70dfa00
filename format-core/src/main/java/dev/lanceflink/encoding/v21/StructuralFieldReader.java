package dev.lanceflink.encoding.v21;

import dev.lanceflink.schema.LanceField;
import dev.lanceflink.schema.LogicalTypes;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Reads one top-level field of a structural (2.1+) file into an Arrow vector: every leaf column
 * below it is read for the requested rows, its levels are turned into per-node structure
 * ({@link NestedStructure}), and the vector tree is filled top-down, each struct/list node taking
 * its structure from its first leaf.
 */
public final class StructuralFieldReader {
    private final LanceField field;
    private final Field arrowField;
    private final List<Leaf> leaves = new ArrayList<>();

    /** One leaf column below the field, with its path's node kinds. */
    private record Leaf(LanceField field, Field arrowField, boolean[] isList, StructuralColumnReader reader) {}

    /** Supplies the column reader of one leaf column (columns are numbered in pre-order of leaves). */
    @FunctionalInterface
    public interface ColumnOpener {
        StructuralColumnReader open(int leafOrdinal, LanceField leaf, Values shape, boolean hasRep) throws IOException;
    }

    /** Whether a field owns a column in a 2.1+ file: leaves (incl. primitive fixed-size lists) and packed structs. */
    public static boolean ownsColumn(LanceField f) {
        return f.isLeaf() || f.isPackedStruct();
    }

    /** Number of leaf columns below (and including) {@code f} in a 2.1+ file. */
    public static int columnCount(LanceField f) {
        if (ownsColumn(f)) {
            return 1;
        }
        int n = 0;
        for (LanceField c : f.children()) {
            n += columnCount(c);
        }
        return n;
    }

    public StructuralFieldReader(LanceField field, ColumnOpener opener) throws IOException {
        this.field = field;
        this.arrowField = field.toArrow();
        collect(field, arrowField, new ArrayList<>(), opener);
    }

    private void collect(LanceField f, Field af, List<Boolean> path, ColumnOpener opener) throws IOException {
        if (f.shape() == LogicalTypes.Shape.FIXED_SIZE_LIST_STRUCT) {
            throw new EncodingException("field '" + f.pathString()
                    + "' is a fixed-size list of structs, which this reader does not support yet");
        }
        if (ownsColumn(f)) {
            boolean[] isList = new boolean[path.size() + 1];
            boolean hasRep = false;
            for (int i = 0; i < path.size(); i++) {
                isList[i] = path.get(i);
                hasRep |= isList[i];
            }
            Values shape = ValueShapes.builderFor(af);
            leaves.add(new Leaf(f, af, isList, opener.open(leaves.size(), f, shape, hasRep)));
            return;
        }
        // A map is stored as the list of its entries struct (one repetition layer).
        path.add(f.isList() || f.isMap());
        List<LanceField> children = f.children();
        for (int i = 0; i < children.size(); i++) {
            collect(children.get(i), af.getChildren().get(i), path, opener);
        }
        path.remove(path.size() - 1);
    }

    /** Rows of the field: those of its first leaf column. */
    public long numRows() {
        return leaves.isEmpty() ? 0 : leaves.get(0).reader().numRows();
    }

    public int numLeaves() {
        return leaves.size();
    }

    /** Reads rows {@code [start, end)}. */
    public FieldVector readRange(long start, long end, BufferAllocator allocator) throws IOException {
        FieldVector plain = readPlainFixed(start, end, allocator);
        if (plain != null) {
            return plain;
        }
        return read(
                allocator, (int) Math.min(end - start, Integer.MAX_VALUE), (r, l, v) -> r.readRange(start, end, l, v));
    }

    /**
     * The fast path of wide fixed-width columns (e.g. embeddings): when the field is a top-level
     * leaf whose pages for the range store values back to back without nulls, the value bytes are
     * copied straight into an unzeroed Arrow buffer, skipping levels, value builders and the
     * zero-fill of {@code allocateNew}. Returns null when the range does not qualify.
     */
    private FieldVector readPlainFixed(long start, long end, BufferAllocator allocator) throws IOException {
        if (leaves.size() != 1 || end <= start || end - start > Integer.MAX_VALUE) {
            return null;
        }
        Leaf leaf = leaves.get(0);
        if (leaf.isList().length != 1) {
            return null;
        }
        int width = leaf.reader().plainValueBytes(start, end);
        if (width <= 0) {
            return null;
        }
        int n = (int) (end - start);
        FieldVector v = arrowField.createVector(allocator);
        try {
            BaseFixedWidthVector target;
            int perRow;
            if (v instanceof FixedSizeListVector fsl
                    && fsl.getDataVector() instanceof BaseFixedWidthVector items
                    && !(items instanceof BitVector)) {
                target = items;
                perRow = fsl.getListSize();
            } else if (v instanceof BaseFixedWidthVector f && !(f instanceof BitVector)) {
                target = f;
                perRow = 1;
            } else {
                v.close();
                return null;
            }
            if ((long) perRow * target.getTypeWidth() != width) {
                throw new EncodingException(
                        "field '" + field.pathString() + "' stores " + width + "-byte values but its type "
                                + arrowField.getType() + " needs " + (long) perRow * target.getTypeWidth());
            }
            long items = Math.multiplyExact((long) n, perRow);
            if (items > Integer.MAX_VALUE) {
                v.close();
                return null;
            }
            try (ArrowBuf data = allocator.buffer(Math.max(1L, (long) n * width));
                    ArrowBuf validity = allValid(allocator, (int) items)) {
                leaf.reader().readPlainInto(start, end, data, 0);
                target.loadFieldBuffers(new ArrowFieldNode((int) items, 0), List.of(validity, data));
            }
            if (v instanceof FixedSizeListVector fsl) {
                try (ArrowBuf validity = allValid(allocator, n)) {
                    fsl.loadFieldBuffers(new ArrowFieldNode(n, 0), List.of(validity));
                }
            }
            return v;
        } catch (IOException | RuntimeException e) {
            v.close();
            throw e;
        }
    }

    /**
     * A validity bitmap of {@code n} set bits, written once (Arrow would zero, then set, a bitmap
     * it allocates itself for an empty buffer).
     */
    private static ArrowBuf allValid(BufferAllocator allocator, int n) {
        ArrowBuf b = allocator.buffer(Math.max(1, (n + 7) / 8));
        ArrowVectorFiller.setValidity(b, null, n);
        return b;
    }

    /** Reads the rows of {@code sortedRows} (ascending; repeated rows are returned repeatedly). */
    public FieldVector take(long[] sortedRows, BufferAllocator allocator) throws IOException {
        return read(allocator, sortedRows.length, (r, l, v) -> r.take(sortedRows, l, v));
    }

    @FunctionalInterface
    private interface LeafRead {
        void read(StructuralColumnReader r, LeafLevels levels, Values values) throws IOException;
    }

    /**
     * Reads every leaf of the field; {@code rows} sizes the level and value builders of leaves
     * without lists (whose entries and slots are exactly the rows) so they never grow.
     */
    private FieldVector read(BufferAllocator allocator, int rows, LeafRead how) throws IOException {
        if (leaves.isEmpty()) {
            throw new EncodingException("field '" + field.pathString() + "' has no leaf columns");
        }
        NestedStructure[] structures = new NestedStructure[leaves.size()];
        Values[] values = new Values[leaves.size()];
        for (int i = 0; i < leaves.size(); i++) {
            Leaf leaf = leaves.get(i);
            boolean underList = false;
            for (boolean list : leaf.isList()) {
                underList |= list;
            }
            LeafLevels levels = leaf.reader().newLevels(underList ? Math.max(rows, 1024) : rows);
            Values v = leaf.reader().newValues();
            if (!underList) {
                v.expectSlots(rows);
            }
            how.read(leaf.reader(), levels, v);
            structures[i] = NestedStructure.assemble(levels, leaf.isList());
            values[i] = v;
        }
        FieldVector vector = arrowField.createVector(allocator);
        try {
            int[] next = {0};
            fill(vector, field, 0, structures, values, next);
            return vector;
        } catch (RuntimeException e) {
            vector.close();
            throw e;
        }
    }

    private void fill(
            FieldVector v, LanceField f, int depth, NestedStructure[] structures, Values[] values, int[] nextLeaf) {
        int leafIndex = nextLeaf[0];
        NestedStructure s = structures[leafIndex];
        int n = s.count(depth);
        if (ownsColumn(f)) {
            nextLeaf[0]++;
            // Null validity lets the filler set all bits at once instead of copying them.
            ArrowVectorFiller.fillLeaf(v, values[leafIndex], s.anyNull(depth) ? s.validity(depth) : null, n);
            return;
        }
        if (f.isList() || f.isMap()) {
            // A MapVector is a ListVector whose data vector is the entries struct.
            ArrowVectorFiller.fillList(v, s.validity(depth), s.offsets(depth), n);
            FieldVector child = v instanceof ListVector lv ? lv.getDataVector() : ((LargeListVector) v).getDataVector();
            fill(child, f.children().get(0), depth + 1, structures, values, nextLeaf);
            v.setValueCount(n);
        } else if (f.isStruct()) {
            StructVector sv = (StructVector) v;
            ArrowVectorFiller.fillStructValidity(sv, s.validity(depth), n);
            List<FieldVector> children = sv.getChildrenFromFields();
            for (int i = 0; i < f.children().size(); i++) {
                fill(children.get(i), f.children().get(i), depth + 1, structures, values, nextLeaf);
            }
            sv.setValueCount(n);
        } else {
            throw new EncodingException("field '" + f.pathString() + "' (" + f.logicalType()
                    + ") has children but is neither a list nor a struct");
        }
    }
}
