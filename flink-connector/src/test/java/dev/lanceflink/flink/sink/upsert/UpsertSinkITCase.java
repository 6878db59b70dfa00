package dev.lanceflink.flink.sink.upsert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.committer.core.CommitMarker;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.flink.sink.FaultyStoreProvider;
import dev.lanceflink.flink.sink.KeyMapMode;
import dev.lanceflink.flink.sink.LanceSinkBuilder;
import dev.lanceflink.flink.sink.LanceSinkMode;
import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.ManifestLocation;
import dev.lanceflink.table.VersionResolver;
import dev.lanceflink.testkit.flink.JobEnvironments;
import dev.lanceflink.testkit.flink.MiniClusters;
import dev.lanceflink.testkit.users.UsersChangelog;
import dev.lanceflink.testkit.users.UsersChangelog.Mix;
import dev.lanceflink.testkit.users.UsersTable;
import dev.lanceflink.txn.TableHistory;
import dev.lanceflink.txn.Transaction;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The upsert sink end to end on a MiniCluster: a seeded changelog (inserts, updates with and
 * without before-images, deletes, re-inserts) over a table that already holds half of the keys
 * (so the key map is bootstrapped) ends equal to the reference model cell by cell; updates land
 * as overlays, never as deleted and re-inserted rows; injected failures, lost commit responses,
 * committer crashes and a stop-with-savepoint/restore change nothing of that.
 */
class UpsertSinkITCase {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = MiniClusters.oneTaskManager(4);

    /** The changelog the source emits (static: the source function is serialized). */
    static volatile List<RowData> CHANGES;

    static final AtomicInteger WRITER_FAILURES = new AtomicInteger();

    @TempDir
    Path dir;

    private String uri;

    @BeforeEach
    void reset() {
        FaultyStoreProvider.reset();
        WRITER_FAILURES.set(0);
        uri = dir.resolve("users.lance").toString();
    }

    private void createTable(Map<Long, UsersTable.Row> rows) throws Exception {
        UsersTable.create(uri, rows, rows.size() / 3 + 1);
    }

    private static StreamExecutionEnvironment env(int parallelism, int restarts, String savepoint) {
        return JobEnvironments.streaming(parallelism, 200, restarts, Duration.ofMillis(20), savepoint);
    }

    private LanceSinkBuilder sink(String tableUri) {
        return LanceSinkBuilder.forTable(tableUri)
                .mode(LanceSinkMode.UPSERT)
                .primaryKey("id")
                .rowsPerFile(900)
                .batchRows(256)
                .uidSuffix("upsert-it")
                .commitRetries(2)
                .commitRetryBackoff(Duration.ZERO);
    }

    /** The changelog, in order (one source subtask), throttled so that it spans many checkpoints. */
    private static void pipeline(StreamExecutionEnvironment env, int perMilli, int failAfter, LanceSinkBuilder sink) {
        sink.sinkTo(env.fromSequence(0, ChangeAt.sequenceEnd())
                .setParallelism(1)
                .uid("changes")
                .map(new ChangeAt(perMilli, failAfter))
                .setParallelism(1)
                .uid("change-at")
                .returns(RowData.class));
    }

    @Test
    void upsertChangelogEndsEqualToTheModelWithUpdatesAsOverlays() throws Exception {
        TreeMap<Long, UsersTable.Row> initial = Mix.SINK_TESTS.initialRows(5_000);
        createTable(initial);
        UsersChangelog m = new UsersChangelog(initial, Mix.SINK_TESTS).generate(42, 200_000, 10_000, false);
        CHANGES = m.changes;
        StreamExecutionEnvironment env = env(3, 0, null);
        pipeline(env, 100, 0, sink(uri));
        env.execute("upsert");

        assertTableEquals(m.model);
        Manifest manifest = manifest();
        assertRowsOnlyInsertedForNewKeys(manifest, initial.size(), m);
        long overlays = manifest.fragments().stream()
                .mapToLong(f -> f.overlays().size())
                .sum();
        assertThat(overlays).as("updates land as overlays").isGreaterThan(0);
        assertThat(m.updates).isGreaterThan(100_000);
    }

