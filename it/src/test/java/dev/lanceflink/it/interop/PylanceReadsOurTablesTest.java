package dev.lanceflink.it.interop;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.file.FileVersion;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Current Lance reads what we write. We build a history on the all-types table with our own
 * writer (create in several fragments, append, delete, two dense overlay updates on different
 * column sets so fragments carry several overlays, then {@code overlay-merge},
 * {@code overlay-fold} and {@code fragments} compaction, and a delete after them), in file
 * versions 2.0, 2.1 and 2.2 and with stable row ids. At every version pylance with overlays
 * enabled reads exactly what we read (all columns, and {@code _rowaddr}), and
 * {@code validate()} passes; pylance without the variable refuses exactly the versions with
 * live overlays and reads every other version identically.
 */
class PylanceReadsOurTablesTest {

    enum Format {
        V2_0(FileVersion.V2_0, false),
        V2_1(FileVersion.V2_1, false),
        V2_2(FileVersion.V2_2, false),
        V2_2_STABLE_ROW_IDS(FileVersion.V2_2, true);

        final FileVersion version;
        final boolean stableRowIds;

        Format(FileVersion version, boolean stableRowIds) {
            this.version = version;
            this.stableRowIds = stableRowIds;
        }
    }

    private static final PylanceOracle PYLANCE = PylanceOracle.fromBuild();
    private static final List<String> FIRST_UPDATE = List.of("i32", "name", "f64", "emb", "tags");
    private static final List<String> SECOND_UPDATE = List.of("i32", "amount", "day", "note");

    @ParameterizedTest(name = "{0}")
    @EnumSource(Format.class)
    void pylanceReadsEveryVersionOfOurHistoryAsWeDo(Format format, @TempDir Path dir) throws Exception {
        String uri = dir.resolve("ours-" + format.name().toLowerCase(Locale.ROOT) + ".lance")
                .toString();
        ArrayNode schema = InteropData.allTypesSchema();
        Schema arrow = DumpTypeParser.schema(schema);
        boolean structNulls = format.version != FileVersion.V2_0;
        try (BufferAllocator allocator = new RootAllocator()) {
            WriteParams create = WriteParams.of(WriteMode.CREATE)
                    .withFileVersion(format.version)
                    .withMaxRowsPerFile(150)
                    .withStableRowIds(format.stableRowIds);
            try (VectorSchemaRoot b = JsonToArrow.batch(schema, rows(schema, 0, 400, structNulls), allocator);
                    Dataset ds = Dataset.write(uri, Map.of(), List.of(b), arrow, create)) {
                Dataset v2;
                try (VectorSchemaRoot a = JsonToArrow.batch(schema, rows(schema, 400, 500, structNulls), allocator)) {
                    v2 = ds.append(List.of(a), WriteParams.of(WriteMode.APPEND));
                }
                Dataset v3 = v2.delete("id % 5 = 0");
                // Fragments of 150 rows: keys 1, 2, 3, 11 in fragment 0, 156, 157 in fragment 1.
                Dataset v4 = update(v3, allocator, schema, FIRST_UPDATE, new long[] {1, 2, 3, 11, 156, 157}, 10_000);
                update(v4, allocator, schema, SECOND_UPDATE, new long[] {2, 3, 4, 158, 301}, 20_000)
                        .close();
            }
        }
        OurCli.run("compact", uri, "--mode", "overlay-merge", "--min-overlays", "1");
        OurCli.run("compact", uri, "--mode", "overlay-fold", "--min-overlays", "1");
        OurCli.run("compact", uri, "--mode", "fragments", "--target-rows-per-fragment", "1000");
        try (Dataset latest = Dataset.open(uri, Map.of())) {
            latest.delete("id % 7 = 1").close();
        }

        List<String> failures = new ArrayList<>();
        long rows = 0;
        int versions = 0;
        Set<Long> withOverlays = new TreeSet<>();
        List<List<String>> commands = new ArrayList<>();
        List<Long> versionList = new ArrayList<>();
        try (Dataset latest = Dataset.open(uri, Map.of())) {
            for (long v = 1; v <= latest.version(); v++) {
                versionList.add(v);
                try (Dataset at = latest.checkoutVersion(v)) {
                    if (at.manifest().fragments().stream()
                            .anyMatch(f -> !f.overlays().isEmpty())) {
                        withOverlays.add(v);
                    }
                }
                String version = Long.toString(v);
                commands.add(List.of("dump", uri, "--version", version, "--with-row-address"));
                commands.add(List.of("validate", uri, "--version", version));
            }
        }
        List<JsonNode> enabled = PYLANCE.withOverlays().batch(dir.resolve("batch"), commands);
        List<List<String>> plainDumps = new ArrayList<>();
        for (List<String> c : commands) {
            if (c.get(0).equals("dump")) {
                plainDumps.add(c);
            }
        }
        List<JsonNode> plain = PYLANCE.batch(dir.resolve("batch"), plainDumps);
        for (int i = 0; i < versionList.size(); i++) {
            long v = versionList.get(i);
            versions++;
            JsonNode ours = OurCli.run("dump", uri, "--version", Long.toString(v), "--with-row-address");
            JsonNode theirs = enabled.get(2 * i);
            JsonNode valid = enabled.get(2 * i + 1);
            if (valid.has("error")) {
                failures.add("version " + v + ": pylance validate() failed: "
                        + valid.get("error").asText());
            }
            PylanceOracle.collectDifference(
                    failures, format + " version " + v + " read by pylance with overlays enabled", ours, theirs);
            JsonNode withoutVariable = plain.get(i);
            if (withOverlays.contains(v)) {
                if (!refusedForOverlays(withoutVariable)) {
                    failures.add("version " + v + " has live overlays, but pylance without "
                            + PylanceOracle.OVERLAYS_VARIABLE + " did not refuse it: " + abbreviate(withoutVariable));
                }
            } else {
                PylanceOracle.collectDifference(
                        failures,
                        format + " version " + v + " read by pylance without the variable",
                        ours,
                        withoutVariable);
            }
            rows += ours.get("num_rows").asLong();
        }
        System.out.printf(
                "pylance reading our %s history: %d versions (%d with live overlays %s), %d rows," + " %d cells%n",
                format, versions, withOverlays.size(), withOverlays, rows, rows * (schema.size() + 1));
        assertThat(withOverlays)
                .as("versions with live overlays before the fold")
                .isNotEmpty();
        assertThat(failures).isEmpty();
    }

