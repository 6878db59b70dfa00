package dev.lanceflink.it.interop;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.VersionInfo;
import dev.lanceflink.flink.sink.LanceSinkBuilder;
import dev.lanceflink.flink.sink.LanceSinkMode;
import dev.lanceflink.flink.sink.UpdateMode;
import dev.lanceflink.table.FeatureFlags;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.testkit.flink.JobEnvironments;
import dev.lanceflink.testkit.flink.MiniClusters;
import dev.lanceflink.testkit.users.UsersChangelog;
import dev.lanceflink.testkit.users.UsersTable;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The point of {@code 'sink.update-mode' = 'rewrite-rows'}: released Lance reads the tables the
 * sink writes in that mode without {@value PylanceOracle#OVERLAYS_VARIABLE}. A streaming upsert job
 * (inserts, updates with and without before-images, deletes, over a table that already holds half
 * of the keys) and then a SQL {@code UPDATE} and a partial-column upsert
 * ({@code INSERT INTO t (id, age)}) write a history in which no version has an overlay or reader
 * flag 64; pylance without the variable reads every version exactly as we do (all columns and
 * {@code _rowaddr}), and the last one equals the model.
 */
class PylanceReadsRewriteRowsTablesITCase {
    private static final PylanceOracle PYLANCE = PylanceOracle.fromBuild();
    private static final long KEYS = 1_200;

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = MiniClusters.oneTaskManager(2);

    /** The changelog the source emits (static: the map function is serialized). */
    static volatile List<RowData> changes;

    @TempDir
    Path dir;

    @Test
    void pylanceWithoutTheOverlayVariableReadsEveryVersionOfARewriteRowsHistory() throws Exception {
        String uri = dir.resolve("rewrite-rows.lance").toString();
        TreeMap<Long, UsersTable.Row> initial = UsersChangelog.everyOtherKey(KEYS);
        UsersTable.create(uri, initial, 250);
        UsersChangelog log = new UsersChangelog(initial).generateTwoPhases(2027, KEYS, 600, 1_500);
        changes = log.changes;
        upsertJob(uri);
        TreeMap<Long, UsersTable.Row> expected = new TreeMap<>(log.model);
        assertThat(UsersTable.read(uri, Map.of()))
                .as("after the streaming upsert")
                .isEqualTo(expected);

        sqlStatements(uri, expected);
        assertThat(UsersTable.read(uri, Map.of()))
                .as("after the SQL statements")
                .isEqualTo(expected);

        List<String> failures = new ArrayList<>();
        List<List<String>> dumps = new ArrayList<>();
        List<String> operations;
        try (Dataset latest = Dataset.open(uri, Map.of())) {
            operations = latest.versions().stream().map(VersionInfo::operation).toList();
            for (long v = 1; v <= latest.version(); v++) {
                try (Dataset at = latest.checkoutVersion(v)) {
                    Manifest m = at.manifest();
                    if ((m.readerFeatureFlags() & FeatureFlags.UNSTABLE_DATA_OVERLAY_FILES) != 0
                            || m.fragments().stream()
                                    .anyMatch(f -> !f.overlays().isEmpty())) {
                        failures.add(
                                "version " + v + " has overlays or reader flag 64 (" + m.readerFeatureFlags() + ")");
                    }
                }
                dumps.add(List.of("dump", uri, "--version", Long.toString(v), "--with-row-address"));
            }
        }
        List<JsonNode> theirs = PYLANCE.batch(dir.resolve("batch"), dumps);
        for (int i = 0; i < dumps.size(); i++) {
            String version = dumps.get(i).get(3);
            JsonNode ours = OurCli.run("dump", uri, "--version", version, "--with-row-address");
            PylanceOracle.collectDifference(
                    failures,
                    "version " + version + " read by pylance without " + PylanceOracle.OVERLAYS_VARIABLE,
                    ours,
                    theirs.get(i));
        }
        System.out.printf(
                "pylance without the overlay variable read %d versions of a rewrite-rows history: %s%n",
                dumps.size(), operations);
        assertThat(operations)
                .as("updates are Lance Update versions, never overlays")
                .contains("Update")
                .doesNotContain("DataOverlay");
        assertThat(failures).isEmpty();
    }

    /** The changelog through the upsert sink in update mode rewrite-rows, over several checkpoints. */
    private static void upsertJob(String uri) throws Exception {
        StreamExecutionEnvironment env = JobEnvironments.noRestarts(2, 300);
        LanceSinkBuilder.forTable(uri)
                .mode(LanceSinkMode.UPSERT)
                .primaryKey("id")
                .updateMode(UpdateMode.REWRITE_ROWS)
                .rowsPerFile(500)
                .batchRows(128)
                .commitRetryBackoff(Duration.ZERO)
                .uidSuffix("rewrite-rows-interop")
                .sinkTo(env.fromSequence(0, changes.size() - 1)
                        .setParallelism(1)
                        .uid("changes")
                        .map(new SlowChange())
                        .setParallelism(1)
                        .uid("slow-change")
                        .returns(RowData.class));
        env.execute("upsert, rewrite rows");
    }

    /**
     * An UPDATE (every column of the updated rows rewritten) and an upsert of only {@code (id, age)}
     * (the rewritten rows keep name and score), applied to {@code expected} as well.
     */
    private static void sqlStatements(String uri, TreeMap<Long, UsersTable.Row> expected) throws Exception {
        TableEnvironment t = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        t.getConfig().set("parallelism.default", "2");
        t.executeSql("CREATE TABLE users (id BIGINT NOT NULL, name STRING, age INT, score DOUBLE,"
                + " PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'lance', 'path' = '" + uri + "',"
                + " 'sink.update-mode' = 'rewrite-rows')");
        t.executeSql("UPDATE users SET score = score * 2 WHERE id % 5 = 0").await();
        expected.replaceAll((id, r) ->
                id % 5 != 0 ? r : new UsersTable.Row(r.name(), r.age(), r.score() == null ? null : r.score() * 2));

        long existing = expected.firstKey();
        long absent = KEYS + 7;
        t.executeSql("INSERT INTO users (id, age) VALUES (" + existing + ", 4242), (" + absent + ", 77)")
                .await();
        UsersTable.Row old = expected.get(existing);
        expected.put(existing, new UsersTable.Row(old.name(), 4242, old.score()));
        expected.put(absent, new UsersTable.Row(null, 77, null));
    }

    /** Emits change {@code i} about every 2 ms, so that the changelog spans a dozen checkpoints. */
    static final class SlowChange implements MapFunction<Long, RowData> {
        private static final long serialVersionUID = 1L;

        @Override
        public RowData map(Long i) throws Exception {
            if (i % 4 == 0) {
                Thread.sleep(8);
            }
            return changes.get((int) (long) i);
        }
    }
}
