package dev.lanceflink.it.bench;

import dev.lanceflink.committer.core.CommitMarker;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.VersionInfo;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.flink.sink.KeyMapMode;
import dev.lanceflink.flink.sink.LanceSinkBuilder;
import dev.lanceflink.flink.sink.LanceSinkMode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.ToLongFunction;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.functions.RichFlatMapFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.runtime.checkpoint.AbstractCheckpointStats;
import org.apache.flink.runtime.checkpoint.CheckpointStatsSnapshot;
import org.apache.flink.runtime.checkpoint.CheckpointStatsStatus;
import org.apache.flink.runtime.checkpoint.CompletedCheckpointStats;
import org.apache.flink.runtime.checkpoint.TaskStateStats;
import org.apache.flink.runtime.executiongraph.AccessExecutionGraph;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.util.TestStreamEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.Collector;

/**
 * Issue #17's key-map benchmark: what a checkpoint of the upsert sink costs as the table grows
 * while the changes per checkpoint stay the same. For each table size and state backend, a
 * streaming upsert job (MiniCluster, key resolver and writers at parallelism 2, a checkpoint every
 * {@value #CHECKPOINT_MILLIS} ms) gets exactly {@code changes} changes per checkpoint (85% whole-row
 * updates of random existing keys, 10% new keys, 5% deletes of random keys) for {@code checkpoints}
 * checkpoints; then it is cancelled with its checkpoints retained and a new job is started from the
 * last one (claim mode CLAIM), which runs as many checkpoints again.
 *
 * <p>Reported per run, from Flink's checkpoint statistics (the figures of its REST API): the first
 * checkpoint (it holds the bootstrapped map), the steady ones after it (checkpointed size = the
 * bytes the checkpoint wrote, state size = the state it stands for, end-to-end duration), the key
 * map's bootstrap time (the resolver's {@code keyMapBootstrapMillis} gauge, slowest subtask), the
 * time from submitting the job to its first commit (bootstrap included), and from submitting the
 * restored job to its first commit (a commit of a checkpoint the restored job took). Backends:
 * {@code heap} (keyed state on {@code hashmap}, full snapshots), {@code in-memory} ({@code
 * 'sink.key-map' = 'in-memory'}, the default: the map on the heap, only the uncommitted delta in
 * state), {@code migrate} (the first job {@code heap}, the restored one {@code in-memory}: the
 * migration of a savepoint of the old default), {@code changelog} (heap state with
 * Flink's changelog, periodic materialization at its default of 10 minutes) and {@code rocksdb}
 * (RocksDB with incremental checkpoints), {@code rocksdb-small-l1} (the same with a 4 MB level 1 of
 * 1 MB files and bloom filters, see {@link #submit}); the table
 * ({@code id int64, name utf8, age int32, score float64}) is created once per size and shared by
 * the backends' runs. Not part of the test suite: run
 * {@code it/run-benchmarks.sh keymap [rows,rows,... [backends [changes [checkpoints]]]]}.
 */
public final class KeyMapCheckpointBenchmark {
    static final long CHECKPOINT_MILLIS = 2_000;
    private static final int ROWS_PER_WRITE = 1 << 20;

    private KeyMapCheckpointBenchmark() {}

    /** Checkpoint statistics of one job: the first completed checkpoint and the steady ones after it. */
    record Checkpoints(CompletedCheckpointStats first, List<CompletedCheckpointStats> steady, String lastByTask) {
        long median(ToLongFunction<CompletedCheckpointStats> f) {
            long[] v = steady.stream().mapToLong(f).sorted().toArray();
            return v.length == 0 ? -1 : v[v.length / 2];
        }

        long max(ToLongFunction<CompletedCheckpointStats> f) {
            return steady.stream().mapToLong(f).max().orElse(-1);
        }
    }

    record Run(
            long rows,
            String backend,
            long bootstrapMillis,
            double firstCommitSeconds,
            Checkpoints fresh,
            double restoreFirstCommitSeconds,
            Checkpoints restored,
            long checkpointDirBytes) {}

