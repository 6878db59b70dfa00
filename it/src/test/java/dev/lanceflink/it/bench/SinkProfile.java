package dev.lanceflink.it.bench;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.flink.sink.LanceSinkBuilder;
import dev.lanceflink.flink.sink.LanceSinkMode;
import dev.lanceflink.it.peers.PeerData;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;

/**
 * Profiles the append sink (issue #5's benchmark shape: {@code id int64, name utf8, age int32,
 * score float64}, a checkpoint every second) on a local MiniCluster in this JVM: CPU seconds per
 * million rows (the whole process, and per Flink task thread), the hottest frames by JFR
 * execution samples (self and inclusive), and JFR's allocation samples by class and by
 * allocation site. CPU rather than wall time, because benchmark machines are often shared.
 *
 * <p>Not part of the test suite (no test name). Run with the test classpath of this module:
 * <pre>
 * java --add-opens=java.base/java.nio=ALL-UNNAMED -Xmx4g -cp "$cp" dev.lanceflink.it.bench.SinkProfile \
 *     [rows [topology [batchRows [shape]]]]
 * </pre>
 * {@code rows} defaults to 5,000,000; {@code topology} is {@code bench} (as SinkBenchmark: a
 * sequence source and row mapper at parallelism 1, the sink at 2, so rows cross a network
 * exchange and are serialized) or {@code chained} (source, mapper and sink at parallelism 2,
 * chained: no serialization, but each record is copied between chained operators) or
 * {@code chained-reuse} (chained with object reuse: no copies either); {@code shape} is
 * {@code issue5} (the default) or {@code peer}, the peer benchmark's append rows with a 128-d
 * vector (issue #17). The JFR recording stays in
 * the printed temporary directory.
 */
public final class SinkProfile {
    private static final int KEYS = 10_000;
    private static final int TOP = 35;
    /** Flink task thread names end in " (1/2)#0"; grouping drops that suffix. */
    private static final Pattern SUBTASK_SUFFIX = Pattern.compile("\\s*\\(\\d+/\\d+\\)(#\\d+)?$");

    private SinkProfile() {}

    public static void main(String[] args) throws Exception {
        int rows = args.length > 0 ? Integer.parseInt(args[0]) : 5_000_000;
        String topology = args.length > 1 ? args[1] : "bench";
        int batchRows = args.length > 2 ? Integer.parseInt(args[2]) : LanceSinkBuilder.DEFAULT_BATCH_ROWS;
        boolean peer = args.length > 3 && args[3].equals("peer");
        if (args.length > 3 && !peer && !args[3].equals("issue5")) {
            throw new IllegalArgumentException("shape must be 'issue5' or 'peer', got '" + args[3] + "'");
        }
        shape = peer ? Shape.PEER : Shape.ISSUE5;
        if (!List.of("bench", "chained", "chained-reuse").contains(topology)) {
            throw new IllegalArgumentException(
                    "topology must be 'bench', 'chained' or 'chained-reuse', got '" + topology + "'");
        }
        Path dir = Files.createTempDirectory("lance-sink-profile");

        String warm = dir.resolve("warmup.lance").toString();
        createTable(warm);
        runSink(warm, Math.min(rows, 300_000), topology, batchRows);

        String uri = dir.resolve("profiled.lance").toString();
        createTable(uri);
        Path jfr = dir.resolve("sink.jfr");
        ThreadCpu threads = new ThreadCpu();
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long gcBefore = gcMillis();
        try (Recording recording = new Recording(Configuration.getConfiguration("profile"))) {
            recording.enable("jdk.ExecutionSample").withPeriod(Duration.ofMillis(2));
            recording.enable("jdk.ObjectAllocationSample").with("throttle", "1000/s");
            recording.start();
            threads.start();
            long cpu0 = os.getProcessCpuTime();
            long wall0 = System.nanoTime();
            runSink(uri, rows, topology, batchRows);
            long wall = System.nanoTime() - wall0;
            long cpu = os.getProcessCpuTime() - cpu0;
            threads.stop();
            recording.stop();
            recording.dump(jfr);
            long gc = gcMillis() - gcBefore;
            try (Dataset ds = Dataset.open(uri, Map.of())) {
                long expected = (shape == Shape.PEER ? 0L : KEYS) + rows;
                if (ds.countRows() != expected) {
                    throw new IllegalStateException("the table has " + ds.countRows() + " rows, expected " + expected);
                }
            }
            double millions = rows / 1e6;
            System.out.printf(
                    Locale.ROOT,
                    "%n%,d rows, topology %s, batchRows %d: wall %.2f s, process CPU %.2f s"
                            + " = %.3f CPU s per M rows (GC %.2f s)%n",
                    rows,
                    topology,
                    batchRows,
                    wall / 1e9,
                    cpu / 1e9,
                    cpu / 1e9 / millions,
                    gc / 1e3);
            System.out.printf(
                    Locale.ROOT,
                    "job start to first record %.2f s, first to last record %.2f s, last record"
                            + " to job end (final checkpoint and commit) %.2f s%n",
                    (ProfileRows.FIRST.get() - wall0) / 1e9,
                    (ProfileRows.LAST.get() - ProfileRows.FIRST.get()) / 1e9,
                    (wall0 + wall - ProfileRows.LAST.get()) / 1e9);
            System.out.println("\nCPU seconds per M rows, by thread (subtasks merged):");
            threads.byGroup().entrySet().stream()
                    .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                    .filter(e -> e.getValue() > 10_000_000L)
                    .forEach(e ->
                            System.out.printf(Locale.ROOT, "  %7.3f  %s%n", e.getValue() / 1e9 / millions, e.getKey()));
        }
        printProfile(jfr);
        System.out.println("\nRecording: " + jfr);
    }

