package dev.lanceflink.it.sink;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lanceflink.committer.core.CommitMarker;
import dev.lanceflink.compact.OverlayCompactor;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.VersionInfo;
import dev.lanceflink.file.writer.FileWriterOptions;
import dev.lanceflink.flink.sink.LanceSinkBuilder;
import dev.lanceflink.flink.sink.LanceSinkMode;
import dev.lanceflink.it.interop.DumpComparator;
import dev.lanceflink.it.interop.OracleProcess;
import dev.lanceflink.it.interop.OurCli;
import dev.lanceflink.overlay.StagedWrite;
import dev.lanceflink.table.FeatureFlags;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.testkit.flink.JobEnvironments;
import dev.lanceflink.testkit.flink.MiniClusters;
import dev.lanceflink.testkit.users.UsersChangelog;
import dev.lanceflink.testkit.users.UsersTable;
import dev.lanceflink.txn.CommitOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #5: the upsert sink and the official Lance SDK (7.0.0, in its own JVM) write the same
 * table at the same time, and neither loses the other's commits.
 *
 * <p>The sink (MiniCluster, parallelism 2, a checkpoint every 300 ms) streams a seeded changelog
 * over the keys {@code [0, 4000)}; the SDK appends rows with ids from {@code 1_000_000} on and
 * deletes some of its own rows ({@code id % 7 = 0}), each append and each delete its own commit
 * ({@code oracle churn}). The changelog's first phase (inserts and deletes only) runs until the SDK
 * has committed several times, so both writers demonstrably interleave; its second phase updates
 * rows, which the sink commits as data overlay files (feature flag 64). From then on released
 * Lance refuses the table, so the SDK's further attempts must fail with exactly that refusal and
 * change nothing.
 *
 * <p>At the end: the versions without the sink's commit marker are exactly the SDK's logged
 * commits, by operation; each sink checkpoint committed once; the sink's key range equals the
 * changelog model cell by cell, and the SDK's range equals the replay of its logged commits; no id
 * appears twice. The SDK refuses the table while overlays are live; after folding them it reads
 * the table exactly as our reader does (dump compare).
 */
class ConcurrentSdkWriterITCase {
    private static final long SINK_KEYS = 4_000;
    private static final long SDK_FIRST_ID = 1_000_000;
    private static final int SDK_ROWS_PER_ROUND = 40;
    private static final int SDK_DELETE_MOD = 7;
    /** SDK commits (appends + deletes) the changelog waits for before its first update. */
    private static final int SDK_COMMITS_BEFORE_UPDATES = 6;

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = MiniClusters.oneTaskManager(4);

    /** The changelog the source emits, and where its update phase starts (static: the map function is serialized). */
    static volatile List<RowData> changes;

    static volatile int updatePhaseStart;
    /** SDK commits seen in the table so far, maintained by the test's version watcher. */
    static final AtomicInteger SDK_COMMITS_SEEN = new AtomicInteger();

    @TempDir
    Path dir;