    /** A string-heavy table: the columns that make our writer choose dictionary and FSST pages. */
    private static final String[][] STRING_COLUMNS = {
        {"id", "int64", "false"},
        {"code", "utf8", "true"},
        {"label", "large_utf8", "true"},
        {"blob", "binary", "true"},
        {"sentence", "utf8", "true"},
        {"text", "utf8", "true"},
        {"tags", "list<utf8>", "true"},
        {"notes", "list<large_utf8>", "true"},
    };

    private static final String[] CODES = {"US", "DE", "FR", "GB", "JP", "CN", "IN", "BR"};
    private static final String[] WORDS = {
        "the", "stream", "table", "lance", "flink", "overlay", "column", "vector", "quick", "brown", "fox", "jumps",
        "over", "lazy", "dog", "data", "file", "format", "page", "chunk"
    };

    /**
     * Pylance reads the dictionary pages (low-cardinality strings, large strings, binaries and list
     * items; LZ4-framed items in 2.2) and FSST pages (mini-block and full-zip, with and without
     * lists) that our writer now chooses by default, value for value, in 2.1 and 2.2; the files
     * are checked to hold each of those encodings, so the comparison cannot pass on plain pages.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(
            value = FileVersion.class,
            names = {"V2_1", "V2_2"})
    void pylanceReadsOurDictionaryAndFsstPages(FileVersion version, @TempDir Path dir) throws Exception {
        String uri = dir.resolve("strings-" + version.label() + ".lance").toString();
        ArrayNode schema = DumpComparator.MAPPER.createArrayNode();
        for (String[] c : STRING_COLUMNS) {
            schema.addObject().put("name", c[0]).put("type", c[1]).put("nullable", Boolean.parseBoolean(c[2]));
        }
        ArrayNode rows = DumpComparator.MAPPER.createArrayNode();
        for (int i = 0; i < 6000; i++) {
            ObjectNode r = rows.addObject();
            r.put("id", i);
            if (i % 13 == 4) {
                r.putNull("code");
            } else {
                r.put("code", CODES[(i * 7) % CODES.length]);
            }
            r.put("label", CODES[i % CODES.length] + "-" + (i % 40));
            r.put("blob", "0x" + String.format(Locale.ROOT, "%02x%02x", i % 5, 0xA0 + i % 3));
            if (i % 10 == 3) {
                r.putNull("sentence");
            } else {
                r.put("sentence", sentence(i, 6 + i % 9));
            }
            if (i % 7 == 2) {
                r.putNull("text");
            } else {
                r.put("text", sentence(i * 31, 60 + i % 30));
            }
            if (i % 9 == 5) {
                r.putNull("tags");
                r.putNull("notes");
            } else {
                ArrayNode tags = r.putArray("tags");
                ArrayNode notes = r.putArray("notes");
                for (int j = 0; j < i % 4; j++) {
                    if ((i + j) % 11 == 4) {
                        tags.addNull();
                    } else {
                        tags.add(CODES[(i + j) % CODES.length]);
                    }
                    notes.add(sentence(i * 4 + j, 4 + j));
                }
            }
        }
        Schema arrow = DumpTypeParser.schema(schema);
        try (BufferAllocator allocator = new RootAllocator();
                VectorSchemaRoot b = JsonToArrow.batch(schema, rows, allocator);
                Dataset ds = Dataset.write(
                        uri,
                        Map.of(),
                        List.of(b),
                        arrow,
                        WriteParams.of(WriteMode.CREATE).withFileVersion(version))) {
            assertThat(ds.countRows()).isEqualTo(6000);
        }
        Set<String> encodings = new TreeSet<>();
        try (java.util.stream.Stream<Path> files =
                        java.nio.file.Files.list(Path.of(uri).resolve("data"));
                dev.lanceflink.io.LocalObjectStore store =
                        new dev.lanceflink.io.LocalObjectStore(Path.of(uri).resolve("data"))) {
            for (Path f : files.toList()) {
                try (dev.lanceflink.io.RangeReader reader =
                        store.openReader(f.getFileName().toString())) {
                    dev.lanceflink.file.LanceFileMetadata meta =
                            dev.lanceflink.file.LanceFileMetadata.read(reader, f.toString());
                    for (int c = 0; c < meta.numColumns(); c++) {
                        for (dev.lanceflink.file.PageInfo p : meta.pages(c)) {
                            lance.encodings21.PageLayout layout = lance.encodings21.PageLayout.parseFrom(
                                    p.encoding().getValue());
                            if (layout.hasMiniBlockLayout()
                                    && layout.getMiniBlockLayout().hasDictionary()) {
                                encodings.add("dictionary col " + c
                                        + (layout.getMiniBlockLayout()
                                                        .getDictionary()
                                                        .hasGeneral()
                                                ? " lz4"
                                                : ""));
                            } else if (layout.hasMiniBlockLayout()
                                    && layout.getMiniBlockLayout()
                                            .getValueCompression()
                                            .hasFsst()) {
                                encodings.add("mini-block fsst col " + c);
                            } else if (layout.hasFullZipLayout()
                                    && layout.getFullZipLayout()
                                            .getValueCompression()
                                            .hasFsst()) {
                                encodings.add("full-zip fsst col " + c);
                            }
                        }
                    }
                }
            }
        }
        String lz4 = version == FileVersion.V2_2 ? " lz4" : "";
        assertThat(encodings)
                .as("encodings in our %s files", version.label())
                .contains(
                        "dictionary col 1" + lz4,
                        "dictionary col 2" + lz4,
                        "dictionary col 3",
                        "mini-block fsst col 4",
                        "full-zip fsst col 5",
                        "dictionary col 6" + lz4,
                        "mini-block fsst col 7");
        JsonNode ours = OurCli.run("dump", uri);
        JsonNode theirs = PYLANCE.run("dump", uri);
        List<String> failures = new ArrayList<>();
        PylanceOracle.collectDifference(
                failures, "our " + version.label() + " string table read by pylance", ours, theirs);
        assertThat(ours.get("num_rows").asLong()).isEqualTo(6000);
        assertThat(failures).isEmpty();
    }

    private static String sentence(int i, int words) {
        StringBuilder sb = new StringBuilder();
        long s = i * 0x9E3779B97F4A7C15L + 1;
        for (int w = 0; w < words; w++) {
            s ^= s << 13;
            s ^= s >>> 7;
            s ^= s << 17;
            sb.append(w == 0 ? "" : " ").append(WORDS[(int) Long.remainderUnsigned(s, WORDS.length)]);
        }
        return sb.append(" #").append(i).toString();
    }

    /** Released Lance's refusal of a manifest whose reader flags include 64 (data overlay files). */
    private static boolean refusedForOverlays(JsonNode answer) {
        if (!answer.has("error")) {
            return false;
        }
        Matcher flags = Pattern.compile("cannot be read by this version of Lance.*Flags: (\\d+)", Pattern.DOTALL)
                .matcher(answer.get("error").asText());
        return flags.find() && (Long.parseLong(flags.group(1)) & 64) != 0;
    }

