package dev.lanceflink.it.interop;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.file.FileVersion;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Lance working on our tables, and we on its results. We write a table and overlay some of its
 * cells; pylance (overlays enabled) builds a BTREE index on a column we overlay, a BITMAP index
 * and an IVF_PQ vector index; we overlay indexed cells again; pylance's indexed queries must
 * return the current values (stale index entries excluded), before and after our
 * {@code overlay-fold}. Then pylance deletes, updates, merge-inserts, compacts and adds a
 * column; we read every version exactly as pylance does and keep committing on top (append,
 * overlay update, delete), which pylance reads too.
 */
class PylanceWorksOnOurTablesTest {

    private static final PylanceOracle PYLANCE = PylanceOracle.fromBuild().withOverlays();
    private static final int ROWS = 2000;
    private static final int DIM = 16;

    enum Format {
        V2_1(FileVersion.V2_1),
        V2_2(FileVersion.V2_2);

        final FileVersion version;

        Format(FileVersion version) {
            this.version = version;
        }
    }

    private static ArrayNode schema() {
        ArrayNode schema = DumpComparator.MAPPER.createArrayNode();
        schema.addObject().put("name", "id").put("type", "int64").put("nullable", false);
        schema.addObject().put("name", "name").put("type", "utf8").put("nullable", true);
        schema.addObject().put("name", "age").put("type", "int32").put("nullable", true);
        schema.addObject().put("name", "score").put("type", "float64").put("nullable", true);
        schema.addObject()
                .put("name", "vec")
                .put("type", "fixed_size_list<float32, " + DIM + ">")
                .put("nullable", true);
        return schema;
    }

    private static ObjectNode row(long id) {
        ObjectNode row = DumpComparator.MAPPER.createObjectNode();
        row.put("id", id).put("name", "cat" + (id % 7)).put("age", 20 + id % 50).put("score", id / 8.0);
        ArrayNode vec = row.putArray("vec");
        for (int d = 0; d < DIM; d++) {
            vec.add((float) Math.sin(id * 0.37 + d));
        }
        return row;
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Format.class)
    void pylanceIndexesCompactsAndChangesOurTableAndWeKeepGoing(Format format, @TempDir Path dir) throws Exception {
        String uri = dir.resolve("ours.lance").toString();
        ArrayNode schema = schema();
        List<String> failures = new ArrayList<>();
        try (BufferAllocator allocator = new RootAllocator()) {
            ArrayNode rows = DumpComparator.MAPPER.createArrayNode();
            for (long id = 0; id < ROWS; id++) {
                rows.add(row(id));
            }
            WriteParams create = WriteParams.of(WriteMode.CREATE)
                    .withFileVersion(format.version)
                    .withMaxRowsPerFile(500);
            try (VectorSchemaRoot b = JsonToArrow.batch(schema, rows, allocator);
                    Dataset ds = Dataset.write(uri, Map.of(), List.of(b), DumpTypeParser.schema(schema), create)) {
                overlayAge(ds, allocator, schema, 10, 20, 1000).close();
            }

            ops(
                    dir,
                    uri,
                    op("scalar_index").put("column", "age").put("index_type", "BTREE"),
                    op("scalar_index").put("column", "name").put("index_type", "BITMAP"),
                    op("vector_index")
                            .put("column", "vec")
                            .put("num_partitions", 2)
                            .put("num_sub_vectors", 2));

            // Overlays newer than the indices: ages of 100..109, and the vector of row 200.
            try (Dataset ds = Dataset.open(uri, Map.of())) {
                Dataset next = overlayAge(ds, allocator, schema, 100, 110, 5000);
                ArrayNode vecSchema = DumpComparator.MAPPER.createArrayNode().add(schema.get(4));
                ArrayNode vecRow = DumpComparator.MAPPER.createArrayNode();
                ArrayNode far = vecRow.addObject().putArray("vec");
                for (int d = 0; d < DIM; d++) {
                    far.add(100.0f);
                }
                try (VectorSchemaRoot values = JsonToArrow.batch(vecSchema, vecRow, allocator)) {
                    next.update(new long[] {address(200)}, values).close();
                }
                next.close();
            }
            checkIndexedQueries(dir, uri, failures, "after our overlay UPDATEs of indexed columns");
            OurCli.run("compact", uri, "--mode", "overlay-fold", "--min-overlays", "1");
            checkIndexedQueries(dir, uri, failures, "after our overlay-fold");

            ArrayNode merge = DumpComparator.MAPPER.createArrayNode();
            for (long id : new long[] {1, 2, 3, 5000, 5001}) {
                merge.add(row(id).put("name", "merged"));
            }
            ops(
                    dir,
                    uri,
                    op("delete").put("filter", "id % 13 = 0"),
                    op("update")
                            .put("where", "id < 5")
                            .set(
                                    "values",
                                    DumpComparator.MAPPER.createObjectNode().put("name", "'py'")),
                    op("merge_insert").put("on", "id").set("rows", merge),
                    op("compact").put("target_rows_per_fragment", 1500),
                    op("add_columns")
                            .set(
                                    "columns",
                                    DumpComparator.MAPPER.createObjectNode().put("age2", "age * 2")));

            // We keep committing on top of pylance's compaction and new column.
            try (Dataset ds = Dataset.open(uri, Map.of())) {
                ds.delete("id % 17 = 0").close();
            }
            JsonNode at = OurCli.run(
                    "dump", uri, "--with-row-address", "--filter", "id = 7 OR id = 5000", "--order-by", "id");
            long[] addresses = new long[2];
            for (int i = 0; i < 2; i++) {
                addresses[i] = at.get("rows").get(i).get("_rowaddr").asLong();
            }
            ArrayNode ageSchema = DumpComparator.MAPPER.createArrayNode().add(schema.get(2));
            ArrayNode ages = DumpComparator.MAPPER.createArrayNode();
            ages.addObject().put("age", 777);
            ages.addObject().put("age", 778);
            try (Dataset ds = Dataset.open(uri, Map.of());
                    VectorSchemaRoot values = JsonToArrow.batch(ageSchema, ages, allocator)) {
                ds.update(addresses, values).close();
            }
        }

        JsonNode all = PYLANCE.run("dump-all", uri);
        int versions = 0;
        long compared = 0;
        for (JsonNode theirs : all.get("versions")) {
            long v = theirs.get("version").asLong();
            versions++;
            OurCli.Result ours = OurCli.execute(List.of("dump", uri, "--version", Long.toString(v)));
            if (ours.exitCode() != 0) {
                failures.add("version " + v + ": our dump failed: " + ours.error());
                continue;
            }
            try {
                DumpComparator.exact().assertSame("version " + v, theirs, ours.json());
                compared += theirs.get("num_rows").asLong();
            } catch (AssertionError e) {
                failures.add(e.getMessage());
            }
        }
        JsonNode latest = OurCli.run("dump", uri, "--filter", "id = 7 OR id = 5000", "--order-by", "id");
        assertThat(latest.get("rows").get(0).get("age").asInt()).isEqualTo(777);
        assertThat(latest.get("rows").get(1).get("age").asInt()).isEqualTo(778);
        System.out.printf(
                "pylance working on our %s table: %d versions, %d rows read identically%n", format, versions, compared);
        assertThat(failures).isEmpty();
    }

