package dev.lanceflink.file.writer;

import static dev.lanceflink.file.writer.StructuralRecipeTest.concat;
import static dev.lanceflink.file.writer.WrittenFile.hex;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lanceflink.file.FileVersion;
import dev.lanceflink.file.LanceFileReader;
import dev.lanceflink.schema.LanceSchema;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import lance.encodings21.MiniBlockLayout;
import lance.encodings21.PageLayout;
import lance.encodings21.RepDefLayer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * File version 2.2 pages. Lance 2.2 readers (pylance 14) refuse mini-block pages in the u16
 * chunk grammar of 2.1, so every 2.2 mini-block page must set {@code has_large_chunk}: u32
 * chunk metadata words and u32 value-buffer sizes in each chunk header. The byte-exact cases
 * are the bytes pylance 14.0.2 writes for the same data in a 2.2 file (plain values:
 * {@code lance-encoding:compression = none}, dictionaries off; Lance's defaults for the
 * bit-packed ones).
 */
class V22RecipeTest {
    /** Several pages per column, so that pages of one chunk and of many are both checked. */
    private static final FileWriterOptions SMALL_PAGES =
            FileWriterOptions.defaults().withTargetPageBytes(4 * 1024).withRowsPerSlice(250);

    private final BufferAllocator allocator = new RootAllocator();

    @TempDir
    Path dir;

    @AfterEach
    void close() {
        allocator.close();
    }

    /** Writes the vectors as one batch into a 2.2 file with the default options. */
    private WrittenFile write22(FieldVector... vectors) throws Exception {
        VectorSchemaRoot root = VectorSchemaRoot.of(vectors);
        root.setRowCount(vectors[0].getValueCount());
        try (root) {
            return WriterTestSupport.write(
                            Files.createTempDirectory(dir, "f"),
                            allocator,
                            FileVersion.V2_2,
                            FileWriterOptions.defaults(),
                            List.of(root))
                    .parse();
        }
    }

    private IntVector int32(String name, boolean nullable, int n, java.util.function.IntFunction<Integer> value) {
        IntVector v = new IntVector(
                name,
                nullable ? FieldType.nullable(TypeCatalog.I32) : FieldType.notNullable(TypeCatalog.I32),
                allocator);
        v.allocateNew(n);
        for (int i = 0; i < n; i++) {
            Integer x = value.apply(i);
            if (x == null) {
                v.setNull(i);
            } else {
                v.set(i, x);
            }
        }
        v.setValueCount(n);
        return v;
    }

    @Test
    void int32NonNullMatchesPylance() throws Exception {
        WrittenFile f = write22(int32("id", false, 5, i -> i));
        assertThat(f.minor).isEqualTo(2);
        assertThat(f.layout(0, 0))
                .isEqualTo(PageLayout.newBuilder()
                        .setMiniBlockLayout(MiniBlockLayout.newBuilder()
                                .setValueCompression(Encodings.flat(32))
                                .addLayers(RepDefLayer.REPDEF_ALL_VALID_ITEM)
                                .setNumBuffers(1)
                                .setNumItems(5)
                                .setHasLargeChunk(true))
                        .build());
        // One u32 word; the chunk header is u16 num_levels + u32 value size, padded to 8.
        assertThat(f.buffer(0, 0, 0)).isEqualTo(hex("30 00 00 00"));
        assertThat(f.buffer(0, 0, 1))
                .isEqualTo(
                        hex("00 00 14 00 00 00 fe fe 00000000 01000000 02000000 03000000" + " 04000000 fe fe fe fe"));
    }

