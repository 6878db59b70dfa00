package dev.lanceflink.it.interop;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.VersionInfo;
import dev.lanceflink.flink.sink.LanceSinkBuilder;
import dev.lanceflink.flink.sink.LanceSinkMode;
import dev.lanceflink.testkit.users.UsersTable;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A sink checkpoint with new rows, deletions and cell updates is one Lance {@code Update} whose
 * updated fragments carry the new overlays. Current Lance (pylance 14, overlays enabled) reads that
 * version as we do and validates it, and its conflict rules protect it from a writer that read the
 * version before: a deletion in the same fragment is refused (retryable), an overlay of other rows
 * of the fragment stacks on top of ours, and an overlay of a row the checkpoint deleted is refused.
 */
class PylanceOnCheckpointUpdatesITCase {
    private static final PylanceOracle PYLANCE = PylanceOracle.fromBuild().withOverlays();

    @TempDir
    Path dir;

    private String uri;
    private TreeMap<Long, UsersTable.Row> model;

    @BeforeEach
    void oneCheckpointOfEveryKind() throws Exception {
        uri = dir.resolve("checkpoint.lance").toString();
        model = new TreeMap<>();
        for (long id = 0; id < 60; id++) {
            model.put(id, new UsersTable.Row("n" + id, (int) id, id / 2.0));
        }
        UsersTable.create(uri, model, 30); // fragments 0 (ids 0..29) and 1 (30..59), version 1
        List<RowData> changes = List.of(
                row(RowKind.INSERT, 100, 1000),
                row(RowKind.INSERT, 101, 1010),
                row(RowKind.DELETE, 5, 5),
                row(RowKind.UPDATE_AFTER, 7, 700),
                row(RowKind.UPDATE_AFTER, 40, 4000));
        model.put(100L, new UsersTable.Row("n100", 1000, 50.0));
        model.put(101L, new UsersTable.Row("n101", 1010, 50.5));
        model.remove(5L);
        model.put(7L, new UsersTable.Row("n7", 700, 3.5));
        model.put(40L, new UsersTable.Row("n40", 4000, 20.0));

        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(1);
        LanceSinkBuilder.forTable(uri)
                .mode(LanceSinkMode.UPSERT)
                .primaryKey("id")
                .uidSuffix("one-checkpoint")
                .sinkTo(env.fromData(changes).returns(RowData.class));
        env.execute("one checkpoint of every kind");
    }

    private static RowData row(RowKind kind, long id, int age) {
        return GenericRowData.ofKind(kind, id, StringData.fromString("n" + id), age, id / 2.0);
    }

    @Test
    void pylanceReadsAndValidatesTheCheckpointsOneVersion() throws Exception {
        try (Dataset ds = Dataset.open(uri, Map.of())) {
            assertThat(ds.versions()).extracting(VersionInfo::operation).containsExactly("Overwrite", "Update");
        }
        UsersTable.assertLatestEquals(uri, Map.of(), model, "our reader");
        List<String> failures = new ArrayList<>();
        for (String v : List.of("1", "2")) {
            PylanceOracle.collectDifference(
                    failures,
                    "version " + v,
                    OurCli.run("dump", uri, "--version", v, "--with-row-address"),
                    PYLANCE.run("dump", uri, "--version", v, "--with-row-address"));
        }
        assertThat(failures).as("versions pylance reads differently").isEmpty();
        assertThat(PYLANCE.run("validate", uri).path("valid").asBoolean())
                .as("pylance's validate()")
                .isTrue();
    }

    @Test
    void aStaleDeletionOfTheSameFragmentIsRefusedAndChangesNothing() throws Exception {
        JsonNode result =
                ops(op("stale_delete").put("read_version", 1).put("fragment", 0).put("filter", "id = 8"));

        assertThat(result.path("conflict").asText())
                .as("pylance's answer %s", result)
                .containsIgnoringCase("retry");
        UsersTable.assertLatestEquals(uri, Map.of(), model, "after the refused deletion");
    }

    @Test
    void aStaleOverlayOfOtherRowsOfTheFragmentStacksOnTopOfTheCheckpoint() throws Exception {
        JsonNode result = ops(op("stale_overlay")
                .put("read_version", 1)
                .put("age", 900)
                .set("ids", DumpComparator.MAPPER.createArrayNode().add(9).add(10)));

        assertThat(result.path("version").asLong())
                .as("pylance's answer %s", result)
                .isEqualTo(3);
        model.put(9L, new UsersTable.Row("n9", 900, 4.5));
        model.put(10L, new UsersTable.Row("n10", 900, 5.0));
        UsersTable.assertLatestEquals(uri, Map.of(), model, "our reader after pylance's overlay");
        List<String> failures = new ArrayList<>();
        PylanceOracle.collectDifference(
                failures,
                "version 3",
                OurCli.run("dump", uri, "--with-row-address"),
                PYLANCE.run("dump", uri, "--with-row-address"));
        assertThat(failures).isEmpty();
    }

    @Test
    void aStaleOverlayOfARowTheCheckpointDeletedIsRefused() throws Exception {
        JsonNode result = ops(op("stale_overlay")
                .put("read_version", 1)
                .put("age", 500)
                .set("ids", DumpComparator.MAPPER.createArrayNode().add(5)));

        assertThat(result.has("conflict")).as("pylance's answer %s", result).isTrue();
        UsersTable.assertLatestEquals(uri, Map.of(), model, "after the refused overlay");
    }

    private static ObjectNode op(String kind) {
        return DumpComparator.MAPPER.createObjectNode().put("op", kind);
    }

    private JsonNode ops(ObjectNode op) throws Exception {
        ArrayNode list = DumpComparator.MAPPER.createArrayNode().add(op);
        Path file = Files.createTempFile(dir, "ops-", ".json");
        Files.writeString(file, DumpComparator.MAPPER.writeValueAsString(list), StandardCharsets.UTF_8);
        return PYLANCE.run("ops", uri, file.toString()).get("results").get(0);
    }
}
