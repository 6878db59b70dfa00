package dev.lanceflink.it.peers;

import dev.lanceflink.it.peers.PeerData.Change;
import dev.lanceflink.it.peers.PeerData.Expected;
import dev.lanceflink.it.peers.PeerRun.Sizes;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import jdk.jfr.Recording;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.FloatType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.test.util.MiniClusterWithClientResource;
import org.apache.flink.types.RowKind;

/**
 * The workloads of the peer benchmark, the same code for every system (this file is compiled
 * against each system's Flink version): an embedded MiniCluster (one task manager, 2 slots), jobs
 * at parallelism 2 with a checkpoint every second, the generator ({@link PeerData}) as a source of
 * parallelism 1 feeding the system's sink, and bounded scans checked against the expected table
 * state. A system implements only table creation, its sinks and its source.
 *
 * <p>Write rates are rows over the seconds from the job's first generated record to the job's end
 * (the last commit included), as in {@code SinkBenchmark}; scan times run from building the
 * source (planning included) to the job's end.
 */
public abstract class PeerWorkloads {
    public static final int PARALLELISM = 2;
    public static final long CHECKPOINT_MILLIS = 1_000;
    static final AtomicLong FIRST_RECORD_NANOS = new AtomicLong();
    static final LongAdder SCANNED_ROWS = new LongAdder();
    static final LongAdder SCANNED_SUM = new LongAdder();

    /** What an update record carries: (id, age) only, all columns with NULL but id and age, or the whole new row. */
    public enum UpdateShape { ID_AGE, FULL_WIDTH_NULLS, FULL_ROW }

    private MiniClusterWithClientResource cluster;
    /** Whether the update job's CPU per thread is reported ({@code --thread-cpu}). */
    private boolean threadCpu;

    // ---- what a system provides ---------------------------------------------------------------------

    /** Creates the keyed table (primary key {@code id}) that appends and streamed changes go to. */
    protected abstract void createAppendTable(String table, int dim) throws Exception;

    /** Creates the keyed table whose {@code age} cells are updated. */
    protected abstract void createUpdateTable(String table, int dim) throws Exception;

    /** Whether the vector's elements are declared NOT NULL in this system's table. */
    protected abstract boolean vectorElementsNotNull();

    protected abstract UpdateShape updateShape();

    /** Attaches the system's sink for new rows (append workload, and loading the update table). */
    protected abstract void sinkAppend(DataStream<RowData> rows, String table) throws Exception;

    /** Attaches the sink for the cell updates (records as {@link #updateShape()} says). */
    protected abstract void sinkUpdates(DataStream<RowData> rows, String table) throws Exception;

    /** Attaches the sink for the streamed changelog: +I/+U full rows and -D rows, keyed by id. */
    protected abstract void sinkChanges(DataStream<RowData> rows, String table) throws Exception;

    /** A bounded source of the table's current state, projected to {@code columns}. */
    protected abstract DataStream<RowData> scan(StreamExecutionEnvironment env, String table, List<String> columns)
            throws Exception;

    /** The directory holding everything the table wrote (data, deletes, metadata). */
    protected abstract Path tableDir(String table);

    // ---- the run ---------------------------------------------------------------------------------------

    /** Runs a warm-up (unless told not to) and the measured run; results go to stdout. */
    public final void main(PeerRun.Args args) throws Exception {
        threadCpu = args.threadCpu();
        Configuration conf = new Configuration();
        conf.set(ConfigOptions.key("restart-strategy.type").stringType().noDefaultValue(), "none");
        cluster = new MiniClusterWithClientResource(new MiniClusterResourceConfiguration.Builder()
                .setConfiguration(conf).setNumberTaskManagers(1).setNumberSlotsPerTaskManager(PARALLELISM).build());
        cluster.before();
        try {
            if (args.warmup()) {
                runAll(args.sizes().warmup(args.warmupUpdates()), "warmup-", false, null);
            }
            runAll(args.sizes(), "", true, args.jfrDir());
        } finally {
            cluster.after();
        }
    }