    private static void runSink(String uri, int rows, String topology, int batchRows) throws Exception {
        org.apache.flink.configuration.Configuration conf = new org.apache.flink.configuration.Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(2);
        env.enableCheckpointing(SinkBenchmark.CHECKPOINT_MILLIS);
        int sourceParallelism = topology.equals("bench") ? 1 : 2;
        if (topology.equals("chained-reuse")) {
            env.getConfig().enableObjectReuse();
        }
        LanceSinkBuilder.forTable(uri)
                .mode(LanceSinkMode.APPEND)
                .uidSuffix("profile")
                .batchRows(batchRows)
                .sinkTo(env.fromSequence(0, rows - 1)
                        .setParallelism(sourceParallelism)
                        .uid("sequence")
                        .map(new ProfileRows(rows, shape == Shape.PEER ? PEER_DIM : 0))
                        .setParallelism(sourceParallelism)
                        .uid("rows")
                        .returns(InternalTypeInfo.of(
                                shape == Shape.PEER ? AppendWriterProfile.rowType(PEER_DIM) : SinkBenchmark.ROW_TYPE)));
        env.execute("sink profile");
    }

    /**
     * The rows profiled: issue #5's {@code (id, name, age, score)} into a table of {@value #KEYS}
     * rows, or the peer benchmark's append rows (issue #17: those plus a 128-d float vector, made
     * by {@link PeerData}) into an empty table.
     */
    private enum Shape {
        ISSUE5,
        PEER
    }

    private static final int PEER_DIM = 128;
    private static Shape shape = Shape.ISSUE5;

    private static void createTable(String uri) throws Exception {
        if (shape == Shape.PEER) {
            AppendWriterProfile.createTable(Path.of(uri), PEER_DIM);
            return;
        }
        try (BufferAllocator a = new RootAllocator();
                VectorSchemaRoot root = VectorSchemaRoot.create(SinkBenchmark.SCHEMA, a)) {
            root.allocateNew();
            for (int k = 0; k < KEYS; k++) {
                ((BigIntVector) root.getVector("id")).setSafe(k, k);
                ((VarCharVector) root.getVector("name")).setSafe(k, ("init-" + k).getBytes(StandardCharsets.UTF_8));
                ((IntVector) root.getVector("age")).setSafe(k, k % 100);
                ((Float8Vector) root.getVector("score")).setSafe(k, -k / 4.0);
            }
            root.setRowCount(KEYS);
            Dataset.write(uri, Map.of(), List.of(root), SinkBenchmark.SCHEMA, WriteParams.of(WriteMode.CREATE))
                    .close();
        }
    }

