package dev.lanceflink.encoding.v21;

import dev.lanceflink.schema.LanceField;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
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
        if (f.isMap()) {
            throw new EncodingException("field '" + f.pathString() + "' is a map, which this reader does not support yet");
        }
        if (f.shape() == dev.lanceflink.schema.LogicalTypes.Shape.FIXED_SIZE_LIST_STRUCT) {
            throw new EncodingException("field '" + f.pathString() + "' is a fixed-size list of structs, which this reader does not support yet");
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
        path.add(f.isList());
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
        return read(allocator, (r, l, v) -> r.readRange(start, end, l, v));
    }

    /** Reads the rows of {@code sortedRows} (ascending; repeated rows are returned repeatedly). */
    public FieldVector take(long[] sortedRows, BufferAllocator allocator) throws IOException {
        return read(allocator, (r, l, v) -> r.take(sortedRows, l, v));
    }

    @FunctionalInterface
    private interface LeafRead {
        void read(StructuralColumnReader r, LeafLevels levels, Values values) throws IOException;
    }

    private FieldVector read(BufferAllocator allocator, LeafRead how) throws IOException {
        if (leaves.isEmpty()) {
            throw new EncodingException("field '" + field.pathString() + "' has no leaf columns");
        }
        NestedStructure[] structures = new NestedStructure[leaves.size()];
        Values[] values = new Values[leaves.size()];
        for (int i = 0; i < leaves.size(); i++) {
            Leaf leaf = leaves.get(i);
            LeafLevels levels = leaf.reader().newLevels(1024);
            Values v = leaf.reader().newValues();
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

    private void fill(FieldVector v, LanceField f, int depth, NestedStructure[] structures, Values[] values, int[] nextLeaf) {
        int leafIndex = nextLeaf[0];
        NestedStructure s = structures[leafIndex];
        int n = s.count(depth);
        if (ownsColumn(f)) {
            nextLeaf[0]++;
            ArrowVectorFiller.fillLeaf(v, values[leafIndex], s.validity(depth), n);
            return;
        }
        if (f.isList()) {
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
            throw new EncodingException("field '" + f.pathString() + "' (" + f.logicalType() + ") has children but is neither a list nor a struct");
        }
    }
}
