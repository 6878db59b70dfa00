package dev.lanceflink.overlay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.file.FileVersion;
import dev.lanceflink.file.writer.FileWriteSummary;
import dev.lanceflink.file.writer.FileWriterOptions;
import dev.lanceflink.file.writer.LanceFileWriter;
import dev.lanceflink.schema.LanceField;
import dev.lanceflink.schema.LanceSchema;
import dev.lanceflink.table.DataFile;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.OverlayCoverage;
import dev.lanceflink.txn.CommitOptions;
import dev.lanceflink.txn.Operation;
import dev.lanceflink.txn.TableCommitter;
import dev.lanceflink.txn.Transaction;
import dev.lanceflink.write.DataFileNames;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.roaringbitmap.RoaringBitmap;

/**
 * Overlay value files written the way pylance's {@code LanceFileWriter} writes them: the schema
 * stored in the file numbers its fields from 0, whatever the table's ids, and only the overlay's
 * {@code data_file.fields} / {@code column_indices} say which table field each column holds.
 * The expected values are what pylance 14.0.2's {@code to_table()} returns for the same
 * commits.
 */
class OverlayFileColumnsTest {
    private static final Field ITEM =
            new Field("item", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)), null);
    private static final Field V = new Field("v", FieldType.nullable(new ArrowType.FixedSizeList(2)), List.of(ITEM));
    private static final Field S = new Field(
            "s",
            FieldType.nullable(ArrowType.Struct.INSTANCE),
            List.of(Field.nullable("a", new ArrowType.Int(32, true)), Field.nullable("b", ArrowType.Utf8.INSTANCE)));
    /** Table ids: id 0, name 1, age 2, v 3, s 4 {a 5, b 6}. */
    private static final Schema SCHEMA = new Schema(List.of(
            Field.notNullable("id", new ArrowType.Int(32, true)),
            Field.nullable("name", ArrowType.Utf8.INSTANCE),
            Field.nullable("age", new ArrowType.Int(32, true)),
            V,
            S));

    private static final int NAME = 1;
    private static final int AGE = 2;
    private static final int VEC = 3;
    private static final int S_A = 5;
    private static final int S_B = 6;

    private final BufferAllocator allocator = new RootAllocator();
    private final MemoryObjectStore store = new MemoryObjectStore("memory://overlay-file-columns");

    @AfterEach
    void close() {
        allocator.close();
    }

    /** Alice 30 [0,0] {1,p}, Bob 25 [1,1] {2,q}, Carol 40 [2,2] NULL, Dave 22 [3,3] {4,r}. */
    private Dataset createUsers() throws Exception {
        try (VectorSchemaRoot r = VectorSchemaRoot.create(SCHEMA, allocator)) {
            r.allocateNew();
            String[] names = {"Alice", "Bob", "Carol", "Dave"};
            int[] ages = {30, 25, 40, 22};
            String[] bs = {"p", "q", null, "r"};
            for (int i = 0; i < 4; i++) {
                ((IntVector) r.getVector("id")).setSafe(i, i);
                ((VarCharVector) r.getVector("name")).setSafe(i, names[i].getBytes());
                ((IntVector) r.getVector("age")).setSafe(i, ages[i]);
                setVector((FixedSizeListVector) r.getVector("v"), i, (float) i);
                setStruct((StructVector) r.getVector("s"), i, i == 2 ? null : i + 1, bs[i], i != 2);
            }
            r.setRowCount(4);
            Dataset.write(store, allocator, List.of(r), SCHEMA, WriteParams.of(WriteMode.CREATE));
        }
        return Dataset.open(store, allocator);
    }

    @Test
    void denseOverlayWhoseFileNumbersItsFieldsFromZero() throws Exception {
        try (Dataset v1 = createUsers()) {
            // The file stores 'age' as its field 0, which is the table's 'id'.
            DataOverlayFile o = overlay(
                    new int[] {AGE}, OverlayCoverage.Dense.of(RoaringBitmap.bitmapOf(1, 3)), ints("age", 26, 23));
            commit(1, o);
            try (Dataset v2 = v1.checkoutVersion(2)) {
                assertThat(OverlayTestSupport.column(v2, "age")).containsExactly(30, 26, 40, 23);
                assertThat(OverlayTestSupport.column(v2, "id")).containsExactly(0, 1, 2, 3);
                // Our own UPDATE reads such a table too, and its overlay wins over the foreign one.
                Dataset v3;
                try (VectorSchemaRoot values = SmallTable.root(ints("age", 99))) {
                    v3 = v2.update(new long[] {3}, values);
                }
                try (Dataset ds = v3) {
                    assertThat(OverlayTestSupport.column(ds, "age")).containsExactly(30, 26, 40, 99);
                }
            }
        }
    }

    @Test
    void severalOverlaysInOneCommitAndAcrossCommitsOnStringsAndVectors() throws Exception {
        try (Dataset v1 = createUsers()) {
            // One commit, two overlays for fragment 0: the later list entry is newer.
            DataOverlayFile first = overlay(
                    new int[] {NAME, VEC},
                    OverlayCoverage.Dense.of(RoaringBitmap.bitmapOf(0, 1)),
                    strings("name", "A1", "B1"),
                    vectors(10f, 11f));
            DataOverlayFile second = overlay(
                    new int[] {NAME},
                    OverlayCoverage.Dense.of(RoaringBitmap.bitmapOf(1, 2)),
                    strings("name", "B2", null));
            commit(1, first, second);
            // A later commit: sparse, the vector column has one value, the name column two.
            DataOverlayFile third = overlay(
                    new int[] {VEC, NAME},
                    OverlayCoverage.PerField.of(List.of(RoaringBitmap.bitmapOf(0), RoaringBitmap.bitmapOf(2, 3))),
                    vectors(20f),
                    strings("name", "C3", "D3"));
            commit(2, third);
            try (Dataset v3 = v1.checkoutVersion(3)) {
                assertThat(OverlayTestSupport.column(v3, "name")).containsExactly("A1", "B2", "C3", "D3");
                assertThat(OverlayTestSupport.column(v3, "v"))
                        .containsExactly(
                                List.of(20f, 20.5f), List.of(11f, 11.5f), List.of(2f, 2.5f), List.of(3f, 3.5f));
            }
        }
    }

    @Test
    void aSparseOverlayInARectangularFileReadsOnlyItsCoveredRanks() throws Exception {
        try (Dataset v1 = createUsers()) {
            // pylance's file writer writes rectangular files: the 'name' column covering one offset
            // is padded to the two rows of the vector column; the padding is never read.
            DataOverlayFile o = overlay(
                    new int[] {NAME, VEC},
                    OverlayCoverage.PerField.of(List.of(RoaringBitmap.bitmapOf(2), RoaringBitmap.bitmapOf(0, 3))),
                    strings("name", "x2", "padding"),
                    vectors(7f, 9f));
            commit(1, o);
            try (Dataset v2 = v1.checkoutVersion(2)) {
                assertThat(OverlayTestSupport.column(v2, "name")).containsExactly("Alice", "Bob", "x2", "Dave");
                assertThat(OverlayTestSupport.column(v2, "v"))
                        .containsExactly(List.of(7f, 7.5f), List.of(1f, 1.5f), List.of(2f, 2.5f), List.of(9f, 9.5f));
            }
        }
    }

    @Test
    void structLeavesOfOneSparseOverlayMayHaveDifferentCoverages() throws Exception {
        try (Dataset v1 = createUsers()) {
            // Rows of the file's s: [NULL, {50, z}]; a covers offsets {0, 2}, b covers {1, 3}.
            DataOverlayFile o = overlay(
                    new int[] {S_A, S_B},
                    OverlayCoverage.PerField.of(List.of(RoaringBitmap.bitmapOf(0, 2), RoaringBitmap.bitmapOf(1, 3))),
                    structs(S, new Object[] {null, null, false}, new Object[] {50, "z", true}));
            commit(1, o);
            try (Dataset v2 = v1.checkoutVersion(2)) {
                assertThat(OverlayTestSupport.column(v2, "s").stream().map(String::valueOf))
                        .containsExactly("{\"b\":\"p\"}", "{\"a\":2}", "null", "{\"a\":4,\"b\":\"z\"}");
            }
        }
    }

    /**
     * pylance 14.0.2 keeps the base struct's validity whatever the overlays carry: a whole struct
     * written NULL only makes the covered leaves NULL, and a NULL struct stays NULL under an
     * overlay whose struct is valid.
     */
    @Test
    void overlaysDoNotChangeAStructsValidity() throws Exception {
        try (Dataset v1 = createUsers()) {
            DataOverlayFile whole = overlay(
                    new int[] {S_A, S_B},
                    OverlayCoverage.Dense.of(RoaringBitmap.bitmapOf(0, 2)),
                    structs(S, new Object[] {null, null, false}, new Object[] {50, "z", true}));
            commit(1, whole);
            Field sa = new Field(
                    "s",
                    FieldType.nullable(ArrowType.Struct.INSTANCE),
                    List.of(S.getChildren().get(0)));
            DataOverlayFile leaf = overlay(
                    new int[] {S_A},
                    OverlayCoverage.Dense.of(RoaringBitmap.bitmapOf(1, 3)),
                    structs(sa, new Object[] {null, false}, new Object[] {7, true}));
            commit(2, leaf);
            try (Dataset v2 = v1.checkoutVersion(2);
                    Dataset v3 = v1.checkoutVersion(3)) {
                assertThat(OverlayTestSupport.column(v2, "s").stream().map(String::valueOf))
                        .containsExactly("{}", "{\"a\":2,\"b\":\"q\"}", "null", "{\"a\":4,\"b\":\"r\"}");
                assertThat(OverlayTestSupport.column(v3, "s").stream().map(String::valueOf))
                        .containsExactly("{}", "{\"b\":\"q\"}", "null", "{\"a\":7,\"b\":\"r\"}");
            }
        }
    }

    /** A struct leaf renamed after it was overlaid still takes its overlay values (found by id, named by the table). */
    @Test
    void renamedStructLeafKeepsItsOverlay() throws Exception {
        try (Dataset v1 = createUsers()) {
            Field sa = new Field(
                    "s",
                    FieldType.nullable(ArrowType.Struct.INSTANCE),
                    List.of(S.getChildren().get(0)));
            commit(
                    1,
                    overlay(
                            new int[] {S_A},
                            OverlayCoverage.Dense.of(RoaringBitmap.bitmapOf(1)),
                            structs(sa, new Object[] {70, true})));
            LanceSchema schema = v1.schema();
            LanceField s = schema.fieldByName("s").orElseThrow();
            LanceField renamed = s.toBuilder()
                    .clearChildren()
                    .addChild(s.children().get(0).toBuilder().name("aa").build())
                    .addChild(s.children().get(1))
                    .build();
            List<LanceField> fields = new ArrayList<>(schema.fields());
            fields.set(fields.indexOf(s), renamed);
            TableCommitter.commit(
                    store, Transaction.of(2, new Operation.Project(LanceSchema.of(fields))), CommitOptions.defaults());
            try (Dataset v3 = v1.checkoutVersion(3)) {
                assertThat(OverlayTestSupport.column(v3, "s").stream().map(String::valueOf))
                        .containsExactly(
                                "{\"aa\":1,\"b\":\"p\"}", "{\"aa\":70,\"b\":\"q\"}", "null", "{\"aa\":4,\"b\":\"r\"}");
            }
        }
    }

    // ------------------------------------------------------------------------------------------

    private void commit(long readVersion, DataOverlayFile... overlays) throws Exception {
        OverlayCommits.commit(
                store,
                readVersion,
                new StagedWrite(OverlayCommits.operation(Map.of(0L, Arrays.asList(overlays))), List.of()),
                Map.of(),
                CommitOptions.defaults());
    }

    /**
     * Writes {@code columns} into a 2.1 file whose own schema numbers the fields from 0 (as
     * pylance's file writer does) and describes it with the table's leaf ids {@code tableIds}
     * (one per leaf column, in order).
     */
    private DataOverlayFile overlay(int[] tableIds, OverlayCoverage coverage, FieldVector... columns) throws Exception {
        List<Field> fields = new ArrayList<>();
        for (FieldVector c : columns) {
            fields.add(c.getField());
        }
        LanceSchema fileSchema = LanceSchema.fromArrow(new Schema(fields), 0);
        String name = DataFileNames.newName();
        FileWriteSummary s;
        try (LanceFileWriter w = LanceFileWriter.create(
                store, "data/" + name, fileSchema, FileVersion.V2_1, allocator, FileWriterOptions.defaults())) {
            // Column by column: a sparse overlay's columns have different lengths.
            for (int i = 0; i < columns.length; i++) {
                w.writeColumn(fileSchema.fields().get(i).id(), columns[i]);
            }
            s = w.finish();
        } finally {
            for (FieldVector c : columns) {
                c.close();
            }
        }
        assertThat(s.columnIndices()).hasSize(tableIds.length);
        return new DataOverlayFile(new DataFile(name, tableIds, s.columnIndices(), 2, 1, s.sizeBytes()), coverage, 0);
    }

    private IntVector ints(String name, Integer... values) {
        IntVector v = new IntVector(name, allocator);
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

    private VarCharVector strings(String name, String... values) {
        return SmallTable.strings(allocator, name, values);
    }

    /** Vectors {@code [b, b + 0.5]} ({@code null}: NULL). */
    private FixedSizeListVector vectors(Float... base) {
        FixedSizeListVector v = (FixedSizeListVector) V.createVector(allocator);
        v.allocateNew();
        for (int i = 0; i < base.length; i++) {
            setVector(v, i, base[i]);
        }
        v.setValueCount(base.length);
        return v;
    }

    private static void setVector(FixedSizeListVector v, int i, Float base) {
        Float4Vector items = (Float4Vector) v.getDataVector();
        if (base == null) {
            v.setNull(i);
            items.setNull(2 * i);
            items.setNull(2 * i + 1);
        } else {
            v.setNotNull(i);
            items.setSafe(2 * i, base);
            items.setSafe(2 * i + 1, base + 0.5f);
        }
        items.setValueCount(2 * i + 2);
    }

    /** Rows of a struct of int {@code a} (and string {@code b} if the type has it), then validity. */
    private StructVector structs(Field type, Object[]... rows) {
        StructVector v = (StructVector) type.createVector(allocator);
        v.allocateNew();
        boolean hasB = type.getChildren().size() == 2;
        for (int i = 0; i < rows.length; i++) {
            Object[] r = rows[i];
            setStruct(v, i, (Integer) r[0], hasB ? (String) r[1] : null, (Boolean) r[r.length - 1]);
        }
        v.setValueCount(rows.length);
        return v;
    }

    private static void setStruct(StructVector v, int i, Integer a, String b, boolean valid) {
        IntVector av = (IntVector) v.getChild("a");
        if (a == null) {
            av.setNull(i);
        } else {
            av.setSafe(i, a);
        }
        av.setValueCount(i + 1);
        if (v.getChild("b") instanceof VarCharVector bv) {
            if (b == null) {
                bv.setNull(i);
            } else {
                bv.setSafe(i, b.getBytes());
            }
            bv.setValueCount(i + 1);
        }
        if (valid) {
            v.setIndexDefined(i);
        } else {
            v.setNull(i);
        }
    }
}
