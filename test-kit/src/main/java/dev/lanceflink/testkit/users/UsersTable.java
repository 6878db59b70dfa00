package dev.lanceflink.testkit.users;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.read.ScanOptions;
import dev.lanceflink.read.Scanner;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The {@code users(id BIGINT NOT NULL, name STRING, age INT, score DOUBLE)} table that the sink,
 * upsert and maintenance tests write and check: created from model rows, read back by key, and
 * compared with a reference model ({@link UsersChangelog}) cell by cell, on any store.
 */
public final class UsersTable {
    public static final Schema SCHEMA = new Schema(List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
            new Field("name", FieldType.nullable(new ArrowType.Utf8()), null),
            new Field("age", FieldType.nullable(new ArrowType.Int(32, true)), null),
            new Field("score", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), null)));

    /**
     * The overlay spec's worked example, {@code users(id BIGINT NOT NULL, name STRING, age INT)}:
     * the table the SQL tests create, UPDATE and DELETE from ({@link #SCHEMA} without the score).
     */
    public static final Schema EXAMPLE_SCHEMA = new Schema(SCHEMA.getFields().subList(0, 3));

    /** One row's non-key cells; {@code null} cells are SQL NULLs. */
    public record Row(String name, Integer age, Double score) {}

    private UsersTable() {}

    /** Creates the table at {@code uri} (version 1) holding {@code rows}, {@code rowsPerFile} rows per fragment. */
    public static void create(String uri, Map<Long, Row> rows, long rowsPerFile) throws IOException {
        create(uri, Map.of(), rows, rowsPerFile);
    }

    /** As {@link #create(String, Map, long)} on any store ({@code storage}: Lance storage options). */
    public static void create(String uri, Map<String, String> storage, Map<Long, Row> rows, long rowsPerFile)
            throws IOException {
        try (BufferAllocator allocator = new RootAllocator();
                VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator)) {
            root.allocateNew();
            BigIntVector id = (BigIntVector) root.getVector("id");
            VarCharVector name = (VarCharVector) root.getVector("name");
            IntVector age = (IntVector) root.getVector("age");
            Float8Vector score = (Float8Vector) root.getVector("score");
            int i = 0;
            for (Map.Entry<Long, Row> e : rows.entrySet()) {
                Row r = e.getValue();
                id.setSafe(i, e.getKey());
                if (r.name() == null) {
                    name.setNull(i);
                } else {
                    name.setSafe(i, r.name().getBytes(StandardCharsets.UTF_8));
                }
                if (r.age() == null) {
                    age.setNull(i);
                } else {
                    age.setSafe(i, r.age());
                }
                if (r.score() == null) {
                    score.setNull(i);
                } else {
                    score.setSafe(i, r.score());
                }
                i++;
            }
            root.setRowCount(i);
            Dataset.write(
                            uri,
                            storage,
                            List.of(root),
                            SCHEMA,
                            WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(Math.max(1, rowsPerFile)))
                    .close();
        }
    }

    /** Every live row of the latest version by key; fails on a key that appears twice. */
    public static TreeMap<Long, Row> read(String uri, Map<String, String> storage) throws IOException {
        try (Dataset ds = Dataset.open(uri, storage)) {
            return read(ds);
        }
    }

    /** The row address ({@code _rowaddr}) of every live row of the latest version, by key. */
    public static TreeMap<Long, Long> rowAddresses(String uri) throws IOException {
        TreeMap<Long, Long> out = new TreeMap<>();
        try (Dataset ds = Dataset.open(uri, Map.of());
                Scanner s = ds.scan(ScanOptions.all().withColumns(List.of("id")).withRowAddress(true))) {
            while (s.hasNext()) {
                try (VectorSchemaRoot b = s.next()) {
                    BigIntVector id = (BigIntVector) b.getVector("id");
                    UInt8Vector addr = (UInt8Vector) b.getVector(ScanOptions.ROW_ADDRESS);
                    for (int i = 0; i < b.getRowCount(); i++) {
                        out.put(id.get(i), addr.get(i));
                    }
                }
            }
        }
        return out;
    }

    /** Every live row of {@code ds}'s version by key; fails on a key that appears twice. */
    public static TreeMap<Long, Row> read(Dataset ds) throws IOException {
        TreeMap<Long, Row> rows = new TreeMap<>();
        try (Scanner s = ds.scan(ScanOptions.all())) {
            while (s.hasNext()) {
                try (VectorSchemaRoot b = s.next()) {
                    BigIntVector id = (BigIntVector) b.getVector("id");
                    VarCharVector name = (VarCharVector) b.getVector("name");
                    IntVector age = (IntVector) b.getVector("age");
                    Float8Vector score = (Float8Vector) b.getVector("score");
                    for (int i = 0; i < b.getRowCount(); i++) {
                        Row row = new Row(
                                name.isNull(i) ? null : new String(name.get(i), StandardCharsets.UTF_8),
                                age.isNull(i) ? null : age.get(i),
                                score.isNull(i) ? null : score.get(i));
                        Row previous = rows.put(id.get(i), row);
                        assertThat(previous)
                                .as(
                                        "key %s appears twice in version %s of %s (second: %s)",
                                        id.get(i), ds.version(), ds.uri(), row)
                                .isNull();
                    }
                }
            }
        }
        return rows;
    }

    /** The latest version equals {@code expected}: same keys, every cell equal, no key twice. */
    public static void assertLatestEquals(String uri, Map<String, String> storage, TreeMap<Long, Row> expected)
            throws IOException {
        assertLatestEquals(uri, storage, expected, "the model");
    }

    /** As {@link #assertLatestEquals(String, Map, TreeMap)}; {@code what} names the expected rows in the message. */
    public static void assertLatestEquals(
            String uri, Map<String, String> storage, TreeMap<Long, Row> expected, String what) throws IOException {
        TreeMap<Long, Row> actual;
        long version;
        try (Dataset ds = Dataset.open(uri, storage)) {
            actual = read(ds);
            version = ds.version();
        }
        List<String> diffs = new ArrayList<>();
        TreeSet<Long> ids = new TreeSet<>(expected.keySet());
        ids.addAll(actual.keySet());
        for (Long id : ids) {
            Row want = expected.get(id);
            Row got = actual.get(id);
            if (!Objects.equals(want, got) && diffs.size() < 20) {
                diffs.add("id " + id + ": " + (want == null ? "no row expected" : "expected " + want) + ", table has "
                        + (got == null ? "none" : got));
            }
        }
        assertThat(diffs)
                .as("rows of version %s of %s that differ from %s (first 20)", version, uri, what)
                .isEmpty();
        assertThat(actual).hasSameSizeAs(expected);
    }
}
