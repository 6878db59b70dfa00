package dev.lanceflink.flink.sink.upsert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.VersionInfo;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.flink.sink.FaultyStoreProvider;
import dev.lanceflink.flink.sink.LanceSinkBuilder;
import dev.lanceflink.flink.sink.LanceSinkMode;
import dev.lanceflink.flink.sink.UpdateMode;
import dev.lanceflink.table.FeatureFlags;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.testkit.flink.JobEnvironments;
import dev.lanceflink.testkit.flink.MiniClusters;
import dev.lanceflink.testkit.users.UsersChangelog;
import dev.lanceflink.testkit.users.UsersChangelog.Mix;
import dev.lanceflink.testkit.users.UsersTable;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The upsert sink in update mode rewrite-rows, on a MiniCluster: the seeded changelogs of
 * {@link UpsertSinkITCase} (a table already holding half of the keys) end equal to the model cell
 * by cell, with every update stored as Lance's own update stores it — the old row deleted, the
 * whole new row appended — so that no version of the table ever has a data overlay file or reader
 * feature flag 64; a partial-column upsert carries the other columns over from the old rows; and
 * injected failures and lost commit responses change nothing of that (exactly once).
 */
class UpsertRewriteRowsITCase {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = MiniClusters.oneTaskManager(4);

    @TempDir
    Path dir;

    private String uri;

    @BeforeEach
    void reset() {
        FaultyStoreProvider.reset();
        UpsertSinkITCase.WRITER_FAILURES.set(0);
        uri = dir.resolve("users.lance").toString();
    }

    private static StreamExecutionEnvironment env(int parallelism, int restarts) {
        return JobEnvironments.streaming(parallelism, 200, restarts, Duration.ofMillis(20), null);
    }

    private static LanceSinkBuilder sink(String tableUri) {
        return LanceSinkBuilder.forTable(tableUri)
                .mode(LanceSinkMode.UPSERT)
                .primaryKey("id")
                .rowsPerFile(900)
                .batchRows(256)
                .uidSuffix("rewrite-it")
                .commitRetries(2)
                .commitRetryBackoff(Duration.ZERO)
                .updateMode(UpdateMode.REWRITE_ROWS);
    }

    private static void pipeline(StreamExecutionEnvironment env, int perMilli, int failAfter, LanceSinkBuilder sink) {
        sink.sinkTo(env.fromSequence(0, UpsertSinkITCase.ChangeAt.sequenceEnd())
                .setParallelism(1)
                .uid("changes")
                .map(new UpsertSinkITCase.ChangeAt(perMilli, failAfter))
                .setParallelism(1)
                .uid("change-at")
                .returns(RowData.class));
    }

    @Test
    void upsertChangelogEndsEqualToTheModelWithUpdatesAsMovedRowsAndNoOverlayInAnyVersion() throws Exception {
        TreeMap<Long, UsersTable.Row> initial = Mix.SINK_TESTS.initialRows(3_000);
        UsersTable.create(uri, initial, 1_000);
        UsersChangelog m = new UsersChangelog(initial, Mix.SINK_TESTS).generate(42, 40_000, 6_000, false);
        UpsertSinkITCase.CHANGES = m.changes;
        StreamExecutionEnvironment env = env(3, 0);
        pipeline(env, 50, 0, sink(uri));
        env.execute("upsert, rewrite rows");

        UsersTable.assertLatestEquals(uri, Map.of(), m.model);
        assertNoVersionHasOverlays();
        Manifest manifest = manifest();
        long physical =
                manifest.fragments().stream().mapToLong(Fragment::physicalRows).sum();
        assertThat(physical - m.model.size())
                .as("rows hidden by deletion vectors: deleted rows and the old" + " versions of updated rows")
                .isGreaterThan(m.deletes);
        assertThat(operations()).contains("Update").doesNotContain("DataOverlay");
    }

