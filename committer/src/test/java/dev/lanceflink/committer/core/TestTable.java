package dev.lanceflink.committer.core;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.file.FileVersion;
import dev.lanceflink.file.writer.FileWriterOptions;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.read.ScanOptions;
import dev.lanceflink.read.Scanner;
import dev.lanceflink.table.Fragment;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/** Test helper shared by the committer tests: a one-column table ({@code id BIGINT NOT NULL}) for commit tests. */
public final class TestTable {
    public static final Schema SCHEMA =
            new Schema(List.of(new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null)));

    private TestTable() {}

    /** Creates the table (version 1) with the given ids. */
    public static void create(ObjectStore store, BufferAllocator allocator, long... ids) throws IOException {
        try (VectorSchemaRoot batch = batch(allocator, ids)) {
            Dataset.write(store, allocator, List.of(batch), SCHEMA, WriteParams.of(WriteMode.CREATE));
        }
    }

    /** Writes ids into new uncommitted fragments, as a sink writer does. */
    public static List<Fragment> fragments(ObjectStore store, BufferAllocator allocator, long... ids)
            throws IOException {
        try (Dataset ds = Dataset.open(store, allocator);
                dev.lanceflink.write.FragmentWriter w = new dev.lanceflink.write.FragmentWriter(
                        store,
                        ds.schema(),
                        FileVersion.parse(ds.manifest().dataFormat().version()),
                        1000,
                        allocator,
                        FileWriterOptions.defaults());
                VectorSchemaRoot batch = batch(allocator, ids)) {
            w.write(batch);
            return w.finish();
        }
    }

    /** Every id in the latest version, in scan order. */
    public static List<Long> ids(ObjectStore store, BufferAllocator allocator) throws IOException {
        List<Long> out = new ArrayList<>();
        try (Dataset ds = Dataset.open(store, allocator);
                Scanner s = ds.scan(ScanOptions.all())) {
            while (s.hasNext()) {
                try (VectorSchemaRoot b = s.next()) {
                    BigIntVector v = (BigIntVector) b.getVector("id");
                    for (int i = 0; i < b.getRowCount(); i++) {
                        out.add(v.get(i));
                    }
                }
            }
        }
        return out;
    }

    public static VectorSchemaRoot batch(BufferAllocator allocator, long... ids) {
        VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
        BigIntVector v = (BigIntVector) root.getVector(0);
        v.allocateNew(ids.length);
        for (int i = 0; i < ids.length; i++) {
            v.set(i, ids[i]);
        }
        root.setRowCount(ids.length);
        return root;
    }
}
