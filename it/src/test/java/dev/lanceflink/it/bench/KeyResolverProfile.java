package dev.lanceflink.it.bench;

import dev.lanceflink.committer.core.TableLocation;
import dev.lanceflink.flink.sink.KeyMapMode;
import dev.lanceflink.flink.sink.upsert.ChangelogKeyResolver;
import dev.lanceflink.flink.sink.upsert.LocatedChange;
import dev.lanceflink.flink.sink.upsert.LocatedChangeTypeInfo;
import dev.lanceflink.flink.sink.upsert.PrimaryKeySelector;
import dev.lanceflink.schema.ColumnSet;
import dev.lanceflink.testkit.users.UsersChangelog.Mix;
import dev.lanceflink.testkit.users.UsersTable;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.stream.DoubleStream;
import java.util.stream.Stream;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.storage.JobManagerCheckpointStorage;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
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
import org.apache.flink.types.RowKind;

/**
 * Issue #17, step 1 of {@code docs/design/upsert-key-map.md}: what the upsert sink's key resolver
 * ({@link ChangelogKeyResolver}, the operator that keeps the key → row location map) costs per
 * record, per checkpoint barrier and per checkpoint snapshot, on its own, in this thread: a
 * keyed operator test harness with the heap state backend (the sink's default) on a table of
 * {@code rows} keys, fed {@code changes} records, a checkpoint every {@code perCheckpoint}
 * records. Two workloads: cell updates of {@code age} (records carry {@code id, age}, as the
 * peer benchmark's update job) and a changelog of whole rows (85% updates, 10% new keys, 5%
 * deletes, as the keymap benchmark). Figures are the calling thread's CPU time and allocated
 * bytes (ThreadMXBean), median of {@code rounds} rounds, so a loaded machine moves them less than
 * wall times; the state size is what the snapshot reports.
 *
 * <p>Both key map modes ({@code 'sink.key-map'}) side by side: {@code keyed-state} (heap keyed
 * state) and {@code in-memory} (heap map; state is the uncommitted delta). Nothing commits here,
 * so the in-memory delta keeps every checkpoint's inserts, moves and deletes (as a job whose
 * commits lag would): its state bytes grow by one segment per checkpoint, an upper bound.
 *
 * <p>Not part of the test suite: {@code java ... KeyResolverProfile [rows [changes [perCheckpoint
 * [rounds [modes]]]]]} (defaults 200000 200000 50000 3 keyed-state,in-memory), or via the it module's benchmark class path as
 * {@code it/run-benchmarks.sh} builds it. It is the gate of the design's later steps: they must
 * lower ns/record and bytes/checkpoint here.
 */
public final class KeyResolverProfile {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private static final RowType ROW = RowType.of(
            new LogicalType[] {
                new BigIntType(false), new VarCharType(VarCharType.MAX_LENGTH), new IntType(), new DoubleType()
            },
            new String[] {"id", "name", "age", "score"});
    private static final int[] KEY = {0};

    private KeyResolverProfile() {}

    /** One round's figures. */
    record Round(
            double bootstrapCpuMs,
            double recordCpuNs,
            double recordAllocBytes,
            double barrierCpuNsPerRecord,
            double snapshotCpuMs,
            long stateBytesPerCheckpoint) {}

