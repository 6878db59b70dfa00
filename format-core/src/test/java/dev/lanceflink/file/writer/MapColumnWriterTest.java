package dev.lanceflink.file.writer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.file.FileVersion;
import dev.lanceflink.file.LanceFileReader;
import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.schema.LanceSchema;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Map columns: stored in 2.2 files exactly as Lance stores them, i.e. as the list of their
 * entries struct (Lance's structural list encoder takes map arrays as lists), and refused in
 * older files, which Lance cannot read maps from.
 *
 * <p>The exact-layout check writes the same rows twice, once as {@code map<utf8, int32>} and
 * once as {@code list<struct<key: utf8 not null, value: int32>>}: every page buffer and every
 * column metadata must be byte-identical, and only the schema in the file descriptor may differ.
 * The list twin is then read back cell by cell with our reader.
 */
class MapColumnWriterTest {
    private static final int ROWS = 1500;

    private final BufferAllocator allocator = new RootAllocator();

    @TempDir
    Path dir;

    @AfterEach
    void close() {
        allocator.close();
    }

    private static org.apache.arrow.vector.types.pojo.Field entries() {
        return TypeCatalog.f(
                "entries",
                false,
                ArrowType.Struct.INSTANCE,
                TypeCatalog.f("key", false, ArrowType.Utf8.INSTANCE),
                TypeCatalog.f("value", true, TypeCatalog.I32));
    }

    private static Schema mapSchema() {
        return new Schema(List.of(
                TypeCatalog.f("id", false, TypeCatalog.I32),
                TypeCatalog.f("m", true, new ArrowType.Map(false), entries())));
    }

    private static Schema listTwinSchema() {
        return new Schema(List.of(
                TypeCatalog.f("id", false, TypeCatalog.I32),
                TypeCatalog.f("m", true, ArrowType.List.INSTANCE, entries())));
    }

    /**
     * Row r: null map when r % 7 == 3, empty map when r % 5 == 1, otherwise r % 4 + 1 entries
     * {@code "k<r>_<j>" -> r * 10 + j}, the value null when j == 2.
     */
    private VectorSchemaRoot rows(Schema schema) {
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
        IntVector id = (IntVector) root.getVector("id");
        ListVector m = (ListVector) root.getVector("m"); // a MapVector is a ListVector
        StructVector e = (StructVector) m.getDataVector();
        VarCharVector keys = (VarCharVector) e.getChildrenFromFields().get(0);
        IntVector values = (IntVector) e.getChildrenFromFields().get(1);
        id.allocateNew(ROWS);
        m.allocateNew();
        for (int r = 0; r < ROWS; r++) {
            id.set(r, r);
            if (r % 7 == 3) {
                m.setNull(r);
                continue;
            }
            int n = r % 5 == 1 ? 0 : r % 4 + 1;
            int start = m.startNewValue(r);
            for (int j = 0; j < n; j++) {
                int slot = start + j;
                e.setIndexDefined(slot);
                keys.setSafe(slot, ("k" + r + "_" + j).getBytes(StandardCharsets.UTF_8));
                if (j == 2) {
                    values.setNull(slot);
                } else {
                    values.setSafe(slot, r * 10 + j);
                }
            }
            m.endValue(r, n);
        }
        int items = m.getOffsetBuffer().getInt(4L * ROWS);
        e.setValueCount(items);
        root.setRowCount(ROWS);
        return root;
    }

    private WriterTestSupport.Written write(Path into, Schema schema, FileVersion version, FileWriterOptions options)
            throws Exception {
        Files.createDirectories(into);
        try (VectorSchemaRoot batch = rows(schema)) {
            return WriterTestSupport.write(into, allocator, version, options, List.of(batch));
        }
    }

    @Test
    void aMapIsStoredByteForByteLikeTheListOfItsEntries() throws Exception {
        // Small pages and slices: several pages per column, pages cut inside the batch.
        FileWriterOptions options =
                FileWriterOptions.defaults().withTargetPageBytes(4096).withRowsPerSlice(100);
        WriterTestSupport.Written map = write(dir.resolve("map"), mapSchema(), FileVersion.V2_2, options);
        WriterTestSupport.Written list = write(dir.resolve("list"), listTwinSchema(), FileVersion.V2_2, options);
        WrittenFile mapFile = map.parse();
        WrittenFile listFile = list.parse();

        assertThat(mapFile.major).isEqualTo(2);
        assertThat(mapFile.minor).isEqualTo(2);
        assertThat(map.summary().fileMajorVersion()).isEqualTo(2);
        assertThat(map.summary().fileMinorVersion()).isEqualTo(2);
        // Leaf columns: id, m.entries.key, m.entries.value (ids 0, 3, 4 in pre-order).
        assertThat(mapFile.numColumns).isEqualTo(3);
        assertThat(map.summary().fieldIds()).containsExactly(0, 3, 4);
        assertThat(mapFile.columns.get(1).getPagesCount()).isGreaterThan(1);

        assertThat(mapFile.descriptorPos).isEqualTo(listFile.descriptorPos);
        assertThat(Arrays.copyOf(mapFile.bytes, (int) mapFile.descriptorPos))
                .as("page buffers")
                .isEqualTo(Arrays.copyOf(listFile.bytes, (int) listFile.descriptorPos));
        assertThat(mapFile.columns).as("column metadata").isEqualTo(listFile.columns);
        assertThat(mapFile.descriptor.getSchema().getFields(1).getLogicalType()).isEqualTo("map");
        assertThat(listFile.descriptor.getSchema().getFields(1).getLogicalType())
                .isEqualTo("list.struct");

        // The twin's bytes read back as the rows written (so the map's bytes hold them too).
        try (LanceFileReader reader = LanceFileReader.open(list.store(), "data/f.lance", allocator);
                VectorSchemaRoot expected = rows(listTwinSchema());
                FieldVector read = reader.readRange(1, 0, ROWS)) {
            assertThat(reader.version()).isEqualTo(FileVersion.V2_2);
            assertThat(RandomBatches.cells(read)).isEqualTo(RandomBatches.cells(expected.getVector("m")));
            assertThat(read.isNull(3)).isTrue();
            assertThat(((ListVector) read).getElementEndIndex(1) - ((ListVector) read).getElementStartIndex(1))
                    .isZero();
        }
    }

    /** Without maps a 2.2 file has the columns of a 2.1 file (V22RecipeTest checks their pages). */
    @Test
    void aVersion22FileWithoutMapsHoldsTheSameColumnsAsVersion21() throws Exception {
        Schema arrow = TypeCatalog.schema(true, true);
        WriterTestSupport.Written v21;
        WriterTestSupport.Written v22;
        Files.createDirectories(dir.resolve("a"));
        Files.createDirectories(dir.resolve("b"));
        try (VectorSchemaRoot b = RandomBatches.batch(arrow, allocator, 700, 21, new RandomBatches.Shape(4, 3, 20))) {
            v21 = WriterTestSupport.write(
                    dir.resolve("a"), allocator, FileVersion.V2_1, FileWriterOptions.defaults(), List.of(b));
            v22 = WriterTestSupport.write(
                    dir.resolve("b"), allocator, FileVersion.V2_2, FileWriterOptions.defaults(), List.of(b));
            WrittenFile f21 = v21.parse();
            WrittenFile f22 = v22.parse();
            // Same columns and schema; the pages differ only in the mini-block chunk grammar.
            assertThat(f22.numColumns).isEqualTo(f21.numColumns);
            assertThat(f22.descriptor).isEqualTo(f21.descriptor);
            assertThat(v22.summary().fieldIds()).isEqualTo(v21.summary().fieldIds());
            int footerVersion = f22.bytes.length - 8;
            assertThat(Arrays.copyOfRange(f22.bytes, footerVersion, footerVersion + 4))
                    .containsExactly(2, 0, 2, 0);
            assertThat(Arrays.copyOfRange(f21.bytes, f21.bytes.length - 8, f21.bytes.length - 4))
                    .containsExactly(2, 0, 1, 0);

            try (LanceFileReader reader = LanceFileReader.open(v22.store(), "data/f.lance", allocator)) {
                assertThat(reader.version()).isEqualTo(FileVersion.V2_2);
                LanceSchema schema = LanceSchema.fromArrow(arrow, 0);
                for (int c = 0; c < schema.fields().size(); c++) {
                    try (FieldVector read =
                            reader.readRange(schema.fields().get(c).id(), 0, 700)) {
                        assertThat(RandomBatches.cells(read))
                                .as("column %s", schema.fields().get(c).name())
                                .isEqualTo(RandomBatches.cells(b.getVector(c)));
                    }
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(
            value = FileVersion.class,
            names = {"V2_0", "V2_1"})
    void aMapBelowVersion22IsRefusedAndNoFileIsLeft(FileVersion version) {
        Schema arrow = new Schema(List.of(
                TypeCatalog.f("id", false, TypeCatalog.I32),
                TypeCatalog.f(
                        "s",
                        true,
                        ArrowType.Struct.INSTANCE,
                        TypeCatalog.f("attrs", true, new ArrowType.Map(false), entries()))));
        LanceSchema schema = LanceSchema.fromArrow(arrow, 0);
        LocalObjectStore store = new LocalObjectStore(dir);
        assertThatThrownBy(() -> LanceFileWriter.create(
                        store, "data/f.lance", schema, version, allocator, FileWriterOptions.defaults()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("field 's.attrs' (id 2) is a map, but maps need data storage version 2.2 and this file is"
                        + " version " + version.label() + " (data/f.lance). Create the table with data storage"
                        + " version 2.2 (WriteParams.withFileVersion(FileVersion.V2_2)); an existing table keeps its"
                        + " version, so rewrite it into a new 2.2 table to add map columns");
        assertThat(dir.resolve("data/f.lance")).doesNotExist();
    }

    @Test
    void aSortedMapIsRefused() {
        Schema arrow = new Schema(List.of(TypeCatalog.f("m", true, new ArrowType.Map(true), entries())));
        assertThatThrownBy(() -> LanceSchema.fromArrow(arrow, 0)).hasMessageContaining("keys_sorted");
    }

    @Test
    void ourReaderReadsTheMapsBackWholeInRangesAndByTake() throws Exception {
        FileWriterOptions options =
                FileWriterOptions.defaults().withTargetPageBytes(4096).withRowsPerSlice(100);
        WriterTestSupport.Written map = write(dir.resolve("map"), mapSchema(), FileVersion.V2_2, options);
        try (LanceFileReader reader = LanceFileReader.open(map.store(), "data/f.lance", allocator);
                VectorSchemaRoot expected = rows(mapSchema());
                FieldVector read = reader.readRange(1, 0, ROWS);
                FieldVector part = reader.readRange(1, 7, ROWS - 3);
                FieldVector taken = reader.take(1, new long[] {0, 1, 3, 4, 777, ROWS - 1})) {
            assertThat(read).isInstanceOf(org.apache.arrow.vector.complex.MapVector.class);
            List<Object> all = RandomBatches.cells(expected.getVector("m"));
            assertThat(RandomBatches.cells(read)).isEqualTo(all);
            assertThat(RandomBatches.cells(part)).isEqualTo(all.subList(7, ROWS - 3));
            assertThat(RandomBatches.cells(taken))
                    .isEqualTo(java.util.Arrays.asList(
                            all.get(0), all.get(1), all.get(3), all.get(4), all.get(777), all.get(ROWS - 1)));
        }
    }
}
