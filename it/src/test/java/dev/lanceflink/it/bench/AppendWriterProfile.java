package dev.lanceflink.it.bench;

import dev.lanceflink.committer.core.TableLocation;
import dev.lanceflink.committer.core.WrittenChanges;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.file.FileVersion;
import dev.lanceflink.file.writer.FileWriterOptions;
import dev.lanceflink.flink.sink.LanceSinkBuilder;
import dev.lanceflink.flink.sink.writer.LanceSinkWriter;
import dev.lanceflink.flink.sink.writer.RowDataToArrow;
import dev.lanceflink.io.AbortableOutputStream;
import dev.lanceflink.io.ForwardingObjectStore;
import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.it.peers.PeerData;
import dev.lanceflink.schema.LanceSchema;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.write.FragmentWriter;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.FloatType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;

/**
 * The append sink's writer path in one thread, for the peer benchmark's append rows (issue #17:
 * {@code id BIGINT NOT NULL, name STRING, age INT, score DOUBLE, vec ARRAY<FLOAT NOT NULL>} of
 * {@code dim} floats, made by {@link PeerData} as the benchmark's generator makes them). In the
 * benchmark the generator runs at parallelism 1 and the sink at 2, so each sink subtask receives
 * the rows serialized and deserializes them into {@code BinaryRowData}; this profile does the same
 * from a buffer of serialized rows, then per "checkpoint" ({@code rowsPerCheckpoint} rows, about a
 * second's worth for one subtask) writes them as the sink's writer does and flushes.
 *
 * <p>Two passes per repetition, both on a new table: the real {@link LanceSinkWriter} (write +
 * prepareCommit, whole CPU only), and its steps driven one by one, batch by batch, to split the
 * CPU into deserialization, conversion ({@link RowDataToArrow}), encoding
 * ({@link FragmentWriter#write}) and the checkpoint's flush (last pages and file footer), and
 * of the latter two the CPU spent in the file writes themselves (system calls into the page cache).
 * Figures are the writing thread's CPU nanoseconds (ThreadMXBean) per row, the median of the
 * repetitions; CPU rather than wall time because benchmark machines are often shared. A sampling
 * thread (stack traces of the writing thread every millisecond, no JFR) splits the steps'
 * CPU further by category and lists the hottest frames.
 *
 * <p>Not part of the test suite. Run with this module's test classpath:
 * {@code java --add-opens=java.base/java.nio=ALL-UNNAMED -cp "$cp" dev.lanceflink.it.bench.AppendWriterProfile
 * [rowsPerCheckpoint [checkpoints [repetitions [dim [stringCompression]]]]]} (defaults 100,000, 5,
 * 7, 128 and {@code true}).
 */
public final class AppendWriterProfile {
    private static final int TOP = 30;

    private AppendWriterProfile() {}