    @Test
    void targetColumnListOverlaysOnlyThoseColumns() throws Exception {
        TreeMap<Long, UsersTable.Row> initial = Mix.SINK_TESTS.initialRows(2_000);
        createTable(initial);
        UsersChangelog m = new UsersChangelog(initial, Mix.SINK_TESTS).generate(7, 30_000, 3_000, true);
        CHANGES = m.changes;
        StreamExecutionEnvironment env = env(2, 0, null);
        pipeline(env, 100, 0, sink(uri).writtenColumns("id", "age"));
        env.execute("age only");

        assertTableEquals(m.model);
        Manifest manifest = manifest();
        int ageId = manifest.schema().fields().get(2).id();
        assertThat(manifest.fragments())
                .flatMap(Fragment::overlays)
                .isNotEmpty()
                .allSatisfy(o -> assertThat(o.dataFile().fields()).containsExactly(ageId));
    }

    /** In-memory mode on RocksDB too: its restore looks for keyed map entries in the RocksDB backend. */
    @ParameterizedTest
    @EnumSource(KeyMapMode.class)
    void keyMapOnRocksDbWithARestartEndsEqualToTheModel(KeyMapMode keyMap) throws Exception {
        TreeMap<Long, UsersTable.Row> initial = Mix.SINK_TESTS.initialRows(3_000);
        createTable(initial);
        UsersChangelog m = new UsersChangelog(initial, Mix.SINK_TESTS).generate(314, 40_000, 6_000, false);
        CHANGES = m.changes;
        WRITER_FAILURES.set(1);
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 5);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(20));
        conf.setString("state.backend.type", "rocksdb");
        conf.setString("execution.checkpointing.incremental", "true");
        conf.setString(
                "execution.checkpointing.dir",
                dir.resolve("checkpoints").toUri().toString());
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(2);
        env.enableCheckpointing(300);
        pipeline(env, 50, 15_000, sink(uri).keyMap(keyMap));
        env.execute("upsert with RocksDB");

        assertThat(WRITER_FAILURES.get()).isZero();
        assertTableEquals(m.model);
        assertRowsOnlyInsertedForNewKeys(manifest(), initial.size(), m);
    }

    @ParameterizedTest
    @EnumSource(KeyMapMode.class)
    void twentyFailuresOfWritersAndCommitterLeaveTheModelsTable(KeyMapMode keyMap) throws Exception {
        TreeMap<Long, UsersTable.Row> initial = Mix.SINK_TESTS.initialRows(3_000);
        createTable(initial);
        UsersChangelog m = new UsersChangelog(initial, Mix.SINK_TESTS).generate(99, 60_000, 6_000, false);
        CHANGES = m.changes;
        WRITER_FAILURES.set(6);
        FaultyStoreProvider.FAULTS.failNextPublications(5);
        FaultyStoreProvider.FAULTS.loseNextResponses(5);
        FaultyStoreProvider.FAULTS.crashAfterNextPublications(5);
        StreamExecutionEnvironment env = env(3, 60, null);
        pipeline(env, 30, 2_500, sink("faulty://" + uri).keyMap(keyMap));
        env.execute("upsert under failures");

        assertThat(WRITER_FAILURES.get()).isZero();
        assertThat(FaultyStoreProvider.FAULTS.injected()).isEqualTo(15);
        assertTableEquals(m.model);
        assertRowsOnlyInsertedForNewKeys(manifest(), initial.size(), m);
    }

    @ParameterizedTest
    @EnumSource(KeyMapMode.class)
    void stopWithSavepointAndRestoreIntoANewJobKeepsTheModel(KeyMapMode keyMap) throws Exception {
        TreeMap<Long, UsersTable.Row> initial = Mix.SINK_TESTS.initialRows(1_000);
        createTable(initial);
        UsersChangelog m = new UsersChangelog(initial, Mix.SINK_TESTS).generate(5, 30_000, 2_000, false);
        CHANGES = m.changes;
        StreamExecutionEnvironment first = env(2, 0, null);
        pipeline(first, 5, 0, sink(uri).keyMap(keyMap));
        JobClient job = first.executeAsync("before savepoint");
        waitForVersions(4);
        String savepoint = job.stopWithSavepoint(
                        false, dir.resolve("sp").toUri().toString(), SavepointFormatType.CANONICAL)
                .get(60, TimeUnit.SECONDS);

        StreamExecutionEnvironment second = env(3, 0, savepoint);
        pipeline(second, 100, 0, sink(uri).keyMap(keyMap));
        second.execute("restored with another parallelism");
        assertTableEquals(m.model);

        StreamExecutionEnvironment stale = env(2, 0, savepoint);
        pipeline(stale, 100, 0, sink(uri).keyMap(keyMap));
        assertThatThrownBy(() -> stale.execute("stale restore"))
                .satisfies(e -> assertThat(ExceptionUtils.stringifyException(e))
                        .contains("already holds its commit of checkpoint"));
        assertTableEquals(m.model);
    }

    /**
     * A failure no restart can cure stops the job at once, however many restarts its strategy
     * allows: here state of the in-memory key map, restored into a keyed-state job allowed 1,000
     * restarts 30 s apart (each restart would restore the same state and fail the same way). The
     * job fails with the message saying what to do, before a first restart could have begun.
     */
    @Test
    void stateOfTheInMemoryKeyMapStopsAKeyedStateJobWithoutARestart() throws Exception {
        TreeMap<Long, UsersTable.Row> initial = Mix.SINK_TESTS.initialRows(1_000);
        createTable(initial);
        CHANGES = new UsersChangelog(initial, Mix.SINK_TESTS).generate(5, 30_000, 2_000, false).changes;
        StreamExecutionEnvironment inMemory = env(2, 0, null);
        pipeline(inMemory, 5, 0, sink(uri)); // the default: in-memory
        JobClient first = inMemory.executeAsync("in-memory key map");
        waitForVersions(3);
        String savepoint = first.stopWithSavepoint(
                        false, dir.resolve("sp").toUri().toString(), SavepointFormatType.CANONICAL)
                .get(60, TimeUnit.SECONDS);
        long versions = versions();

        Duration restartDelay = Duration.ofSeconds(30);
        StreamExecutionEnvironment keyed = JobEnvironments.streaming(2, 200, 1_000, restartDelay, savepoint);
        pipeline(keyed, 100, 0, sink(uri).keyMap(KeyMapMode.KEYED_STATE));
        JobClient restored = keyed.executeAsync("restored with the keyed-state key map");
        try {
            assertThatThrownBy(
                            () -> restored.getJobExecutionResult().get(restartDelay.toSeconds() - 10, TimeUnit.SECONDS))
                    .as("the job fails before a first restart (%s after the failure) could begin", restartDelay)
                    .satisfies(e -> assertThat(ExceptionUtils.stringifyException(e))
                            .contains("is restored from state written with 'sink.key-map' = 'in-memory'")
                            .contains("restore with 'sink.key-map' = 'in-memory'")
                            .contains("the job is stopped, not restarted"));
            assertThat(restored.getJobStatus().get(10, TimeUnit.SECONDS)).isEqualTo(JobStatus.FAILED);
        } finally {
            if (!restored.getJobStatus().get(10, TimeUnit.SECONDS).isGloballyTerminalState()) {
                restored.cancel().get(60, TimeUnit.SECONDS);
            }
        }
        assertThat(versions()).as("nothing committed by the refused job").isEqualTo(versions);
    }

    /**
     * The default key map is in-memory; a savepoint taken with keyed state (the default before)
     * restores into it, rescaled from 2 to 3, and the job ends equal to the model: with the
     * savepoint's commit landed, and with it not landed (its version removed from the table, so
     * that Flink's re-commit of the restored checkpoint races the resolvers' start; the keyed map
     * has no tombstones, so a scan of the table before that commit would revive the keys the
     * checkpoint deleted, and lose the ones it inserted).
     */
    @ParameterizedTest(name = "savepoint commit landed before the restore: {0}")
    @ValueSource(booleans = {false, true})
    void keyedStateSavepointRestoresIntoTheDefaultKeyMap(boolean commitLanded) throws Exception {
        TreeMap<Long, UsersTable.Row> initial = Mix.SINK_TESTS.initialRows(1_000);
        createTable(initial);
        UsersChangelog m = new UsersChangelog(initial, Mix.SINK_TESTS).generate(23, 30_000, 2_000, false);
        CHANGES = m.changes;
        StreamExecutionEnvironment keyed = env(2, 0, null);
        pipeline(keyed, 5, 0, sink(uri).keyMap(KeyMapMode.KEYED_STATE));
        JobClient job = keyed.executeAsync("keyed-state key map");
        waitForVersions(4);
        String savepoint = job.stopWithSavepoint(
                        false, dir.resolve("sp").toUri().toString(), SavepointFormatType.CANONICAL)
                .get(60, TimeUnit.SECONDS);
        if (!commitLanded) {
            removeLatestCommit();
        }

        StreamExecutionEnvironment restored = env(3, 0, savepoint);
        pipeline(restored, 100, 0, sink(uri)); // the default: in-memory
        restored.execute("restored with the default key map");
        assertTableEquals(m.model);
        assertRowsOnlyInsertedForNewKeys(manifest(), initial.size(), m);
    }

    /** Removes the latest version, a commit of the sink (its data files stay): as if it had not landed. */
    private void removeLatestCommit() throws Exception {
        try (ObjectStore store = new LocalObjectStore(Path.of(uri))) {
            ManifestLocation latest = VersionResolver.latest(store);
            TableHistory.Committed committed =
                    new TableHistory(store).version(latest.version()).orElseThrow();
            Transaction t = committed.transaction().orElseThrow();
            assertThat(CommitMarker.fromProperties(t.properties(), "the latest version"))
                    .as("the latest version is a commit of the sink")
                    .isPresent();
            store.delete(latest.path());
            store.delete(VersionResolver.HINT_PATH);
            assertThat(VersionResolver.latest(store).version()).isEqualTo(latest.version() - 1);
        }
    }

    /**
     * Keyed state kept proportional to the changes (issue #17): RocksDB with incremental
     * checkpoints. A keyed-state job on heap state is stopped with a canonical
     * savepoint, continued on RocksDB incremental from it, cancelled with its checkpoints
     * retained, and a third job resumes from that incremental checkpoint to the end.
     */
    @Test
    void heapSavepointContinuesOnRocksDbIncrementalAndItsRetainedCheckpointRestores() throws Exception {
        TreeMap<Long, UsersTable.Row> initial = Mix.SINK_TESTS.initialRows(2_000);
        createTable(initial);
        UsersChangelog m = new UsersChangelog(initial, Mix.SINK_TESTS).generate(17, 20_000, 3_000, false);
        CHANGES = m.changes;
        StreamExecutionEnvironment heap = env(2, 0, null);
        pipeline(heap, 5, 0, sink(uri).keyMap(KeyMapMode.KEYED_STATE));
        JobClient heapJob = heap.executeAsync("heap state");
        waitForVersions(3);
        String savepoint = heapJob.stopWithSavepoint(
                        false, dir.resolve("sp").toUri().toString(), SavepointFormatType.CANONICAL)
                .get(60, TimeUnit.SECONDS);

        Path checkpoints = dir.resolve("rocksdb-checkpoints");
        StreamExecutionEnvironment rocks = rocksDbIncremental(savepoint, checkpoints);
        pipeline(rocks, 5, 0, sink(uri).keyMap(KeyMapMode.KEYED_STATE));
        JobClient rocksJob = rocks.executeAsync("RocksDB incremental from the heap savepoint");
        int versionsBefore = (int) versions();
        waitForVersions(versionsBefore + 3);
        rocksJob.cancel().get(60, TimeUnit.SECONDS);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!rocksJob.getJobStatus().get().isGloballyTerminalState()) {
            assertThat(System.nanoTime()).as("waiting for the cancellation").isLessThan(deadline);
            Thread.sleep(20);
        }
        String retained =
                retainedCheckpoint(checkpoints.resolve(rocksJob.getJobID().toString()));

        StreamExecutionEnvironment resumed = rocksDbIncremental(retained, dir.resolve("rocksdb-checkpoints-2"));
        pipeline(resumed, 100, 0, sink(uri).keyMap(KeyMapMode.KEYED_STATE));
        resumed.execute("RocksDB incremental from its retained checkpoint");
        assertTableEquals(m.model);
        assertRowsOnlyInsertedForNewKeys(manifest(), initial.size(), m);
    }

    private static StreamExecutionEnvironment rocksDbIncremental(String restoreFrom, Path checkpoints) {
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        conf.setString("state.backend.type", "rocksdb");
        conf.setString("execution.checkpointing.incremental", "true");
        // The README's options for large tables: bloom filters and a small level 1 of small files.
        conf.setString("state.backend.rocksdb.use-bloom-filter", "true");
        conf.setString("state.backend.rocksdb.compaction.level.max-size-level-base", "4mb");
        conf.setString("state.backend.rocksdb.compaction.level.target-file-size-base", "1mb");
        conf.setString("execution.checkpointing.dir", checkpoints.toUri().toString());
        conf.setString("execution.checkpointing.externalized-checkpoint-retention", "RETAIN_ON_CANCELLATION");
        conf.set(StateRecoveryOptions.SAVEPOINT_PATH, restoreFrom);
        conf.setString("execution.state-recovery.claim-mode", "CLAIM");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(2);
        env.enableCheckpointing(200);
        return env;
    }

    /** The one completed checkpoint a cancelled job left (Flink retains the latest). */
    private static String retainedCheckpoint(Path jobCheckpoints) throws Exception {
        try (var chk = Files.list(jobCheckpoints)) {
            List<Path> done = chk.filter(
                            p -> p.getFileName().toString().startsWith("chk-") && Files.exists(p.resolve("_metadata")))
                    .toList();
            assertThat(done).as("retained checkpoints in %s", jobCheckpoints).hasSize(1);
            return done.get(0).toUri().toString();
        }
    }

    /**
     * Keyed state: the restored map still names the rows another writer deleted while the job was
     * down, so their keys' updates are dropped. (The in-memory map is rebuilt from the table on a
     * restore: those keys are absent then, and an upsert inserts a new row, as on a first start.)
     */
    @Test
    void rowsAnotherWriterDeletedAreNotRevivedByLaterUpdates() throws Exception {
        TreeMap<Long, UsersTable.Row> initial = Mix.SINK_TESTS.initialRows(100);
        createTable(initial);
        // Job 1 bootstraps the key map and updates a few rows, then idles until stopped.
        List<RowData> first = new ArrayList<>();
        for (long id = 0; id < 5; id++) {
            first.add(GenericRowData.ofKind(RowKind.UPDATE_AFTER, id, StringData.fromString("j1-" + id), 1, 1.0));
        }
        CHANGES = first;
        StreamExecutionEnvironment env1 = env(2, 0, null);
        sink(uri)
                .keyMap(KeyMapMode.KEYED_STATE)
                .sinkTo(env1.fromSequence(0, 1_000_000)
                        .setParallelism(1)
                        .uid("changes-1")
                        .flatMap(new ChangesThenIdle())
                        .setParallelism(1)
                        .uid("to-change-1")
                        .returns(RowData.class));
        JobClient job = env1.executeAsync("bootstrap");
        waitForVersions(2);
        String savepoint = job.stopWithSavepoint(
                        false, dir.resolve("sp").toUri().toString(), SavepointFormatType.CANONICAL)
                .get(60, TimeUnit.SECONDS);

        // Another writer deletes keys 10..19 while the sink is down.
        try (Dataset ds = Dataset.open(uri, Map.of())) {
            ds.delete("id >= 10 AND id < 20").close();
        }
        // Job 2 (restored key map) updates keys 10..29: 10..19 must stay deleted.
        List<RowData> second = new ArrayList<>();
        for (long id = 10; id < 30; id++) {
            second.add(GenericRowData.ofKind(RowKind.UPDATE_AFTER, id, StringData.fromString("j2-" + id), 99, 9.0));
        }
        CHANGES = second;
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        conf.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
        conf.set(StateRecoveryOptions.SAVEPOINT_IGNORE_UNCLAIMED_STATE, true);
        StreamExecutionEnvironment env2 = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env2.setParallelism(2);
        env2.enableCheckpointing(200);
        sink(uri)
                .keyMap(KeyMapMode.KEYED_STATE)
                .sinkTo(env2.fromSequence(0, second.size() - 1)
                        .setParallelism(1)
                        .uid("changes-2")
                        .map(new ChangeAt(100, 0))
                        .setParallelism(1)
                        .uid("to-change-2")
                        .returns(RowData.class));
        env2.execute("after the other writer's delete");

        TreeMap<Long, UsersTable.Row> expected = new TreeMap<>(initial);
        for (long id = 0; id < 5; id++) {
            expected.put(id, new UsersTable.Row("j1-" + id, 1, 1.0));
        }
        for (long id = 10; id < 20; id++) {
            expected.remove(id);
        }
        for (long id = 20; id < 30; id++) {
            expected.put(id, new UsersTable.Row("j2-" + id, 99, 9.0));
        }
        assertTableEquals(expected);
    }

    /** Emits {@link #CHANGES} once, then nothing (slowly), so that the job runs until it is stopped. */
    static final class ChangesThenIdle implements org.apache.flink.api.common.functions.FlatMapFunction<Long, RowData> {
        private static final long serialVersionUID = 1L;

        @Override
        public void flatMap(Long i, org.apache.flink.util.Collector<RowData> out) throws Exception {
            if (i < CHANGES.size()) {
                out.collect(CHANGES.get((int) (long) i));
            } else {
                Thread.sleep(5);
            }
        }
    }

    @Test
    void nullKeyAndNullInNotNullColumnFailNamingTheColumnAndCommitNothing() throws Exception {
        createTable(Mix.SINK_TESTS.initialRows(10));
        long versionsBefore = versions();
        CHANGES = List.of(GenericRowData.ofKind(RowKind.INSERT, null, StringData.fromString("x"), 1, 1.0));
        StreamExecutionEnvironment env = env(2, 0, null);
        pipeline(env, 100, 0, sink(uri));
        assertThatThrownBy(() -> env.execute("null key"))
                .satisfies(e ->
                        assertThat(ExceptionUtils.stringifyException(e)).contains("NULL in primary key column 'id'"));
        assertThat(versions()).isEqualTo(versionsBefore);

        assertThatThrownBy(() -> sink(uri)
                        .primaryKey("nope")
                        .sinkTo(env(1, 0, null).fromData((RowData) GenericRowData.of(1L, null, 1, 1.0))))
                .hasMessageContaining("The primary key column 'nope' is not a column of");
    }

    // ---- helpers ------------------------------------------------------------------------------

    private void assertTableEquals(TreeMap<Long, UsersTable.Row> expected) throws Exception {
        UsersTable.assertLatestEquals(uri, Map.of(), expected);
    }

    /**
     * Updates are overlays: rows are only ever written for new keys (fewer when a key is inserted
     * and deleted within one checkpoint), and only deletes hide rows.
     */
    private static void assertRowsOnlyInsertedForNewKeys(Manifest manifest, long initialRows, UsersChangelog m) {
        long physical =
                manifest.fragments().stream().mapToLong(Fragment::physicalRows).sum();
        assertThat(physical).as("rows written").isLessThanOrEqualTo(initialRows + m.inserts);
        long live = m.model.size();
        assertThat(physical - live).as("rows hidden by deletion vectors").isLessThanOrEqualTo(m.deletes);
    }

    private Manifest manifest() throws Exception {
        try (Dataset ds = Dataset.open(uri, Map.of())) {
            return ds.manifest();
        }
    }

    private long versions() throws Exception {
        try (Dataset ds = Dataset.open(uri, Map.of())) {
            return ds.versions().size();
        }
    }

    private void waitForVersions(int count) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (versions() < count) {
            assertThat(System.nanoTime()).as("waiting for %s versions", count).isLessThan(deadline);
            Thread.sleep(50);
        }
    }

    /**
     * Emits change {@code i}; sleeps 1 ms per {@code perMilli} changes; optionally fails now and
     * then. Past the changelog's end ({@link #sequenceEnd}) it repeats the last change, which is
     * idempotent (that key's final state), slowly while injected faults are still pending and
     * quickly after: a fault budget must meet enough commits however fast the machine ran the
     * changelog, and since a checkpoint commits as one version there are fewer commits than changes
     * suggest.
     */
    static final class ChangeAt extends RichMapFunction<Long, RowData> {
        /** Changes past the changelog: up to 10 s of slow repetitions while faults are pending. */
        private static final int TAIL = 100_000;

        private static final long serialVersionUID = 1L;
        private final int perMilli;
        private final int failAfter;
        private transient long seen;

        ChangeAt(int perMilli, int failAfter) {
            this.perMilli = perMilli;
            this.failAfter = failAfter;
        }

        /** The last index a source feeding this function emits: the changelog, then the tail. */
        static long sequenceEnd() {
            return CHANGES.size() - 1L + TAIL;
        }

        @Override
        public RowData map(Long i) throws Exception {
            seen++;
            boolean tail = i >= CHANGES.size();
            int pace = tail ? 10 : perMilli;
            if (seen % pace == 0 && (!tail || faultsPending())) {
                Thread.sleep(1);
            }
            if (failAfter > 0 && seen % failAfter == 0 && WRITER_FAILURES.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                throw new IllegalStateException("injected failure upstream of the writers after " + seen + " records");
            }
            return CHANGES.get((int) Math.min(i, CHANGES.size() - 1L));
        }

        private static boolean faultsPending() {
            return FaultyStoreProvider.FAULTS.pending() > 0 || WRITER_FAILURES.get() > 0;
        }
    }
}