    @Test
    void sdkCommitsAndSinkCheckpointsInterleaveWithoutLosingEitherWritersChanges() throws Exception {
        String uri = dir.resolve("shared.lance").toString();
        TreeMap<Long, UsersTable.Row> initial = UsersChangelog.everyOtherKey(SINK_KEYS);
        UsersTable.create(uri, Map.of(), initial, 700);
        UsersChangelog log = new UsersChangelog(initial).generateTwoPhases(2026, SINK_KEYS, 6_000, 6_000);
        changes = log.changes;
        updatePhaseStart = log.secondPhaseStart;

        OracleProcess oracle = OracleProcess.fromBuild().withTimeout(Duration.ofSeconds(240));
        Path stop = dir.resolve("stop-sdk");
        CompletableFuture<OracleProcess.Result> sdk = CompletableFuture.supplyAsync(() -> oracle.execute(List.of(
                "churn",
                uri,
                "--first-id",
                Long.toString(SDK_FIRST_ID),
                "--rows-per-round",
                Integer.toString(SDK_ROWS_PER_ROUND),
                "--rounds",
                "2000",
                "--delete-mod",
                Integer.toString(SDK_DELETE_MOD),
                "--pause-ms",
                "40",
                "--stop-file",
                stop.toString())));
        ForeignCommitWatcher watcher = new ForeignCommitWatcher(uri, Map.of(), SDK_COMMITS_SEEN);
        try {
            StreamExecutionEnvironment env = env();
            LanceSinkBuilder.forTable(uri)
                    .mode(LanceSinkMode.UPSERT)
                    .primaryKey("id")
                    .rowsPerFile(1_000)
                    .batchRows(256)
                    .uidSuffix("concurrent-sdk")
                    .sinkTo(env.fromSequence(0, changes.size() - 1)
                            .setParallelism(1)
                            .uid("changes")
                            .map(new GatedChange())
                            .setParallelism(1)
                            .uid("gated-change")
                            .returns(RowData.class));
            env.execute("upsert next to the SDK");
        } finally {
            Files.writeString(stop, "stop");
            watcher.close();
        }
        OracleProcess.Result churn = sdk.get(120, TimeUnit.SECONDS);
        assertThat(churn.exitCode()).as("oracle churn: %s", churn.stderr()).isZero();
        JsonNode sdkLog = churn.json();

        // 1. Versions: the SDK's logged commits are exactly the versions without the sink's marker.
        List<VersionInfo> versions;
        Manifest latest;
        try (Dataset ds = Dataset.open(uri, Map.of())) {
            versions = ds.versions();
            latest = ds.manifest();
        }
        Map<Long, String> sdkCommitted = new TreeMap<>();
        List<String> refusals = new ArrayList<>();
        for (JsonNode op : sdkLog.get("ops")) {
            if (op.has("version")) {
                sdkCommitted.put(op.get("version").asLong(), op.get("op").asText());
            } else {
                refusals.add(op.get("error").asText());
            }
        }
        Map<Long, String> unmarked = new TreeMap<>();
        Set<String> sinkCheckpoints = new HashSet<>();
        for (VersionInfo v : versions) {
            String user = v.properties().get(CommitMarker.COMMIT_USER_KEY);
            if (user == null && v.version() > 1) {
                unmarked.put(v.version(), v.operation());
            } else if (user != null) {
                String checkpoint = v.properties().get(CommitMarker.CHECKPOINT_ID_KEY) + "/"
                        + v.properties().get(CommitMarker.STEP_KEY);
                assertThat(sinkCheckpoints.add(checkpoint))
                        .as("sink checkpoint/step %s committed twice", checkpoint)
                        .isTrue();
            }
        }
        System.out.printf(
                "SDK: %d appends and %d deletes committed, %d attempts refused %s; sink: %d commits"
                        + " (%d updates in the changelog)%n",
                sdkLog.get("appends_committed").asInt(),
                sdkLog.get("deletes_committed").asInt(),
                refusals.size(),
                refusals.stream()
                        .map(e -> e.length() > 160 ? e.substring(0, 160) : e)
                        .distinct()
                        .toList(),
                sinkCheckpoints.size(),
                log.updates);
        Map<Long, String> expectedOps = new TreeMap<>();
        sdkCommitted.forEach((v, op) -> expectedOps.put(v, op.equals("append") ? "Append" : "Delete"));
        assertThat(unmarked).as("versions committed by the SDK, by operation").isEqualTo(expectedOps);
        assertThat(sdkLog.get("appends_committed").asInt()).isGreaterThanOrEqualTo(SDK_COMMITS_BEFORE_UPDATES / 2);
        assertThat(sdkLog.get("deletes_committed").asInt()).isGreaterThanOrEqualTo(SDK_COMMITS_BEFORE_UPDATES / 2);
        assertThat(sinkCheckpoints).hasSizeGreaterThan(5);
        assertThat(refusals)
                .as("SDK attempts that failed: only released Lance's refusal of the overlay feature")
                .allSatisfy(ConcurrentSdkWriterITCase::assertOverlayRefusal);

        // 2. Contents: the sink's keys equal the model, the SDK's rows equal the replay of its log.
        TreeMap<Long, UsersTable.Row> expected = new TreeMap<>(log.model);
        expected.putAll(sdkRows(sdkLog));
        UsersTable.assertLatestEquals(uri, Map.of(), expected, "the sink's model and the SDK's log");
        assertThat(latest.fragments())
                .flatMap(Fragment::overlays)
                .as("updates landed as overlays")
                .isNotEmpty();
        assertThat(latest.readerFeatureFlags() & FeatureFlags.UNSTABLE_DATA_OVERLAY_FILES)
                .isNotZero();

        // 3. Released Lance refuses live overlays; after the fold it reads exactly what we read.
        JsonNode ours = OurCli.run("dump", uri);
        OracleProcess.Result refused = oracle.execute(List.of("dump", uri));
        assertThat(refused.exitCode()).isEqualTo(1);
        assertOverlayRefusal(refused.error());
        foldAllOverlays(uri);
        JsonNode sdkDump = oracle.run("dump", uri);
        DumpComparator.exact()
                .sortedBy("id")
                .assertSame("SDK read of the folded table vs our read before the fold", ours, sdkDump);
        UsersTable.assertLatestEquals(uri, Map.of(), expected, "the sink's model and the SDK's log");
    }