    public static void main(String[] args) throws Exception {
        long[] sizes = Arrays.stream((args.length > 0 ? args[0] : "100000,10000000").split(","))
                .mapToLong(Long::parseLong)
                .toArray();
        String[] backends = (args.length > 1 ? args[1] : "heap,rocksdb").split(",");
        int changes = args.length > 2 ? Integer.parseInt(args[2]) : 10_000;
        int checkpoints = args.length > 3 ? Integer.parseInt(args[3]) : 6;
        Path dir = Files.createTempDirectory("lance-keymap-bench");
        // Warm-up (JIT, Flink's class loading) on a small throwaway table, both backends.
        String warm = dir.resolve("warmup.lance").toString();
        createTable(warm, 20_000);
        for (String backend : backends) {
            run(warm, 20_000, backend, 1_000, 2, dir.resolve("cp-warmup-" + backend), 0);
        }
        List<Run> runs = new ArrayList<>();
        int runIndex = 0;
        for (long rows : sizes) {
            String uri = dir.resolve("t" + rows + ".lance").toString();
            long t = System.nanoTime();
            createTable(uri, rows);
            System.out.printf(
                    Locale.ROOT, "table of %,d rows written in %.1f s%n", rows, (System.nanoTime() - t) / 1e9);
            for (String backend : backends) {
                Run r = run(
                        uri,
                        rows,
                        backend,
                        changes,
                        checkpoints,
                        dir.resolve("cp-" + rows + "-" + backend),
                        ++runIndex);
                runs.add(r);
                print(List.of(r), changes);
                System.out.println("checkpoints written (bytes), fresh: " + written(r.fresh()) + "; restored: "
                        + written(r.restored()));
                System.out.println(
                        "last checkpoint of the fresh job by task: " + r.fresh().lastByTask());
            }
        }
        System.out.println();
        System.out.println("All runs:");
        print(runs, changes);
        System.out.println("Tables and checkpoints in " + dir);
    }

