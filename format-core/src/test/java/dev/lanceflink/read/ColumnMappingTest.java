package dev.lanceflink.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.file.FileVersion;
import dev.lanceflink.file.LanceFileFormatException;
import dev.lanceflink.file.writer.FileWriteSummary;
import dev.lanceflink.file.writer.FileWriterOptions;
import dev.lanceflink.file.writer.LanceFileWriter;
import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.schema.LanceField;
import dev.lanceflink.schema.LanceSchema;
import dev.lanceflink.table.DataFile;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.txn.CommitOptions;
import dev.lanceflink.txn.Operation;
import dev.lanceflink.txn.TableCommitter;
import dev.lanceflink.txn.Transaction;
import dev.lanceflink.write.DataFileNames;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.Text;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Base data files are read through the manifest: {@code DataFile.fields} / {@code column_indices}
 * say which column holds which table field, and the table schema names and types it. The schema
 * stored in a file is not trusted for either: pylance renames ({@code alter_columns}) and drops
 * columns in the manifest only, and its file writer numbers a file's fields from 0.
 */
class ColumnMappingTest {
    /** Table ids: id 0, age 1, s 2 {a 3, b 4}. */
    private static final Schema SCHEMA = new Schema(List.of(
            Field.notNullable("id", new ArrowType.Int(32, true)),
            Field.nullable("age", new ArrowType.Int(32, true)),
            new Field(
                    "s",
                    FieldType.nullable(ArrowType.Struct.INSTANCE),
                    List.of(
                            Field.nullable("a", new ArrowType.Int(32, true)),
                            Field.nullable("b", ArrowType.Utf8.INSTANCE)))));

    @TempDir
    Path dir;

    private final BufferAllocator allocator = new RootAllocator();

    @AfterEach
    void close() {
        allocator.close();
    }

    /** Rows id i, age 20 + i, s {a: 10 i, b: "b<i>"}, four of them; s of the last is NULL unless 2.0 (no struct validity). */
    private ObjectStore create(FileVersion version) throws Exception {
        ObjectStore store = new LocalObjectStore(dir.resolve("t-" + version.label()));
        try (VectorSchemaRoot r = VectorSchemaRoot.create(SCHEMA, allocator)) {
            r.allocateNew();
            StructVector s = (StructVector) r.getVector("s");
            for (int i = 0; i < 4; i++) {
                ((IntVector) r.getVector("id")).setSafe(i, i);
                ((IntVector) r.getVector("age")).setSafe(i, 20 + i);
                ((IntVector) s.getChild("a")).setSafe(i, 10 * i);
                ((VarCharVector) s.getChild("b")).setSafe(i, ("b" + i).getBytes());
                if (i == 3 && version != FileVersion.V2_0) {
                    s.setNull(i);
                } else {
                    s.setIndexDefined(i);
                }
            }
            s.getChild("a").setValueCount(4);
            s.getChild("b").setValueCount(4);
            r.setRowCount(4);
            Dataset.write(
                    store,
                    allocator,
                    List.of(r),
                    SCHEMA,
                    WriteParams.of(WriteMode.CREATE).withFileVersion(version));
        }
        return store;
    }

    /** Commits a Project (rename / drop, metadata only) rewriting each top-level field with {@code change}. */
    private static void project(ObjectStore store, long readVersion, UnaryOperator<LanceField> change)
            throws Exception {
        List<LanceField> fields = new ArrayList<>();
        try (BufferAllocator a = new RootAllocator();
                Dataset ds = Dataset.open(store, a)) {
            for (LanceField f : ds.schema().fields()) {
                LanceField g = change.apply(f);
                if (g != null) {
                    fields.add(g);
                }
            }
        }
        TableCommitter.commit(
                store,
                Transaction.of(readVersion, new Operation.Project(LanceSchema.of(fields))),
                CommitOptions.defaults());
    }

    private static LanceField renamed(LanceField f, String name) {
        return f.toBuilder().name(name).build();
    }

