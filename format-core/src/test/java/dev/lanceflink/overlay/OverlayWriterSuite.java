package dev.lanceflink.overlay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.io.StoreBackedSuite;
import dev.lanceflink.overlay.OverlayWriteException.Kind;
import dev.lanceflink.schema.LanceSchema;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.DataStorageFormat;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.OverlayCoverage;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.roaringbitmap.RoaringBitmap;

/**
 * Every writer invariant of overlays.md §8, violated: the right error, nothing staged or committed.
 *
 * <p>Runs locally as {@link OverlayWriterTest} and on S3 as s3-store's {@code S3OverlayWriterTest}.
 */
public abstract class OverlayWriterSuite extends StoreBackedSuite {
    private final BufferAllocator allocator = new RootAllocator();
    private ObjectStore store;
    private Dataset ds;

    @BeforeEach
    void setUp() throws Exception {
        store = newStore();
        ds = SmallTable.create(store, allocator, 10);
    }

    @AfterEach
    void tearDown() throws Exception {
        ds.close();
        allocator.close();
    }

    private OverlayWriter writer(int... ids) {
        return OverlayWriter.create(store, ds.manifest(), 0, ids, allocator);
    }

    private long dataFiles() throws Exception {
        long n = 0;
        for (var it = store.list("data"); it.hasNext(); it.next()) {
            n++;
        }
        return n;
    }

    private void assertKind(Runnable r, Kind kind, String messagePart) {
        assertThatThrownBy(r::run)
                .isInstanceOfSatisfying(
                        OverlayWriteException.class, e -> assertThat(e.kind()).isEqualTo(kind))
                .hasMessageContaining(messagePart);
    }

    @Test
    void declaredFieldsMustExistBeTopLevelAndUnique() {
        assertKind(
                () -> writer(99), Kind.SCHEMA_MISMATCH, "names field id 99, which the dataset schema does not define");
        assertKind(() -> writer(), Kind.SCHEMA_MISMATCH, "at least one field");
        assertKind(() -> writer(1, 1), Kind.DUPLICATE_COLUMN, "declares field id 1 ('a') 2 times");
        assertThatThrownBy(() -> OverlayWriter.create(store, ds.manifest(), 7, new int[] {1}, allocator))
                .hasMessageContaining("has no such fragment");
    }

    @Test
    void legacyFormatBlobAndStructAreRefused() {
        Manifest legacy = ds.manifest().toBuilder()
                .dataFormat(DataStorageFormat.lance("0.1"))
                .build();
        assertThatThrownBy(() -> OverlayWriter.create(store, legacy, 0, new int[] {1}, allocator))
                .isInstanceOfSatisfying(
                        OverlayWriteException.class, e -> assertThat(e.kind()).isEqualTo(Kind.LEGACY_FILE_FORMAT))
                .hasMessageContaining("data format 0.1");

        Field blob = new Field(
                "b",
                new FieldType(true, ArrowType.LargeBinary.INSTANCE, null, Map.of("lance-encoding:blob", "true")),
                null);
        Field struct = new Field(
                "st",
                FieldType.nullable(ArrowType.Struct.INSTANCE),
                List.of(Field.nullable("x", new ArrowType.Int(32, true))));
        LanceSchema wide = LanceSchema.fromArrow(
                new Schema(List.of(
                        SmallTable.SCHEMA.getFields().get(0),
                        SmallTable.SCHEMA.getFields().get(1),
                        SmallTable.SCHEMA.getFields().get(2),
                        blob,
                        struct)),
                0);
        Manifest m = ds.manifest().toBuilder().schema(wide).build();
        int blobId = wide.fieldByName("b").orElseThrow().id();
        int structId = wide.fieldByName("st").orElseThrow().id();
        int childId = wide.fieldByPath("st.x").orElseThrow().id();
        assertThatThrownBy(() -> OverlayWriter.create(store, m, 0, new int[] {blobId}, allocator))
                .isInstanceOfSatisfying(
                        OverlayWriteException.class, e -> assertThat(e.kind()).isEqualTo(Kind.BLOB_FIELD));
        assertThatThrownBy(() -> OverlayWriter.create(store, m, 0, new int[] {structId}, allocator))
                .isInstanceOfSatisfying(
                        OverlayWriteException.class, e -> assertThat(e.kind()).isEqualTo(Kind.STRUCT_FIELD));
        assertThatThrownBy(() -> OverlayWriter.create(store, m, 0, new int[] {childId}, allocator))
                .isInstanceOfSatisfying(
                        OverlayWriteException.class, e -> assertThat(e.kind()).isEqualTo(Kind.SCHEMA_MISMATCH))
                .hasMessageContaining("'st.x'), which is nested");
    }