    @Test
    void nullableDoubleMatchesPylance() throws Exception {
        Float8Vector v = new Float8Vector(
                "d", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), allocator);
        double[] vals = {0.25, 0.75, 1.25, 0, 2.25};
        v.allocateNew(5);
        for (int i = 0; i < 5; i++) {
            if (i == 3) {
                v.setNull(i);
            } else {
                v.set(i, vals[i]);
            }
        }
        v.setValueCount(5);
        WrittenFile f = write22(v);
        MiniBlockLayout mb = f.layout(0, 0).getMiniBlockLayout();
        assertThat(mb.getHasLargeChunk()).isTrue();
        assertThat(mb.getDefCompression()).isEqualTo(Encodings.flat(16));
        assertThat(f.buffer(0, 0, 0)).isEqualTo(hex("70 00 00 00"));
        // Header: num_levels 5, def size 10 (u16), value size 40 (u32): exactly 8 bytes, no padding.
        ByteBuffer expected = ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN);
        expected.put(hex("05 00 0a 00 28 00 00 00 0000 0000 0000 0100 0000 fefefefefefe"));
        for (double d : vals) {
            expected.putDouble(d);
        }
        assertThat(f.buffer(0, 0, 1)).isEqualTo(expected.array());
    }

    @Test
    void utf8MatchesPylance() throws Exception {
        VarCharVector v = new VarCharVector("name", FieldType.notNullable(ArrowType.Utf8.INSTANCE), allocator);
        v.allocateNew();
        for (int i = 0; i < 5; i++) {
            v.setSafe(i, ("name-" + i).getBytes(StandardCharsets.UTF_8));
        }
        v.setValueCount(5);
        WrittenFile f = write22(v);
        assertThat(f.layout(0, 0).getMiniBlockLayout().getHasLargeChunk()).isTrue();
        assertThat(f.buffer(0, 0, 0)).isEqualTo(hex("70 00 00 00"));
        assertThat(f.buffer(0, 0, 1))
                .isEqualTo(concat(
                        hex("00 00 38 00 00 00 fe fe" + " 18000000 1e000000 24000000 2a000000 30000000 36000000"),
                        "name-0name-1name-2name-3name-4".getBytes(StandardCharsets.US_ASCII),
                        hex("48 48")));
    }

    @Test
    void nullableUtf8MatchesPylance() throws Exception {
        VarCharVector v = new VarCharVector("s", FieldType.nullable(ArrowType.Utf8.INSTANCE), allocator);
        v.allocateNew();
        v.setSafe(0, "ab".getBytes(StandardCharsets.UTF_8));
        v.setNull(1);
        v.setSafe(2, "cde".getBytes(StandardCharsets.UTF_8));
        v.setValueCount(3);
        WrittenFile f = write22(v);
        assertThat(f.buffer(0, 0, 0)).isEqualTo(hex("40 00 00 00"));
        assertThat(f.buffer(0, 0, 1))
                .isEqualTo(concat(
                        hex("03 00 06 00 18 00 00 00 00 00 01 00 00 00 fe fe" + " 10000000 12000000 12000000 15000000"),
                        "abcde".getBytes(StandardCharsets.US_ASCII),
                        hex("48 48 48")));
    }

    @Test
    void fixedSizeListOfFourFloatsMatchesPylance() throws Exception {
        FixedSizeListVector v =
                new FixedSizeListVector("e", allocator, FieldType.notNullable(new ArrowType.FixedSizeList(4)), null);
        Float4Vector items = (Float4Vector)
                v.addOrGetVector(FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)))
                        .getVector();
        v.allocateNew();
        items.allocateNew(20);
        for (int r = 0; r < 5; r++) {
            v.setNotNull(r);
        }
        for (int i = 0; i < 20; i++) {
            items.set(i, i * 0.5f);
        }
        items.setValueCount(20);
        v.setValueCount(5);
        WrittenFile f = write22(v);
        MiniBlockLayout mb = f.layout(0, 0).getMiniBlockLayout();
        assertThat(mb.getValueCompression()).isEqualTo(Encodings.fixedSizeList(4, 32, false));
        assertThat(mb.getHasLargeChunk()).isTrue();
        assertThat(f.buffer(0, 0, 0)).isEqualTo(hex("a0 00 00 00"));
        ByteBuffer expected = ByteBuffer.allocate(88).order(ByteOrder.LITTLE_ENDIAN);
        expected.put(hex("00 00 50 00 00 00 fe fe"));
        for (int i = 0; i < 20; i++) {
            expected.putFloat(i * 0.5f);
        }
        assertThat(f.buffer(0, 0, 1)).isEqualTo(expected.array());
    }

    @Test
    void listOfInt32WithRepetitionMatchesPylance() throws Exception {
        ListVector v = ListVector.empty("l", allocator);
        IntVector items = (IntVector)
                v.addOrGetVector(FieldType.nullable(TypeCatalog.I32)).getVector();
        v.allocateNew();
        // [[1, 2], [], null, [3]]
        v.startNewValue(0);
        items.setSafe(0, 1);
        items.setSafe(1, 2);
        v.endValue(0, 2);
        v.startNewValue(1);
        v.endValue(1, 0);
        v.setNull(2);
        v.startNewValue(3);
        items.setSafe(2, 3);
        v.endValue(3, 1);
        items.setValueCount(3);
        v.setValueCount(4);
        WrittenFile f = write22(v);
        MiniBlockLayout mb = f.layout(0, 0).getMiniBlockLayout();
        assertThat(mb.getHasLargeChunk()).isTrue();
        assertThat(mb.getLayersList())
                .containsExactly(RepDefLayer.REPDEF_ALL_VALID_ITEM, RepDefLayer.REPDEF_NULL_AND_EMPTY_LIST);
        assertThat(mb.getRepetitionIndexDepth()).isEqualTo(1);
        assertThat(f.buffer(0, 0, 0)).isEqualTo(hex("70 00 00 00"));
        // Rep and def sizes stay u16 in the large-chunk grammar; only the value size is u32.
        assertThat(f.buffer(0, 0, 1))
                .isEqualTo(hex("05 00 0a 00 0a 00 0c 00 00 00 fe fe fe fe fe fe"
                        + " 01 00 00 00 01 00 01 00 01 00 fe fe fe fe fe fe"
                        + " 00 00 00 00 02 00 01 00 00 00 fe fe fe fe fe fe"
                        + " 01 00 00 00 02 00 00 00 03 00 00 00 fe fe fe fe"));
        assertThat(f.buffer(0, 0, 2)).isEqualTo(hex("04 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"));
    }

    /** int32 {@code i % 13}, 1100 rows: inline bit-packing, two chunks (1024 + 76 values). */
    @Test
    void bitPackedInt32MatchesPylance() throws Exception {
        WrittenFile f = write22(int32("n", false, 1100, i -> i % 13));
        MiniBlockLayout mb = f.layout(0, 0).getMiniBlockLayout();
        assertThat(mb.getValueCompression().hasInlineBitpacking()).isTrue();
        assertThat(mb.getHasLargeChunk()).isTrue();
        assertThat(f.buffer(0, 0, 0)).isEqualTo(hex("1a 04 00 00 10 04 00 00"));
        byte[] data = f.buffer(0, 0, 1);
        assertThat(data).hasSize(1056);
        assertThat(Arrays.copyOf(data, 24))
                .isEqualTo(hex("00 00 04 02 00 00 fe fe 04 00 00 00 b0 79 35 c1" + " c1 8a 46 02 02 9b 57 13"));
    }

    /** compression.md §8 (pylance 14.0.2 agrees): nullable int32 {@code i % 13}, null at {@code i % 3 == 1}. */
    @Test
    void bitPackedValuesAndDefinitionLevelsMatchPylance() throws Exception {
        WrittenFile f = write22(int32("n", true, 1100, i -> i % 3 == 1 ? null : i % 13));
        MiniBlockLayout mb = f.layout(0, 0).getMiniBlockLayout();
        assertThat(mb.getDefCompression().hasOutOfLineBitpacking()).isTrue();
        assertThat(mb.getHasLargeChunk()).isTrue();
        assertThat(f.buffer(0, 0, 0)).isEqualTo(hex("1a 05 00 00 10 05 00 00"));
        byte[] data = f.buffer(0, 0, 1);
        assertThat(data).hasSize(1312);
        // u16 levels, u16 def size, u32 value size: 8 bytes, so the def section follows at once.
        assertThat(Arrays.copyOf(data, 14)).isEqualTo(hex("00 04 80 00 04 02 00 00 24 49 49 92 92 24"));
    }

    @Test
    void everyMiniBlockPageOfEveryTypeUsesTheLargeChunkGrammar() throws Exception {
        Schema arrow = TypeCatalog.schemaWithMaps();
        try (VectorSchemaRoot b = RandomBatches.batch(arrow, allocator, 3000, 7, new RandomBatches.Shape(5, 4, 30))) {
            WrittenFile f = WriterTestSupport.write(dir, allocator, FileVersion.V2_2, SMALL_PAGES, List.of(b))
                    .parse();
            assertThat(checkChunkGrammar(f, true))
                    .isGreaterThan(2 * arrow.getFields().size());
        }
    }

    @Test
    void version21KeepsTheU16Grammar() throws Exception {
        Schema arrow = TypeCatalog.schema(true, true);
        try (VectorSchemaRoot b = RandomBatches.batch(arrow, allocator, 3000, 7, new RandomBatches.Shape(5, 4, 30))) {
            WrittenFile f = WriterTestSupport.write(dir, allocator, FileVersion.V2_1, SMALL_PAGES, List.of(b))
                    .parse();
            assertThat(checkChunkGrammar(f, false))
                    .isGreaterThan(2 * arrow.getFields().size());
        }
    }

    /**
     * A 2.2 file holds the same pages as a 2.1 file of the same rows, except that mini-block
     * pages use the large-chunk grammar: full-zip and constant pages are byte for byte the same.
     */
    @Test
    void onlyMiniBlockPagesDifferFromVersion21() throws Exception {
        Schema arrow = TypeCatalog.schema(true, true);
        FileWriterOptions options = FileWriterOptions.defaults().withTargetPageBytes(32 * 1024);
        for (RandomBatches.Shape shape : List.of(
                new RandomBatches.Shape(4, 3, 300),
                new RandomBatches.Shape(1, 3, 20),
                new RandomBatches.Shape(0, 0, 20))) {
            try (VectorSchemaRoot b = RandomBatches.batch(arrow, allocator, 2000, 21, shape)) {
                WrittenFile f21 = WriterTestSupport.write(
                                Files.createTempDirectory(dir, "a"), allocator, FileVersion.V2_1, options, List.of(b))
                        .parse();
                WrittenFile f22 = WriterTestSupport.write(
                                Files.createTempDirectory(dir, "b"), allocator, FileVersion.V2_2, options, List.of(b))
                        .parse();
                assertThat(f22.numColumns).isEqualTo(f21.numColumns);
                int same = 0;
                for (int c = 0; c < f21.numColumns; c++) {
                    for (int p = 0; p < f21.columns.get(c).getPagesCount(); p++) {
                        PageLayout l21 = f21.layout(c, p);
                        PageLayout l22 = f22.layout(c, p);
                        if (l21.hasMiniBlockLayout()) {
                            assertThat(l22.getMiniBlockLayout().getHasLargeChunk())
                                    .isTrue();
                            assertThat(l22.getMiniBlockLayout().toBuilder()
                                            .setHasLargeChunk(false)
                                            .build())
                                    .isEqualTo(l21.getMiniBlockLayout());
                            continue;
                        }
                        assertThat(l22).as("column %d page %d", c, p).isEqualTo(l21);
                        assertThat(f22.page(c, p).getBufferSizesList())
                                .isEqualTo(f21.page(c, p).getBufferSizesList());
                        for (int i = 0; i < f21.page(c, p).getBufferSizesCount(); i++) {
                            assertThat(f22.buffer(c, p, i)).isEqualTo(f21.buffer(c, p, i));
                        }
                        same++;
                    }
                }
                if (shape.nullEvery() != 4) {
                    assertThat(same)
                            .as("all-null and all-empty pages are constant pages")
                            .isPositive();
                }
            }
        }
    }

    /**
     * Raw levels of mostly empty lists make chunks of 4096 booleans larger than the 32 KiB a u16
     * word can describe: 2.1 halves such chunks, 2.2 keeps Lance's value count per chunk, and
     * both stay mini-block and read back.
     */
    @Test
    void version22ChunksMayExceed32KiB() throws Exception {
        Schema arrow = new Schema(List.of(TypeCatalog.f(
                "lb", true, ArrowType.List.INSTANCE, TypeCatalog.f("item", true, ArrowType.Bool.INSTANCE))));
        int rows = 30_000;
        FileWriterOptions raw = FileWriterOptions.defaults().withBitPacking(false);
        for (FileVersion version : List.of(FileVersion.V2_1, FileVersion.V2_2)) {
            try (VectorSchemaRoot root = VectorSchemaRoot.create(arrow, allocator)) {
                ListVector list = (ListVector) root.getVector(0);
                BitVector items = (BitVector) list.getDataVector();
                list.allocateNew();
                int item = 0;
                for (int r = 0; r < rows; r++) {
                    list.startNewValue(r);
                    if (r % 7 == 3) {
                        list.setNull(r);
                        continue;
                    }
                    int len = r % 8 == 0 ? 1 : 0;
                    for (int k = 0; k < len; k++) {
                        items.setSafe(item++, r % 3 == 0 ? 1 : 0);
                    }
                    list.endValue(r, len);
                }
                items.setValueCount(item);
                list.setValueCount(rows);
                root.setRowCount(rows);
                Path into = Files.createTempDirectory(dir, version.name());
                WriterTestSupport.Written w = WriterTestSupport.write(into, allocator, version, raw, List.of(root));
                WrittenFile f = w.parse();
                assertThat(f.layout(0, 0).hasMiniBlockLayout()).isTrue();
                checkChunkGrammar(f, version == FileVersion.V2_2);
                long largest = largestChunk(f);
                if (version == FileVersion.V2_2) {
                    assertThat(largest).isGreaterThan(MiniBlockEncoder.MAX_CHUNK_BYTES);
                } else {
                    assertThat(largest).isLessThanOrEqualTo(MiniBlockEncoder.MAX_CHUNK_BYTES);
                }
                try (LanceFileReader reader = LanceFileReader.open(w.store(), "data/f.lance", allocator);
                        FieldVector read = reader.readRange(0, 0, rows);
                        FieldVector part = reader.readRange(0, 9_001, 21_003)) {
                    List<Object> all = RandomBatches.cells(list);
                    assertThat(RandomBatches.cells(read)).isEqualTo(all);
                    assertThat(RandomBatches.cells(part)).isEqualTo(all.subList(9_001, 21_003));
                }
            }
        }
    }

    @Test
    void everyTypeRoundTripsThroughOurReader() throws Exception {
        Schema arrow = TypeCatalog.schemaWithMaps();
        LanceSchema schema = LanceSchema.fromArrow(arrow, 0);
        // With nulls; without nulls and with long strings (full-zip); all null; only empty or null lists.
        for (RandomBatches.Shape shape : List.of(
                new RandomBatches.Shape(4, 3, 20),
                new RandomBatches.Shape(0, 3, 300),
                new RandomBatches.Shape(1, 3, 20),
                new RandomBatches.Shape(3, 0, 20))) {
            try (VectorSchemaRoot b = RandomBatches.batch(arrow, allocator, 1500, shape.hashCode(), shape)) {
                Path into = Files.createTempDirectory(dir, "r");
                WriterTestSupport.Written w = WriterTestSupport.write(
                        into,
                        allocator,
                        FileVersion.V2_2,
                        FileWriterOptions.defaults().withTargetPageBytes(8 * 1024),
                        List.of(b));
                checkChunkGrammar(w.parse(), true);
                try (LanceFileReader reader = LanceFileReader.open(w.store(), "data/f.lance", allocator)) {
                    assertThat(reader.version()).isEqualTo(FileVersion.V2_2);
                    for (int c = 0; c < schema.fields().size(); c++) {
                        List<Object> expected = RandomBatches.cells(b.getVector(c));
                        int id = schema.fields().get(c).id();
                        String column = arrow.getFields().get(c).toString();
                        try (FieldVector read = reader.readRange(id, 0, 1500);
                                FieldVector taken = reader.take(id, new long[] {0, 777, 1499})) {
                            assertThat(RandomBatches.cells(read))
                                    .as("%s column %s", shape, column)
                                    .isEqualTo(expected);
                            assertThat(RandomBatches.cells(taken))
                                    .as("%s column %s take", shape, column)
                                    .containsExactly(expected.get(0), expected.get(777), expected.get(1499));
                        }
                    }
                }
            }
        }
    }

    /**
     * Walks every mini-block page of the file with the grammar {@code large} selects,
     * independently of the production reader: the metadata words must describe the data buffer
     * exactly, and each chunk's header sizes must add up to the chunk's size.
     *
     * @return the number of mini-block pages checked
     */
    static int checkChunkGrammar(WrittenFile f, boolean large) throws Exception {
        int pages = 0;
        for (int c = 0; c < f.numColumns; c++) {
            for (int p = 0; p < f.columns.get(c).getPagesCount(); p++) {
                PageLayout layout = f.layout(c, p);
                if (!layout.hasMiniBlockLayout()) {
                    continue;
                }
                pages++;
                MiniBlockLayout mb = layout.getMiniBlockLayout();
                String where = "column " + c + " page " + p;
                assertThat(mb.getHasLargeChunk()).as(where).isEqualTo(large);
                int wordBytes = large ? 4 : 2;
                ByteBuffer meta = ByteBuffer.wrap(f.buffer(c, p, 0)).order(ByteOrder.LITTLE_ENDIAN);
                ByteBuffer data = ByteBuffer.wrap(f.buffer(c, p, 1)).order(ByteOrder.LITTLE_ENDIAN);
                assertThat(meta.remaining() % wordBytes).as(where).isZero();
                int chunks = meta.remaining() / wordBytes;
                long offset = 0;
                long values = 0;
                for (int k = 0; k < chunks; k++) {
                    long word = unsigned(meta, wordBytes * k, wordBytes);
                    long size = ((word >>> 4) + 1) * 8;
                    int log = (int) (word & 0xF);
                    boolean last = k == chunks - 1;
                    assertThat(log == 0).as(where + " chunk " + k + " log2").isEqualTo(last);
                    values += last ? mb.getNumItems() - values : 1L << log;
                    int pos = (int) offset;
                    int numLevels = Short.toUnsignedInt(data.getShort(pos));
                    pos += 2;
                    long sections = 0;
                    if (mb.hasRepCompression()) {
                        sections += pad8(Short.toUnsignedInt(data.getShort(pos)));
                        pos += 2;
                    }
                    if (mb.hasDefCompression()) {
                        sections += pad8(Short.toUnsignedInt(data.getShort(pos)));
                        pos += 2;
                    }
                    for (int b = 0; b < mb.getNumBuffers(); b++) {
                        sections += pad8(unsigned(data, pos, wordBytes));
                        pos += wordBytes;
                    }
                    long header = pad8(pos - offset);
                    assertThat(header + sections)
                            .as(where + " chunk " + k + " size")
                            .isEqualTo(size);
                    assertThat(numLevels == 0)
                            .as(where + " chunk " + k + " levels")
                            .isEqualTo(!mb.hasRepCompression() && !mb.hasDefCompression());
                    offset += size;
                }
                assertThat(offset).as(where + " chunk bytes").isEqualTo(data.capacity());
                assertThat(values).as(where + " values").isEqualTo(mb.getNumItems());
            }
        }
        return pages;
    }

    private static long largestChunk(WrittenFile f) throws Exception {
        long largest = 0;
        for (int c = 0; c < f.numColumns; c++) {
            for (int p = 0; p < f.columns.get(c).getPagesCount(); p++) {
                MiniBlockLayout mb = f.layout(c, p).getMiniBlockLayout();
                ByteBuffer meta = ByteBuffer.wrap(f.buffer(c, p, 0)).order(ByteOrder.LITTLE_ENDIAN);
                int wordBytes = mb.getHasLargeChunk() ? 4 : 2;
                for (int k = 0; k < meta.capacity() / wordBytes; k++) {
                    long word = unsigned(meta, wordBytes * k, wordBytes);
                    largest = Math.max(largest, ((word >>> 4) + 1) * 8);
                }
            }
        }
        return largest;
    }

    /** The little-endian u16 or u32 at {@code pos}. */
    private static long unsigned(ByteBuffer b, int pos, int bytes) {
        return bytes == 4 ? Integer.toUnsignedLong(b.getInt(pos)) : Short.toUnsignedInt(b.getShort(pos));
    }

    private static long pad8(long n) {
        return (n + 7) & ~7L;
    }
}