    /** Table names get {@code prefix}, so the warm-up's tables stay apart from the measured ones. */
    private void runAll(Sizes s, String prefix, boolean report, Path jfrDir) throws Exception {
        Expected afterUpdates = PeerData.afterUpdates(s.updateRows(), s.updateDim(), s.updates());
        Expected afterChanges = PeerData.afterChanges(s.appendRows(), s.appendDim(), s.changes());

        // The ceiling: the generator into a sink that drops the rows, over the same edge (1 -> 2).
        StreamExecutionEnvironment env = env();
        generated(env, RowsFn.Kind.APPEND, s.appendRows(), 0, s.appendDim(), fullType(s.appendDim()))
                .sinkTo(new DiscardingSink<>()).setParallelism(PARALLELISM).name("blackhole");
        Timing ceilingTiming = timedRun(env, "ceiling");
        double ceiling = ceilingTiming.seconds();
        emit(report, "ceiling.rows_per_s", s.appendRows() / ceiling);
        // CPU of the JVM per run: on a shared machine the append's share of the ceiling follows
        // the CPU the sink adds per row more steadily than the rates do.
        emit(report, "ceiling.cpu_s", ceilingTiming.cpuSeconds());

        String append = prefix + "append";
        createAppendTable(append, s.appendDim());
        env = env();
        sinkAppend(generated(env, RowsFn.Kind.APPEND, s.appendRows(), 0, s.appendDim(), fullType(s.appendDim())),
                append);
        Timing appendTiming = timedRun(env, "append");
        double appendSeconds = appendTiming.seconds();
        emit(report, "append.rows_per_s", s.appendRows() / appendSeconds);
        emit(report, "append.cpu_s", appendTiming.cpuSeconds());
        emit(report, "append.table_bytes", PeerRun.bytes(tableDir(append)));

        String update = prefix + "update";
        createUpdateTable(update, s.updateDim());
        env = env();
        sinkAppend(generated(env, RowsFn.Kind.APPEND, s.updateRows(), 0, s.updateDim(), fullType(s.updateDim())),
                update);
        double loadSeconds = timedRun(env, "load").seconds();
        emit(report, "load.rows_per_s", s.updateRows() / loadSeconds);
        emit(report, "load.table_bytes", PeerRun.bytes(tableDir(update)));

        Map<Path, Long> before = PeerRun.files(tableDir(update));
        env = env();
        RowsFn.Kind kind = switch (updateShape()) {
            case ID_AGE -> RowsFn.Kind.UPDATE_ID_AGE;
            case FULL_WIDTH_NULLS -> RowsFn.Kind.UPDATE_FULL_WIDTH;
            case FULL_ROW -> RowsFn.Kind.UPDATE_FULL_ROW;
        };
        RowType updateType = updateShape() == UpdateShape.ID_AGE ? idAgeType() : fullType(s.updateDim());
        sinkUpdates(generated(env, kind, s.updates(), s.updateRows(), s.updateDim(), updateType), update);
        Recording jfr = jfrDir != null ? PeerRun.startJfr() : null;
        PeerRun.ThreadCpu threads = report && threadCpu ? PeerRun.ThreadCpu.start(processCpuNanos()) : null;
        Timing updateTiming = timedRun(env, "update");
        if (threads != null) {
            PeerRun.note("update.threads", threads.stop(processCpuNanos(), 14).replace("\n", "\\n"));
        }
        if (jfr != null) {
            PeerRun.note("update.jfr", PeerRun.stopJfr(jfr, jfrDir.resolve("update.jfr"), 6, 8)
                    .replace("\n", "\\n"));
        }
        emit(report, "update.rows_per_s", s.updates() / updateTiming.seconds());
        emit(report, "update.wall_s", updateTiming.wallSeconds());
        emit(report, "update.cpu_s", updateTiming.cpuSeconds());
        emit(report, "update.bytes_written", PeerRun.bytesWrittenSince(before, tableDir(update)));

        double full = timedScan(update, List.of("id", "name", "age", "score", "vec"), s.updateDim(), afterUpdates);
        emit(report, "scan_full.s", full);
        double narrow = timedScan(update, List.of("id", "age"), 0, afterUpdates);
        emit(report, "scan_narrow.s", narrow);

        before = PeerRun.files(tableDir(append));
        env = env();
        sinkChanges(generated(env, RowsFn.Kind.CHANGE, s.changes(), s.appendRows(), s.appendDim(),
                fullType(s.appendDim())), append);
        Timing changeTiming = timedRun(env, "stream");
        emit(report, "stream.rows_per_s", s.changes() / changeTiming.seconds());
        emit(report, "stream.wall_s", changeTiming.wallSeconds());
        emit(report, "stream.bytes_written", PeerRun.bytesWrittenSince(before, tableDir(append)));
        timedScan(append, List.of("id", "age"), 0, afterChanges); // the check only
    }

