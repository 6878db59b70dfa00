package dev.lanceflink.it.bench;

import dev.lanceflink.compact.OverlayCompactor;
import dev.lanceflink.compactor.core.CompactionMode;
import dev.lanceflink.compactor.core.CompactionPlanner;
import dev.lanceflink.compactor.core.CompactionPolicy;
import dev.lanceflink.compactor.core.CompactionRun;
import dev.lanceflink.compactor.core.CompactionSummary;
import dev.lanceflink.compactor.core.CompactionTask;
import dev.lanceflink.compactor.core.CompactionTaskRunner;
import dev.lanceflink.compactor.core.LocalTaskExecutor;
import dev.lanceflink.compactor.core.TaskResult;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.file.writer.FileWriterOptions;
import dev.lanceflink.io.FaultInjectingObjectStore;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.io.StoreOperation;
import dev.lanceflink.overlay.OverlayCommits;
import dev.lanceflink.overlay.OverlayWriter;
import dev.lanceflink.overlay.StagedWrite;
import dev.lanceflink.read.FragmentReader;
import dev.lanceflink.schema.LanceField;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.ManifestIO;
import dev.lanceflink.table.ManifestLocation;
import dev.lanceflink.table.TableFiles;
import dev.lanceflink.table.VersionResolver;
import dev.lanceflink.txn.CommitOptions;
import dev.lanceflink.txn.Operation;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Issue #15's compaction cost, per fragment: how long {@code overlay-merge} and {@code
 * overlay-fold} of one fragment take once it carries hundreds of small overlays, as a streaming
 * upsert sink with 1 s checkpoints leaves them (every checkpoint adds about one overlay to every
 * fragment).
 *
 * <p>Table: {@code id int64, name utf8, age int32, score float64} (the sink benchmark's users
 * table), {@code rows} rows in {@code fragments} fragments. History: {@code commits} commits, each
 * one overlay per fragment setting {@code cells} random rows (uniform, seeded) of one to three of
 * {@code name, age, score}; two commits in three are dense (every chosen column on the same rows),
 * the third sparse (each column its own rows); about one value in twenty is NULL. Unlike
 * {@link CompactionBenchmark}'s hot-row history, almost no overlay is fully shadowed, so a merge
 * has to read every one.
 *
 * <p>Then, for every {@code k} of {@code lf.bench.overlays} (default 50,100,300; those {@code <=
 * commits}), on the table version right after commit {@code k}: {@link
 * OverlayCompactor#mergeOverlays} of all {@code k} overlays, and {@link OverlayCompactor#fold},
 * of each fragment on this thread, timed (wall and thread CPU) and staged only (the files are
 * discarded, nothing is committed). Each merge of the first fragment is checked: every cell of the
 * fragment read through the merged overlay must equal the cell read through the {@code k}
 * overlays. One untimed merge and fold of the first fragment warms the JIT first.
 *
 * <p>Besides {@code mergeOverlays} alone, the merge is timed on the job's path ({@code merge
 * task}: planned, run by {@code CompactionTaskRunner} into a {@code TaskResult} and read back as the
 * run and its committer do), which is where the size of the whole table enters. Options (system
 * properties, e.g. through {@code JAVA_TOOL_OPTIONS}): {@code lf.bench.timedFragments} (default 8)
 * fragments are timed per {@code k}; {@code lf.bench.sharedOverlayFiles=true} writes one overlay
 * file per commit that every fragment's entry names (see {@link #writeHistory}), for tables of
 * hundreds of fragments like the issue's; {@code lf.bench.table=<path>} reuses a table an earlier
 * run wrote (with the same arguments) instead of writing one; {@code lf.bench.runJob=true} ends
 * with one merge run of the timed fragments, committed ({@link #runJob}); {@code
 * lf.bench.readLatencyMs} makes every read wait that long first ({@link #withReadLatency}).
 *
 * <p>Thread CPU time includes the page faults of a heap that is still growing, so a variant that
 * allocates less can show more CPU for the same work; for comparable CPU figures pre-touch the
 * heap ({@code -Xms4g -Xmx4g -XX:+AlwaysPreTouch}).
 *
 * <p>Run with {@code it/run-benchmarks.sh overlay-merge [rows [fragments [commits [cells]]]]}
 * (defaults 100,000, 8, 300, 30).
 */
public final class OverlayMergeBenchmark {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    static final Schema SCHEMA = new Schema(List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
            new Field("name", FieldType.nullable(new ArrowType.Utf8()), null),
            new Field("age", FieldType.nullable(new ArrowType.Int(32, true)), null),
            new Field("score", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), null)));
    private static final String[] UPDATED = {"name", "age", "score"};

    private OverlayMergeBenchmark() {}

    /** Median wall and thread-CPU milliseconds of one operation over the fragments. */
    record Timing(double wallMs, double cpuMs) {}

    record Row(int overlays, long cellsPerFragment, Timing merge, Timing task, Timing fold) {}

    public static void main(String[] args) throws Exception {
        int rows = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        int fragments = args.length > 1 ? Integer.parseInt(args[1]) : 8;
        int commits = args.length > 2 ? Integer.parseInt(args[2]) : 300;
        int cells = args.length > 3 ? Integer.parseInt(args[3]) : 30;
        boolean shared = Boolean.getBoolean("lf.bench.sharedOverlayFiles");
        int timed = Integer.getInteger("lf.bench.timedFragments", 8);
        int[] ks = Arrays.stream(
                        System.getProperty("lf.bench.overlays", "50,100,300").split(","))
                .mapToInt(Integer::parseInt)
                .filter(k -> k >= 2 && k <= commits)
                .toArray();
        String reuse = System.getProperty("lf.bench.table");
        Path dir = reuse != null ? Path.of(reuse).getParent() : Files.createTempDirectory("lance-overlay-merge-bench");
        String uri = reuse != null ? reuse : dir.resolve("table.lance").toString();
        double historySeconds = Double.NaN;
        if (reuse == null) {
            writeBase(uri, rows, fragments);
            long start = System.nanoTime();
            writeHistory(uri, commits, cells, shared);
            historySeconds = (System.nanoTime() - start) / 1e9;
        }
        long baseVersion;
        try (Dataset ds = Dataset.open(uri, Map.of())) {
            // The base table is the first version; commit c of the history made version first + 1 + c.
            baseVersion = VersionResolver.list(ds.store()).stream()
                    .mapToLong(ManifestLocation::version)
                    .min()
                    .orElseThrow();
        }
        System.out.printf(
                Locale.ROOT,
                "History: %d commits of %d overlays (%d cells each) in %.1f s, %.1f ms per commit%n",
                commits,
                fragments,
                cells,
                historySeconds,
                historySeconds * 1000 / commits);
        List<Row> out = new ArrayList<>();
        try (Dataset ds = Dataset.open(uri, Map.of())) {
            ObjectStore store = withReadLatency(ds.store());
            BufferAllocator allocator = ds.allocator();
            Manifest warm = ManifestIO.read(store, VersionResolver.version(store, baseVersion + ks[0]));
            timeMerge(store, warm, warm.fragments().get(0), allocator);
            timeTask(store, warm, warm.fragments().get(0), allocator);
            timeFold(store, warm, warm.fragments().get(0), allocator);
            for (int k : ks) {
                Manifest m = ManifestIO.read(store, VersionResolver.version(store, baseVersion + k));
                checkMerge(store, m, m.fragments().get(0), allocator);
                List<Timing> merges = new ArrayList<>();
                List<Timing> tasks = new ArrayList<>();
                List<Timing> folds = new ArrayList<>();
                long covered = 0;
                List<Fragment> sample =
                        m.fragments().subList(0, Math.min(timed, m.fragments().size()));
                for (Fragment f : sample) {
                    if (f.overlays().size() != k) {
                        throw new IllegalStateException(
                                "Fragment " + f.id() + " has " + f.overlays().size() + " overlays, expected " + k);
                    }
                    covered += f.overlays().stream()
                            .mapToLong(o -> {
                                long c = 0;
                                for (int p = 0; p < o.dataFile().fieldCount(); p++) {
                                    try {
                                        c += o.coverage().bitmap(p).getLongCardinality();
                                    } catch (IOException e) {
                                        throw new IllegalStateException(e);
                                    }
                                }
                                return c;
                            })
                            .sum();
                    merges.add(timeMerge(store, m, f, allocator));
                    tasks.add(timeTask(store, m, f, allocator));
                    folds.add(timeFold(store, m, f, allocator));
                }
                Row r = new Row(k, covered / sample.size(), median(merges), median(tasks), median(folds));
                out.add(r);
                System.out.println(line(r));
            }
            if (Boolean.getBoolean("lf.bench.runJob")) {
                runJob(store, uri, baseVersion + commits, timed, allocator);
            }
        }
        System.out.println();
        System.out.println(markdown(rows, fragments, commits, cells, shared, timed, historySeconds, out));
        System.out.println("Table in " + dir);
    }

    static void writeBase(String uri, int rows, int fragments) throws IOException {
        long perFragment = (rows + fragments - 1) / fragments;
        try (BufferAllocator allocator = new RootAllocator()) {
            List<VectorSchemaRoot> batches = new ArrayList<>();
            try {
                for (int from = 0; from < rows; from += 16384) {
                    int n = Math.min(16384, rows - from);
                    VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
                    batches.add(root);
                    BigIntVector id = (BigIntVector) root.getVector("id");
                    VarCharVector name = (VarCharVector) root.getVector("name");
                    IntVector age = (IntVector) root.getVector("age");
                    Float8Vector score = (Float8Vector) root.getVector("score");
                    id.allocateNew(n);
                    name.allocateNew((long) n * 12, n);
                    age.allocateNew(n);
                    score.allocateNew(n);
                    for (int r = 0; r < n; r++) {
                        int i = from + r;
                        id.set(r, i);
                        name.setSafe(r, ("user-" + i).getBytes(StandardCharsets.UTF_8));
                        age.set(r, i % 90);
                        score.set(r, i * 0.5);
                    }
                    root.setRowCount(n);
                }
                WriteParams params = WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(perFragment);
                try (Dataset ds = Dataset.write(uri, Map.of(), batches, SCHEMA, params)) {
                    if (ds.countRows() != rows || ds.fragments().size() != fragments) {
                        throw new IllegalStateException("Wrote " + ds.countRows() + " rows in "
                                + ds.fragments().size() + " fragments, expected " + rows + " in " + fragments);
                    }
                }
            } finally {
                batches.forEach(VectorSchemaRoot::close);
            }
        }
    }

    /**
     * Writes the history; returns the version before its first commit. With {@code shared}, a
     * commit writes one overlay file (for the first fragment, random rows below the smallest
     * fragment's row count) and gives every fragment an overlay entry naming it: a table of
     * hundreds of fragments and a manifest of the size then build in minutes, not hours.
     * A merge or fold of one fragment still opens one file per overlay of its own list.
     */
    static long writeHistory(String uri, int commits, int cells, boolean shared) throws IOException {
        SplittableRandom random = new SplittableRandom(15);
        try (Dataset ds = Dataset.open(uri, Map.of())) {
            ObjectStore store = ds.store();
            BufferAllocator allocator = ds.allocator();
            int[] ids = Arrays.stream(UPDATED)
                    .mapToInt(n -> ds.schema().fieldByName(n).orElseThrow().id())
                    .toArray();
            Manifest m = ds.manifest();
            long baseVersion = m.version();
            for (int c = 0; c < commits; c++) {
                Map<Long, List<DataOverlayFile>> groups = new LinkedHashMap<>();
                List<String> written = new ArrayList<>();
                long minRows = m.fragments().stream()
                        .mapToLong(Fragment::physicalRows)
                        .min()
                        .orElseThrow();
                for (Fragment fragment : m.fragments()) {
                    if (shared && !groups.isEmpty()) {
                        groups.put(fragment.id(), groups.values().iterator().next());
                        continue;
                    }
                    long rows = shared ? minRows : fragment.physicalRows();
                    int columns = 1 + random.nextInt(3);
                    int first = random.nextInt(3);
                    boolean dense = c % 3 != 2;
                    long[] same = randomOffsets(random, cells, rows);
                    int[] declared = new int[columns];
                    for (int x = 0; x < columns; x++) {
                        declared[x] = ids[(first + x) % 3];
                    }
                    try (OverlayWriter w = OverlayWriter.create(
                            store, m, fragment.id(), declared, allocator, FileWriterOptions.defaults())) {
                        for (int x = 0; x < columns; x++) {
                            int col = (first + x) % 3;
                            long[] offsets = dense ? same : randomOffsets(random, cells, rows);
                            long[] addresses = new long[offsets.length];
                            for (int i = 0; i < offsets.length; i++) {
                                addresses[i] = fragment.id() << 32 | offsets[i];
                            }
                            try (FieldVector v = values(col, c, offsets, random, allocator)) {
                                w.writeField(ids[col], addresses, v);
                            }
                        }
                        w.writtenPath().ifPresent(written::add);
                        w.finish().ifPresent(o -> groups.put(fragment.id(), List.of(o)));
                    }
                }
                StagedWrite staged = new StagedWrite(OverlayCommits.operation(groups), written);
                m = OverlayCommits.commit(store, m.version(), staged, Map.of(), CommitOptions.defaults());
            }
            return baseVersion;
        }
    }

    private static long[] randomOffsets(SplittableRandom random, int cells, long rows) {
        TreeSet<Long> set = new TreeSet<>();
        while (set.size() < Math.min(cells, rows)) {
            set.add(random.nextLong(rows));
        }
        return set.stream().mapToLong(Long::longValue).toArray();
    }

    private static FieldVector values(
            int col, int commit, long[] offsets, SplittableRandom random, BufferAllocator allocator) {
        int n = offsets.length;
        switch (col) {
            case 0 -> {
                VarCharVector v = new VarCharVector("name", allocator);
                v.allocateNew((long) n * 16, n);
                for (int i = 0; i < n; i++) {
                    if (random.nextInt(20) == 0) {
                        v.setNull(i);
                    } else {
                        v.setSafe(i, ("u" + commit + "-" + offsets[i]).getBytes(StandardCharsets.UTF_8));
                    }
                }
                v.setValueCount(n);
                return v;
            }
            case 1 -> {
                IntVector v = new IntVector("age", allocator);
                v.allocateNew(n);
                for (int i = 0; i < n; i++) {
                    if (random.nextInt(20) == 0) {
                        v.setNull(i);
                    } else {
                        v.set(i, commit);
                    }
                }
                v.setValueCount(n);
                return v;
            }
            default -> {
                Float8Vector v = new Float8Vector("score", allocator);
                v.allocateNew(n);
                for (int i = 0; i < n; i++) {
                    if (random.nextInt(20) == 0) {
                        v.setNull(i);
                    } else {
                        v.set(i, commit + offsets[i] / 1e6);
                    }
                }
                v.setValueCount(n);
                return v;
            }
        }
    }

    private static Timing timeMerge(ObjectStore store, Manifest m, Fragment f, BufferAllocator allocator)
            throws IOException {
        int[] positions = new int[f.overlays().size()];
        Arrays.setAll(positions, i -> i);
        long cpu = THREADS.getCurrentThreadCpuTime();
        long start = System.nanoTime();
        StagedWrite staged =
                OverlayCompactor.mergeOverlays(store, m, f.id(), positions, allocator, FileWriterOptions.defaults());
        Timing t = new Timing((System.nanoTime() - start) / 1e6, (THREADS.getCurrentThreadCpuTime() - cpu) / 1e6);
        staged.discard(store);
        return t;
    }

    /**
     * With {@code lf.bench.readLatencyMs=n}, every read of the table's files (a range read or a
     * whole-object read) first sleeps {@code n} ms, as a request to an object store waits for its
     * round trip; the merges, folds and the run then read through it.
     */
    private static ObjectStore withReadLatency(ObjectStore store) {
        long ms = Long.getLong("lf.bench.readLatencyMs", 0);
        if (ms <= 0) {
            return store;
        }
        return FaultInjectingObjectStore.scripted(store)
                .withDelays(
                        1.0,
                        Duration.ofMillis(ms),
                        Set.of(StoreOperation.RANGE_READ, StoreOperation.RANGES_READ, StoreOperation.READ_ALL),
                        Set.of(FaultInjectingObjectStore.DelayPoint.BEFORE_CALL));
    }

    /**
     * With {@code lf.bench.runJob=true}, at the end (it commits): one maintenance-like check on the
     * last history version, a {@link CompactionRun} merging the first {@code timed} fragments (plan,
     * tasks on one thread, one commit), and how long reading that version's manifest takes (the
     * run reads it three times: plan, tasks, commit, plus once per commit attempt).
     */
    private static void runJob(ObjectStore store, String uri, long version, int timed, BufferAllocator allocator)
            throws IOException {
        ManifestLocation at = VersionResolver.version(store, version);
        long start = System.nanoTime();
        Manifest m = ManifestIO.read(store, at);
        double readMs = (System.nanoTime() - start) / 1e6;
        Set<Long> ids = new HashSet<>();
        m.fragments().stream().limit(timed).forEach(f -> ids.add(f.id()));
        CompactionRun run = new CompactionRun(
                        store,
                        uri,
                        CompactionMode.OVERLAY_MERGE,
                        CompactionPolicy.defaults().withMinOverlays(2),
                        CommitOptions.defaults(),
                        0)
                .onlyFragments(ids);
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long cpuStart = os.getProcessCpuTime();
        start = System.nanoTime();
        CompactionSummary summary =
                run.execute(new LocalTaskExecutor(store, allocator, FileWriterOptions.defaults(), 1), (r, d, n) -> {});
        double jobMs = (System.nanoTime() - start) / 1e6;
        double jobCpuMs = (os.getProcessCpuTime() - cpuStart) / 1e6; // all threads: tasks, commit, GC
        if (!summary.status().equals(CompactionSummary.COMMITTED) || summary.fragmentsCompacted() != ids.size()) {
            throw new IllegalStateException("The run compacted " + summary.fragmentsCompacted() + " of " + ids.size()
                    + " fragments: " + summary.status());
        }
        System.out.printf(
                Locale.ROOT,
                "Manifest of version %d: %.1f MB, read in %.0f ms. A run merging %d fragments (%d overlays) on one"
                        + " thread: %.0f ms, %.0f CPU ms of the process (%.0f ms, %.0f CPU ms per fragment)%n",
                version,
                store.head(at.path()).orElseThrow().size() / 1e6,
                readMs,
                ids.size(),
                summary.overlaysBefore(),
                jobMs,
                jobCpuMs,
                jobMs / ids.size(),
                jobCpuMs / ids.size());
    }

    /**
     * The job's path for one fragment: the task as {@link CompactionPlanner} plans it, run by
     * {@link CompactionTaskRunner} into a {@link TaskResult} (the form a task's output crosses to
     * the committer in), then read back as the run and the committer read it ({@code output()},
     * {@code staged()}).
     */
    private static Timing timeTask(ObjectStore store, Manifest m, Fragment f, BufferAllocator allocator)
            throws IOException {
        CompactionPolicy policy = CompactionPolicy.defaults().withMinOverlays(2);
        long cpu = THREADS.getCurrentThreadCpuTime();
        long start = System.nanoTime();
        CompactionTask task = CompactionPlanner.planFragment(m, f.id(), CompactionMode.OVERLAY_MERGE, policy)
                .orElseThrow(() -> new IllegalStateException("No merge planned for fragment " + f.id()));
        TaskResult r = CompactionTaskRunner.run(store, m, task, allocator, FileWriterOptions.defaults());
        r.output();
        StagedWrite staged = r.staged();
        Timing t = new Timing((System.nanoTime() - start) / 1e6, (THREADS.getCurrentThreadCpuTime() - cpu) / 1e6);
        staged.discard(store);
        return t;
    }

    private static Timing timeFold(ObjectStore store, Manifest m, Fragment f, BufferAllocator allocator)
            throws IOException {
        long cpu = THREADS.getCurrentThreadCpuTime();
        long start = System.nanoTime();
        StagedWrite staged = OverlayCompactor.fold(store, m, f.id(), allocator, FileWriterOptions.defaults());
        Timing t = new Timing((System.nanoTime() - start) / 1e6, (THREADS.getCurrentThreadCpuTime() - cpu) / 1e6);
        staged.discard(store);
        return t;
    }

    /** Every cell of {@code f} read through its overlays equals the cell read through their merge. */
    private static void checkMerge(ObjectStore store, Manifest m, Fragment f, BufferAllocator allocator)
            throws IOException {
        int[] positions = new int[f.overlays().size()];
        Arrays.setAll(positions, i -> i);
        StagedWrite staged =
                OverlayCompactor.mergeOverlays(store, m, f.id(), positions, allocator, FileWriterOptions.defaults());
        try {
            Fragment merged = ((Operation.Merge) staged.operation())
                    .fragments().stream()
                            .filter(x -> x.id() == f.id())
                            .findFirst()
                            .orElseThrow();
            if (merged.overlays().size() != 1) {
                throw new IllegalStateException(
                        "The merge left " + merged.overlays().size() + " overlays");
            }
            long[] offsets = new long[(int) f.physicalRows()];
            Arrays.setAll(offsets, i -> i);
            try (TableFiles files = TableFiles.of(store, m);
                    FragmentReader before = new FragmentReader(files, f, allocator);
                    FragmentReader after = new FragmentReader(files, merged, allocator)) {
                for (LanceField field : m.schema().fields()) {
                    try (FieldVector a = before.read(field, offsets);
                            FieldVector b = after.read(field, offsets)) {
                        for (int i = 0; i < offsets.length; i++) {
                            if (!Objects.equals(a.getObject(i), b.getObject(i))) {
                                throw new IllegalStateException("Fragment " + f.id() + ", field " + field.name()
                                        + ", offset " + i + ": " + a.getObject(i) + " through the overlays, "
                                        + b.getObject(i) + " through their merge");
                            }
                        }
                    }
                }
            }
        } finally {
            staged.discard(store);
        }
    }

    private static Timing median(List<Timing> ts) {
        double[] wall = ts.stream().mapToDouble(Timing::wallMs).sorted().toArray();
        double[] cpu = ts.stream().mapToDouble(Timing::cpuMs).sorted().toArray();
        return new Timing(wall[wall.length / 2], cpu[cpu.length / 2]);
    }

    private static String line(Row r) {
        return String.format(
                Locale.ROOT,
                "%d overlays/fragment (%,d covered cells): merge %.1f ms (%.1f CPU ms, %.3f ms/overlay),"
                        + " merge task %.1f ms (%.1f CPU ms), fold %.1f ms (%.1f CPU ms, %.3f ms/overlay)",
                r.overlays(),
                r.cellsPerFragment(),
                r.merge().wallMs(),
                r.merge().cpuMs(),
                r.merge().wallMs() / r.overlays(),
                r.task().wallMs(),
                r.task().cpuMs(),
                r.fold().wallMs(),
                r.fold().cpuMs(),
                r.fold().wallMs() / r.overlays());
    }

    static String markdown(
            int rows,
            int fragments,
            int commits,
            int cells,
            boolean shared,
            int timed,
            double historySeconds,
            List<Row> rs) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(
                Locale.ROOT,
                "Table: %,d rows (id int64, name utf8, age int32, score float64) in %d fragments; %d commits, each"
                        + " one overlay per fragment of %d random rows x 1-3 columns; history %.1f s (%.1f ms per"
                        + " commit)%s. Per fragment, median over the first %d fragments, one thread:%n%n",
                rows,
                fragments,
                commits,
                cells,
                historySeconds,
                historySeconds * 1000 / commits,
                shared ? " (one overlay file per commit, named by every fragment's entry)" : "",
                timed));
        sb.append("| overlays per fragment | covered cells | merge ms (CPU ms) | merge ms per overlay"
                + " | merge task, job's path, ms (CPU ms) | fold ms (CPU ms) | fold ms per overlay |\n"
                + "|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Row r : rs) {
            sb.append(String.format(
                    Locale.ROOT,
                    "| %d | %,d | %.1f (%.1f) | %.3f | %.1f (%.1f) | %.1f (%.1f) | %.3f |%n",
                    r.overlays(),
                    r.cellsPerFragment(),
                    r.merge().wallMs(),
                    r.merge().cpuMs(),
                    r.merge().wallMs() / r.overlays(),
                    r.task().wallMs(),
                    r.task().cpuMs(),
                    r.fold().wallMs(),
                    r.fold().cpuMs(),
                    r.fold().wallMs() / r.overlays()));
        }
        return sb.toString();
    }
}
