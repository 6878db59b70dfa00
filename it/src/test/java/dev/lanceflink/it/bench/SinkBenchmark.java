package dev.lanceflink.it.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lanceflink.committer.core.CommitMarker;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.VersionInfo;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.flink.sink.LanceSinkBuilder;
import dev.lanceflink.flink.sink.LanceSinkMode;
import dev.lanceflink.it.interop.OracleProcess;
import dev.lanceflink.read.ScanOptions;
import dev.lanceflink.read.Scanner;
import dev.lanceflink.testkit.flink.JobEnvironments;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;

/**
 * Issue #5's sink benchmark: throughput of the Flink sink (local MiniCluster, writers at
 * parallelism 2, a checkpoint every second) against the official SDK 7.0.0 writing the same rows
 * in one process with as many commits as the sink made (oracle {@code bench-sink-rows}), for
 *
 * <ul>
 *   <li>appends: {@code appendRows} new rows ({@link LanceSinkMode#APPEND});
 *   <li>upserts: {@code upserts} rows over {@code keys} keys, all present beforehand
 *       ({@link LanceSinkMode#UPSERT}, updates as data overlay files; the SDK does one
 *       merge-insert per commit, each on the last row per key of its slice).
 * </ul>
 *
 * Both tables start as the same {@code keys} rows {@code (id int64, name utf8, age int32, score
 * float64)}. Row {@code i}: id {@code keys + i} (append) or {@code (i * 7919) % keys} (upsert),
 * name {@code "r-" + i}, age {@code i % 100}, score {@code i / 4}. The sink's time runs from its
 * first record to the end of the job (the final checkpoint's commit included; the job's wall time
 * with deployment is printed too), the SDK's from its first commit call to its last one's return,
 * with all its batches built beforehand; the final tables are checked (row counts,
 * and every upserted key's cells with our reader). Commit latency per checkpoint is the time from
 * the checkpoint's trigger (its timestamp, recorded by the source-side map) to the timestamp of
 * the table version the sink committed for it. Not part of the test suite: run
 * {@code it/run-benchmarks.sh sink [appendRows [upserts [keys]]]}.
 */