    private static void emit(boolean report, String key, double value) {
        if (report) {
            PeerRun.result(key, value);
        }
    }

    // ---- jobs -------------------------------------------------------------------------------------------

    /** A job environment on the running MiniCluster: parallelism 2, a checkpoint every second. */
    protected final StreamExecutionEnvironment env() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(PARALLELISM);
        env.enableCheckpointing(CHECKPOINT_MILLIS);
        return env;
    }

    /**
     * Seconds from the job's first generated record to its end ({@code seconds}), and from its
     * submission ({@code wallSeconds}: deployment and whatever a sink does before it takes records,
     * such as loading a key index, included).
     */
    private record Timing(double seconds, double wallSeconds, double cpuSeconds) {}

    /**
     * CPU time of this JVM so far (every thread: the job's tasks, checkpoints, JIT, GC), in ns:
     * on a machine that other work shares, a job's wall time swings with the load, the CPU it
     * needed much less.
     */
    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    private static Timing timedRun(StreamExecutionEnvironment env, String name) throws Exception {
        FIRST_RECORD_NANOS.set(0);
        long cpu = processCpuNanos();
        long submitted = System.nanoTime();
        env.execute("peer " + name);
        long end = System.nanoTime();
        cpu = processCpuNanos() - cpu;
        long first = FIRST_RECORD_NANOS.get();
        return new Timing((end - (first == 0 ? submitted : first)) / 1e9, (end - submitted) / 1e9, cpu / 1e9);
    }

    /**
     * Scans {@code columns} of {@code table} at parallelism 2 into a consumer that reads every
     * cell, then checks the row count and checksum against {@code expected}; seconds from building
     * the source to the job's end.
     */
    private double timedScan(String table, List<String> columns, int dim, Expected expected) throws Exception {
        SCANNED_ROWS.reset();
        SCANNED_SUM.reset();
        long start = System.nanoTime();
        StreamExecutionEnvironment env = env();
        scan(env, table, columns).map(new HashFn(columns.size() > 2, dim)).returns(Types.LONG)
                .sinkTo(new DiscardingSink<>()).name("checksum");
        env.execute("peer scan " + columns);
        double seconds = (System.nanoTime() - start) / 1e9;
        long sum = columns.size() > 2 ? expected.fullSum() : expected.narrowSum();
        if (SCANNED_ROWS.sum() != expected.rows() || SCANNED_SUM.sum() != sum) {
            throw new IllegalStateException(getClass().getSimpleName() + ": scanning " + columns + " of " + table
                    + " gave " + SCANNED_ROWS.sum() + " rows with checksum " + SCANNED_SUM.sum() + ", expected "
                    + expected.rows() + " rows with checksum " + sum + " (the table does not hold what was written)");
        }
        return seconds;
    }

    private static DataStream<RowData> generated(StreamExecutionEnvironment env, RowsFn.Kind kind, long n,
            long tableRows, int dim, RowType type) {
        return env.fromSequence(0, n - 1).setParallelism(1).name("sequence")
                .map(new RowsFn(kind, tableRows, dim)).setParallelism(1).name("generator")
                .returns(InternalTypeInfo.of(type));
    }

    // ---- row types ---------------------------------------------------------------------------------------

    /** (id BIGINT NOT NULL, name STRING, age INT, score DOUBLE, vec ARRAY&lt;FLOAT&gt;). */
    protected final RowType fullType(int dim) {
        return RowType.of(new LogicalType[] {new BigIntType(false), new VarCharType(VarCharType.MAX_LENGTH),
            new IntType(), new DoubleType(), new ArrayType(new FloatType(!vectorElementsNotNull()))},
                new String[] {"id", "name", "age", "score", "vec"});
    }

    protected static RowType idAgeType() {
        return RowType.of(new LogicalType[] {new BigIntType(false), new IntType()}, new String[] {"id", "age"});
    }

    // ---- functions -------------------------------------------------------------------------------------

    /** Record {@code i} of a workload, built from {@link PeerData}; notes the job's first record. */
    static final class RowsFn extends RichMapFunction<Long, RowData> {
        private static final long serialVersionUID = 1L;

        enum Kind { APPEND, UPDATE_ID_AGE, UPDATE_FULL_WIDTH, UPDATE_FULL_ROW, CHANGE }

        private final Kind kind;
        private final long tableRows;
        private final int dim;
        private final long stride;
        private transient boolean started;

        RowsFn(Kind kind, long tableRows, int dim) {
            this.kind = kind;
            this.tableRows = tableRows;
            this.dim = dim;
            this.stride = tableRows > 0 ? PeerData.stride(tableRows) : 1;
        }

        @Override
        public RowData map(Long boxed) {
            long i = boxed;
            if (!started) {
                started = true;
                FIRST_RECORD_NANOS.compareAndSet(0, System.nanoTime());
            }
            switch (kind) {
                case APPEND:
                    return row(RowKind.INSERT, i, i);
                case UPDATE_ID_AGE:
                    return GenericRowData.of(PeerData.changedKey(i, tableRows, stride), PeerData.updatedAge(i));
                case UPDATE_FULL_WIDTH:
                    return GenericRowData.of(PeerData.changedKey(i, tableRows, stride), null, PeerData.updatedAge(i),
                            null, null);
                case UPDATE_FULL_ROW: {
                    long k = PeerData.changedKey(i, tableRows, stride);
                    GenericRowData r = row(RowKind.UPDATE_AFTER, k, k);
                    r.setField(2, PeerData.updatedAge(i));
                    return r;
                }
                default: {
                    long id = PeerData.changeId(i, tableRows, stride);
                    Change c = PeerData.change(i);
                    if (c == Change.DELETE) {
                        // The whole old row, as a changelog carries it (Iceberg's upsert needs only the key).
                        return row(RowKind.DELETE, id, id);
                    }
                    return row(c == Change.INSERT ? RowKind.INSERT : RowKind.UPDATE_AFTER, id, PeerData.changeSeed(i));
                }
            }
        }

        private GenericRowData row(RowKind rowKind, long id, long seed) {
            float[] vec = new float[dim];
            PeerData.vector(seed, vec);
            GenericRowData r = GenericRowData.of(id, StringData.fromString(PeerData.name(seed)), PeerData.age(seed),
                    PeerData.score(seed), new GenericArrayData(vec));
            r.setRowKind(rowKind);
            return r;
        }
    }

    /** Reads every cell of a scanned row into the run's checksum. */
    static final class HashFn extends RichMapFunction<RowData, Long> {
        private static final long serialVersionUID = 1L;
        private final boolean full;
        private final int dim;
        private transient float[] vec;

        HashFn(boolean full, int dim) {
            this.full = full;
            this.dim = dim;
        }

        @Override
        public Long map(RowData r) {
            long h;
            if (full) {
                if (vec == null) {
                    vec = new float[dim];
                }
                var a = r.getArray(4);
                if (a.size() != dim) {
                    throw new IllegalStateException("A vector of " + a.size() + " values, expected " + dim);
                }
                for (int d = 0; d < dim; d++) {
                    vec[d] = a.getFloat(d);
                }
                h = PeerData.fullHash(r.getLong(0), r.getString(1).toString(), r.getInt(2), r.getDouble(3), vec, dim);
            } else {
                h = PeerData.narrowHash(r.getLong(0), r.getInt(1));
            }
            SCANNED_ROWS.increment();
            SCANNED_SUM.add(h);
            return 0L;
        }
    }
}