    private static String abbreviate(JsonNode node) {
        String text = node.toString();
        return text.length() < 300 ? text : text.substring(0, 300) + "...";
    }

    /**
     * Overlays {@code columns} of the rows with the given keys (all in the first fragments, where
     * key = physical offset + 150 × fragment) with the values of key + {@code shift}.
     */
    private static Dataset update(
            Dataset ds, BufferAllocator allocator, ArrayNode schema, List<String> columns, long[] keys, long shift)
            throws Exception {
        ArrayNode sub = DumpComparator.MAPPER.createArrayNode();
        for (JsonNode c : schema) {
            if (columns.contains(c.get("name").asText())) {
                sub.add(c);
            }
        }
        ArrayNode values = DumpComparator.MAPPER.createArrayNode();
        long[] addresses = new long[keys.length];
        for (int i = 0; i < keys.length; i++) {
            ObjectNode full = InteropData.row(keys[i] + shift);
            ObjectNode row = values.addObject();
            columns.forEach(c -> row.set(c, full.get(c)));
            addresses[i] = ((keys[i] / 150) << 32) | (keys[i] % 150);
        }
        try (VectorSchemaRoot root = JsonToArrow.batch(sub, values, allocator)) {
            return ds.update(addresses, root);
        }
    }

    /** File version 2.0 stores no struct validity: a null struct goes in as a struct of nulls. */
    private static ArrayNode rows(ArrayNode schema, long from, long to, boolean structNulls) {
        ArrayNode rows = InteropData.allTypesRows(from, to);
        if (!structNulls) {
            for (JsonNode row : rows) {
                for (JsonNode column : schema) {
                    String name = column.get("name").asText();
                    String type = column.get("type").asText();
                    if (type.startsWith("struct<") && row.get(name).isNull()) {
                        ObjectNode empty = ((ObjectNode) row).putObject(name);
                        DumpComparator.structChildren(type).keySet().forEach(empty::putNull);
                    }
                }
            }
        }
        return rows;
    }