    public static void main(String[] args) throws Exception {
        int rowsPerCheckpoint = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        int checkpoints = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        int reps = args.length > 2 ? Integer.parseInt(args[2]) : 7;
        int dim = args.length > 3 ? Integer.parseInt(args[3]) : 128;
        boolean stringCompression = args.length <= 4 || Boolean.parseBoolean(args[4]);
        RowType type = rowType(dim);
        byte[] serialized = serializedRows(type, rowsPerCheckpoint, dim);
        Path dir = Files.createTempDirectory("lance-append-writer-profile");
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().getId();
        long rows = (long) rowsPerCheckpoint * checkpoints;
        System.out.printf(
                Locale.ROOT,
                "%,d rows per checkpoint x %d checkpoints, %d-d vectors, %.1f MB serialized per checkpoint,"
                        + " batches of %d, string compression %s; load average %.2f%n",
                rowsPerCheckpoint,
                checkpoints,
                dim,
                serialized.length / 1e6,
                LanceSinkBuilder.DEFAULT_BATCH_ROWS,
                stringCompression,
                ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());

        double[] sinkWriter = new double[reps];
        // CPU of deserialize, convert, encode, flush, of which file writes; allocated bytes of the
        // four steps; allocated bytes in all
        double[][] steps = new double[10][reps];
        Sampler sampler = new Sampler(mx, tid);
        for (int rep = -2; rep < reps; rep++) { // two warm-up repetitions
            // The real writer.
            if (stringCompression) {
                String uri = createTable(dir.resolve("sink-" + rep + ".lance"), dim);
                long cpu0 = mx.getCurrentThreadCpuTime();
                runSinkWriter(uri, type, serialized, rowsPerCheckpoint, checkpoints);
                long cpu = mx.getCurrentThreadCpuTime() - cpu0;
                if (rep >= 0) {
                    sinkWriter[rep] = (double) cpu / rows;
                }
                deleteTree(Path.of(uri));
            }
            // Its steps one by one.
            String uri = createTable(dir.resolve("steps-" + rep + ".lance"), dim);
            long alloc0 = mx.getThreadAllocatedBytes(tid);
            if (rep >= 0) {
                sampler.start();
            }
            long[] cpu = runSteps(uri, type, serialized, rowsPerCheckpoint, checkpoints, stringCompression, mx);
            if (rep >= 0) {
                sampler.stop();
                for (int k = 0; k < 9; k++) {
                    steps[k][rep] = (double) cpu[k] / rows;
                }
                steps[9][rep] = (double) (mx.getThreadAllocatedBytes(tid) - alloc0) / rows;
            }
            deleteTree(Path.of(uri));
        }
        System.out.printf(
                Locale.ROOT,
                "%nCPU ns per row of the writing thread, median of %d [min-max]; load average now %.2f%n",
                reps,
                ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        if (stringCompression) {
            System.out.printf(Locale.ROOT, "  LanceSinkWriter (write + prepareCommit) %s%n", fmt(sinkWriter));
        }
        double[] total = new double[reps];
        for (int r = 0; r < reps; r++) {
            total[r] = steps[0][r] + steps[1][r] + steps[2][r] + steps[3][r];
        }
        System.out.printf(Locale.ROOT, "  steps, all                            %s%n", fmt(total));
        System.out.printf(Locale.ROOT, "    deserialize (network input)         %s%n", fmt(steps[0]));
        System.out.printf(Locale.ROOT, "    RowDataToArrow.append               %s%n", fmt(steps[1]));
        System.out.printf(Locale.ROOT, "    FragmentWriter.write (encoding)     %s%n", fmt(steps[2]));
        System.out.printf(Locale.ROOT, "    FragmentWriter.flush (checkpoint)   %s%n", fmt(steps[3]));
        System.out.printf(Locale.ROOT, "    of write + flush: file writes (I/O) %s%n", fmt(steps[4]));
        System.out.printf(Locale.ROOT, "  allocated bytes per row, steps        %s%n", fmt(steps[9]));
        System.out.printf(Locale.ROOT, "    deserialize                         %s%n", fmt(steps[5]));
        System.out.printf(Locale.ROOT, "    RowDataToArrow.append               %s%n", fmt(steps[6]));
        System.out.printf(Locale.ROOT, "    FragmentWriter.write                %s%n", fmt(steps[7]));
        System.out.printf(Locale.ROOT, "    FragmentWriter.flush                %s%n", fmt(steps[8]));
        sampler.print();
        Files.delete(dir);
    }

    /**
     * Removes a repetition's table: hundreds of MB of new files per repetition would otherwise
     * fill the page cache, and the kernel's reclaim then shows as CPU of the next writes.
     */
    private static void deleteTree(Path dir) throws IOException {
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    private static String fmt(double[] values) {
        double[] s = values.clone();
        Arrays.sort(s);
        return String.format(Locale.ROOT, "%8.0f [%.0f-%.0f]", s[s.length / 2], s[0], s[s.length - 1]);
    }

    /** The peer benchmark's append row type (PeerWorkloads.fullType for Lance: vector elements NOT NULL). */
    static RowType rowType(int dim) {
        return RowType.of(
                new LogicalType[] {
                    new BigIntType(false),
                    new VarCharType(VarCharType.MAX_LENGTH),
                    new IntType(),
                    new DoubleType(),
                    new ArrayType(new FloatType(false))
                },
                new String[] {"id", "name", "age", "score", "vec"});
    }

    /** The append table of the peer benchmark (LancePeer's), empty. */
    static String createTable(Path path, int dim) throws Exception {
        Schema schema = new Schema(List.of(
                new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
                new Field("name", FieldType.nullable(new ArrowType.Utf8()), null),
                new Field("age", FieldType.nullable(new ArrowType.Int(32, true)), null),
                new Field(
                        "score", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), null),
                new Field(
                        "vec",
                        FieldType.nullable(new ArrowType.FixedSizeList(dim)),
                        List.of(new Field(
                                "item",
                                FieldType.notNullable(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
                                null)))));
        String uri = path.toString();
        Dataset.write(uri, Map.of(), List.of(), schema, WriteParams.of(WriteMode.CREATE))
                .close();
        return uri;
    }

    /** Rows 0..n-1 as the benchmark's generator makes them, serialized as the network carries them. */
    private static byte[] serializedRows(RowType type, int n, int dim) throws Exception {
        RowDataSerializer serializer = new RowDataSerializer(type);
        DataOutputSerializer out = new DataOutputSerializer(n * (dim * 4 + 96));
        for (long i = 0; i < n; i++) {
            float[] vec = new float[dim];
            PeerData.vector(i, vec);
            GenericRowData r = GenericRowData.of(
                    i,
                    StringData.fromString(PeerData.name(i)),
                    PeerData.age(i),
                    PeerData.score(i),
                    new GenericArrayData(vec));
            serializer.serialize(r, out);
        }
        return out.getCopyOfBuffer();
    }

    private static void runSinkWriter(String uri, RowType type, byte[] serialized, int n, int checkpoints)
            throws Exception {
        RowDataSerializer serializer = new RowDataSerializer(type);
        DataInputDeserializer in = new DataInputDeserializer();
        try (LanceSinkWriter writer = new LanceSinkWriter(
                TableLocation.of(uri),
                LanceSinkBuilder.DEFAULT_ROWS_PER_FILE,
                LanceSinkBuilder.DEFAULT_BATCH_ROWS,
                type,
                UnregisteredMetricsGroup.createSinkWriterMetricGroup())) {
            for (int c = 0; c < checkpoints; c++) {
                in.setBuffer(serialized);
                for (int i = 0; i < n; i++) {
                    writer.write(serializer.deserialize(in), NO_CONTEXT);
                }
                writer.flush(false);
                Collection<WrittenChanges> changes = writer.prepareCommit();
                if (changes.isEmpty()) {
                    throw new IllegalStateException("the writer wrote nothing at checkpoint " + c);
                }
            }
        }
    }

    /** CPU ns of deserialization, conversion, encoding and flushes, as {@link LanceSinkWriter} does them. */
    private static long[] runSteps(
            String uri,
            RowType type,
            byte[] serialized,
            int n,
            int checkpoints,
            boolean stringCompression,
            com.sun.management.ThreadMXBean mx)
            throws Exception {
        RowDataSerializer serializer = new RowDataSerializer(type);
        DataInputDeserializer in = new DataInputDeserializer();
        int batchRows = LanceSinkBuilder.DEFAULT_BATCH_ROWS;
        RowData[] batchRowsIn = new RowData[batchRows];
        // CPU: deserialize, convert, encode, flush, file writes; allocated bytes of the first four
        long[] cpu = new long[9];
        long tid = Thread.currentThread().getId();
        long written = 0;
        try (Dataset ds = Dataset.open(uri, Map.of());
                ObjectStore store = new IoTimingStore(new LocalObjectStore(Path.of(uri)), mx);
                BufferAllocator allocator = new RootAllocator()) {
            LanceSchema schema = ds.schema();
            try (RowDataToArrow batch = new RowDataToArrow(schema.toArrow(), type, allocator, uri);
                    FragmentWriter files = new FragmentWriter(
                            store,
                            schema,
                            FileVersion.V2_1,
                            LanceSinkBuilder.DEFAULT_ROWS_PER_FILE,
                            allocator,
                            FileWriterOptions.defaults().withStringCompression(stringCompression))) {
                for (int c = 0; c < checkpoints; c++) {
                    in.setBuffer(serialized);
                    for (int done = 0; done < n; ) {
                        int m = Math.min(batchRows, n - done);
                        long a0 = mx.getThreadAllocatedBytes(tid);
                        long t0 = mx.getCurrentThreadCpuTime();
                        for (int i = 0; i < m; i++) {
                            batchRowsIn[i] = serializer.deserialize(in);
                        }
                        long t1 = mx.getCurrentThreadCpuTime();
                        long a1 = mx.getThreadAllocatedBytes(tid);
                        for (int i = 0; i < m; i++) {
                            batch.append(batchRowsIn[i]);
                        }
                        long t2 = mx.getCurrentThreadCpuTime();
                        long a2 = mx.getThreadAllocatedBytes(tid);
                        files.write(batch.batch());
                        batch.reset();
                        long t3 = mx.getCurrentThreadCpuTime();
                        cpu[0] += t1 - t0;
                        cpu[1] += t2 - t1;
                        cpu[2] += t3 - t2;
                        cpu[5] += a1 - a0;
                        cpu[6] += a2 - a1;
                        cpu[7] += mx.getThreadAllocatedBytes(tid) - a2;
                        done += m;
                    }
                    long a0 = mx.getThreadAllocatedBytes(tid);
                    long t0 = mx.getCurrentThreadCpuTime();
                    List<Fragment> fragments = files.flush();
                    cpu[3] += mx.getCurrentThreadCpuTime() - t0;
                    cpu[8] += mx.getThreadAllocatedBytes(tid) - a0;
                    for (Fragment f : fragments) {
                        written += f.physicalRows();
                    }
                }
            }
        }
        cpu[4] = IoTimingStore.CPU.getAndSet(0);
        if (written != (long) n * checkpoints) {
            throw new IllegalStateException("wrote " + written + " rows, expected " + (long) n * checkpoints);
        }
        return cpu;
    }

    /** A store whose new objects count the writing thread's CPU spent in their writes and close. */
    private static final class IoTimingStore extends ForwardingObjectStore {
        static final AtomicLong CPU = new AtomicLong();
        private final com.sun.management.ThreadMXBean mx;

        IoTimingStore(ObjectStore delegate, com.sun.management.ThreadMXBean mx) {
            super(delegate);
            this.mx = mx;
        }

        @Override
        public OutputStream create(String path) throws IOException {
            OutputStream out = super.create(path);
            return new TimedStream(out);
        }

        private final class TimedStream extends FilterOutputStream implements AbortableOutputStream {
            TimedStream(OutputStream out) {
                super(out);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                long t0 = mx.getCurrentThreadCpuTime();
                out.write(b, off, len);
                CPU.addAndGet(mx.getCurrentThreadCpuTime() - t0);
            }

            @Override
            public void close() throws IOException {
                long t0 = mx.getCurrentThreadCpuTime();
                out.close();
                CPU.addAndGet(mx.getCurrentThreadCpuTime() - t0);
            }

            @Override
            public void abort() throws IOException {
                if (out instanceof AbortableOutputStream a) {
                    a.abort();
                } else {
                    out.close();
                }
            }
        }
    }

    private static final SinkWriter.Context NO_CONTEXT = new SinkWriter.Context() {
        @Override
        public long currentWatermark() {
            return Long.MIN_VALUE;
        }

        @Override
        public Long timestamp() {
            return null;
        }
    };

    /**
     * Stack samples of one thread, every millisecond: by category (the first frame from the top
     * that belongs to a step) and by top frame. Sampling through ThreadMXBean is biased towards
     * safepoints, so the frames are a guide; the CPU split of the steps above is exact.
     */
    private static final class Sampler {
        private final java.lang.management.ThreadMXBean mx;
        private final long tid;
        private final Map<String, Long> categories = new HashMap<>();
        private final Map<String, Long> top = new HashMap<>();
        private final Map<String, Long> ours = new HashMap<>();
        private long samples;
        private volatile boolean running;
        private Thread thread;

        Sampler(java.lang.management.ThreadMXBean mx, long tid) {
            this.mx = mx;
            this.tid = tid;
        }

        void start() {
            running = true;
            thread = new Thread(
                    () -> {
                        while (running) {
                            ThreadInfo info = mx.getThreadInfo(tid, 80);
                            if (info != null && info.getThreadState() == Thread.State.RUNNABLE) {
                                record(info.getStackTrace());
                            }
                            try {
                                Thread.sleep(1);
                            } catch (InterruptedException e) {
                                return;
                            }
                        }
                    },
                    "append-profile-sampler");
            thread.setDaemon(true);
            thread.start();
        }

        void stop() throws InterruptedException {
            running = false;
            thread.join();
        }

        private synchronized void record(StackTraceElement[] st) {
            if (st.length == 0) {
                return;
            }
            samples++;
            top.merge(st[0].getClassName() + "." + st[0].getMethodName(), 1L, Long::sum);
            categories.merge(category(st), 1L, Long::sum);
            for (StackTraceElement e : st) {
                if (e.getClassName().startsWith("dev.lanceflink.")) {
                    ours.merge(
                            e.getClassName().substring("dev.lanceflink.".length()) + "." + e.getMethodName(),
                            1L,
                            Long::sum);
                    break;
                }
            }
        }

        private static String category(StackTraceElement[] st) {
            for (StackTraceElement e : st) {
                String c = e.getClassName();
                if (c.startsWith("sun.nio.ch.") || c.startsWith("java.io.File") || c.contains(".io.LocalObjectStore")) {
                    return "I/O (file writes)";
                }
                if (c.contains("StringPageCompressor") || c.contains("Fsst")) {
                    return "encoding: string compression (dictionary/FSST)";
                }
                if (c.contains("FullZip")) {
                    return "encoding: full-zip (the vector)";
                }
                if (c.contains("MiniBlock") || c.contains("Bitpack") || c.contains("BitPack")) {
                    return "encoding: mini-block (id, name, age, score)";
                }
                if (c.startsWith("dev.lanceflink.file.") || c.startsWith("dev.lanceflink.encoding.")) {
                    return "encoding: other (shredding, pages, footer)";
                }
                if (c.startsWith("dev.lanceflink.flink.sink.writer.")) {
                    return "conversion (RowDataToArrow)";
                }
                if (c.startsWith("org.apache.flink.table.runtime.typeutils.")) {
                    return "deserialization";
                }
            }
            return "other: " + st[Math.min(st.length - 1, 0)].getClassName();
        }

        synchronized void print() {
            System.out.printf(Locale.ROOT, "%nSamples of the steps: %,d%n", samples);
            print("By category", categories, 20);
            print("First frame of ours", ours, TOP);
            print("Top frame", top, TOP);
        }

        private void print(String title, Map<String, Long> counts, int limit) {
            System.out.println(title + ":");
            List<Map.Entry<String, Long>> sorted = new ArrayList<>(counts.entrySet());
            sorted.sort(Map.Entry.<String, Long>comparingByValue().reversed());
            sorted.stream()
                    .limit(limit)
                    .forEach(e -> System.out.printf(
                            Locale.ROOT, "  %5.1f%%  %s%n", 100.0 * e.getValue() / samples, e.getKey()));
        }
    }
}
