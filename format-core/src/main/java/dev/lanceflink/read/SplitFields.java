package dev.lanceflink.read;

import dev.lanceflink.schema.LanceField;
import dev.lanceflink.table.CorruptTableException;
import dev.lanceflink.table.UnsupportedTableFeatureException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Puts a top-level field together from the parts several data files of a fragment hold of it.
 * Lance splits a struct this way when a partial update rewrites some of its leaves into a new
 * file (pylance's {@code merge_insert} with a source struct of fewer children tombstones those
 * leaves in the old file): every leaf then lives in exactly one file. Leaves no file holds read
 * as NULL, like top-level fields no file holds. A struct row is valid if any part has it valid,
 * which is what pylance 14.0.2 returns for such splits.
 */
final class SplitFields {
    private SplitFields() {}

    /**
     * The field's values from {@code parts} (each typed as a projection of {@code field}, all of
     * {@code n} rows). The result is a new vector, or one of the parts when it alone holds the
     * whole field; the caller closes the parts that were not returned (their buffers may have
     * moved into the result).
     *
     * @param where names the fragment in error messages
     */
    static FieldVector assemble(
            LanceField field, List<FieldVector> parts, int n, BufferAllocator allocator, String where)
            throws IOException {
        if (parts.isEmpty()) {
            return FragmentReader.nulls(field, n, allocator);
        }
        if (parts.size() == 1 && nodes(parts.get(0).getField()) == nodes(field.toArrow())) {
            return parts.get(0);
        }
        if (!field.isStruct()) {
            if (parts.size() > 1) {
                throw new CorruptTableException(where + ": field '" + field.pathString() + "' (id " + field.id()
                        + ") is listed by " + parts.size() + " data files; each column must live in one");
            }
            throw new UnsupportedTableFeatureException(where + ": the data file holding field '" + field.pathString()
                    + "' (id " + field.id() + ", " + field.logicalType() + ") lacks some of its leaves; only struct"
                    + " fields may be incomplete in a data file");
        }
        StructVector out = (StructVector) field.toArrow().createVector(allocator);
        try {
            out.setInitialCapacity(n);
            out.allocateNew();
            for (LanceField child : field.children()) {
                List<FieldVector> childParts = new ArrayList<>();
                for (FieldVector p : parts) {
                    FieldVector c = ((StructVector) p).getChild(child.name());
                    if (c != null) {
                        childParts.add(c);
                    }
                }
                FieldVector merged = assemble(child, childParts, n, allocator, where);
                try {
                    merged.makeTransferPair(out.getChild(child.name())).transfer();
                } finally {
                    if (!childParts.contains(merged)) {
                        merged.close();
                    }
                }
            }
            for (int i = 0; i < n; i++) {
                if (anyValid(parts, i)) {
                    out.setIndexDefined(i);
                } else {
                    out.setNull(i);
                }
            }
            out.setValueCount(n);
            return out;
        } catch (IOException | RuntimeException e) {
            out.close();
            throw e;
        }
    }

    private static boolean anyValid(List<FieldVector> parts, int i) {
        for (ValueVector p : parts) {
            if (!p.isNull(i)) {
                return true;
            }
        }
        return false;
    }

    private static long nodes(Field f) {
        long n = 1;
        for (Field c : f.getChildren()) {
            n += nodes(c);
        }
        return n;
    }
}
