package dev.lanceflink.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * End to end, in-process: a table written with {@code Dataset.write}, appended to and deleted
 * from (three versions), then read through {@link LanceFlinkCli#run}.
 */
class LanceFlinkCliTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Schema SCHEMA = new Schema(List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
            new Field("name", FieldType.nullable(new ArrowType.Utf8()), null),
            new Field("score", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)), null)));

    @TempDir
    static Path dir;

    static String uri;

    /** v1: ids 0–9; v2: append 10–14; v3: delete id % 3 = 0. */
    @BeforeAll
    static void writeTable() throws Exception {
        uri = dir.resolve("t.lance").toString();
        try (BufferAllocator allocator = new RootAllocator();
                VectorSchemaRoot first = rows(allocator, 0, 10);
                VectorSchemaRoot second = rows(allocator, 10, 15);
                Dataset v1 = Dataset.write(uri, Map.of(), List.of(first), SCHEMA, WriteParams.of(WriteMode.CREATE))) {
            Dataset v2 = v1.append(
                    List.of(second),
                    WriteParams.of(WriteMode.APPEND).withTransactionProperties(Map.of("job", "append-1")));
            v2.delete("id % 3 = 0");
        }
    }

    /** Row k: id k, name "n<k>" (null for k = 4), score k / 4 - 1. */
    private static VectorSchemaRoot rows(BufferAllocator allocator, int from, int to) {
        VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
        BigIntVector id = (BigIntVector) root.getVector("id");
        VarCharVector name = (VarCharVector) root.getVector("name");
        Float4Vector score = (Float4Vector) root.getVector("score");
        root.allocateNew();
        for (int k = from; k < to; k++) {
            int r = k - from;
            id.setSafe(r, k);
            if (k == 4) {
                name.setNull(r);
            } else {
                name.setSafe(r, ("n" + k).getBytes(StandardCharsets.UTF_8));
            }
            score.setSafe(r, k / 4f - 1f);
        }
        root.setRowCount(to - from);
        return root;
    }

    private record Run(int code, JsonNode json) {}

    private static Run run(String... args) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = LanceFlinkCli.run(args, out, new PrintStream(err, true, StandardCharsets.UTF_8));
        String text = out.toString(StandardCharsets.UTF_8);
        assertThat(text).endsWith("\n");
        return new Run(code, MAPPER.readTree(text));
    }

    private static List<Long> ids(JsonNode dump) {
        List<Long> ids = new ArrayList<>();
        dump.path("rows").forEach(r -> ids.add(r.path("id").asLong()));
        return ids;
    }

    @Test
    void dumpsTheLatestVersionInScanOrder() throws Exception {
        Run r = run("dump", uri);
        assertThat(r.code()).isZero();
        assertThat(r.json().path("version").asLong()).isEqualTo(3);
        assertThat(r.json().path("schema").toString())
                .isEqualTo("[{\"name\":\"id\",\"type\":\"int64\","
                        + "\"nullable\":false},{\"name\":\"name\",\"type\":\"utf8\",\"nullable\":true},"
                        + "{\"name\":\"score\",\"type\":\"float32\",\"nullable\":true}]");
        assertThat(r.json().path("num_rows").asInt()).isEqualTo(10);
        assertThat(ids(r.json())).containsExactly(1L, 2L, 4L, 5L, 7L, 8L, 10L, 11L, 13L, 14L);
        assertThat(r.json().path("rows").get(2).toString()).isEqualTo("{\"id\":4,\"name\":null,\"score\":0.0}");
        assertThat(r.json().path("rows").get(1).toString()).isEqualTo("{\"id\":2,\"name\":\"n2\",\"score\":-0.5}");
    }

    @Test
    void timeTravelsWithVersion() throws Exception {
        assertThat(ids(run("dump", uri, "--version", "1").json()))
                .containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L);
        assertThat(run("dump", uri, "--version", "2").json().path("num_rows").asInt())
                .isEqualTo(15);
    }

    @Test
    void projectsFiltersOrdersAndLimits() throws Exception {
        JsonNode d = run(
                        "dump",
                        uri,
                        "--columns",
                        "name",
                        "--filter",
                        "id > 5",
                        "--order-by",
                        "score,id",
                        "--limit",
                        "3")
                .json();
        assertThat(d.path("schema").size()).isEqualTo(1);
        assertThat(d.path("num_rows").asInt()).isEqualTo(3);
        assertThat(d.path("rows").toString()).isEqualTo("[{\"name\":\"n7\"},{\"name\":\"n8\"},{\"name\":\"n10\"}]");

        JsonNode desc = run("dump", uri, "--order-by", "name").json();
        // null first, then UTF-16 order: n1, n10, n11, n13, n14, n2, ...
        assertThat(ids(desc)).containsExactly(4L, 1L, 10L, 11L, 13L, 14L, 2L, 5L, 7L, 8L);
    }

    @Test
    void rowAddressesNameFragmentAndOffset() throws Exception {
        JsonNode d = run("dump", uri, "--columns", "id", "--with-row-address", "--filter", "id = 11")
                .json();
        assertThat(d.path("schema").get(1).toString())
                .isEqualTo("{\"name\":\"_rowaddr\",\"type\":\"uint64\",\"nullable\":false}");
        // id 11 is offset 1 of the appended fragment 1.
        assertThat(d.path("rows").get(0).path("_rowaddr").asLong()).isEqualTo((1L << 32) | 1);
    }

    @Test
    void listsVersionsWithOperationsAndProperties() throws Exception {
        JsonNode v = run("versions", uri).json().path("versions");
        assertThat(v.size()).isEqualTo(3);
        assertThat(v.get(0).path("operation").asText()).isEqualTo("Overwrite");
        assertThat(v.get(1).path("operation").asText()).isEqualTo("Append");
        assertThat(v.get(1).path("properties").path("job").asText()).isEqualTo("append-1");
        assertThat(v.get(1).path("num_rows").asLong()).isEqualTo(15);
        assertThat(v.get(2).path("operation").asText()).isEqualTo("Delete");
        assertThat(v.get(2).path("num_rows").asLong()).isEqualTo(10);
        assertThat(v.get(2).path("timestamp").asText()).matches("\\d{4}-\\d\\d-\\d\\dT.*Z");
    }

    @Test
    void inspectsTheManifest() throws Exception {
        JsonNode m = run("inspect", uri).json();
        assertThat(m.path("version").asLong()).isEqualTo(3);
        assertThat(m.path("data_format").path("version").asText()).isEqualTo("2.2");
        assertThat(m.path("reader_feature_flags").asLong() & 1).isEqualTo(1); // deletion files
        assertThat(m.path("schema").size()).isEqualTo(3);
        assertThat(m.path("base_paths").isArray()).as("listed even when empty").isTrue();
        assertThat(m.path("base_paths").size()).isZero();
        assertThat(m.path("schema").get(1).toString())
                .isEqualTo("{\"name\":\"name\",\"id\":1,\"parent_id\":-1,"
                        + "\"logical_type\":\"string\",\"nullable\":true}");
        JsonNode fragments = m.path("fragments");
        assertThat(fragments.size()).isEqualTo(2);
        assertThat(fragments.get(0).path("physical_rows").asLong()).isEqualTo(10);
        assertThat(fragments.get(0).path("files").get(0).path("fields").toString())
                .isEqualTo("[0,1,2]");
        assertThat(fragments.get(0).path("deletion").path("num_deleted_rows").asLong())
                .isEqualTo(4);
        assertThat(fragments.get(0).path("deletion").path("read_version").asLong())
                .isEqualTo(2);
        assertThat(fragments.get(0).path("overlays").size()).isZero();
        assertThat(m.path("transaction").path("operation").asText()).isEqualTo("Delete");
        assertThat(run("inspect", uri, "--version", "1")
                        .json()
                        .path("fragments")
                        .get(0)
                        .path("deletion")
                        .isNull())
                .isTrue();
    }

    @Test
    void failuresAreErrorDocumentsWithExitCodes() throws Exception {
        Run missing = run("dump", dir.resolve("nothing.lance").toString());
        assertThat(missing.code()).isEqualTo(LanceFlinkCli.EXIT_FAILED);
        assertThat(missing.json().path("error").asText())
                .contains("nothing.lance")
                .contains("is not a Lance dataset");

        Run column = run("dump", uri, "--columns", "nope");
        assertThat(column.code()).isEqualTo(LanceFlinkCli.EXIT_FAILED);
        assertThat(column.json().path("error").asText()).contains("'nope' does not exist");

        Run version = run("dump", uri, "--version", "9");
        assertThat(version.code()).isEqualTo(LanceFlinkCli.EXIT_FAILED);
        assertThat(version.json().path("error").asText()).contains("9");

        Run usage = run("dump", uri, "--bogus");
        assertThat(usage.code()).isEqualTo(LanceFlinkCli.EXIT_USAGE);
        assertThat(usage.json().path("error").asText()).contains("--bogus").endsWith("(lance-flink --help)");

        Run order = run("dump", uri, "--order-by", "_rowaddr");
        assertThat(order.code()).isEqualTo(LanceFlinkCli.EXIT_USAGE);
        assertThat(order.json().path("error").asText())
                .isEqualTo("dump: --order-by _rowaddr needs --with-row-address (lance-flink --help)");
    }

    @Test
    void helpIsPlainTextOnStdoutWithExitZeroForEveryCommand() throws Exception {
        for (String[] args : List.of(
                new String[] {"--help"},
                new String[] {"help"},
                new String[] {"dump", "--help"},
                new String[] {"inspect", "--help"},
                new String[] {"versions", "-h"},
                new String[] {"dump", "/some/table", "--help"})) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            int code = LanceFlinkCli.run(
                    args, out, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
            String text = out.toString(StandardCharsets.UTF_8);
            assertThat(code).as(String.join(" ", args)).isZero();
            assertThat(text)
                    .as(String.join(" ", args))
                    .startsWith("lance-flink ")
                    .doesNotStartWith("{")
                    .doesNotContain("\\n");
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        LanceFlinkCli.run(new String[] {"dump", "--help"}, out, System.err);
        assertThat(out.toString(StandardCharsets.UTF_8))
                .startsWith("lance-flink dump <uri> [--version N]")
                .contains("--with-row-address")
                .doesNotContain("inspect");
    }
}