    private static long gcMillis() {
        long sum = 0;
        for (var gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            sum += Math.max(0, gc.getCollectionTime());
        }
        return sum;
    }

    // ---- JFR aggregation -------------------------------------------------------------------------

    private static void printProfile(Path jfr) throws IOException {
        Map<String, Long> self = new HashMap<>();
        Map<String, Long> inclusive = new HashMap<>();
        Map<String, Long> byThread = new HashMap<>();
        Map<String, Map<String, Long>> selfByThread = new HashMap<>();
        Map<String, Map<String, Long>> inclusiveByThread = new HashMap<>();
        Map<String, Long> allocByClass = new HashMap<>();
        Map<String, Long> allocBySite = new HashMap<>();
        long samples = 0;
        long allocated = 0;
        for (RecordedEvent e : RecordingFile.readAllEvents(jfr)) {
            String type = e.getEventType().getName();
            if (type.equals("jdk.ExecutionSample")) {
                RecordedStackTrace st = e.getStackTrace();
                if (st == null || st.getFrames().isEmpty()) {
                    continue;
                }
                samples++;
                RecordedThread t = e.getThread("sampledThread");
                String name = t == null || t.getJavaName() == null ? "?" : t.getJavaName();
                String group = SUBTASK_SUFFIX.matcher(name).replaceAll("");
                byThread.merge(group, 1L, Long::sum);
                Map<String, Long> groupSelf = selfByThread.computeIfAbsent(group, g -> new HashMap<>());
                Map<String, Long> groupInclusive = inclusiveByThread.computeIfAbsent(group, g -> new HashMap<>());
                List<RecordedFrame> frames = st.getFrames();
                self.merge(method(frames.get(0)), 1L, Long::sum);
                groupSelf.merge(method(frames.get(0)), 1L, Long::sum);
                Set<String> seen = new HashSet<>();
                for (RecordedFrame f : frames) {
                    String m = method(f);
                    if (seen.add(m)) {
                        inclusive.merge(m, 1L, Long::sum);
                        groupInclusive.merge(m, 1L, Long::sum);
                    }
                }
            } else if (type.equals("jdk.ObjectAllocationSample")) {
                long weight = e.getLong("weight");
                allocated += weight;
                allocByClass.merge(e.getClass("objectClass").getName(), weight, Long::sum);
                RecordedStackTrace st = e.getStackTrace();
                if (st != null) {
                    allocBySite.merge(allocationSite(st.getFrames()), weight, Long::sum);
                }
            }
        }
        System.out.printf(Locale.ROOT, "%nExecution samples: %,d%n", samples);
        print("Samples by thread", byThread, samples, 12);
        print("Self (top frame)", self, samples, TOP);
        print("Inclusive (method anywhere on the stack)", inclusive, samples, TOP + 15);
        long allSamples = samples;
        byThread.entrySet().stream()
                .filter(g -> g.getValue() * 10 >= allSamples)
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .forEach(g -> {
                    print("Thread '" + g.getKey() + "', self", selfByThread.get(g.getKey()), g.getValue(), 25);
                    print(
                            "Thread '" + g.getKey() + "', inclusive",
                            inclusiveByThread.get(g.getKey()),
                            g.getValue(),
                            45);
                });
        System.out.printf(Locale.ROOT, "%nAllocation samples: %,d MB estimated%n", allocated >> 20);
        print("Allocated by class (bytes)", allocByClass, allocated, 20);
        print("Allocated by site (first frame outside java.*/jdk.*/sun.*)", allocBySite, allocated, 20);
    }

    private static String method(RecordedFrame f) {
        return f.getMethod().getType().getName() + "." + f.getMethod().getName();
    }