public final class SinkBenchmark {
    static final Schema SCHEMA = new Schema(List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
            new Field("name", FieldType.nullable(new ArrowType.Utf8()), null),
            new Field("age", FieldType.nullable(new ArrowType.Int(32, true)), null),
            new Field("score", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), null)));
    static final RowType ROW_TYPE = RowType.of(
            new LogicalType[] {
                new BigIntType(false), new VarCharType(VarCharType.MAX_LENGTH), new IntType(), new DoubleType()
            },
            new String[] {"id", "name", "age", "score"});
    /** Must match the oracle's {@code SinkBenchCommand.KEY_STRIDE}. */
    static final long KEY_STRIDE = 7919;

    static final long CHECKPOINT_MILLIS = 1_000;

    /** Checkpoint id to trigger timestamp (epoch ms), filled by {@link BenchRows#snapshotState}. */
    static final Map<Long, Long> CHECKPOINT_TRIGGERED = new ConcurrentHashMap<>();
    /** System.nanoTime() of the run's first record, so job deployment can be told apart from writing. */
    static final AtomicLong FIRST_RECORD_NANOS = new AtomicLong();

    private SinkBenchmark() {}

    /**
     * One sink run: seconds from the first record to the job's end (the last commit included), the
     * job's wall seconds (deployment included), the number of commits, and checkpoint-to-commit
     * latencies (ms, sorted).
     */
    private record SinkRun(double seconds, double wallSeconds, int commits, long[] commitLatencyMillis) {}

    public static void main(String[] args) throws Exception {
        int appendRows = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        int upserts = args.length > 1 ? Integer.parseInt(args[1]) : 200_000;
        int keys = args.length > 2 ? Integer.parseInt(args[2]) : 10_000;
        Path dir = Files.createTempDirectory("lance-sink-bench");
        OracleProcess oracle = OracleProcess.fromBuild().withTimeout(Duration.ofMinutes(30));

        // Warm-up (JIT, Flink's class loading) on small throwaway tables.
        String warm = dir.resolve("warmup.lance").toString();
        createTable(warm, keys);
        runSink(warm, LanceSinkMode.APPEND, Math.min(appendRows, 50_000), keys);
        runSink(warm, LanceSinkMode.UPSERT, Math.min(upserts, 20_000), keys);

        String oursAppend = dir.resolve("sink-append.lance").toString();
        String sdkAppend = dir.resolve("sdk-append.lance").toString();
        createTable(oursAppend, keys);
        createTable(sdkAppend, keys);
        SinkRun append = runSink(oursAppend, LanceSinkMode.APPEND, appendRows, keys);
        JsonNode sdkA = oracle.run(
                "bench-sink-rows",
                sdkAppend,
                "--rows",
                String.valueOf(appendRows),
                "--commits",
                String.valueOf(Math.max(1, append.commits())),
                "--first-append-id",
                String.valueOf(keys));
        check("sink append", countRows(oursAppend), (long) keys + appendRows);
        check("SDK append", sdkA.get("num_rows").asLong(), (long) keys + appendRows);

        String oursUpsert = dir.resolve("sink-upsert.lance").toString();
        String sdkUpsert = dir.resolve("sdk-upsert.lance").toString();
        createTable(oursUpsert, keys);
        createTable(sdkUpsert, keys);
        SinkRun upsert = runSink(oursUpsert, LanceSinkMode.UPSERT, upserts, keys);
        JsonNode sdkU = oracle.run(
                "bench-sink-rows",
                sdkUpsert,
                "--rows",
                String.valueOf(upserts),
                "--commits",
                String.valueOf(Math.max(1, upsert.commits())),
                "--keys",
                String.valueOf(keys));
        checkUpserted(oursUpsert, upserts, keys);
        check("SDK upsert", sdkU.get("num_rows").asLong(), keys);

        System.out.println();
        System.out.println("| writer (" + keys + " initial rows; id int64, name utf8, age int32, score float64)"
                + " | rows | commits | seconds | rows/s | per-commit latency p50 / max ms |");
        System.out.println("|---|---:|---:|---:|---:|---:|");
        row("lance-flink sink, APPEND, p=2, checkpoint 1 s", appendRows, append);
        row("official SDK, append (one process)", appendRows, sdkA);
        row("lance-flink sink, UPSERT over " + keys + " keys, p=2, checkpoint 1 s", upserts, upsert);
        row(
                "official SDK, merge-insert over " + keys + " keys (source: last row per key and commit, "
                        + sdkU.get("source_rows").asLong() + " rows)",
                upserts,
                sdkU);
        System.out.println();
        System.out.println("Sink latency: checkpoint trigger to the committed version's timestamp; SDK latency:"
                + " duration of each commit call. Sink seconds run from the first record to the end of the job"
                + " (last commit included); job wall seconds with deployment: append " + fmt(append.wallSeconds())
                + ", upsert " + fmt(upsert.wallSeconds()) + ".");
        System.out.println("Tables in " + dir);
    }

    // ---- the sink side -----------------------------------------------------------------------------

    private static SinkRun runSink(String uri, LanceSinkMode mode, int rows, int keys) throws Exception {
        CHECKPOINT_TRIGGERED.clear();
        FIRST_RECORD_NANOS.set(0);
        long versionBefore;
        try (Dataset ds = Dataset.open(uri, Map.of())) {
            versionBefore = ds.version();
        }
        StreamExecutionEnvironment env = JobEnvironments.noRestarts(2, CHECKPOINT_MILLIS);
        LanceSinkBuilder sink = LanceSinkBuilder.forTable(uri).mode(mode).uidSuffix("bench");
        if (mode == LanceSinkMode.UPSERT) {
            sink.primaryKey("id");
        }
        sink.sinkTo(env.fromSequence(0, rows - 1)
                .setParallelism(1)
                .uid("sequence")
                .map(new BenchRows(mode == LanceSinkMode.UPSERT ? keys : -1, keys))
                .setParallelism(1)
                .uid("rows")
                .returns(InternalTypeInfo.of(ROW_TYPE)));
        long start = System.nanoTime();
        env.execute("sink benchmark " + mode);
        long end = System.nanoTime();
        double wall = (end - start) / 1e9;
        double seconds = (end - FIRST_RECORD_NANOS.get()) / 1e9;

        List<Long> latencies = new ArrayList<>();
        int commits = 0;
        try (Dataset ds = Dataset.open(uri, Map.of())) {
            for (VersionInfo v : ds.versions()) {
                String checkpoint = v.properties().get(CommitMarker.CHECKPOINT_ID_KEY);
                if (v.version() <= versionBefore || checkpoint == null) {
                    continue;
                }
                commits++;
                Long triggered = CHECKPOINT_TRIGGERED.get(Long.parseLong(checkpoint));
                if (triggered != null) {
                    latencies.add(v.timestamp().toEpochMilli() - triggered);
                }
            }
        }
        long[] sorted = latencies.stream().mapToLong(Long::longValue).sorted().toArray();
        return new SinkRun(seconds, wall, commits, sorted);
    }

    /**
     * Row {@code i} of the benchmark (see the class comment), as the connector's internal row
     * type; records each checkpoint's trigger time, since this operator is snapshotted first.
     */
    static final class BenchRows extends RichMapFunction<Long, RowData> implements CheckpointedFunction {
        private static final long serialVersionUID = 1L;
        /** Key space of the upserts, or -1 for appends. */
        private final int upsertKeys;

        private final int firstAppendId;
        private transient boolean started;

        BenchRows(int upsertKeys, int firstAppendId) {
            this.upsertKeys = upsertKeys;
            this.firstAppendId = firstAppendId;
        }

        @Override
        public RowData map(Long boxed) {
            long i = boxed;
            if (!started) {
                started = true;
                FIRST_RECORD_NANOS.compareAndSet(0, System.nanoTime());
            }
            long id = upsertKeys > 0 ? (i * KEY_STRIDE) % upsertKeys : firstAppendId + i;
            return GenericRowData.of(id, StringData.fromString("r-" + i), (int) (i % 100), i / 4.0);
        }

        @Override
        public void snapshotState(FunctionSnapshotContext context) {
            CHECKPOINT_TRIGGERED.put(context.getCheckpointId(), context.getCheckpointTimestamp());
        }

        @Override
        public void initializeState(FunctionInitializationContext context) {}
    }

    // ---- tables and checks --------------------------------------------------------------------------

    /** The {@code keys} initial rows: id {@code k} in {@code [0, keys)}, name "init-k", age k % 100, score -k / 4. */
    private static void createTable(String uri, int keys) throws Exception {
        try (BufferAllocator a = new RootAllocator();
                VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, a)) {
            root.allocateNew();
            for (int k = 0; k < keys; k++) {
                ((BigIntVector) root.getVector("id")).setSafe(k, k);
                ((VarCharVector) root.getVector("name")).setSafe(k, ("init-" + k).getBytes(StandardCharsets.UTF_8));
                ((IntVector) root.getVector("age")).setSafe(k, k % 100);
                ((Float8Vector) root.getVector("score")).setSafe(k, -k / 4.0);
            }
            root.setRowCount(keys);
            Dataset.write(uri, Map.of(), List.of(root), SCHEMA, WriteParams.of(WriteMode.CREATE))
                    .close();
        }
    }

    private static long countRows(String uri) throws Exception {
        try (Dataset ds = Dataset.open(uri, Map.of())) {
            return ds.countRows();
        }
    }

    private static void check(String what, long actual, long expected) {
        if (actual != expected) {
            throw new IllegalStateException(what + ": the table has " + actual + " rows, expected " + expected);
        }
    }

    /** Every key holds the cells of the last upsert row for it: one row per key, nothing else. */
    private static void checkUpserted(String uri, int upserts, int keys) throws Exception {
        long[] lastRow = new long[keys];
        Arrays.fill(lastRow, -1);
        for (long i = 0; i < upserts; i++) {
            lastRow[(int) ((i * KEY_STRIDE) % keys)] = i;
        }
        boolean[] seen = new boolean[keys];
        try (Dataset ds = Dataset.open(uri, Map.of());
                Scanner s = ds.scan(ScanOptions.all())) {
            while (s.hasNext()) {
                try (VectorSchemaRoot b = s.next()) {
                    BigIntVector id = (BigIntVector) b.getVector("id");
                    VarCharVector name = (VarCharVector) b.getVector("name");
                    Float8Vector score = (Float8Vector) b.getVector("score");
                    for (int r = 0; r < b.getRowCount(); r++) {
                        int k = (int) id.get(r);
                        if (seen[k]) {
                            throw new IllegalStateException("sink upsert: key " + k + " appears twice");
                        }
                        seen[k] = true;
                        long i = lastRow[k];
                        String expectedName = i < 0 ? "init-" + k : "r-" + i;
                        double expectedScore = i < 0 ? -k / 4.0 : i / 4.0;
                        String gotName = new String(name.get(r), StandardCharsets.UTF_8);
                        if (!gotName.equals(expectedName) || score.get(r) != expectedScore) {
                            throw new IllegalStateException("sink upsert: key " + k + " has (" + gotName + ", "
                                    + score.get(r) + "), expected (" + expectedName + ", " + expectedScore + ")");
                        }
                    }
                }
            }
        }
        for (int k = 0; k < keys; k++) {
            if (!seen[k]) {
                throw new IllegalStateException("sink upsert: key " + k + " is missing");
            }
        }
    }

    // ---- output ---------------------------------------------------------------------------------------

    private static void row(String writer, int rows, SinkRun run) {
        long[] l = run.commitLatencyMillis();
        String latency = l.length == 0 ? "n/a" : l[l.length / 2] + " / " + l[l.length - 1];
        print(writer, rows, run.commits(), run.seconds(), latency);
    }

    private static void row(String writer, int rows, JsonNode sdk) {
        double[] s = new double[sdk.get("commit_seconds").size()];
        for (int i = 0; i < s.length; i++) {
            s[i] = sdk.get("commit_seconds").get(i).asDouble() * 1000;
        }
        Arrays.sort(s);
        String latency = String.format(Locale.ROOT, "%.0f / %.0f", s[s.length / 2], s[s.length - 1]);
        print(writer, rows, sdk.get("commits").asInt(), sdk.get("seconds").asDouble(), latency);
    }

    private static String fmt(double seconds) {
        return String.format(Locale.ROOT, "%.2f", seconds);
    }

    private static void print(String writer, int rows, int commits, double seconds, String latency) {
        System.out.println(String.format(
                Locale.ROOT,
                "| %s | %,d | %d | %.2f | %,.0f | %s |",
                writer,
                rows,
                commits,
                seconds,
                rows / seconds,
                latency));
    }
}