    @ParameterizedTest
    @EnumSource(
            value = FileVersion.class,
            names = {"V2_0", "V2_1"})
    void renamedColumnsAndStructLeavesReadUnderTheirNewNames(FileVersion version) throws Exception {
        ObjectStore store = create(version);
        project(store, 1, f -> switch (f.name()) {
            case "age" -> renamed(f, "years");
            case "s" ->
                f.toBuilder()
                        .clearChildren()
                        .addChild(renamed(f.children().get(0), "aa"))
                        .addChild(f.children().get(1))
                        .build();
            default -> f;
        });
        try (Dataset ds = Dataset.open(store, allocator)) {
            assertThat(ds.schema().fieldByName("years").orElseThrow().id()).isEqualTo(1);
            List<String> rows = new ArrayList<>();
            try (Scanner s = ds.scan(ScanOptions.all().withFilter("years > 21"))) {
                assertThat(s.outputSchema().getFields().stream().map(Field::getName))
                        .containsExactly("id", "years", "s");
                while (s.hasNext()) {
                    try (VectorSchemaRoot b = s.next()) {
                        for (int r = 0; r < b.getRowCount(); r++) {
                            rows.add(b.getVector("id").getObject(r) + " "
                                    + b.getVector("years").getObject(r) + " "
                                    + b.getVector("s").getObject(r));
                        }
                    }
                }
            }
            assertThat(rows)
                    .containsExactly(
                            "2 22 {\"aa\":20,\"b\":\"b2\"}",
                            "3 23 " + (version == FileVersion.V2_0 ? "{\"aa\":30,\"b\":\"b3\"}" : "null"));
            try (VectorSchemaRoot t = ds.take(new long[] {1}, List.of("s", "years"))) {
                assertThat(t.getVector("years").getObject(0)).isEqualTo(21);
                assertThat(((StructVector) t.getVector("s")).getChild("aa").getObject(0))
                        .isEqualTo(10);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(
            value = FileVersion.class,
            names = {"V2_0", "V2_1"})
    void droppedStructLeafIsLeftOut(FileVersion version) throws Exception {
        ObjectStore store = create(version);
        project(
                store,
                1,
                f -> f.name().equals("s")
                        ? f.toBuilder()
                                .clearChildren()
                                .addChild(f.children().get(1))
                                .build()
                        : f);
        try (Dataset ds = Dataset.open(store, allocator);
                VectorSchemaRoot t = ds.take(new long[] {0, 3}, List.of("s"))) {
            StructVector s = (StructVector) t.getVector("s");
            assertThat(s.getField().getChildren().stream().map(Field::getName)).containsExactly("b");
            assertThat(List.of(s.getObject(0).toString(), String.valueOf(s.getObject(1))))
                    .containsExactly("{\"b\":\"b0\"}", version == FileVersion.V2_0 ? "{\"b\":\"b3\"}" : "null");
        }
    }

    /**
     * A column added in a file of its own, whose stored schema calls it field 0 named "c0" (as
     * pylance's file writer would): the manifest lists it as table field 5, {@code z}.
     */
    @Test
    void baseFileWhoseOwnFieldIdsAreNotTheTables() throws Exception {
        ObjectStore store = create(FileVersion.V2_1);
        addColumn(store, Field.nullable("z", ArrowType.Utf8.INSTANCE), strings("c0", "w", "x", null, "z"));
        try (Dataset ds = Dataset.open(store, allocator);
                VectorSchemaRoot t = ds.take(new long[] {0, 1, 2, 3}, List.of("z", "id"))) {
            assertThat(ds.schema().fieldByName("z").orElseThrow().id()).isEqualTo(5);
            List<Object> z = new ArrayList<>();
            for (int r = 0; r < 4; r++) {
                Object o = t.getVector("z").getObject(r);
                z.add(o == null ? null : ((Text) o).toString());
            }
            assertThat(z).containsExactly("w", "x", null, "z");
            assertThat(t.getVector("id").getObject(3)).isEqualTo(3);
        }
    }

    @Test
    void columnOfAnotherTypeThanItsTableFieldIsAnError() throws Exception {
        ObjectStore store = create(FileVersion.V2_1);
        // The manifest says int32 z; the column holds strings.
        addColumn(store, Field.nullable("z", new ArrowType.Int(32, true)), strings("c0", "w", "x", "y", "z"));
        try (Dataset ds = Dataset.open(store, allocator)) {
            assertThatThrownBy(() -> ds.take(new long[] {0}, List.of("z")).close())
                    .isInstanceOf(LanceFileFormatException.class)
                    .hasMessageContaining("'z' (id 5, int32)")
                    .hasMessageContaining("column 0")
                    .hasMessageContaining("'c0' (string)");
        }
    }

    /**
     * A partial update of a struct (pylance's {@code merge_insert} with a source struct of fewer
     * children) writes the updated leaves to a new file and tombstones them in the old one: the
     * struct is put together from both files, valid where either file has it valid (what
     * pylance 14.0.2 returns), and the leaf comes from the new file only.
     */
    @Test
    void structSplitOverTwoDataFiles() throws Exception {
        ObjectStore store = create(FileVersion.V2_1);
        Field sa = new Field(
                "s",
                FieldType.nullable(ArrowType.Struct.INSTANCE),
                List.of(Field.nullable("a", new ArrowType.Int(32, true))));
        StructVector values = (StructVector) sa.createVector(allocator);
        values.allocateNew();
        IntVector a = (IntVector) values.getChild("a");
        Integer[] as = {100, null, 300, 400};
        for (int i = 0; i < 4; i++) {
            if (as[i] == null) {
                a.setNull(i);
                values.setNull(i); // row 1: NULL here, valid in the old file
            } else {
                a.setSafe(i, as[i]);
                values.setIndexDefined(i); // row 3: valid here, NULL in the old file
            }
        }
        a.setValueCount(4);
        values.setValueCount(4);
        // s.a (table id 3) moves to a new file, whose own schema numbers s 0 and a 1.
        DataFile moved = writeFile(store, values, new int[] {3});
        try (Dataset ds = Dataset.open(store, allocator)) {
            List<Fragment> fragments = new ArrayList<>();
            for (Fragment f : ds.fragments()) {
                List<DataFile> files = new ArrayList<>();
                f.files().forEach(d -> files.add(d.withTombstoned(id -> id == 3)));
                files.add(moved);
                fragments.add(f.withFiles(files));
            }
            TableCommitter.commit(
                    store,
                    Transaction.of(ds.version(), new Operation.Merge(fragments, ds.schema())),
                    CommitOptions.defaults());
        }
        try (Dataset ds = Dataset.open(store, allocator)) {
            for (long[] rows : new long[][] {{0, 1, 2, 3}, {0, 2, 3}}) {
                try (VectorSchemaRoot t = ds.take(rows, List.of("s"))) {
                    List<String> got = new ArrayList<>();
                    for (int r = 0; r < rows.length; r++) {
                        got.add(String.valueOf(t.getVector("s").getObject(r)));
                    }
                    List<String> all = List.of(
                            "{\"a\":100,\"b\":\"b0\"}", "{\"b\":\"b1\"}", "{\"a\":300,\"b\":\"b2\"}", "{\"a\":400}");
                    List<String> want = new ArrayList<>();
                    for (long r : rows) {
                        want.add(all.get((int) r));
                    }
                    assertThat(got).isEqualTo(want);
                }
            }
        }
    }

    /** A struct leaf that no data file holds (added to the schema without data) reads as NULL. */
    @Test
    void structLeafInNoDataFileReadsNull() throws Exception {
        ObjectStore store = create(FileVersion.V2_1);
        project(
                store,
                1,
                f -> f.name().equals("s")
                        ? f.toBuilder()
                                .addChild(LanceField.builder("c", "int64").id(5))
                                .build()
                        : f);
        try (Dataset ds = Dataset.open(store, allocator);
                VectorSchemaRoot t = ds.take(new long[] {1, 3}, List.of("s"))) {
            StructVector s = (StructVector) t.getVector("s");
            assertThat(s.getField().getChildren().stream().map(Field::getName)).containsExactly("a", "b", "c");
            assertThat(String.valueOf(s.getObject(0))).isEqualTo("{\"a\":10,\"b\":\"b1\"}");
            assertThat(s.getObject(1)).isNull();
            assertThat(s.getChild("c").getValueCount()).isEqualTo(2);
        }
    }

    /** Writes {@code values} as the only column of a new 2.1 file (own ids from 0) listed with {@code tableIds}. */
    private DataFile writeFile(ObjectStore store, FieldVector values, int[] tableIds) throws Exception {
        LanceSchema fileSchema = LanceSchema.fromArrow(new Schema(List.of(values.getField())), 0);
        String name = DataFileNames.newName();
        FileWriteSummary s;
        try (values;
                LanceFileWriter w = LanceFileWriter.create(
                        store, "data/" + name, fileSchema, FileVersion.V2_1, allocator, FileWriterOptions.defaults())) {
            w.writeColumn(0, values);
            s = w.finish();
        }
        return new DataFile(name, tableIds, s.columnIndices(), 2, 1, s.sizeBytes());
    }

    /** Commits a Merge adding {@code tableField} as id 5, stored in a new file as that file's field 0. */
    private void addColumn(ObjectStore store, Field tableField, FieldVector values) throws Exception {
        DataFile file = writeFile(store, values, new int[] {5});
        try (Dataset ds = Dataset.open(store, allocator)) {
            LanceSchema withZ = LanceSchema.of(append(
                    ds.schema().fields(),
                    LanceField.fromArrow(tableField).toBuilder().id(5).build()));
            List<Fragment> fragments = new ArrayList<>();
            for (Fragment f : ds.fragments()) {
                fragments.add(f.withFiles(append(f.files(), file)));
            }
            TableCommitter.commit(
                    store,
                    Transaction.of(ds.version(), new Operation.Merge(fragments, withZ)),
                    CommitOptions.defaults());
        }
    }

    private static <T> List<T> append(List<T> list, T item) {
        List<T> out = new ArrayList<>(list);
        out.add(item);
        return out;
    }

    private VarCharVector strings(String name, String... values) {
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
}