    @Test
    void partialColumnUpsertKeepsTheUnwrittenColumnsOfTheRowsItRewrites() throws Exception {
        TreeMap<Long, UsersTable.Row> initial = Mix.SINK_TESTS.initialRows(2_000);
        UsersTable.create(uri, initial, 700);
        // Updates change only age; their records carry noise in name and score, which must not land.
        UsersChangelog m = new UsersChangelog(initial, Mix.SINK_TESTS).generate(7, 30_000, 3_000, true);
        UpsertSinkITCase.CHANGES = m.changes;
        StreamExecutionEnvironment env = env(2, 0);
        pipeline(env, 50, 0, sink(uri).writtenColumns("id", "age"));
        env.execute("age only, rewrite rows");

        UsersTable.assertLatestEquals(uri, Map.of(), m.model);
        assertNoVersionHasOverlays();
        assertThat(operations()).contains("Update");
    }

    @Test
    void failuresOfWritersAndCommitterLeaveTheModelsTable() throws Exception {
        TreeMap<Long, UsersTable.Row> initial = Mix.SINK_TESTS.initialRows(2_000);
        UsersTable.create(uri, initial, 700);
        UsersChangelog m = new UsersChangelog(initial, Mix.SINK_TESTS).generate(99, 30_000, 4_000, false);
        UpsertSinkITCase.CHANGES = m.changes;
        UpsertSinkITCase.WRITER_FAILURES.set(3);
        FaultyStoreProvider.FAULTS.failNextPublications(3);
        FaultyStoreProvider.FAULTS.loseNextResponses(3);
        FaultyStoreProvider.FAULTS.crashAfterNextPublications(3);
        StreamExecutionEnvironment env = env(2, 40);
        pipeline(env, 30, 2_500, sink("faulty://" + uri));
        env.execute("rewrite rows under failures");

        assertThat(UpsertSinkITCase.WRITER_FAILURES.get()).isZero();
        assertThat(FaultyStoreProvider.FAULTS.injected()).isEqualTo(9);
        UsersTable.assertLatestEquals(uri, Map.of(), m.model);
        assertNoVersionHasOverlays();
    }

    @Test
    void aTableWithStableRowIdsIsRefusedWhenTheJobIsBuilt() throws Exception {
        try (Dataset ds = Dataset.write(
                uri,
                Map.of(),
                List.of(),
                UsersTable.SCHEMA,
                WriteParams.of(WriteMode.CREATE).withStableRowIds(true))) {
            assertThat(ds.manifest().usesStableRowIds()).isTrue();
        }
        StreamExecutionEnvironment env = env(1, 0);
        assertThatThrownBy(() -> sink(uri).sinkTo(env.fromData((RowData) GenericRowData.of(1L, null, 1, 1.0))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("uses stable row ids, and update mode 'rewrite-rows' would give every updated"
                        + " row a new row id")
                .hasMessageContaining("Use update mode 'overlay'");
    }

    // ---- helpers ------------------------------------------------------------------------------

    /** No version of the table has an overlay file, nor the reader feature flag released Lance refuses. */
    private void assertNoVersionHasOverlays() throws Exception {
        try (Dataset latest = Dataset.open(uri, Map.of())) {
            for (long v = 1; v <= latest.version(); v++) {
                try (Dataset at = latest.checkoutVersion(v)) {
                    Manifest m = at.manifest();
                    assertThat(m.fragments())
                            .as("fragments of version %s", v)
                            .allSatisfy(f -> assertThat(f.overlays()).isEmpty());
                    assertThat(m.readerFeatureFlags() & FeatureFlags.UNSTABLE_DATA_OVERLAY_FILES)
                            .as("reader flag 64 of version %s", v)
                            .isZero();
                }
            }
        }
    }

    private List<String> operations() throws Exception {
        try (Dataset ds = Dataset.open(uri, Map.of())) {
            return ds.versions().stream().map(VersionInfo::operation).toList();
        }
    }

    private Manifest manifest() throws Exception {
        try (Dataset ds = Dataset.open(uri, Map.of())) {
            return ds.manifest();
        }
    }
}