    @Test
    void rowAddressViolationsAreRefusedBeforeAnythingIsStaged() throws Exception {
        long before = dataFiles();
        try (OverlayWriter w = writer(1, 2);
                BigIntVector a1 = SmallTable.longs(allocator, "a", 1L);
                BigIntVector a2 = SmallTable.longs(allocator, "a", 1L, 2L)) {
            assertKind(
                    () -> writeField(w, 1, new long[] {1L << 32 | 3}, a1),
                    Kind.FOREIGN_ROW_ADDRESS,
                    "belongs to fragment 1, but this writer overlays fragment 0");
            assertKind(
                    () -> writeField(w, 1, new long[] {10}, a1),
                    Kind.OFFSET_OUT_OF_RANGE,
                    "has offset 10, but fragment 0 has only 10 physical rows");
            assertKind(
                    () -> writeField(w, 1, new long[] {4, 3}, a2),
                    Kind.OFFSET_NOT_ASCENDING,
                    "gets offset 3 (position 1) after offset 4");
            assertKind(() -> writeField(w, 1, new long[] {4, 4}, a2), Kind.OFFSET_NOT_ASCENDING, "strictly increasing");
            assertKind(
                    () -> writeField(w, 1, new long[] {4}, a2),
                    Kind.VALUE_MISMATCH,
                    "got 2 values for 1 row addresses");
            assertKind(() -> writeField(w, 0, new long[] {4}, a1), Kind.UNDECLARED_COLUMN, "Field id 0 is not one of");
            try (IntVector wrongType = new IntVector("a", allocator)) {
                wrongType.allocateNew(1);
                wrongType.set(0, 1);
                wrongType.setValueCount(1);
                assertKind(
                        () -> writeField(w, 1, new long[] {4}, wrongType),
                        Kind.VALUE_MISMATCH,
                        "dataset type is Int(64");
            }
            assertThat(dataFiles()).isEqualTo(before); // nothing staged: no file started
            // Per field: a staged offset 5 for 'a' forbids 5 again for 'a', but 's' may take offset 1.
            writeField(w, 1, new long[] {5}, a1);
            assertKind(() -> writeField(w, 1, new long[] {5}, a1), Kind.OFFSET_NOT_ASCENDING, "after offset 5");
            try (VarCharVector s = SmallTable.strings(allocator, "s", "x")) {
                w.writeField(2, new long[] {1}, s);
            }
            DataOverlayFile o = w.finish().orElseThrow();
            assertThat(o.coverage()).isInstanceOf(OverlayCoverage.PerField.class);
            assertThat(o.coverage().bitmap(0)).isEqualTo(RoaringBitmap.bitmapOf(5));
            assertThat(o.coverage().bitmap(1)).isEqualTo(RoaringBitmap.bitmapOf(1));
        }
        assertThat(Dataset.open(store, allocator).version()).isEqualTo(1); // the writer never commits
    }

    @Test
    void batchColumnsMustBeDeclaredAndDistinct() throws Exception {
        try (OverlayWriter w = writer(1)) {
            try (VectorSchemaRoot r = SmallTable.root(SmallTable.strings(allocator, "s", "x"))) {
                assertKind(() -> write(w, new long[] {1}, r), Kind.UNDECLARED_COLUMN, "Batch column 's' is not one of");
            }
            try (VectorSchemaRoot r =
                    SmallTable.root(SmallTable.longs(allocator, "a", 1L), SmallTable.longs(allocator, "a", 2L))) {
                assertKind(() -> write(w, new long[] {1}, r), Kind.DUPLICATE_COLUMN, "column 'a' twice");
            }
            assertThat(w.finish()).isEmpty(); // nothing staged: no file, nothing to commit
            assertThat(w.writtenPath()).isEmpty();
        }
    }

    @Test
    void denseWhenEveryFieldGotTheSameOffsetsAndEmptyBatchesAreNoOps() throws Exception {
        try (OverlayWriter w = writer(2, 1);
                VectorSchemaRoot empty = SmallTable.root(SmallTable.longs(allocator, "a"));
                VectorSchemaRoot r1 = SmallTable.root(
                        SmallTable.longs(allocator, "a", 7L, null), SmallTable.strings(allocator, "s", "p", "q"));
                VectorSchemaRoot r2 = SmallTable.root(
                        SmallTable.strings(allocator, "s", "r"), SmallTable.longs(allocator, "a", 8L))) {
            w.write(new long[0], empty);
            w.write(new long[] {0, 4}, r1);
            w.write(new long[] {9}, r2);
            DataOverlayFile o = w.finish().orElseThrow();
            assertThat(o.coverage()).isInstanceOf(OverlayCoverage.Dense.class);
            assertThat(o.coverage().bitmap(0)).isEqualTo(RoaringBitmap.bitmapOf(0, 4, 9));
            assertThat(o.dataFile().fields()).containsExactly(1, 2); // schema order, whatever the declaration order
            assertThat(o.committedVersion()).isZero();
            // Portable form; no run containers where runs would not be smaller (cookie 12346).
            assertThat(((OverlayCoverage.Dense) o.coverage()).sharedOffsetBitmap()[0])
                    .isEqualTo((byte) 0x3a);
        }
    }

    @Test
    void orderCheckUsesLanceText() {
        var f = ds.manifest().fragment(0).orElseThrow();
        DataOverlayFile a = new DataOverlayFile(f.files().get(0), OverlayCoverage.Dense.of(new RoaringBitmap()), 5);
        DataOverlayFile b = a.withCommittedVersion(3);
        assertThatThrownBy(() -> OverlayOrder.check(f.withOverlays(List.of(a, b))))
                .hasMessageStartingWith("overlay files must be stored newest-last, but committed_version 5 precedes 3");
        assertThat(OverlayOrder.sorted(List.of(a, b, a.withCommittedVersion(3))))
                .extracting(DataOverlayFile::committedVersion)
                .containsExactly(3L, 3L, 5L);
        assertThat(OverlayOrder.sorted(List.of(a, b, a.withCommittedVersion(3))).get(0))
                .isSameAs(b); // stable
    }

    private static void writeField(OverlayWriter w, int id, long[] addresses, org.apache.arrow.vector.FieldVector v) {
        try {
            w.writeField(id, addresses, v);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static void write(OverlayWriter w, long[] addresses, VectorSchemaRoot r) {
        try {
            w.write(addresses, r);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