    private static Run run(
            String uri, long rows, String backend, int changes, int checkpoints, Path checkpointDir, int runIndex)
            throws Exception {
        InMemoryReporter metrics = InMemoryReporter.createWithRetainedMetrics();
        Configuration clusterConf = metrics.addToConfiguration(new Configuration());
        clusterConf.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MemorySize.parse("512m"));
        clusterConf.setString("web.checkpoints.history", "100");
        try (MiniCluster cluster = new MiniCluster(new MiniClusterConfiguration.Builder()
                .setConfiguration(clusterConf)
                .setNumTaskManagers(1)
                .setNumSlotsPerTaskManager(4)
                .build())) {
            cluster.start();
            long firstNewId = (1L << 40) + ((long) runIndex << 32);
            long versionBefore = version(uri);
            // migrate: keyed state on the heap first, restored into the in-memory map.
            String freshBackend = backend.equals("migrate") ? "heap" : backend;
            String restoredBackend = backend.equals("migrate") ? "in-memory" : backend;
            JobClient job =
                    submit(cluster, uri, freshBackend, checkpointDir, null, rows, changes, firstNewId, runIndex);
            long submitted = System.nanoTime();
            double firstCommit = waitForCommit(job, uri, versionBefore, 0, submitted);
            Checkpoints fresh = waitForCheckpoints(cluster, job.getJobID(), checkpoints + 1);
            long bootstrap = 0;
            for (Metric m :
                    metrics.findMetrics(job.getJobID(), "keyMapBootstrapMillis").values()) {
                bootstrap = Math.max(bootstrap, ((Number) ((Gauge<?>) m).getValue()).longValue());
            }
            cancel(job);
            // Read after the cancellation: a checkpoint completing meanwhile replaces the retained one.
            CompletedCheckpointStats latest =
                    stats(cluster, job.getJobID()).getHistory().getLatestCompletedCheckpoint();

            long versionAtCancel = version(uri);
            JobClient restoredJob = submit(
                    cluster,
                    uri,
                    restoredBackend,
                    checkpointDir,
                    latest.getExternalPath(),
                    rows,
                    changes,
                    firstNewId + (1L << 31),
                    runIndex + 1000);
            long resubmitted = System.nanoTime();
            double restoreCommit =
                    waitForCommit(restoredJob, uri, versionAtCancel, latest.getCheckpointId(), resubmitted);
            Checkpoints restored = waitForCheckpoints(cluster, restoredJob.getJobID(), checkpoints + 1);
            cancel(restoredJob);
            return new Run(
                    rows,
                    backend,
                    bootstrap,
                    firstCommit,
                    fresh,
                    restoreCommit,
                    restored,
                    directoryBytes(checkpointDir));
        }
    }

    private static JobClient submit(
            MiniCluster cluster,
            String uri,
            String backend,
            Path checkpointDir,
            String restoreFrom,
            long rows,
            int changes,
            long firstNewId,
            long seed)
            throws Exception {
        Configuration conf = new Configuration();
        conf.setString("restart-strategy.type", "none");
        conf.setString("execution.checkpointing.interval", CHECKPOINT_MILLIS + " ms");
        conf.setString("execution.checkpointing.dir", checkpointDir.toUri().toString());
        conf.setString("execution.checkpointing.externalized-checkpoint-retention", "RETAIN_ON_CANCELLATION");
        switch (backend) {
            case "heap" -> conf.setString("state.backend.type", "hashmap");
            // The key map on the heap, rebuilt from the table at start; state: the uncommitted delta.
            case "in-memory" -> conf.setString("state.backend.type", "hashmap");
            case "rocksdb" -> {
                conf.setString("state.backend.type", "rocksdb");
                conf.setString("execution.checkpointing.incremental", "true");
            }
            case "rocksdb-small-l1" -> {
                conf.setString("state.backend.type", "rocksdb");
                conf.setString("execution.checkpointing.incremental", "true");
                // Each checkpoint flushes a small L0 file whose keys span the whole key range, so
                // every L0 -> L1 compaction rewrites (and the next checkpoint uploads) all of L1:
                // up to 256 MB per subtask by default. A small L1 with small files bounds that.
                conf.setString("state.backend.rocksdb.compaction.level.max-size-level-base", "4mb");
                conf.setString("state.backend.rocksdb.compaction.level.target-file-size-base", "1mb");
                conf.setString("state.backend.rocksdb.use-bloom-filter", "true");
            }
            case "changelog" -> {
                // Heap state behind Flink's changelog: checkpoints upload the state changes since the
                // last one; the heap is written whole only by the periodic materialization.
                conf.setString("state.backend.type", "hashmap");
                conf.setString("state.changelog.enabled", "true");
                conf.setString("state.changelog.storage", "filesystem");
                conf.setString(
                        "state.changelog.dstl.dfs.base-path",
                        checkpointDir.resolve("changelog").toUri().toString());
            }
            default ->
                throw new IllegalArgumentException(
                        "backend must be heap, in-memory, changelog, rocksdb or rocksdb-small-l1," + " got " + backend);
        }
        if (restoreFrom != null) {
            conf.setString("execution.state-recovery.path", restoreFrom);
            // CLAIM: the restored job owns the checkpoint and builds on it; the default NO_CLAIM makes
            // its first checkpoint a full one (RocksDB uploads the whole map; the changelog refuses).
            conf.setString("execution.state-recovery.claim-mode", "CLAIM");
        }
        StreamExecutionEnvironment env = new TestStreamEnvironment(cluster, conf, 2, List.of(), List.of());
        LanceSinkBuilder.forTable(uri)
                .mode(LanceSinkMode.UPSERT)
                .primaryKey("id")
                .uidSuffix("keymap-bench")
                .keyMap("in-memory".equals(backend) ? KeyMapMode.IN_MEMORY : KeyMapMode.KEYED_STATE)
                .sinkTo(env.fromSequence(0, Long.MAX_VALUE)
                        .setParallelism(1)
                        .uid("sequence")
                        .flatMap(new Changes(rows, changes, firstNewId, seed))
                        .setParallelism(1)
                        .uid("changes")
                        .returns(InternalTypeInfo.of(SinkBenchmark.ROW_TYPE)));
        return env.executeAsync("key map benchmark " + backend + (restoreFrom == null ? "" : " (restored)"));
    }

    /**
     * Seconds from {@code since} (nanoTime) until the table has a version the sink committed for a
     * checkpoint after {@code checkpointId}: a restored job's first commit may be the restored
     * checkpoint's own, which the cancelled job had not committed; that one does not count.
     */
    private static double waitForCommit(JobClient job, String uri, long version, long checkpointId, long since)
            throws Exception {
        long deadline = System.nanoTime() + 30L * 60 * 1_000_000_000;
        while (!committedAfter(uri, version, checkpointId)) {
            if (job.getJobStatus().get().isGloballyTerminalState()) {
                job.getJobExecutionResult().get(); // throws the job's failure
                throw new IllegalStateException("job " + job.getJobID() + " ended before its first commit");
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("no commit to " + uri + " within 30 minutes");
            }
            Thread.sleep(20);
        }
        return (System.nanoTime() - since) / 1e9;
    }

    /** True if a version after {@code version} is the sink's commit of a checkpoint after {@code checkpointId}. */
    private static boolean committedAfter(String uri, long version, long checkpointId) throws IOException {
        try (Dataset ds = Dataset.open(uri, Map.of())) {
            if (ds.version() <= version) {
                return false;
            }
            for (VersionInfo v : ds.versions()) {
                String id = v.properties().get(CommitMarker.CHECKPOINT_ID_KEY);
                if (v.version() > version && id != null && Long.parseLong(id) > checkpointId) {
                    return true;
                }
            }
            return false;
        }
    }

    private static long version(String uri) throws IOException {
        try (Dataset ds = Dataset.open(uri, Map.of())) {
            return ds.version();
        }
    }

    /** Waits until {@code count} checkpoints completed; fails on a failed one (none is expected). */
    private static Checkpoints waitForCheckpoints(MiniCluster cluster, JobID job, int count) throws Exception {
        while (true) {
            CheckpointStatsSnapshot s = stats(cluster, job);
            if (s.getHistory().getLatestFailedCheckpoint() != null) {
                // Triggers refused while the tasks still start count as failed too, without an entry.
                throw new IllegalStateException("checkpoint "
                        + s.getHistory().getLatestFailedCheckpoint().getCheckpointId() + " failed: "
                        + s.getHistory().getLatestFailedCheckpoint().getFailureMessage());
            }
            if (s.getCounts().getNumberOfCompletedCheckpoints() >= count) {
                List<CompletedCheckpointStats> done = new ArrayList<>();
                for (AbstractCheckpointStats c : s.getHistory().getCheckpoints()) {
                    if (c.getStatus() == CheckpointStatsStatus.COMPLETED) {
                        done.add((CompletedCheckpointStats) c);
                    }
                }
                done.sort((a, b) -> Long.compare(a.getCheckpointId(), b.getCheckpointId()));
                return new Checkpoints(
                        done.get(0),
                        done.subList(1, done.size()),
                        byTask(cluster.getExecutionGraph(job).get(), done.get(done.size() - 1)));
            }
            Thread.sleep(100);
        }
    }

    /** Where a checkpoint's time and bytes went, per task: what the key resolver's share is. */
    private static String byTask(AccessExecutionGraph graph, CompletedCheckpointStats c) {
        List<String> out = new ArrayList<>();
        for (TaskStateStats t : c.getAllTaskStateStats()) {
            TaskStateStats.TaskStateStatsSummary sum = t.getSummaryStats();
            out.add(String.format(
                    Locale.ROOT,
                    "%s: written %s, end-to-end %d ms (max sync %d, async %d, alignment %d," + " start delay %d ms)",
                    graph.getJobVertex(t.getJobVertexId()).getName(),
                    bytes(t.getCheckpointedSize()),
                    t.getEndToEndDuration(c.getTriggerTimestamp()),
                    sum.getSyncCheckpointDurationStats().getMaximum(),
                    sum.getAsyncCheckpointDurationStats().getMaximum(),
                    sum.getAlignmentDurationStats().getMaximum(),
                    sum.getCheckpointStartDelayStats().getMaximum()));
        }
        return String.join("; ", out);
    }

    private static CheckpointStatsSnapshot stats(MiniCluster cluster, JobID job) throws Exception {
        return cluster.getExecutionGraph(job).get().getCheckpointStatsSnapshot();
    }

    private static void cancel(JobClient job) throws Exception {
        job.cancel().get();
        while (!job.getJobStatus().get().isGloballyTerminalState()) {
            Thread.sleep(50);
        }
        if (job.getJobStatus().get() != JobStatus.CANCELED) {
            throw new IllegalStateException(
                    "job " + job.getJobID() + " ended " + job.getJobStatus().get());
        }
    }

    private static long directoryBytes(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile)
                    .mapToLong(p -> p.toFile().length())
                    .sum();
        }
    }

    /** Rows {@code 0..rows-1}: id k, name "init-k", age k % 100, score -k / 4; files of 2^20 rows. */
    static void createTable(String uri, long rows) throws Exception {
        try (BufferAllocator a = new RootAllocator()) {
            for (long from = 0; from < rows; from += ROWS_PER_WRITE) {
                int n = (int) Math.min(ROWS_PER_WRITE, rows - from);
                try (VectorSchemaRoot root = VectorSchemaRoot.create(SinkBenchmark.SCHEMA, a)) {
                    root.allocateNew();
                    BigIntVector id = (BigIntVector) root.getVector("id");
                    VarCharVector name = (VarCharVector) root.getVector("name");
                    IntVector age = (IntVector) root.getVector("age");
                    Float8Vector score = (Float8Vector) root.getVector("score");
                    for (int r = 0; r < n; r++) {
                        long k = from + r;
                        id.setSafe(r, k);
                        name.setSafe(r, ("init-" + k).getBytes(StandardCharsets.UTF_8));
                        age.setSafe(r, (int) (k % 100));
                        score.setSafe(r, -k / 4.0);
                    }
                    root.setRowCount(n);
                    Dataset.write(
                                    uri,
                                    Map.of(),
                                    List.of(root),
                                    SinkBenchmark.SCHEMA,
                                    WriteParams.of(from == 0 ? WriteMode.CREATE : WriteMode.APPEND))
                            .close();
                }
            }
        }
    }

    /**
     * Exactly {@code perCheckpoint} changes per checkpoint, then nothing until the next one: the
     * source is chained, so this function's snapshot marks the checkpoint's cut.
     */
    static final class Changes extends RichFlatMapFunction<Long, RowData> implements CheckpointedFunction {
        private static final long serialVersionUID = 1L;
        private final long tableRows;
        private final int perCheckpoint;
        private final long firstNewId;
        private final long seed;
        private transient SplittableRandom random;
        private transient long nextNewId;
        private transient int emitted;

        Changes(long tableRows, int perCheckpoint, long firstNewId, long seed) {
            this.tableRows = tableRows;
            this.perCheckpoint = perCheckpoint;
            this.firstNewId = firstNewId;
            this.seed = seed;
        }

        @Override
        public void initializeState(FunctionInitializationContext context) {
            random = new SplittableRandom(seed);
            nextNewId = firstNewId;
        }

        @Override
        public void flatMap(Long i, Collector<RowData> out) throws Exception {
            if (emitted >= perCheckpoint) {
                Thread.sleep(2);
                return;
            }
            emitted++;
            int dice = random.nextInt(100);
            if (dice < 5) {
                out.collect(GenericRowData.ofKind(RowKind.DELETE, random.nextLong(tableRows), null, null, null));
                return;
            }
            long id = dice < 15 ? nextNewId++ : random.nextLong(tableRows);
            out.collect(GenericRowData.ofKind(
                    dice < 15 ? RowKind.INSERT : RowKind.UPDATE_AFTER,
                    id,
                    StringData.fromString("c-" + i),
                    (int) (i % 100),
                    i / 4.0));
        }

        @Override
        public void snapshotState(FunctionSnapshotContext context) {
            emitted = 0;
        }
    }

    private static void print(List<Run> runs, int changes) {
        System.out.println();
        System.out.println("| table rows | state backend | bootstrap (slowest subtask) | submit → first commit"
                + " | 1st checkpoint: written / duration | steady checkpoints (" + changes + " changes each):"
                + " written, median / max | state size (median) | duration, median / max | restore → first commit"
                + " | after restore: written, median / max | checkpoint directory at the end |");
        System.out.println("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        for (Run r : runs) {
            Checkpoints f = r.fresh();
            Checkpoints x = r.restored();
            System.out.println(String.format(
                    Locale.ROOT,
                    "| %,d | %s | %.2f s | %.2f s | %s / %d ms | %s / %s | %s | %d / %d ms | %.2f s | %s / %s | %s |",
                    r.rows(),
                    switch (r.backend()) {
                        case "heap" -> "heap (hashmap)";
                        case "in-memory" -> "'sink.key-map' = 'in-memory' (heap map, delta in state)";
                        case "migrate" -> "heap keyed state, restored into 'in-memory'";
                        case "changelog" -> "heap + changelog";
                        case "rocksdb-small-l1" -> "RocksDB, incremental, L1 4 MB, files 1 MB, bloom filter";
                        default -> "RocksDB, incremental";
                    },
                    r.bootstrapMillis() / 1e3,
                    r.firstCommitSeconds(),
                    bytes(f.first().getCheckpointedSize()),
                    f.first().getEndToEndDuration(),
                    bytes(f.median(CompletedCheckpointStats::getCheckpointedSize)),
                    bytes(f.max(CompletedCheckpointStats::getCheckpointedSize)),
                    bytes(f.median(CompletedCheckpointStats::getStateSize)),
                    f.median(CompletedCheckpointStats::getEndToEndDuration),
                    f.max(CompletedCheckpointStats::getEndToEndDuration),
                    r.restoreFirstCommitSeconds(),
                    bytes(x.median(CompletedCheckpointStats::getCheckpointedSize)),
                    bytes(x.max(CompletedCheckpointStats::getCheckpointedSize)),
                    bytes(r.checkpointDirBytes())));
        }
    }

    private static String written(Checkpoints c) {
        List<String> out = new ArrayList<>();
        out.add(bytes(c.first().getCheckpointedSize()));
        for (CompletedCheckpointStats s : c.steady()) {
            out.add(bytes(s.getCheckpointedSize()));
        }
        return String.join(", ", out);
    }

    private static String bytes(long n) {
        if (n < 0) {
            return "n/a";
        }
        if (n < 10_000) {
            return n + " B";
        }
        if (n < 10_000_000) {
            return String.format(Locale.ROOT, "%.1f KB", n / 1e3);
        }
        return String.format(Locale.ROOT, "%.1f MB", n / 1e6);
    }
}
