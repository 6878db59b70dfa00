package dev.lanceflink.file.writer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.file.FileVersion;
import dev.lanceflink.file.LanceFileReader;
import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.schema.LanceField;
import dev.lanceflink.schema.LanceSchema;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Writes 2.1 (and 2.0, 2.2) files and reads every cell back through {@link LanceFileReader}. */
class StructuralRoundTripTest {
    private final BufferAllocator allocator = new RootAllocator();

    @TempDir
    Path dir;

    @AfterEach
    void close() {
        allocator.close();
    }

    private void roundTrip(FileVersion version, Schema arrow, List<VectorSchemaRoot> batches, FileWriterOptions options)
            throws Exception {
        WriterTestSupport.Written w;
        try {
            w = WriterTestSupport.write(dir, allocator, version, options, batches);
        } catch (Exception e) {
            batches.forEach(VectorSchemaRoot::close);
            throw e;
        }
        LanceSchema schema = LanceSchema.fromArrow(arrow, 0);
        long total = batches.stream().mapToLong(VectorSchemaRoot::getRowCount).sum();
        assertThat(w.summary().numRows()).isEqualTo(total);
        assertThat(w.summary().sizeBytes()).isEqualTo(w.bytes().length);
        if (version != FileVersion.V2_0) {
            assertThat(w.summary().fieldIds())
                    .isEqualTo(schema.leafFields().stream()
                            .mapToInt(LanceField::id)
                            .toArray());
        }
        try (LanceFileReader reader = LanceFileReader.open(w.store(), "data/f.lance", allocator)) {
            assertThat(reader.version()).isEqualTo(version);
            assertThat(reader.numRows()).isEqualTo(total);
            assertThat(reader.schema()).isEqualTo(schema);
            for (int c = 0; c < schema.fields().size(); c++) {
                LanceField field = schema.fields().get(c);
                List<Object> expected = new ArrayList<>();
                for (VectorSchemaRoot b : batches) {
                    expected.addAll(RandomBatches.cells(b.getVector(c)));
                }
                try (FieldVector read = reader.readRange(field.id(), 0, total)) {
                    assertThat(RandomBatches.cells(read))
                            .as("column %s", field.name())
                            .isEqualTo(expected);
                } catch (RuntimeException e) {
                    throw new AssertionError("reading column " + field.name() + " failed", e);
                }
                if (total > 10) {
                    try (FieldVector read = reader.readRange(field.id(), 3, total - 2)) {
                        assertThat(RandomBatches.cells(read))
                                .as("column %s [3, n-2)", field.name())
                                .isEqualTo(expected.subList(3, (int) total - 2));
                    }
                    if (version == FileVersion.V2_0 && field.name().equals("lf")) {
                        continue; // the 2.0 decoder's take() cannot copy list<fixed_size_list> yet
                    }
                    long[] rows = {1, 2, 5, total / 2, total - 1};
                    try (FieldVector read = reader.take(field.id(), rows)) {
                        List<Object> exp = new ArrayList<>();
                        for (long r : rows) {
                            exp.add(expected.get((int) r));
                        }
                        assertThat(RandomBatches.cells(read))
                                .as("column %s take", field.name())
                                .isEqualTo(exp);
                    }
                }
            }
        } finally {
            batches.forEach(VectorSchemaRoot::close);
        }
    }

    @Test
    void everyTypeWithNulls() throws Exception {
        Schema arrow = TypeCatalog.schema(true, true);
        roundTrip(
                FileVersion.V2_1,
                arrow,
                List.of(
                        RandomBatches.batch(arrow, allocator, 300, 1, new RandomBatches.Shape(4, 3, 20)),
                        RandomBatches.batch(arrow, allocator, 77, 2, new RandomBatches.Shape(3, 4, 30))),
                FileWriterOptions.defaults());
    }

    @Test
    void manyPagesAndChunks() throws Exception {
        Schema arrow = TypeCatalog.schema(true, true);
        roundTrip(
                FileVersion.V2_1,
                arrow,
                List.of(
                        RandomBatches.batch(arrow, allocator, 5000, 3, new RandomBatches.Shape(0, 3, 12)),
                        RandomBatches.batch(arrow, allocator, 3000, 4, new RandomBatches.Shape(7, 6, 40))),
                FileWriterOptions.defaults().withTargetPageBytes(20_000).withRowsPerSlice(700));
    }

