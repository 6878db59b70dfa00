package dev.lanceflink.overlay;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.io.ObjectStore;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/** A table {@code k int32 not null (0), a int64 (1), s string (2)} used by several tests. */
public final class SmallTable {
    public static final Schema SCHEMA = new Schema(List.of(
            Field.notNullable("k", new ArrowType.Int(32, true)),
            Field.nullable("a", new ArrowType.Int(64, true)),
            Field.nullable("s", ArrowType.Utf8.INSTANCE)));

    private SmallTable() {}

    /** Rows {@code k = first..first+n-1}, {@code a = 10k}, {@code s = "s<k>"}. */
    public static VectorSchemaRoot rows(BufferAllocator allocator, int first, int n) {
        VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
        root.allocateNew();
        for (int i = 0; i < n; i++) {
            int k = first + i;
            ((IntVector) root.getVector("k")).setSafe(i, k);
            ((BigIntVector) root.getVector("a")).setSafe(i, 10L * k);
            ((VarCharVector) root.getVector("s")).setSafe(i, ("s" + k).getBytes());
        }
        root.setRowCount(n);
        return root;
    }

    /** Creates the table with one fragment of {@code n} rows. */
    public static Dataset create(ObjectStore store, BufferAllocator allocator, int n) throws Exception {
        try (VectorSchemaRoot r = rows(allocator, 0, n)) {
            Dataset.write(store, allocator, List.of(r), SCHEMA, WriteParams.of(WriteMode.CREATE));
        }
        return Dataset.open(store, allocator);
    }

    public static BigIntVector longs(BufferAllocator allocator, String name, Long... values) {
        BigIntVector v = new BigIntVector(name, allocator);
        v.allocateNew(values.length);
        for (int i = 0; i < values.length; i++) {
            if (values[i] == null) {
                v.setNull(i);
            } else {
                v.set(i, values[i]);
            }
        }
        v.setValueCount(values.length);
        return v;
    }

    public static VarCharVector strings(BufferAllocator allocator, String name, String... values) {
        VarCharVector v = new VarCharVector(name, allocator);
        v.allocateNew();
        for (int i = 0; i < values.length; i++) {
            if (values[i] == null) {
                v.setNull(i);
            } else {
                v.setSafe(i, values[i].getBytes());
            }
        }
        v.setValueCount(values.length);
        return v;
    }

    /** A root of the given vectors (row count = first vector's); closing it closes them. */
    public static VectorSchemaRoot root(org.apache.arrow.vector.FieldVector... vectors) {
        VectorSchemaRoot r = new VectorSchemaRoot(new ArrayList<>(List.of(vectors)));
        r.setRowCount(vectors.length == 0 ? 0 : vectors[0].getValueCount());
        return r;
    }
}