    /**
     * Row lineage as current Lance reads it: after our overlay UPDATE of a table with stable row
     * ids, pylance's {@code _row_last_updated_at_version} is the UPDATE's version for exactly the
     * overlaid rows, and {@code _row_created_at_version} stays.
     */
    @org.junit.jupiter.api.Test
    void pylanceSeesTheRowLineageOfOurOverlayUpdates(@TempDir Path dir) throws Exception {
        String uri = dir.resolve("lineage.lance").toString();
        ArrayNode schema = DumpComparator.MAPPER.createArrayNode();
        schema.addObject().put("name", "id").put("type", "int64").put("nullable", false);
        schema.addObject().put("name", "age").put("type", "int32").put("nullable", true);
        ArrayNode rows = DumpComparator.MAPPER.createArrayNode();
        for (int i = 0; i < 6; i++) {
            rows.addObject().put("id", i).put("age", 20 + i);
        }
        ArrayNode ages = DumpComparator.MAPPER.createArrayNode();
        ages.addObject().put("age", 99);
        ages.addObject().put("age", 98);
        try (BufferAllocator allocator = new RootAllocator();
                VectorSchemaRoot batch = JsonToArrow.batch(schema, rows, allocator);
                Dataset ds = Dataset.write(
                        uri,
                        Map.of(),
                        List.of(batch),
                        DumpTypeParser.schema(schema),
                        WriteParams.of(WriteMode.CREATE).withStableRowIds(true));
                VectorSchemaRoot values = JsonToArrow.batch(
                        DumpComparator.MAPPER.createArrayNode().add(schema.get(1)), ages, allocator)) {
            ds.update(new long[] {2, 4}, values).close();
        }
        JsonNode lineage = PYLANCE.withOverlays()
                .run("dump", uri, "--columns", "id,age,_row_created_at_version,_row_last_updated_at_version");
        for (JsonNode row : lineage.get("rows")) {
            long id = row.get("id").asLong();
            boolean updated = id == 2 || id == 4;
            assertThat(row.get("age").asInt())
                    .as("age of %s", id)
                    .isEqualTo(id == 2 ? 99 : id == 4 ? 98 : 20 + (int) id);
            assertThat(row.get("_row_created_at_version").asLong())
                    .as("created version of %s", id)
                    .isEqualTo(1);
            assertThat(row.get("_row_last_updated_at_version").asLong())
                    .as("last updated version of %s", id)
                    .isEqualTo(updated ? 2 : 1);
        }
        assertThat(lineage.get("rows")).hasSize(6);
    }
}