    private static String allocationSite(List<RecordedFrame> frames) {
        for (RecordedFrame f : frames) {
            String type = f.getMethod().getType().getName();
            if (!type.startsWith("java.") && !type.startsWith("jdk.") && !type.startsWith("sun.")) {
                return method(f) + ":" + f.getLineNumber();
            }
        }
        return frames.isEmpty() ? "?" : method(frames.get(0));
    }

    private static void print(String title, Map<String, Long> counts, long total, int limit) {
        System.out.println("\n" + title + ":");
        counts.entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue(Comparator.reverseOrder()))
                .limit(limit)
                .forEach(e ->
                        System.out.printf(Locale.ROOT, "  %5.1f%%  %s%n", 100.0 * e.getValue() / total, e.getKey()));
    }

    /**
     * Row {@code i} as {@link SinkBenchmark.BenchRows} makes it for appends, noting when the first
     * and the last row were made (so the job's tail, the final checkpoint and commit, shows).
     */
    static final class ProfileRows extends RichMapFunction<Long, RowData> {
        private static final long serialVersionUID = 1L;
        static final AtomicLong FIRST = new AtomicLong();
        static final AtomicLong LAST = new AtomicLong();
        private final long rows;
        /** 0: issue #5's rows; else the peer benchmark's append rows with vectors of this size. */
        private final int dim;

        ProfileRows(long rows, int dim) {
            this.rows = rows;
            this.dim = dim;
            FIRST.set(0);
            LAST.set(0);
        }

        @Override
        public RowData map(Long boxed) {
            long i = boxed;
            if (FIRST.get() == 0) {
                FIRST.compareAndSet(0, System.nanoTime());
            }
            if (i == rows - 1) {
                LAST.set(System.nanoTime());
            }
            if (dim > 0) {
                float[] vec = new float[dim];
                PeerData.vector(i, vec);
                return GenericRowData.of(
                        i,
                        StringData.fromString(PeerData.name(i)),
                        PeerData.age(i),
                        PeerData.score(i),
                        new GenericArrayData(vec));
            }
            return GenericRowData.of(KEYS + i, StringData.fromString("r-" + i), (int) (i % 100), i / 4.0);
        }
    }

    /**
     * CPU time per live thread, polled every 100 ms (threads of a finished job are gone by the
     * end, so the last value seen counts); grouped by name without the subtask suffix.
     */
    private static final class ThreadCpu {
        private final ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        private final Map<Long, Long> cpu = new ConcurrentHashMap<>();
        private final Map<Long, Long> base = new ConcurrentHashMap<>();
        private final Map<Long, String> names = new ConcurrentHashMap<>();
        private volatile boolean running;
        private Thread poller;

        void start() {
            poll(true);
            running = true;
            poller = new Thread(
                    () -> {
                        while (running) {
                            poll(false);
                            try {
                                Thread.sleep(100);
                            } catch (InterruptedException e) {
                                return;
                            }
                        }
                    },
                    "sink-profile-cpu-poller");
            poller.setDaemon(true);
            poller.start();
        }

        void stop() throws InterruptedException {
            running = false;
            poller.join();
            poll(false);
        }

        private void poll(boolean baseline) {
            long[] ids = bean.getAllThreadIds();
            ThreadInfo[] infos = bean.getThreadInfo(ids);
            for (int i = 0; i < ids.length; i++) {
                long t = bean.getThreadCpuTime(ids[i]);
                if (t < 0 || infos[i] == null) {
                    continue;
                }
                if (baseline) {
                    base.put(ids[i], t);
                } else {
                    names.put(ids[i], infos[i].getThreadName());
                    cpu.put(ids[i], t - base.getOrDefault(ids[i], 0L));
                }
            }
        }

        Map<String, Long> byGroup() {
            Map<String, Long> groups = new HashMap<>();
            cpu.forEach((id, nanos) ->
                    groups.merge(SUBTASK_SUFFIX.matcher(names.get(id)).replaceAll(""), nanos, Long::sum));
            return groups;
        }
    }
}