    public static void main(String[] args) throws Exception {
        int rows = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
        int changes = args.length > 1 ? Integer.parseInt(args[1]) : 200_000;
        int perCheckpoint = args.length > 2 ? Integer.parseInt(args[2]) : 50_000;
        int rounds = args.length > 3 ? Integer.parseInt(args[3]) : 3;
        List<KeyMapMode> modes = args.length > 4
                ? Stream.of(args[4].split(","))
                        .map(m -> KeyMapMode.ofOptionValue(m)
                                .orElseThrow(() -> new IllegalArgumentException("no key map mode " + m)))
                        .toList()
                : List.of(KeyMapMode.values());
        Path dir = Files.createTempDirectory("lance-key-resolver-profile");
        try {
            String uri = dir.resolve("t.lance").toString();
            UsersTable.create(uri, Mix.SINK_TESTS.initialRows(rows), 100_000);
            System.out.printf(
                    Locale.ROOT,
                    "key resolver profile: %,d keys, %,d changes, a checkpoint every %,d, median of %d rounds, load %.1f%n",
                    rows,
                    changes,
                    perCheckpoint,
                    rounds,
                    ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
            System.out.println("| key map | workload | bootstrap CPU ms | CPU ns/record | allocated B/record"
                    + " | barrier CPU ns/record | snapshot CPU ms | state bytes/checkpoint |");
            System.out.println("|---|---|---:|---:|---:|---:|---:|---:|");
            for (boolean cells : new boolean[] {true, false}) {
                for (KeyMapMode mode : modes) {
                    List<Round> measured = new ArrayList<>();
                    for (int r = 0; r < rounds; r++) {
                        measured.add(round(uri, rows, changes, perCheckpoint, cells, 7 + r, mode));
                    }
                    System.out.printf(
                            Locale.ROOT,
                            "| %s | %s | %.0f | %.0f | %.0f | %.0f | %.1f | %,d |%n",
                            mode.optionValue(),
                            cells ? "cell updates of age" : "whole-row changelog (10% new, 5% deletes)",
                            median(measured.stream().mapToDouble(Round::bootstrapCpuMs)),
                            median(measured.stream().mapToDouble(Round::recordCpuNs)),
                            median(measured.stream().mapToDouble(Round::recordAllocBytes)),
                            median(measured.stream().mapToDouble(Round::barrierCpuNsPerRecord)),
                            median(measured.stream().mapToDouble(Round::snapshotCpuMs)),
                            (long) median(measured.stream().mapToDouble(Round::stateBytesPerCheckpoint)));
                }
            }
        } finally {
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted((a, b) -> b.compareTo(a)).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static Round round(
            String uri, int rows, int changes, int perCheckpoint, boolean cells, long seed, KeyMapMode mode)
            throws Exception {
        List<RowData> input = cells ? cellUpdates(rows, changes, seed) : changelog(rows, changes, seed);
        ColumnSet written = cells ? ColumnSet.of(0, 2) : ColumnSet.firstColumns(4);
        long thread = Thread.currentThread().getId();
        try (var h = harness(uri, written, mode)) {
            long cpu0 = THREADS.getCurrentThreadCpuTime();
            h.open(); // bootstraps the key map from the table
            long bootstrap = THREADS.getCurrentThreadCpuTime() - cpu0;
            long recordCpu = 0;
            long recordAlloc = 0;
            long barrierCpu = 0;
            long snapshotCpu = 0;
            long stateBytes = 0;
            int checkpoints = 0;
            for (int from = 0; from < input.size(); from += perCheckpoint) {
                int to = Math.min(input.size(), from + perCheckpoint);
                long c = THREADS.getCurrentThreadCpuTime();
                long a = THREADS.getThreadAllocatedBytes(thread);
                for (int i = from; i < to; i++) {
                    h.processElement(input.get(i), i);
                }
                long c1 = THREADS.getCurrentThreadCpuTime();
                recordCpu += c1 - c;
                recordAlloc += THREADS.getThreadAllocatedBytes(thread) - a;
                h.prepareSnapshotPreBarrier(++checkpoints);
                long c2 = THREADS.getCurrentThreadCpuTime();
                barrierCpu += c2 - c1;
                OperatorSubtaskState state = h.snapshot(checkpoints, checkpoints);
                snapshotCpu += THREADS.getCurrentThreadCpuTime() - c2;
                stateBytes += state.getStateSize();
                h.getOutput().clear();
            }
            int n = input.size();
            return new Round(
                    bootstrap / 1e6,
                    recordCpu / (double) n,
                    recordAlloc / (double) n,
                    barrierCpu / (double) n,
                    snapshotCpu / 1e6 / checkpoints,
                    stateBytes / checkpoints);
        }
    }

    /** {@code id, age} records of random existing keys (other columns NULL), as an UPDATE of one column sends. */
    private static List<RowData> cellUpdates(int rows, int changes, long seed) {
        Random r = new Random(seed);
        List<RowData> out = new ArrayList<>(changes);
        for (int i = 0; i < changes; i++) {
            out.add(GenericRowData.ofKind(RowKind.UPDATE_AFTER, (long) r.nextInt(rows), null, r.nextInt(100), null));
        }
        return out;
    }

    /** Whole rows: 85% updates of random keys, 10% new keys, 5% deletes. */
    private static List<RowData> changelog(int rows, int changes, long seed) {
        Random r = new Random(seed);
        List<RowData> out = new ArrayList<>(changes);
        long next = rows;
        for (int i = 0; i < changes; i++) {
            int p = r.nextInt(100);
            RowKind kind = p < 85 ? RowKind.UPDATE_AFTER : p < 95 ? RowKind.INSERT : RowKind.DELETE;
            long id = kind == RowKind.INSERT ? next++ : r.nextInt(rows);
            out.add(GenericRowData.ofKind(
                    kind, id, StringData.fromString("u" + r.nextInt(100_000)), r.nextInt(100), r.nextDouble()));
        }
        return out;
    }

    private static KeyedOneInputStreamOperatorTestHarness<RowData, RowData, LocatedChange> harness(
            String uri, ColumnSet written, KeyMapMode mode) throws Exception {
        PrimaryKeySelector keys = new PrimaryKeySelector(ROW, KEY);
        var h = new KeyedOneInputStreamOperatorTestHarness<>(
                new ChangelogKeyResolver(TableLocation.of(uri), ROW, KEY, written, false, 100_000, false, mode),
                keys,
                InternalTypeInfo.of(keys.keyType()));
        // In-memory checkpoint storage without the 5 MB bound: the snapshot is what is measured.
        h.setCheckpointStorage(new JobManagerCheckpointStorage(Integer.MAX_VALUE));
        h.setup(new LocatedChangeTypeInfo(ROW)
                .createSerializer(h.getExecutionConfig().getSerializerConfig()));
        return h;
    }

    private static double median(DoubleStream values) {
        double[] v = values.sorted().toArray();
        return v.length == 0 ? 0 : v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }
}
