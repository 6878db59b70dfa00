package dev.lanceflink.it.sink;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.VersionInfo;
import dev.lanceflink.flink.sink.LanceSinkBuilder;
import dev.lanceflink.flink.sink.LanceSinkMode;
import dev.lanceflink.it.interop.DumpComparator;
import dev.lanceflink.it.interop.OurCli;
import dev.lanceflink.it.interop.PylanceOracle;
import dev.lanceflink.it.maintenance.VersionsByWriter;
import dev.lanceflink.s3.S3ProxyExtension;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.testkit.flink.JobEnvironments;
import dev.lanceflink.testkit.flink.MiniClusters;
import dev.lanceflink.testkit.users.UsersChangelog;
import dev.lanceflink.testkit.users.UsersTable;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The upsert sink and current Lance (pylance, overlays enabled) write the same table at the same
 * time, on the local file system and on S3, and neither loses, doubles or garbles the other's
 * commits. Unlike released SDK 7.0.0 ({@link ConcurrentSdkWriterITCase}), current Lance reads and
 * writes data overlay files, so both writers commit overlays to the same table all along.
 *
 * <p>The sink (MiniCluster, parallelism 2, a checkpoint every 300 ms) streams the seeded changelog
 * of {@link UsersChangelog#generateTwoPhases} over the keys {@code [0, 4000)}: inserts and deletes, then updates too,
 * which it commits as overlays. pylance ({@code pylance_oracle.py churn}) loops until told to stop:
 * each round appends its own id range from {@code 1_000_000} on, deletes that round's
 * {@code id % 7 = 0} rows and commits a {@code DataOverlay} setting {@code age} of some of its
 * earlier rows (several overlays per fragment over time, the newest winning), each its own commit
 * that Lance rebases over the sink's as it does. The changelog starts only once pylance has
 * committed a round and an overlay, so both writers demonstrably interleave. Every few rounds
 * pylance also compacts the table ({@code compact_files}): the sink's rows move under it, and the
 * sink follows them.
 *
 * <p>At the end: the versions without the sink's commit marker are exactly pylance's logged
 * commits, by operation, and pylance committed between the sink's commits; every sink
 * checkpoint/step committed once; the table equals the sink's model plus the replay of pylance's
 * log, cell by cell; pylance reads it exactly as our reader does. Then pylance compacts the table
 * once more and both readers still agree, with the same rows.
 */
class ConcurrentPylanceWriterITCase {
    @RegisterExtension
    static final S3ProxyExtension S3 = new S3ProxyExtension();

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = MiniClusters.oneTaskManager(4);

    private static final long SINK_KEYS = 4_000;
    private static final long PY_FIRST_ID = 1_000_000;
    private static final int PY_ROWS_PER_ROUND = 40;
    private static final int PY_DELETE_MOD = 7;
    /** Every this many rounds pylance compacts the table (a Rewrite moving the sink's rows too). */
    private static final int PY_COMPACT_EVERY = 4;
    /** Round 0's append and delete, round 1's append, delete and first overlay. */
    private static final int PY_COMMITS_BEFORE_START = 5;
    /** pylance commits of each kind that must land between the sink's first and last commit. */
    private static final int PY_COMMITS_AMID_SINK = 2;

    /** The changelog the source emits (static: the map function is serialized). */
    static volatile List<RowData> changes;
    /** pylance commits seen in the table so far, maintained by the test's watcher. */
    static final AtomicInteger PY_COMMITS_SEEN = new AtomicInteger();
    /** pylance compactions seen in the table after the sink's first commit. */
    static final AtomicInteger PY_REWRITES_AMID_SINK = new AtomicInteger();

    /**
     * Where the table lives, and pylance's pause after each of its commits there (locally it
     * keeps pylance from taking most of a loaded machine's CPU, and the history short). On S3 (S3Proxy
     * on this machine) one commit attempt of the sink takes about half a second; at pylance's
     * unpaused pace there (a commit every 0.1-0.3 s) the sink lost race after race and its steps
     * waited up to 13 s, so the changelog landed in two or three checkpoints. The pause leaves the
     * sink room for a commit now and then while pylance still commits between the sink's commits.
     */
    enum Store {
        LOCAL(60),
        S3(300);

        final int pylancePauseMillis;

        Store(int pylancePauseMillis) {
            this.pylancePauseMillis = pylancePauseMillis;
        }
    }

    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0}")
    @EnumSource(Store.class)
    void sinkAndPylanceCommitTogetherAndEveryCommitLandsOnce(Store store) throws Exception {
        long started = System.nanoTime();
        Map<String, String> storage = store == Store.S3 ? S3.server().storageOptions() : Map.of();
        String uri = store == Store.S3
                ? "s3://" + S3.server().createBucket("concurrent-pylance") + "/shared-" + System.nanoTime() + ".lance"
                : dir.resolve("shared.lance").toString();
        List<String> storageArgs = new ArrayList<>();
        storage.forEach((k, v) -> storageArgs.addAll(List.of("--storage-option", k + "=" + v)));

        TreeMap<Long, UsersTable.Row> initial = UsersChangelog.everyOtherKey(SINK_KEYS);
        UsersTable.create(uri, storage, initial, 700);
        UsersChangelog log = new UsersChangelog(initial).generateTwoPhases(2027, SINK_KEYS, 4_000, 5_000);
        changes = log.changes;

        PylanceOracle pylance = PylanceOracle.fromBuild().withOverlays();
        Path stop = dir.resolve("stop-pylance");
        List<String> churnArgs = new ArrayList<>(List.of(
                "churn",
                uri,
                "--first-id",
                Long.toString(PY_FIRST_ID),
                "--rows-per-round",
                Integer.toString(PY_ROWS_PER_ROUND),
                "--rounds",
                "2000",
                "--delete-mod",
                Integer.toString(PY_DELETE_MOD),
                "--pause-ms",
                Integer.toString(store.pylancePauseMillis),
                "--stop-file",
                stop.toString(),
                "--compact-every",
                Integer.toString(PY_COMPACT_EVERY)));
        churnArgs.addAll(storageArgs);
        // Its own thread: the churn blocks until the stop file appears.
        ExecutorService churnThread = Executors.newSingleThreadExecutor();
        CompletableFuture<PylanceOracle.Result> churn =
                CompletableFuture.supplyAsync(() -> pylance.execute(churnArgs), churnThread);
        long sinkMillis;
        try (ForeignCommitWatcher watcher =
                new ForeignCommitWatcher(uri, storage, PY_COMMITS_SEEN, PY_REWRITES_AMID_SINK)) {
            long sinkStarted = System.nanoTime();
            try {
                StreamExecutionEnvironment env = env();
                LanceSinkBuilder.forTable(uri)
                        .storageOptions(storage)
                        .mode(LanceSinkMode.UPSERT)
                        .primaryKey("id")
                        .rowsPerFile(1_000)
                        .batchRows(256)
                        .uidSuffix("concurrent-pylance")
                        .sinkTo(env.fromSequence(0, changes.size() - 1)
                                .setParallelism(1)
                                .uid("changes")
                                .map(new GatedChange())
                                .setParallelism(1)
                                .uid("gated-change")
                                .returns(RowData.class));
                env.execute("upsert next to pylance (" + store + ")");
            } finally {
                Files.writeString(stop, "stop");
                sinkMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sinkStarted);
            }
        }
        PylanceOracle.Result churned;
        try {
            churned = churn.get(180, TimeUnit.SECONDS);
        } finally {
            churnThread.shutdown();
        }
        assertThat(churned.exitCode())
                .as("pylance churn: %s; stderr: %s", churned.json(), churned.stderr())
                .isZero();
        JsonNode pyLog = churned.json();

        // 1. Versions: pylance's logged commits are exactly the versions without the sink's marker.
        VersionsByWriter history = VersionsByWriter.read(uri, storage);
        history.assertContiguous();
        history.assertSinkCommitsExactlyOnce();
        Map<Long, String> foreign = new TreeMap<>();
        long foreignCompactions = 0;
        for (VersionInfo v : history.others()) {
            if (v.version() > 1) {
                // compact_files commits its Rewrite (sometimes after reserving fragment ids, a version of
                // its own) at a version the churn log cannot name exactly: counted apart.
                if (v.operation().equals("Rewrite")) {
                    foreignCompactions++;
                } else if (!v.operation().equals("ReserveFragments")) {
                    foreign.put(v.version(), v.operation());
                }
            }
        }
        Map<Long, String> pyCommitted = new TreeMap<>();
        List<String> failures = new ArrayList<>();
        long lastVersion = 0;
        long compactions = 0;
        for (JsonNode op : pyLog.get("ops")) {
            if (op.get("op").asText().equals("compact")) {
                // A compaction may lose to the sink's commit of the same fragments (Lance's rule for a
                // Rewrite), or have nothing to do; any other operation must rebase over the sink's.
                compactions += op.has("version") ? 1 : 0;
            } else if (op.has("version")) {
                long v = op.get("version").asLong();
                assertThat(v)
                        .as("pylance's own commits come in its order: %s", op)
                        .isGreaterThan(lastVersion);
                lastVersion = v;
                pyCommitted.put(v, lanceOperation(op.get("op").asText()));
            } else {
                failures.add(op.toString());
            }
        }
        long firstSink = history.sinkCommits().get(0).version();
        long lastSink =
                history.sinkCommits().get(history.sinkCommits().size() - 1).version();
        Map<String, Integer> amidSink = new TreeMap<>();
        pyCommitted.forEach((v, op) -> {
            if (v > firstSink && v < lastSink) {
                amidSink.merge(op, 1, Integer::sum);
            }
        });
        long compactionsAmidSink = history.others().stream()
                .filter(v -> v.operation().equals("Rewrite") && v.version() > firstSink && v.version() < lastSink)
                .count();
        assertThat(compactionsAmidSink)
                .as("pylance compactions between the sink's first and last commit (rows moved"
                        + " under the running sink)")
                .isPositive();
        long sinkOverlays = VersionsByWriter.sinkOverlayCommits(uri, storage);
        long longestSinkGap = 0;
        for (int i = 1; i < history.sinkCommits().size(); i++) {
            longestSinkGap = Math.max(
                    longestSinkGap,
                    history.sinkCommits().get(i).timestamp().toEpochMilli()
                            - history.sinkCommits().get(i - 1).timestamp().toEpochMilli());
        }
        System.out.printf(
                "%s: pylance committed %d appends, %d deletes, %d overlays (%s between the sink's first and"
                        + " last commit, versions %d..%d), %d failed attempts; sink: %d commits (%d overlay commits, longest"
                        + " gap between two %d ms) in %d ms; %d versions%n",
                store,
                pyLog.get("appends_committed").asInt(),
                pyLog.get("deletes_committed").asInt(),
                pyLog.get("overlays_committed").asInt(),
                amidSink,
                firstSink,
                lastSink,
                failures.size(),
                history.sinkCommits().size(),
                sinkOverlays,
                longestSinkGap,
                sinkMillis,
                history.all().size());
        assertThat(failures)
                .as("pylance attempts that failed (current Lance must rebase over every sink commit)")
                .isEmpty();
        assertThat(foreign).as("versions committed by pylance, by operation").isEqualTo(pyCommitted);
        assertThat(foreignCompactions)
                .as("pylance's compactions (Rewrite versions)")
                .isEqualTo(compactions)
                .isPositive();
        assertThat(amidSink)
                .as("pylance commits between the sink's first and last commit, by operation")
                .containsOnlyKeys("Append", "Delete", "DataOverlay")
                .allSatisfy((op, n) -> assertThat(n).as(op).isGreaterThanOrEqualTo(PY_COMMITS_AMID_SINK));
        // How many checkpoints the update phase spans depends on the machine's load (2 were seen on a
        // loaded one); that the sink commits overlays at all among pylance's commits is the point.
        assertThat(sinkOverlays).as("sink commits of overlays").isPositive();

        // 2. Contents: the sink's keys equal its model, pylance's rows the replay of its log.
        TreeMap<Long, UsersTable.Row> expected = new TreeMap<>(log.model);
        expected.putAll(pylanceRows(pyLog));
        UsersTable.assertLatestEquals(uri, storage, expected, "the sink's model and pylance's log (" + store + ")");

        // 3. pylance reads the table exactly as we do.
        assertSameReads(pylance, uri, storageArgs, "both writers' table on " + store);

        // 4. pylance compacts it; both still read the same rows.
        int fragmentsBefore;
        try (Dataset ds = Dataset.open(uri, storage)) {
            fragmentsBefore = ds.manifest().fragments().size();
        }
        Path compact = dir.resolve("compact.json");
        Files.writeString(compact, "[{\"op\": \"compact\"}]", StandardCharsets.UTF_8);
        List<String> compactArgs = new ArrayList<>(List.of("ops", uri, compact.toString()));
        compactArgs.addAll(storageArgs);
        pylance.run(compactArgs.toArray(String[]::new));
        try (Dataset ds = Dataset.open(uri, storage)) {
            Manifest m = ds.manifest();
            assertThat(ds.versions().get(ds.versions().size() - 1).operation())
                    .as("pylance's compaction commit")
                    .isEqualTo("Rewrite");
            // The churn's own compactions may have left one fragment already; compacting it then only
            // materializes its deletions.
            assertThat(m.fragments())
                    .as("fragments after pylance's compaction (before: %s)", fragmentsBefore)
                    .hasSizeLessThan(Math.max(2, fragmentsBefore));
            System.out.printf(
                    "%s: pylance compacted %d fragments into %d (%d still with overlays)%n",
                    store,
                    fragmentsBefore,
                    m.fragments().size(),
                    m.fragments().stream().filter(f -> !f.overlays().isEmpty()).count());
        }
        UsersTable.assertLatestEquals(uri, storage, expected, "the model after pylance's compaction (" + store + ")");
        assertSameReads(pylance, uri, storageArgs, "the compacted table on " + store);
        System.out.printf("%s: whole test %d ms%n", store, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
    }

    private static void assertSameReads(PylanceOracle pylance, String uri, List<String> storageArgs, String what) {
        List<String> args = new ArrayList<>(List.of("dump", uri));
        args.addAll(storageArgs);
        JsonNode ours = OurCli.run(args.toArray(String[]::new));
        JsonNode theirs = pylance.run(args.toArray(String[]::new));
        assertThat(theirs.get("version").asLong())
                .as("versions read")
                .isEqualTo(ours.get("version").asLong());
        DumpComparator.exact().sortedBy("id").assertSame("pylance vs our reader, " + what, ours, theirs);
    }

    /** The Lance operation a churn log entry commits. */
    private static String lanceOperation(String churnOp) {
        return switch (churnOp) {
            case "append" -> "Append";
            case "delete" -> "Delete";
            case "overlay" -> "DataOverlay";
            default -> throw new AssertionError("unknown churn operation " + churnOp);
        };
    }

    // ---- pylance's expected rows ----------------------------------------------------------------

    /**
     * Replays pylance's committed operations in commit order with the churn's cell functions:
     * appended rows are {@code ("py-" + id, id % 100, id / 4)}, an overlay of round {@code r} sets
     * {@code age} to {@link #churnAge}.
     */
    private static TreeMap<Long, UsersTable.Row> pylanceRows(JsonNode pyLog) {
        TreeMap<Long, UsersTable.Row> rows = new TreeMap<>();
        for (JsonNode op : pyLog.get("ops")) {
            if (!op.has("version")) {
                continue;
            }
            long round = op.get("round").asLong();
            switch (op.get("op").asText()) {
                case "append" -> {
                    for (long id = op.get("first_id").asLong();
                            id < op.get("end_id").asLong();
                            id++) {
                        assertThat(rows.put(id, new UsersTable.Row("py-" + id, (int) (id % 100), id / 4.0)))
                                .as("pylance appended id %s twice", id)
                                .isNull();
                    }
                }
                case "delete" -> {
                    long lo = PY_FIRST_ID + round * PY_ROWS_PER_ROUND;
                    for (long id = lo; id < lo + PY_ROWS_PER_ROUND; id++) {
                        if (id % PY_DELETE_MOD == 0) {
                            assertThat(rows.remove(id))
                                    .as("pylance deleted id %s, which it had appended", id)
                                    .isNotNull();
                        }
                    }
                }
                case "overlay" -> {
                    assertThat(op.get("ids")).as("rows of overlay %s", op).isNotEmpty();
                    for (JsonNode idNode : op.get("ids")) {
                        long id = idNode.asLong();
                        UsersTable.Row cur = rows.get(id);
                        assertThat(cur)
                                .as("pylance overlaid id %s, a live row of its own", id)
                                .isNotNull();
                        rows.put(id, new UsersTable.Row(cur.name(), churnAge(id, round), cur.score()));
                    }
                }
                case "compact" -> {
                    // moves rows, changes none
                }
                default -> throw new AssertionError("unknown churn operation " + op);
            }
        }
        return rows;
    }

    /** pylance_oracle.py's churn_age: the age an overlay of round {@code round} gives row {@code id}. */
    static int churnAge(long id, long round) {
        return (int) ((id * 7 + round * 13) % 100_000);
    }

    private static StreamExecutionEnvironment env() {
        return JobEnvironments.noRestarts(2, 300);
    }

    /**
     * Emits change {@code i}, about one per millisecond; the first waits until pylance has committed
     * {@link #PY_COMMITS_BEFORE_START} times (a round and an overlay), so the sink's commits land
     * among pylance's rather than before the Python process is up. The last waits until a pylance
     * compaction has landed after the sink's first commit: on a fast machine the whole changelog
     * can otherwise be committed before pylance's first compaction, and no row moves under the sink.
     */
    static final class GatedChange extends RichMapFunction<Long, RowData> {
        private static final long serialVersionUID = 1L;

        @Override
        public RowData map(Long i) throws Exception {
            if (i == 0) {
                await(PY_COMMITS_SEEN, PY_COMMITS_BEFORE_START, "pylance commits");
            }
            if (i == changes.size() - 1) {
                await(PY_REWRITES_AMID_SINK, 1, "pylance compactions after the sink's first commit");
            }
            if (i % 2 == 0) {
                Thread.sleep(1);
            }
            return changes.get((int) (long) i);
        }

        private static void await(AtomicInteger counter, int atLeast, String what) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (counter.get() < atLeast) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("only " + counter.get() + " " + what + " in 120 s (wanted "
                            + atLeast + "); see the churn's stderr");
                }
                Thread.sleep(20);
            }
        }
    }
}
