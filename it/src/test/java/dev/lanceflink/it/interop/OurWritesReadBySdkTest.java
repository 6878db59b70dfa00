package dev.lanceflink.it.interop;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.file.FileVersion;
import dev.lanceflink.table.DataStorageFormat;
import dev.lanceflink.table.ManifestNamingScheme;
import dev.lanceflink.txn.CommitOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongPredicate;
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
 * Tables WE write (create, append, delete, overwrite: six versions of the all-types table, file
 * versions 2.0 and 2.1, and 2.1 with stable row ids; our writer does not write 2.2) are read by the official SDK with exactly the values we wrote, at every
 * version; then the SDK appends and deletes on top, and we read the SDK's versions exactly.
 * All SDK work runs in one oracle JVM.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OurWritesReadBySdkTest {

    /** The file versions our writer is checked with. */
    enum Format {
        V2_0(FileVersion.V2_0, false, false),
        V2_1(FileVersion.V2_1, true, false),
        V2_1_STABLE_ROW_IDS(FileVersion.V2_1, true, true);

        final FileVersion version;
        final boolean storesStructNulls;
        final boolean stableRowIds;

        Format(FileVersion version, boolean storesStructNulls, boolean stableRowIds) {
            this.version = version;
            this.storesStructNulls = storesStructNulls;
            this.stableRowIds = stableRowIds;
        }
    }

    private static final int OUR_VERSIONS = 6;
    private static final int SDK_VERSIONS = 8;

    private final ArrayNode schema = InteropData.allTypesSchema();
    private final Map<Format, Path> tables = new LinkedHashMap<>();
    private final Map<Format, Map<Long, JsonNode>> expected = new LinkedHashMap<>();
    private final Map<Format, Map<Long, JsonNode>> sdkDumps = new LinkedHashMap<>();
    private final Map<Format, List<String>> writeFailures = new LinkedHashMap<>();
    private List<JsonNode> batchResults;
    private int rowIdDumpIndex;
    private Path deletionTable;
    private int deletionIndex;

    @BeforeAll
    void writeOursThenLetTheSdkReadAndExtend(@TempDir Path dir) throws Exception {
        Path inputs = Files.createDirectories(dir.resolve("oracle-inputs"));
        Path schemaFile = inputs.resolve("schema.json");
        Files.writeString(schemaFile, DumpComparator.MAPPER.writeValueAsString(schema), StandardCharsets.UTF_8);
        Path sdkRows = inputs.resolve("rows-700-750.json");
        Files.writeString(
                sdkRows,
                DumpComparator.MAPPER.writeValueAsString(InteropData.allTypesRows(700, 750)),
                StandardCharsets.UTF_8);

        List<List<String>> commands = new ArrayList<>();
        Map<Format, Map<Long, Integer>> dumpIndex = new LinkedHashMap<>();
        for (Format format : Format.values()) {
            Path table = dir.resolve("ours-" + format.name().toLowerCase(java.util.Locale.ROOT) + ".lance");
            tables.put(format, table);
            expected.put(format, writeOurVersions(table, format));
            String uri = table.toString();
            Map<Long, Integer> index = new LinkedHashMap<>();
            for (long v = 1; v <= OUR_VERSIONS; v++) {
                index.put(v, commands.size());
                commands.add(List.of("dump", uri, "--version", Long.toString(v)));
            }
            commands.add(List.of(
                    "write", uri, "--schema", schemaFile.toString(), "--rows", sdkRows.toString(), "--mode", "append"));
            commands.add(List.of("delete", uri, "--filter", "id % 7 = 2"));
            for (long v = OUR_VERSIONS + 1; v <= SDK_VERSIONS; v++) {
                index.put(v, commands.size());
                commands.add(List.of("dump", uri, "--version", Long.toString(v)));
            }
            dumpIndex.put(format, index);
        }
        String rowIdTable = tables.get(Format.V2_1_STABLE_ROW_IDS).toString();
        rowIdDumpIndex = commands.size();
        commands.add(List.of("dump", rowIdTable, "--version", "3", "--with-row-id", "--order-by", "id"));

        deletionTable = dir.resolve("ours-deletion-types.lance");
        writeDeletionTypesTable(deletionTable);
        deletionIndex = commands.size();
        commands.add(List.of("inspect", deletionTable.toString(), "--version", "2"));
        commands.add(List.of("inspect", deletionTable.toString(), "--version", "3"));
        commands.add(List.of("dump", deletionTable.toString(), "--version", "3"));

        List<JsonNode> results = OracleProcess.fromBuild().batch(inputs, commands);
        batchResults = results;
        for (Format format : Format.values()) {
            Map<Long, JsonNode> dumps = new LinkedHashMap<>();
            dumpIndex.get(format).forEach((v, i) -> dumps.put(v, results.get(i)));
            sdkDumps.put(format, dumps);
            List<String> failures = new ArrayList<>();
            int first = dumpIndex.get(format).get((long) OUR_VERSIONS) + 1;
            for (int i = first; i < first + 2; i++) {
                if (results.get(i).has("error")) {
                    failures.add(
                            commands.get(i) + ": " + results.get(i).get("error").asText());
                }
            }
            writeFailures.put(format, failures);
        }
    }

    /**
     * v1 create keys 0–199 (fragments of 150), v2 append 200–299, v3 delete id % 5 = 0, v4
     * overwrite with keys 500–649, v5 append 650–699, v6 delete 600 <= id < 610. Returns the
     * expected dump of every version, including the SDK's v7 (append 700–749) and v8 (delete
     * id % 7 = 2).
     */
    private Map<Long, JsonNode> writeOurVersions(Path table, Format format) throws Exception {
        Schema arrow = DumpTypeParser.schema(schema);
        Map<Long, JsonNode> byVersion = new LinkedHashMap<>();
        List<Long> keys = new ArrayList<>();
        String uri = table.toString();
        WriteParams create = WriteParams.of(WriteMode.CREATE)
                .withFileVersion(format.version)
                .withMaxRowsPerFile(150)
                .withStableRowIds(format.stableRowIds);
        try (BufferAllocator allocator = new RootAllocator()) {
            try (VectorSchemaRoot b = JsonToArrow.batch(schema, rows(format, 0, 200), allocator);
                    Dataset v1 = Dataset.write(uri, Map.of(), List.of(b), arrow, create)) {
                addKeys(keys, 0, 200);
                byVersion.put(1L, expected(1, keys, format));
                Dataset v2;
                try (VectorSchemaRoot a = JsonToArrow.batch(schema, rows(format, 200, 300), allocator)) {
                    v2 = v1.append(List.of(a), WriteParams.of(WriteMode.APPEND));
                }
                addKeys(keys, 200, 300);
                byVersion.put(2L, expected(2, keys, format));
                v2.delete("id % 5 = 0");
                keys.removeIf(k -> k % 5 == 0);
                byVersion.put(3L, expected(3, keys, format));
            }
            // Workaround, see overwriteOfA20TableKeepsFileVersion20: without naming the data format
            // in the commit options, an overwrite commits 2.0 files under data format 2.1 and fails.
            WriteParams overwrite = WriteParams.of(WriteMode.OVERWRITE)
                    .withFileVersion(format.version)
                    .withCommitOptions(CommitOptions.defaults()
                            .withNewTable(
                                    ManifestNamingScheme.V2,
                                    DataStorageFormat.lance(format.version.label()),
                                    format.stableRowIds));
            try (VectorSchemaRoot o = JsonToArrow.batch(schema, rows(format, 500, 650), allocator);
                    Dataset v4 = Dataset.write(uri, Map.of(), List.of(o), arrow, overwrite)) {
                keys.clear();
                addKeys(keys, 500, 650);
                byVersion.put(4L, expected(4, keys, format));
                Dataset v5;
                try (VectorSchemaRoot a = JsonToArrow.batch(schema, rows(format, 650, 700), allocator)) {
                    v5 = v4.append(List.of(a), WriteParams.of(WriteMode.APPEND));
                }
                addKeys(keys, 650, 700);
                byVersion.put(5L, expected(5, keys, format));
                v5.delete("id >= 600 AND id < 610");
                keys.removeIf(k -> k >= 600 && k < 610);
                byVersion.put(6L, expected(6, keys, format));
            }
        }
        addKeys(keys, 700, 750);
        byVersion.put(7L, expected(7, keys, format));
        LongPredicate sdkDelete = k -> k % 7 == 2;
        keys.removeIf(sdkDelete::test);
        byVersion.put(8L, expected(8, keys, format));
        return byVersion;
    }

    /**
     * Keys [from, to) as our writer gets them. File version 2.0 stores no struct validity; the SDK
     * silently writes a null struct as a struct of nulls, while our writer refuses null structs
     * for 2.0 (rather than change data), so 2.0 input carries the struct of nulls explicitly.
     */
    private ArrayNode rows(Format format, long from, long to) {
        ArrayNode rows = InteropData.allTypesRows(from, to);
        if (!format.storesStructNulls) {
            for (JsonNode row : rows) {
                for (JsonNode column : schema) {
                    String name = column.path("name").asText();
                    String type = column.path("type").asText();
                    if (type.startsWith("struct<") && row.get(name).isNull()) {
                        com.fasterxml.jackson.databind.node.ObjectNode empty =
                                ((com.fasterxml.jackson.databind.node.ObjectNode) row).putObject(name);
                        DumpComparator.structChildren(type).keySet().forEach(empty::putNull);
                    }
                }
            }
        }
        return rows;
    }

    private static void addKeys(List<Long> keys, long from, long to) {
        for (long k = from; k < to; k++) {
            keys.add(k);
        }
    }

    private JsonNode expected(long version, List<Long> keys, Format format) {
        return OracleDatasets.dump(version, schema, keys, format.storesStructNulls);
    }

    @ParameterizedTest
    @EnumSource(Format.class)
    void sdkReadsEveryVersionWeWroteExactly(Format format) {
        List<String> failures = new ArrayList<>();
        for (long v = 1; v <= OUR_VERSIONS; v++) {
            compare(
                    failures,
                    "SDK reading our " + format + " table at version " + v,
                    expected.get(format).get(v),
                    sdkDumps.get(format).get(v));
        }
        assertThat(failures).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(Format.class)
    void sdkAppendsAndDeletesOnTopAndWeReadTheResult(Format format) {
        assertThat(writeFailures.get(format))
                .as("SDK writes on top of our table")
                .isEmpty();
        List<String> failures = new ArrayList<>();
        for (long v = OUR_VERSIONS + 1; v <= SDK_VERSIONS; v++) {
            compare(
                    failures,
                    "SDK reading its own version " + v + " of our " + format + " table",
                    expected.get(format).get(v),
                    sdkDumps.get(format).get(v));
            compare(
                    failures,
                    "our reader at the SDK's version " + v + " of our " + format + " table",
                    expected.get(format).get(v),
                    OurCli.run("dump", tables.get(format).toString(), "--version", Long.toString(v)));
        }
        assertThat(failures).isEmpty();
    }

    /**
     * v1 keys 0–6999 in one fragment, v2 deletes id = 17, v3 deletes id % 7 <> 3: the merged
     * vector holds 6001 rows, above Lance's 5000-row threshold for a bitmap file.
     */
    private void writeDeletionTypesTable(Path table) throws Exception {
        try (BufferAllocator allocator = new RootAllocator();
                VectorSchemaRoot b = JsonToArrow.batch(schema, rows(Format.V2_1, 0, 7000), allocator);
                Dataset v1 = Dataset.write(
                        table.toString(),
                        Map.of(),
                        List.of(b),
                        DumpTypeParser.schema(schema),
                        WriteParams.of(WriteMode.CREATE))) {
            v1.delete("id = 17").delete("id % 7 <> 3");
        }
    }

    /** Our deletion files of both types (array, then bitmap past 5000 rows) are read by the SDK. */
    @Test
    void sdkReadsBothDeletionFileTypesWeWrite() {
        JsonNode small = OracleProcess.requireOk(List.of("inspect v2"), batchResults.get(deletionIndex))
                .path("fragments")
                .get(0)
                .path("deletion_file");
        JsonNode large = OracleProcess.requireOk(List.of("inspect v3"), batchResults.get(deletionIndex + 1))
                .path("fragments")
                .get(0)
                .path("deletion_file");
        assertThat(small.path("type").asText()).isEqualTo("array");
        assertThat(small.path("num_deleted_rows").asLong()).isEqualTo(1);
        assertThat(large.path("type").asText()).isEqualTo("bitmap");
        assertThat(large.path("num_deleted_rows").asLong()).isEqualTo(6001);
        List<Long> keys = new ArrayList<>();
        for (long k = 0; k < 7000; k++) {
            if (k % 7 == 3 && k != 17) {
                keys.add(k);
            }
        }
        DumpComparator.exact()
                .withVersionCheck()
                .assertSame(
                        "SDK reading our bitmap deletions",
                        OracleDatasets.dump(3, schema, keys, true),
                        batchResults.get(deletionIndex + 2));
    }

    /**
     * Stable row ids we assign are dense in insertion order and survive deletes, as the SDK reads
     * them: at version 3 (keys 0–299 written in two commits, then id % 5 = 0 deleted) every
     * row's {@code _rowid} equals its key.
     */
    @Test
    void sdkSeesTheStableRowIdsWeAssigned() {
        JsonNode dump = OracleProcess.requireOk(List.of("dump --with-row-id"), batchResults.get(rowIdDumpIndex));
        assertThat(dump.path("rows")).hasSize(240);
        List<String> mismatches = new ArrayList<>();
        dump.path("rows").forEach(row -> {
            if (row.path("_rowid").asLong() != row.path("id").asLong()) {
                mismatches.add("id " + row.path("id") + " has _rowid " + row.path("_rowid"));
            }
        });
        assertThat(mismatches).isEmpty();
    }

    /**
     * Overwriting a 2.0 table with the plain write path must keep data format 2.0 (the files it
     * writes are 2.0). Lance itself keeps the table's format on overwrite.
     */
    @Test
    void overwriteOfA20TableKeepsFileVersion20(@TempDir Path dir) throws Exception {
        String uri = dir.resolve("overwrite-2.0.lance").toString();
        Schema arrow = DumpTypeParser.schema(schema);
        try (BufferAllocator allocator = new RootAllocator();
                VectorSchemaRoot first = JsonToArrow.batch(schema, rows(Format.V2_0, 0, 10), allocator);
                VectorSchemaRoot second = JsonToArrow.batch(schema, rows(Format.V2_0, 10, 20), allocator);
                Dataset v1 = Dataset.write(
                        uri,
                        Map.of(),
                        List.of(first),
                        arrow,
                        WriteParams.of(WriteMode.CREATE).withFileVersion(FileVersion.V2_0));
                Dataset v2 =
                        Dataset.write(uri, Map.of(), List.of(second), arrow, WriteParams.of(WriteMode.OVERWRITE))) {
            assertThat(v1.manifest().dataFormat().version()).isEqualTo("2.0");
            assertThat(v2.manifest().dataFormat().version()).isEqualTo("2.0");
            assertThat(v2.countRows()).isEqualTo(10);
        }
    }

    private static void compare(List<String> failures, String what, JsonNode expected, JsonNode actual) {
        if (actual.has("error")) {
            failures.add(what + ": " + actual.get("error").asText());
            return;
        }
        try {
            DumpComparator.exact().withVersionCheck().assertSame(what, expected, actual);
        } catch (AssertionError e) {
            failures.add(e.getMessage());
        }
    }
}