    /** Indexed queries pylance answers must equal the table's current values (our read). */
    private static void checkIndexedQueries(Path dir, String uri, List<String> failures, String when) {
        JsonNode ours = OurCli.run("dump", uri);
        List<JsonNode> answers = ops(
                dir,
                uri,
                op("query").put("filter", "age = 5003").set("columns", ids()),
                op("query").put("filter", "age = 23").set("columns", ids()),
                op("query").put("filter", "age = 1012").set("columns", ids()),
                op("query").put("filter", "name = 'cat3'").set("columns", ids()),
                op("nearest").put("column", "vec").put("k", 1).put("nprobes", 2).set("q", far()));
        expectIds(
                failures,
                when + ": age = 5003",
                answers.get(0),
                ours,
                r -> r.get("age").asInt() == 5003);
        expectIds(
                failures,
                when + ": age = 23 (row 103's value before our overlay)",
                answers.get(1),
                ours,
                r -> r.get("age").asInt() == 23);
        expectIds(
                failures,
                when + ": age = 1012",
                answers.get(2),
                ours,
                r -> r.get("age").asInt() == 1012);
        expectIds(
                failures,
                when + ": name = 'cat3'",
                answers.get(3),
                ours,
                r -> r.get("name").asText().equals("cat3"));
        JsonNode nearest = answers.get(4).get("dump").get("rows");
        if (nearest.size() != 1 || nearest.get(0).get("id").asLong() != 200) {
            failures.add(
                    when + ": nearest neighbour of row 200's new vector: expected id 200, pylance answered " + nearest);
        }
    }

    private static void expectIds(
            List<String> failures, String what, JsonNode answer, JsonNode ours, Predicate<JsonNode> predicate) {
        List<Long> expected = new ArrayList<>();
        for (JsonNode r : ours.get("rows")) {
            if (predicate.test(r)) {
                expected.add(r.get("id").asLong());
            }
        }
        List<Long> actual = new ArrayList<>();
        for (JsonNode r : answer.get("dump").get("rows")) {
            actual.add(r.get("id").asLong());
        }
        actual.sort(null);
        expected.sort(null);
        if (!actual.equals(expected)) {
            failures.add(what + ": pylance answered ids " + actual + ", the table holds " + expected + " (plan: "
                    + answer.path("plan").asText() + ")");
        }
    }

    private static ArrayNode ids() {
        return DumpComparator.MAPPER.createArrayNode().add("id");
    }

    private static ArrayNode far() {
        ArrayNode q = DumpComparator.MAPPER.createArrayNode();
        for (int d = 0; d < DIM; d++) {
            q.add(100.0);
        }
        return q;
    }

    private static ObjectNode op(String kind) {
        return DumpComparator.MAPPER.createObjectNode().put("op", kind);
    }

    private static List<JsonNode> ops(Path dir, String uri, ObjectNode... ops) {
        try {
            ArrayNode list = DumpComparator.MAPPER.createArrayNode();
            for (ObjectNode op : ops) {
                list.add(op);
            }
            Path file = Files.createTempFile(dir, "ops-", ".json");
            Files.writeString(file, DumpComparator.MAPPER.writeValueAsString(list), StandardCharsets.UTF_8);
            List<JsonNode> results = new ArrayList<>();
            PYLANCE.run("ops", uri, file.toString()).get("results").forEach(results::add);
            return results;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Row {@code id}'s address before any compaction: fragments of 500 rows. */
    private static long address(long id) {
        return ((id / 500) << 32) | (id % 500);
    }

    private static Dataset overlayAge(
            Dataset ds, BufferAllocator allocator, ArrayNode schema, long from, long to, int base) throws Exception {
        ArrayNode ageSchema = DumpComparator.MAPPER.createArrayNode().add(schema.get(2));
        ArrayNode values = DumpComparator.MAPPER.createArrayNode();
        long[] addresses = new long[(int) (to - from)];
        for (long id = from; id < to; id++) {
            values.addObject().put("age", base + id);
            addresses[(int) (id - from)] = address(id);
        }
        try (VectorSchemaRoot root = JsonToArrow.batch(ageSchema, values, allocator)) {
            return ds.update(addresses, root);
        }
    }
}