    /**
     * Released Lance's feature-flag refusal ("This dataset cannot be read by this version of Lance
     * ... Flags: N"), with the data overlay bit (64) among the flags it names.
     */
    private static void assertOverlayRefusal(String error) {
        assertThat(error).contains("This dataset cannot be read by this version of Lance");
        Matcher flags = Pattern.compile("Flags: (\\d+)").matcher(error);
        assertThat(flags.find()).as("feature flags named in: %s", error).isTrue();
        assertThat(Long.parseLong(flags.group(1)) & FeatureFlags.UNSTABLE_DATA_OVERLAY_FILES)
                .as("overlay flag among the refused flags in: %s", error)
                .isNotZero();
    }

    // ---- the SDK's expected rows ------------------------------------------------------------------

    /** Replays the SDK's committed appends and deletes; cell values are ChurnCommand's functions of the id. */
    private static TreeMap<Long, UsersTable.Row> sdkRows(JsonNode sdkLog) {
        TreeMap<Long, UsersTable.Row> rows = new TreeMap<>();
        for (JsonNode op : sdkLog.get("ops")) {
            if (!op.has("version")) {
                continue;
            }
            if (op.get("op").asText().equals("append")) {
                for (long id = op.get("first_id").asLong();
                        id < op.get("end_id").asLong();
                        id++) {
                    assertThat(rows.put(id, new UsersTable.Row("sdk-" + id, (int) (id % 100), id / 4.0)))
                            .isNull();
                }
            } else {
                long lo = SDK_FIRST_ID + op.get("round").asLong() * SDK_ROWS_PER_ROUND;
                for (long id = lo; id < lo + SDK_ROWS_PER_ROUND; id++) {
                    if (id % SDK_DELETE_MOD == 0) {
                        assertThat(rows.remove(id))
                                .as("SDK deleted id %s, which it had appended", id)
                                .isNotNull();
                    }
                }
            }
        }
        return rows;
    }

    // ---- table helpers ------------------------------------------------------------------------------

    /** Folds every fragment's overlays into new base files (what the compactor's overlay-fold does). */
    private static void foldAllOverlays(String uri) throws Exception {
        try (BufferAllocator allocator = new RootAllocator();
                Dataset ds = Dataset.open(uri, Map.of())) {
            for (Fragment f : ds.manifest().fragments()) {
                if (!f.overlays().isEmpty()) {
                    try (Dataset current = ds.checkoutLatest()) {
                        Manifest planned = current.manifest();
                        StagedWrite fold = OverlayCompactor.fold(
                                ds.store(), planned, f.id(), allocator, FileWriterOptions.defaults());
                        OverlayCompactor.commit(ds.store(), planned, f.id(), fold, Map.of(), CommitOptions.defaults());
                    }
                }
            }
            try (Dataset folded = ds.checkoutLatest()) {
                assertThat(folded.manifest().fragments())
                        .allSatisfy(f -> assertThat(f.overlays()).isEmpty());
                assertThat(folded.manifest().readerFeatureFlags() & FeatureFlags.UNSTABLE_DATA_OVERLAY_FILES)
                        .isZero();
            }
        }
    }

    private static StreamExecutionEnvironment env() {
        return JobEnvironments.noRestarts(2, 300);
    }

    /**
     * Emits change {@code i}, about one per millisecond; before the first update it waits until the
     * SDK has committed {@link #SDK_COMMITS_BEFORE_UPDATES} times, so both writers really interleave
     * while the table is still readable by released Lance.
     */
    static final class GatedChange extends RichMapFunction<Long, RowData> {
        private static final long serialVersionUID = 1L;

        @Override
        public RowData map(Long i) throws Exception {
            if (i == updatePhaseStart) {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
                while (SDK_COMMITS_SEEN.get() < SDK_COMMITS_BEFORE_UPDATES) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("the SDK committed only " + SDK_COMMITS_SEEN.get()
                                + " times in 90 s; see the oracle's stderr");
                    }
                    Thread.sleep(20);
                }
            }
            if (i % 2 == 0) {
                Thread.sleep(1);
            }
            return changes.get((int) (long) i);
        }
    }
}