    @Test
    void plainValuesWithoutBitPacking() throws Exception {
        Schema arrow = TypeCatalog.schema(true, true);
        roundTrip(
                FileVersion.V2_1,
                arrow,
                List.of(RandomBatches.batch(arrow, allocator, 3000, 11, new RandomBatches.Shape(6, 5, 20))),
                FileWriterOptions.defaults().withBitPacking(false).withTargetPageBytes(30_000));
    }

    @Test
    void mismatchedNestedTypeIsRejected() throws Exception {
        Schema arrow = new Schema(List.of(
                TypeCatalog.f("s", true, ArrowType.Struct.INSTANCE, TypeCatalog.f("x", true, TypeCatalog.I32))));
        Schema actual = new Schema(List.of(
                TypeCatalog.f("s", true, ArrowType.Struct.INSTANCE, TypeCatalog.f("x", true, TypeCatalog.I64))));
        LanceSchema schema = LanceSchema.fromArrow(arrow, 0);
        try (LanceFileWriter w = LanceFileWriter.create(
                        new LocalObjectStore(dir),
                        "m.lance",
                        schema,
                        FileVersion.V2_1,
                        allocator,
                        FileWriterOptions.defaults());
                VectorSchemaRoot root = VectorSchemaRoot.create(actual, allocator)) {
            assertThatThrownBy(() -> w.write(root))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'s.x' is Int(32, true) in the schema but the vector holds Int(64, true)");
        }
    }

    @Test
    void allNull() throws Exception {
        Schema arrow = TypeCatalog.schema(true, true);
        roundTrip(
                FileVersion.V2_1,
                arrow,
                List.of(RandomBatches.batch(arrow, allocator, 50, 5, new RandomBatches.Shape(1, 3, 12))),
                FileWriterOptions.defaults());
    }

    @Test
    void longValuesUseFullZip() throws Exception {
        Schema arrow = TypeCatalog.schema(true, true);
        roundTrip(
                FileVersion.V2_1,
                arrow,
                List.of(RandomBatches.batch(arrow, allocator, 120, 6, new RandomBatches.Shape(5, 5, 700))),
                FileWriterOptions.defaults());
    }

    /**
     * Full-zip for every column, with null structs and null fixed-width items inside lists: their
     * zipped items carry value bytes like every visible item (see {@code FullZipLayoutTest}).
     */
    @Test
    void forcedFullZipForEverything() throws Exception {
        Schema arrow = TypeCatalog.schema(true, true, true);
        roundTrip(
                FileVersion.V2_1,
                arrow,
                List.of(RandomBatches.batch(arrow, allocator, 400, 7, new RandomBatches.Shape(4, 4, 20))),
                FileWriterOptions.defaults().withFullZipMinValueBytes(1));
    }

