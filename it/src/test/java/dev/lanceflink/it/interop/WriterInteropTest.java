package dev.lanceflink.it.interop;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.Any;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.file.FileVersion;
import dev.lanceflink.file.LanceFileMetadata;
import dev.lanceflink.file.writer.FileWriterOptions;
import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.io.RangeReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import lance.encodings21.PageLayout;
import lance.file.v2.ColumnMetadata;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Our file writer against the official SDK, both ways, cell by cell, for file versions 2.1 and
 * 2.0: nulls at every nesting level, multi-page columns (tiny target page sizes, pages cut in the
 * middle of batches), full-zip pages forced for every type, long strings and vectors.
 *
 * <p>The {@link #NESTED} table targets the layouts where readers and writers have disagreed:
 * fixed-width items with repetition in full-zip pages (a null item or a null fixed-size-list row
 * inside a list still carries value bytes), 2.0 lists split over several offsets pages (each
 * offsets page must own its items pages), and lists of lists/structs. The SDK writes the same
 * rows too ({@code list<fixed_size_list<float32, 64>>} values are 256 bytes, which the SDK
 * always stores full-zip), and we read its files. All SDK work is one oracle batch.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WriterInteropTest {
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final int NESTED_ROWS = 600;
    private static final int ALL_TYPES_ROWS = 400;

    /** id, lists of fixed-width items and of fixed-size lists, long strings, structs, vectors. */
    static final String[][] NESTED = {
        {"id", "int64", "false"},
        {"li", "list<int32>", "true"},
        {"lv", "list<fixed_size_list<float32, 4>>", "true"},
        {"lw", "list<fixed_size_list<float32, 64>>", "true"},
        {"s", "utf8", "true"},
        {"ls", "list<utf8>", "true"},
        {"ll", "list<list<int64>>", "true"},
        {"st", "struct<a: int32, b: utf8>", "true"},
        {"lst", "list<struct<x: int32, y: utf8>>", "true"},
        {"vec", "fixed_size_list<float32, 128>", "true"},
    };

    /** One table we write: which rows, which file version, which writer options. */
    enum OurTable {
        NESTED_2_1_DEFAULTS(true, FileVersion.V2_1, FileWriterOptions.defaults()),
        NESTED_2_1_ALL_FULL_ZIP_SMALL_PAGES(
                true,
                FileVersion.V2_1,
                FileWriterOptions.defaults()
                        .withFullZipMinValueBytes(1)
                        .withTargetPageBytes(2048)
                        .withRowsPerSlice(64)),
        NESTED_2_1_MINI_BLOCK_SMALL_PAGES(
                true,
                FileVersion.V2_1,
                FileWriterOptions.defaults()
                        .withFullZipMinValueBytes(16 * 1024)
                        .withTargetPageBytes(1024)
                        .withRowsPerSlice(16)),
        NESTED_2_0_DEFAULTS(true, FileVersion.V2_0, FileWriterOptions.defaults()),
        NESTED_2_0_SMALL_PAGES(
                true,
                FileVersion.V2_0,
                FileWriterOptions.defaults().withTargetPageBytes(1024).withRowsPerSlice(37)),
        ALL_TYPES_2_1_ALL_FULL_ZIP_SMALL_PAGES(
                false,
                FileVersion.V2_1,
                FileWriterOptions.defaults()
                        .withFullZipMinValueBytes(1)
                        .withTargetPageBytes(4096)
                        .withRowsPerSlice(50)),
        ALL_TYPES_2_1_MINI_BLOCK_SMALL_PAGES(
                false,
                FileVersion.V2_1,
                FileWriterOptions.defaults()
                        .withFullZipMinValueBytes(16 * 1024)
                        .withTargetPageBytes(2048)
                        .withRowsPerSlice(29)),
        ALL_TYPES_2_0_SMALL_PAGES(
                false,
                FileVersion.V2_0,
                FileWriterOptions.defaults().withTargetPageBytes(2048).withRowsPerSlice(41));

        final boolean nested;
        final FileVersion version;
        final FileWriterOptions options;

        OurTable(boolean nested, FileVersion version, FileWriterOptions options) {
            this.nested = nested;
            this.version = version;
            this.options = options;
        }

        boolean storesStructNulls() {
            return version != FileVersion.V2_0;
        }
    }

    /** Tables the SDK writes from the {@link #NESTED} rows, read by us. */
    enum SdkTable {
        NESTED_2_1("2.1", true),
        NESTED_2_0("2.0", false);

        final String dataStorageVersion;
        final boolean storesStructNulls;

        SdkTable(String dataStorageVersion, boolean storesStructNulls) {
            this.dataStorageVersion = dataStorageVersion;
            this.storesStructNulls = storesStructNulls;
        }
    }

    private final Map<OurTable, Path> ourTables = new LinkedHashMap<>();
    private final Map<OurTable, JsonNode> sdkDumpsOfOurs = new LinkedHashMap<>();
    private final Map<SdkTable, Path> sdkTables = new LinkedHashMap<>();
    private final Map<SdkTable, JsonNode> sdkWrites = new LinkedHashMap<>();
    private final Map<SdkTable, JsonNode> sdkDumpsOfTheirs = new LinkedHashMap<>();

    @BeforeAll
    void writeBothWaysInOneOracleRun(@TempDir Path dir) throws Exception {
        Path inputs = Files.createDirectories(dir.resolve("oracle-inputs"));
        List<List<String>> commands = new ArrayList<>();
        Map<OurTable, Integer> ourDumpAt = new LinkedHashMap<>();
        for (OurTable t : OurTable.values()) {
            Path table = dir.resolve("ours-" + t.name().toLowerCase(Locale.ROOT) + ".lance");
            writeOurs(table, t);
            ourTables.put(t, table);
            ourDumpAt.put(t, commands.size());
            commands.add(List.of("dump", table.toString()));
        }
        Path schemaFile = inputs.resolve("nested-schema.json");
        Files.writeString(schemaFile, DumpComparator.MAPPER.writeValueAsString(nestedSchema()), StandardCharsets.UTF_8);
        Map<SdkTable, Integer> sdkAt = new LinkedHashMap<>();
        for (SdkTable t : SdkTable.values()) {
            Path rows = inputs.resolve("nested-rows-" + t.dataStorageVersion + ".json");
            Files.writeString(
                    rows,
                    DumpComparator.MAPPER.writeValueAsString(nestedRows(0, NESTED_ROWS, t.storesStructNulls)),
                    StandardCharsets.UTF_8);
            Path table = dir.resolve("sdk-" + t.name().toLowerCase(Locale.ROOT) + ".lance");
            sdkTables.put(t, table);
            sdkAt.put(t, commands.size());
            commands.add(List.of(
                    "write",
                    table.toString(),
                    "--schema",
                    schemaFile.toString(),
                    "--rows",
                    rows.toString(),
                    "--data-storage-version",
                    t.dataStorageVersion));
            commands.add(List.of("dump", table.toString()));
        }
        List<JsonNode> results = OracleProcess.fromBuild().batch(inputs, commands);
        ourDumpAt.forEach((t, i) -> sdkDumpsOfOurs.put(t, results.get(i)));
        sdkAt.forEach((t, i) -> {
            sdkWrites.put(t, results.get(i));
            sdkDumpsOfTheirs.put(t, results.get(i + 1));
        });
    }

    @ParameterizedTest
    @EnumSource(OurTable.class)
    void sdkReadsEveryCellWeWrote(OurTable table) {
        JsonNode dump = sdkDumpsOfOurs.get(table);
        assertThat(dump.has("error"))
                .as("SDK dump of our %s table: %s", table, dump.path("error").asText())
                .isFalse();
        DumpComparator.exact().assertSame("SDK reading our " + table + " table", expected(table), dump);
    }

    @ParameterizedTest
    @EnumSource(SdkTable.class)
    void weReadEveryCellTheSdkWrote(SdkTable table) {
        JsonNode write = sdkWrites.get(table);
        assertThat(write.has("error"))
                .as("SDK write %s: %s", table, write.path("error").asText())
                .isFalse();
        assertThat(write.path("data_storage_version").asText()).startsWith(table.dataStorageVersion);
        JsonNode expected = nestedDump(nestedRows(0, NESTED_ROWS, table.storesStructNulls));
        // The expected rows are exactly what the SDK itself reads back ...
        DumpComparator.exact()
                .assertSame("SDK reading its own " + table + " table", expected, sdkDumpsOfTheirs.get(table));
        // ... and what we read.
        DumpComparator.exact()
                .assertSame(
                        "our reader on the SDK's " + table + " table",
                        expected,
                        OurCli.run("dump", sdkTables.get(table).toString()));
    }

    /**
     * The layouts the two directions above must exercise really are in the files: full-zip pages
     * of fixed-width items under a list (null items and null fixed-size-list rows included), in
     * the SDK's file ({@code lw}: 256-byte values) and in ours ({@code li}, {@code lv} forced).
     */
    @Test
    void fixedWidthItemsUnderListsAreFullZipInBothFiles() throws Exception {
        for (ColumnMetadata.Page page : pages(sdkTables.get(SdkTable.NESTED_2_1), 3)) {
            PageLayout layout = layout(page);
            assertThat(layout.hasFullZipLayout())
                    .as("SDK page of lw: %s", layout)
                    .isTrue();
            assertThat(layout.getFullZipLayout().getBitsRep()).isPositive();
            assertThat(layout.getFullZipLayout().hasBitsPerValue()).isTrue();
        }
        for (int column : new int[] {1, 2}) {
            List<ColumnMetadata.Page> pages =
                    pages(ourTables.get(OurTable.NESTED_2_1_ALL_FULL_ZIP_SMALL_PAGES), column);
            assertThat(pages).as("our pages of column %d", column).hasSizeGreaterThan(1);
            for (ColumnMetadata.Page page : pages) {
                PageLayout layout = layout(page);
                assertThat(layout.hasFullZipLayout())
                        .as("our page of column %d: %s", column, layout)
                        .isTrue();
                assertThat(layout.getFullZipLayout().getBitsRep()).isPositive();
            }
        }
    }

    private static List<ColumnMetadata.Page> pages(Path table, int column) throws Exception {
        Path data;
        try (Stream<Path> files = Files.list(table.resolve("data"))) {
            List<Path> all = files.filter(f -> f.toString().endsWith(".lance")).toList();
            assertThat(all).as("data files of %s", table).hasSize(1);
            data = all.get(0);
        }
        LocalObjectStore store = new LocalObjectStore(data.getParent());
        try (RangeReader reader = store.openReader(data.getFileName().toString())) {
            return LanceFileMetadata.read(reader, data.toString())
                    .column(column)
                    .getPagesList();
        }
    }

    private static PageLayout layout(ColumnMetadata.Page page) throws Exception {
        return Any.parseFrom(page.getEncoding().getDirect().getEncoding()).unpack(PageLayout.class);
    }

    // ---------------------------------------------------------------------------------------------

    private void writeOurs(Path table, OurTable t) throws Exception {
        ArrayNode schema = t.nested ? nestedSchema() : InteropData.allTypesSchema();
        int total = t.nested ? NESTED_ROWS : ALL_TYPES_ROWS;
        int split = total * 3 / 5;
        Schema arrow = DumpTypeParser.schema(schema);
        WriteParams base = WriteParams.of(WriteMode.CREATE);
        WriteParams params = new WriteParams(
                base.mode(), base.maxRowsPerFile(), t.version, false, Map.of(), t.options, base.commitOptions());
        try (BufferAllocator allocator = new RootAllocator();
                VectorSchemaRoot first = JsonToArrow.batch(schema, rows(t, 0, split), allocator);
                VectorSchemaRoot second = JsonToArrow.batch(schema, rows(t, split, total), allocator);
                Dataset written = Dataset.write(table.toString(), Map.of(), List.of(first, second), arrow, params)) {
            assertThat(written.countRows()).isEqualTo(total);
        }
    }

    private static ArrayNode rows(OurTable t, int from, int to) {
        if (t.nested) {
            return nestedRows(from, to, t.storesStructNulls());
        }
        ArrayNode rows = InteropData.allTypesRows(from, to);
        if (!t.storesStructNulls()) {
            // 2.0 has no struct validity: our writer refuses null structs, so the input says what
            // 2.0 can hold (a struct of nulls), which is also what the SDK reads back.
            for (JsonNode row : rows) {
                for (JsonNode column : InteropData.allTypesSchema()) {
                    String name = column.path("name").asText();
                    String type = column.path("type").asText();
                    if (type.startsWith("struct<") && row.get(name).isNull()) {
                        ObjectNode empty = ((ObjectNode) row).putObject(name);
                        DumpComparator.structChildren(type).keySet().forEach(empty::putNull);
                    }
                }
            }
        }
        return rows;
    }

    private static JsonNode expected(OurTable t) {
        if (t.nested) {
            return nestedDump(nestedRows(0, NESTED_ROWS, t.storesStructNulls()));
        }
        List<Long> keys = new ArrayList<>();
        for (long k = 0; k < ALL_TYPES_ROWS; k++) {
            keys.add(k);
        }
        return OracleDatasets.dump(1, InteropData.allTypesSchema(), keys, t.storesStructNulls());
    }

    static ArrayNode nestedSchema() {
        ArrayNode schema = NODES.arrayNode();
        for (String[] c : NESTED) {
            schema.addObject().put("name", c[0]).put("type", c[1]).put("nullable", Boolean.parseBoolean(c[2]));
        }
        return schema;
    }

    private static ObjectNode nestedDump(ArrayNode rows) {
        ObjectNode dump = NODES.objectNode();
        dump.set("schema", nestedSchema());
        dump.put("num_rows", rows.size());
        dump.set("rows", rows);
        return dump;
    }

    /**
     * Rows {@code [from, to)} of the nested table, each a pure function of its key. With
     * {@code structNulls} false (file version 2.0) a null struct, also as a list item, is given as
     * a struct of nulls.
     */
    static ArrayNode nestedRows(int from, int to, boolean structNulls) {
        ArrayNode rows = NODES.arrayNode();
        for (int k = from; k < to; k++) {
            ObjectNode row = rows.addObject();
            row.put("id", (long) k);
            row.set("li", k % 11 == 3 ? NODES.nullNode() : ints(k));
            row.set("lv", k % 13 == 5 ? NODES.nullNode() : vectors(k, 4));
            row.set("lw", k % 17 == 6 ? NODES.nullNode() : vectors(k, 64));
            row.set("s", k % 9 == 4 ? NODES.nullNode() : NODES.textNode(text(k)));
            row.set("ls", k % 10 == 1 ? NODES.nullNode() : strings(k));
            row.set("ll", k % 12 == 2 ? NODES.nullNode() : listOfLists(k));
            row.set(
                    "st",
                    k % 10 == 7
                            ? nullStruct(structNulls, "a", "b")
                            : struct(
                                    "a",
                                    k % 4 == 1 ? NODES.nullNode() : NODES.numberNode(k * 3 - 700),
                                    "b",
                                    k % 5 == 2 ? NODES.nullNode() : NODES.textNode("b" + k)));
            row.set("lst", k % 14 == 9 ? NODES.nullNode() : structs(k, structNulls));
            row.set("vec", k % 8 == 3 ? NODES.nullNode() : vector(k, 128, 0));
        }
        return rows;
    }

    /** k % 5 items (0 = empty list), every third one null. */
    private static ArrayNode ints(int k) {
        ArrayNode a = NODES.arrayNode();
        for (int j = 0; j < k % 5; j++) {
            if ((k + j) % 3 == 1) {
                a.addNull();
            } else {
                a.add(k * 100 + j - 30_000);
            }
        }
        return a;
    }

    /** k % 4 fixed-size lists: some null rows, some with a null item. */
    private static ArrayNode vectors(int k, int dim) {
        ArrayNode a = NODES.arrayNode();
        for (int j = 0; j < k % 4; j++) {
            if ((k + j) % 4 == 1) {
                a.addNull();
            } else {
                a.add(vector(k, dim, j));
            }
        }
        return a;
    }

    /** Exactly representable floats; item 2 is null when (k + j) % 5 == 2. */
    private static ArrayNode vector(int k, int dim, int j) {
        ArrayNode v = NODES.arrayNode();
        for (int i = 0; i < dim; i++) {
            if (i == 2 && (k + j) % 5 == 2) {
                v.addNull();
            } else {
                v.add((double) ((k * 7 + j * 3 + i) % 1000) * 0.25 - 100.0);
            }
        }
        return v;
    }

    /** Every sixth string is long (300+ bytes, with multi-byte UTF-8), the rest short or empty. */
    private static String text(int k) {
        if (k % 6 == 0) {
            return ("long-" + k + "-äß€-").repeat(20 + k % 7);
        }
        return k % 7 == 1 ? "" : "s" + k;
    }

    private static ArrayNode strings(int k) {
        ArrayNode a = NODES.arrayNode();
        for (int j = 0; j < k % 4; j++) {
            if ((k + j) % 5 == 3) {
                a.addNull();
            } else {
                a.add(text(k + j));
            }
        }
        return a;
    }

    private static ArrayNode listOfLists(int k) {
        ArrayNode a = NODES.arrayNode();
        for (int j = 0; j < k % 3; j++) {
            if ((k + j) % 4 == 2) {
                a.addNull();
                continue;
            }
            ArrayNode inner = a.addArray();
            for (int i = 0; i < (k + j) % 4; i++) {
                if ((k + i) % 6 == 5) {
                    inner.addNull();
                } else {
                    inner.add((long) k * 1_000_000_007L - i);
                }
            }
        }
        return a;
    }

    private static ArrayNode structs(int k, boolean structNulls) {
        ArrayNode a = NODES.arrayNode();
        for (int j = 0; j < k % 3; j++) {
            if ((k + j) % 5 == 4) {
                a.add(nullStruct(structNulls, "x", "y"));
            } else {
                a.add(struct(
                        "x",
                        (k + j) % 3 == 0 ? NODES.nullNode() : NODES.numberNode(k + j),
                        "y",
                        (k + j) % 4 == 0 ? NODES.nullNode() : NODES.textNode("y" + k + "." + j)));
            }
        }
        return a;
    }

    private static ObjectNode struct(String n1, JsonNode v1, String n2, JsonNode v2) {
        ObjectNode o = NODES.objectNode();
        o.set(n1, v1);
        o.set(n2, v2);
        return o;
    }

    private static JsonNode nullStruct(boolean structNulls, String n1, String n2) {
        return structNulls ? NODES.nullNode() : struct(n1, NODES.nullNode(), n2, NODES.nullNode());
    }
}
