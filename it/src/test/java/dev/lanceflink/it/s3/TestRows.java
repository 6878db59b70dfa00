package dev.lanceflink.it.s3;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.read.ScanOptions;
import dev.lanceflink.read.Scanner;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The rows of the S3 table tests: {@code id} (int64, not null, unique), {@code val} (int64,
 * nullable; the column updates change) and {@code name} (utf8, derived from the id so a wrong
 * row is visible in any column). Tables are compared as {@code id -> val} maps.
 */
final class TestRows {
    static final Schema SCHEMA = new Schema(List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
            new Field("val", FieldType.nullable(new ArrowType.Int(64, true)), null),
            new Field("name", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));

    private TestRows() {}

    /** The value a row gets when appended. */
    static long initialVal(long id) {
        return id * 10;
    }

    static String name(long id) {
        return "row-" + id;
    }

    /** A batch of the rows {@code ids} with their initial values. */
    static VectorSchemaRoot batch(BufferAllocator allocator, long[] ids) {
        long[] vals = new long[ids.length];
        for (int i = 0; i < ids.length; i++) {
            vals[i] = initialVal(ids[i]);
        }
        return batch(allocator, ids, vals);
    }

    /** A batch of the rows {@code ids} with the given values. */
    static VectorSchemaRoot batch(BufferAllocator allocator, long[] ids, long[] vals) {
        VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
        BigIntVector id = (BigIntVector) root.getVector("id");
        BigIntVector val = (BigIntVector) root.getVector("val");
        VarCharVector name = (VarCharVector) root.getVector("name");
        root.allocateNew();
        for (int i = 0; i < ids.length; i++) {
            id.setSafe(i, ids[i]);
            val.setSafe(i, vals[i]);
            name.setSafe(i, name(ids[i]).getBytes(StandardCharsets.UTF_8));
        }
        root.setRowCount(ids.length);
        return root;
    }

    /** Ids {@code from, from+1, ..., to-1}. */
    static long[] range(long from, long to) {
        long[] ids = new long[(int) (to - from)];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = from + i;
        }
        return ids;
    }

    /** A one-column batch of new {@code val}s, for {@link Dataset#update}. */
    static VectorSchemaRoot vals(BufferAllocator allocator, long[] newVals) {
        Schema schema = new Schema(List.of(SCHEMA.findField("val")));
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
        BigIntVector val = (BigIntVector) root.getVector("val");
        val.allocateNew(newVals.length);
        for (int i = 0; i < newVals.length; i++) {
            val.set(i, newVals[i]);
        }
        root.setRowCount(newVals.length);
        return root;
    }

    /**
     * Every live row of {@code dataset} as {@code id -> val} ({@code null} for a NULL val),
     * checking on the way that each {@code name} matches its id and that no id appears twice.
     */
    static TreeMap<Long, Long> contents(Dataset dataset) throws IOException {
        return contents(dataset, ScanOptions.all());
    }

    /** As {@link #contents(Dataset)} for the rows a scan with {@code options} returns. */
    static TreeMap<Long, Long> contents(Dataset dataset, ScanOptions options) throws IOException {
        TreeMap<Long, Long> rows = new TreeMap<>();
        try (Scanner scanner = dataset.scan(options.withColumns(List.of("id", "val", "name")))) {
            while (scanner.hasNext()) {
                try (VectorSchemaRoot batch = scanner.next()) {
                    BigIntVector id = (BigIntVector) batch.getVector("id");
                    BigIntVector val = (BigIntVector) batch.getVector("val");
                    VarCharVector name = (VarCharVector) batch.getVector("name");
                    for (int r = 0; r < batch.getRowCount(); r++) {
                        long key = id.get(r);
                        String n = new String(name.get(r), StandardCharsets.UTF_8);
                        if (!n.equals(name(key))) {
                            throw new AssertionError("row " + key + " of " + dataset.uri() + " v" + dataset.version()
                                    + " has name '" + n + "', expected '" + name(key) + "'");
                        }
                        if (rows.containsKey(key)) {
                            throw new AssertionError(
                                    "id " + key + " appears twice in " + dataset.uri() + " v" + dataset.version());
                        }
                        rows.put(key, val.isNull(r) ? null : val.get(r));
                    }
                }
            }
        }
        return rows;
    }

    /** {@code id -> row address} of every live row. */
    static Map<Long, Long> rowAddresses(Dataset dataset) throws IOException {
        Map<Long, Long> out = new TreeMap<>();
        try (Scanner scanner =
                dataset.scan(ScanOptions.all().withColumns(List.of("id")).withRowAddress(true))) {
            while (scanner.hasNext()) {
                try (VectorSchemaRoot batch = scanner.next()) {
                    BigIntVector id = (BigIntVector) batch.getVector("id");
                    UInt8Vector addr = (UInt8Vector) batch.getVector(ScanOptions.ROW_ADDRESS);
                    for (int r = 0; r < batch.getRowCount(); r++) {
                        out.put(id.get(r), addr.get(r));
                    }
                }
            }
        }
        return out;
    }

    /** The expected contents for ids with their initial values. */
    static TreeMap<Long, Long> initial(long[] ids) {
        TreeMap<Long, Long> m = new TreeMap<>();
        for (long id : ids) {
            m.put(id, initialVal(id));
        }
        return m;
    }
}