    @Test
    void version20ThroughTheFileReader() throws Exception {
        Schema arrow = TypeCatalog.schema(false, true);
        roundTrip(
                FileVersion.V2_0,
                arrow,
                List.of(RandomBatches.batch(arrow, allocator, 200, 8, new RandomBatches.Shape(4, 3, 20))),
                FileWriterOptions.defaults());
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.EnumSource(
            value = FileVersion.class,
            names = {"V2_0", "V2_1"})
    void emptyFile(FileVersion version) throws Exception {
        Schema arrow = TypeCatalog.schema(version != FileVersion.V2_0, true);
        LanceSchema schema = LanceSchema.fromArrow(arrow, 0);
        LocalObjectStore store = new LocalObjectStore(dir);
        FileWriteSummary s;
        try (LanceFileWriter w =
                LanceFileWriter.create(store, "e.lance", schema, version, allocator, FileWriterOptions.defaults())) {
            s = w.finish();
        }
        assertThat(s.numRows()).isZero();
        assertThat(s.fileMajorVersion()).isEqualTo(2);
        assertThat(s.fileMinorVersion()).isEqualTo(version.minor());
        try (LanceFileReader reader = LanceFileReader.open(store, "e.lance", allocator)) {
            assertThat(reader.version()).isEqualTo(version);
            assertThat(reader.numRows()).isZero();
            assertThat(reader.schema()).isEqualTo(schema);
        }
    }

    @Test
    void nonRectangularFile() throws Exception {
        Schema arrow = new Schema(
                List.of(TypeCatalog.f("a", true, TypeCatalog.I32), TypeCatalog.f("b", true, ArrowType.Utf8.INSTANCE)));
        LanceSchema schema = LanceSchema.fromArrow(arrow, 0);
        LocalObjectStore store = new LocalObjectStore(dir);
        FileWriteSummary s;
        try (VectorSchemaRoot r1 = RandomBatches.batch(arrow, allocator, 100, 9, new RandomBatches.Shape(3, 0, 9));
                VectorSchemaRoot r2 = RandomBatches.batch(arrow, allocator, 40, 10, new RandomBatches.Shape(3, 0, 9));
                LanceFileWriter w = LanceFileWriter.create(
                        store, "n.lance", schema, FileVersion.V2_1, allocator, FileWriterOptions.defaults())) {
            w.writeColumn(0, r1.getVector(0));
            w.writeColumn(1, r2.getVector(1));
            w.writeColumn(1, r2.getVector(1));
            s = w.finish();
            assertThat(s.numRows()).isEqualTo(100);
            try (LanceFileReader reader = LanceFileReader.open(store, "n.lance", allocator)) {
                assertThat(reader.numRows()).isEqualTo(100);
                assertThat(reader.numRows(0)).isEqualTo(100);
                assertThat(reader.numRows(1)).isEqualTo(80);
                try (FieldVector b = reader.readRange(1, 0, 80)) {
                    List<Object> exp = new ArrayList<>(RandomBatches.cells(r2.getVector(1)));
                    exp.addAll(RandomBatches.cells(r2.getVector(1)));
                    assertThat(RandomBatches.cells(b)).isEqualTo(exp);
                }
                try (FieldVector a = reader.readRange(0, 0, 100)) {
                    assertThat(RandomBatches.cells(a)).isEqualTo(RandomBatches.cells(r1.getVector(0)));
                }
            }
        }
    }

    @Test
    void version22RoundTripsEveryTypeIncludingMaps() throws Exception {
        Schema arrow = TypeCatalog.schemaWithMaps();
        roundTrip(
                FileVersion.V2_2,
                arrow,
                List.of(RandomBatches.batch(arrow, allocator, 2000, 22, new RandomBatches.Shape(4, 3, 20))),
                FileWriterOptions.defaults().withTargetPageBytes(20_000).withRowsPerSlice(300));
    }

    @Test
    void closeWithoutFinishLeavesNothing() throws Exception {
        Schema arrow = new Schema(List.of(TypeCatalog.f("a", false, TypeCatalog.I32)));
        LanceSchema schema = LanceSchema.fromArrow(arrow, 0);
        try (LanceFileWriter w = LanceFileWriter.create(
                        new LocalObjectStore(dir),
                        "data/x.lance",
                        schema,
                        FileVersion.V2_1,
                        allocator,
                        FileWriterOptions.defaults().withTargetPageBytes(16));
                IntVector v = new IntVector("a", FieldType.notNullable(TypeCatalog.I32), allocator)) {
            v.allocateNew(1000);
            for (int i = 0; i < 1000; i++) {
                v.set(i, i);
            }
            v.setValueCount(1000);
            w.writeColumn(0, v);
        }
        assertThat(dir.resolve("data")).isEmptyDirectory();
    }

    @Test
    void wrongBatchShapeIsRejectedWithTheColumnName() throws Exception {
        Schema arrow = new Schema(List.of(TypeCatalog.f("a", false, TypeCatalog.I32)));
        LanceSchema schema = LanceSchema.fromArrow(arrow, 0);
        try (LanceFileWriter w = LanceFileWriter.create(
                        new LocalObjectStore(dir),
                        "y.lance",
                        schema,
                        FileVersion.V2_1,
                        allocator,
                        FileWriterOptions.defaults());
                org.apache.arrow.vector.BigIntVector v = new org.apache.arrow.vector.BigIntVector("a", allocator)) {
            assertThatThrownBy(() -> w.writeColumn(0, v))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("column 'a' (id 0)")
                    .hasMessageContaining("Int(64, true)");
            Schema nested = new Schema(List.of(
                    TypeCatalog.f("s", true, ArrowType.Struct.INSTANCE, TypeCatalog.f("x", true, TypeCatalog.I64))));
            try (VectorSchemaRoot other = VectorSchemaRoot.create(nested, allocator)) {
                assertThatThrownBy(() -> w.writeColumn(0, other.getVector(0)))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("column 'a' (id 0)");
            }
        }
        assertThat(dir.resolve("y.lance")).doesNotExist();
    }
}
