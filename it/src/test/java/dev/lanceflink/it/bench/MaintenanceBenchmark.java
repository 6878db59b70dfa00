package dev.lanceflink.it.bench;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.flink.sink.KeyMapMode;
import dev.lanceflink.flink.sink.LanceSinkBuilder;
import dev.lanceflink.flink.sink.LanceSinkMode;
import dev.lanceflink.flink.sink.maintenance.MaintenanceSettings;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.io.ObjectStores;
import dev.lanceflink.read.ScanOptions;
import dev.lanceflink.read.Scanner;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.ManifestLocation;
import dev.lanceflink.table.VersionResolver;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;

/**
 * Issue #15's maintenance benchmark: the same streaming upsert + append job (a sequence source of
 * parallelism 1 feeding {@link MaintenanceBenchChanges}, the upsert sink at parallelism 2, a
 * checkpoint every second, RocksDB incremental state as the README recommends for keyed tables)
 * runs for the same time on a table of its own per variant: without in-job maintenance
 * ({@code off}), with overlay-merge at 8 overlays, fold and cleanup ({@code merge}), and with
 * fragment compaction too ({@code on}), each in its own MiniCluster in this
 * JVM. Every {@code sampleSeconds} the main thread measures the latest version: versions
 * retained, fragments, overlays, the latest manifest's bytes, the table directory's bytes, the
 * wall and CPU time of a full scan and of a narrow scan ({@code id, score}), and the changes the
 * sink committed since the previous sample (from the marker row the narrow scan reads). At the
 * end the job is cancelled and its last version is checked against the changelog's model
 * (every row, no key twice), so a sink or a maintenance step that loses or duplicates a change
 * fails the run instead of flattering it.
 *
 * <p>The scans run in this JVM next to the job, on the same cores: they take CPU from the sink,
 * more where scans are slower, and the job's CPU per change (process CPU minus the sampler's)
 * is printed for that reason.
 *
 * <p>Not part of the test suite: {@code it/run-benchmarks.sh maintenance [minutes [sampleSeconds
 * [variants]]]} (defaults 30, 30, {@code off,merge,on}; each variant's directory is deleted after its run
 * unless {@code -Dlf.bench.keep=true}); {@code -Dlf.bench.hotKeys} (100,000 initial
 * rows, the keys upserts and deletes pick from), {@code -Dlf.bench.rate} (changes per second, 0 =
 * as fast as the job goes, the default).
 */
public final class MaintenanceBenchmark {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    static final long SEED = 1515;
    static final long CHECKPOINT_MILLIS = 1_000;
    static final int INITIAL_ROWS_PER_FRAGMENT = 10_000;
    static final List<String> NARROW = List.of("id", "score");

    private MaintenanceBenchmark() {}

    /**
     * The "with maintenance" settings: checks after every 5th commit and every 10 s; overlay-merge
     * at 8 overlays per fragment; overlay-fold at half a column covered (no quiet-period fold: the
     * stream is never quiet); fragment compaction into fragments of up to 256Ki rows once 8 are
     * due; cleanup keeping the newest 20 versions and every version of the last minute, files
     * after the shortest grace (1 min); merges and compactions take at most 16 fragments a run.
     * Variant {@code merge} is the same without fragment compaction.
     */
    static MaintenanceSettings maintenance(boolean fragments) {
        return MaintenanceSettings.enabledWithDefaults()
                .withChecks(5, Duration.ofSeconds(10))
                .withOverlayMerge(8, MaintenanceSettings.DEFAULT_MERGE_MAX_OVERLAY_BYTES)
                .withOverlayFold(0.5, Duration.ZERO)
                .withCleanup(true, 20, Duration.ofMinutes(1), MaintenanceSettings.MIN_GRACE)
                .withExecution(
                        MaintenanceSettings.DEFAULT_LEASE_TIMEOUT,
                        1,
                        Integer.getInteger("lf.bench.fragmentsPerRun", 16))
                .withFragmentCompaction(
                        fragments
                                ? new MaintenanceSettings.FragmentCompaction(
                                        true, 256 * 1024, 0, MaintenanceSettings.DEFAULT_FRAGMENTS_MIN_DELETED_RATIO, 8)
                                : MaintenanceSettings.FragmentCompaction.OFF);
    }

    /** One sample of the latest version. */
    record Sample(
            double seconds,
            long version,
            int versionsRetained,
            int fragments,
            int maxOverlays,
            int overlays,
            long manifestBytes,
            long tableBytes,
            long rows,
            double fullSeconds,
            double fullCpu,
            double narrowSeconds,
            double narrowCpu,
            long committed,
            double changesPerSecond,
            double jobCpuSeconds,
            double jobCpuPer100k) {}

    /** A variant's samples and the changes its last version held. */
    record Run(String variant, double minutes, List<Sample> samples, long finalPrefix) {
        Sample last() {
            return samples.get(samples.size() - 1);
        }

        /** Committed changes per second from the first sample to the last (job start-up left out). */
        double throughput() {
            Sample first = samples.get(0);
            return (last().committed() - first.committed()) / (last().seconds() - first.seconds());
        }

        /** Process CPU seconds the job spent per 100,000 committed changes over the same span. */
        double jobCpuPer100k() {
            double cpu = 0;
            long changes = 0;
            for (int i = 1; i < samples.size(); i++) {
                // Summed as seconds: an interval in which nothing committed still spent CPU (its
                // per-100k figure is NaN).
                Sample s = samples.get(i);
                cpu += s.jobCpuSeconds();
                changes += s.committed() - samples.get(i - 1).committed();
            }
            return changes == 0 ? Double.NaN : cpu * 100_000 / changes;
        }
    }

    public static void main(String[] args) throws Exception {
        // Flink warns of a metric name collision at every commit; the figures go to stdout, the
        // samples as they come to stderr.
        System.setProperty(
                "org.slf4j.simpleLogger.defaultLogLevel",
                System.getProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn"));
        System.setProperty(
                "org.slf4j.simpleLogger.log.org.apache.flink.metrics",
                System.getProperty("org.slf4j.simpleLogger.log.org.apache.flink.metrics", "error"));
        double minutes = args.length > 0 ? Double.parseDouble(args[0]) : 30;
        int sampleSeconds = args.length > 1 ? Integer.parseInt(args[1]) : 30;
        List<String> variants = List.of((args.length > 2 ? args[2] : "off,merge,on").split(","));
        int hotKeys = Integer.getInteger("lf.bench.hotKeys", 100_000);
        int rate = Integer.getInteger("lf.bench.rate", 0);
        List<Run> runs = new ArrayList<>();
        for (String v : variants) {
            if (!List.of("off", "merge", "on").contains(v)) {
                throw new IllegalArgumentException(
                        "variants are 'off', 'merge' and 'on' (comma-separated), got '" + v + "'");
            }
            Path dir = Files.createTempDirectory("lance-maintenance-bench-" + v);
            Run run = run(dir, v, minutes, sampleSeconds, hotKeys, rate);
            runs.add(run);
            if (!Boolean.getBoolean("lf.bench.keep")) {
                // Without cleanup every version keeps its manifest, and the manifests grow with the
                // overlays: gigabytes after a few minutes.
                deleteRecursively(dir);
            }
            System.out.println(markdown(run));
            System.out.flush();
        }
        System.out.println(summary(runs));
    }

    static Run run(Path dir, String which, double minutes, int sampleSeconds, int hotKeys, int rate) throws Exception {
        String variant = switch (which) {
            case "off" -> "without maintenance";
            case "merge" -> "with maintenance, no fragment compaction";
            default -> "with maintenance";
        };
        String uri = dir.resolve("table.lance").toString();
        createTable(uri, hotKeys);
        Configuration conf = new Configuration();
        conf.setString("restart-strategy.type", "none");
        conf.setString("execution.checkpointing.interval", CHECKPOINT_MILLIS + " ms");
        conf.setString(
                "execution.checkpointing.dir",
                dir.resolve("checkpoints").toUri().toString());
        conf.setString("state.backend.type", "rocksdb");
        conf.setString("execution.checkpointing.incremental", "true");
        // The README's tuning for the key map in RocksDB (section "Upsert checkpoints against table size").
        conf.setString("state.backend.rocksdb.use-bloom-filter", "true");
        conf.setString("state.backend.rocksdb.compaction.level.max-size-level-base", "4mb");
        conf.setString("state.backend.rocksdb.compaction.level.target-file-size-base", "1mb");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(2);
        LanceSinkBuilder sink = LanceSinkBuilder.forTable(uri)
                .mode(LanceSinkMode.UPSERT)
                .primaryKey("id")
                // The key map in RocksDB, as the README's figures of this benchmark were taken
                // (the sweep's pauses over RocksDB are among them).
                .keyMap(KeyMapMode.KEYED_STATE)
                .uidSuffix("maintenance-bench");
        if (!which.equals("off")) {
            sink.maintenance(maintenance(which.equals("on")));
        }
        sink.sinkTo(env.fromSequence(0, Long.MAX_VALUE)
                .setParallelism(1)
                .uid("sequence")
                .map(new MaintenanceBenchChanges.Source(SEED, hotKeys, rate))
                .setParallelism(1)
                .uid("changes")
                .returns(InternalTypeInfo.of(SinkBenchmark.ROW_TYPE)));

        System.err.printf("maintenance benchmark: %s, %.1f min, table %s%n", variant, minutes, uri);
        List<Sample> samples = new ArrayList<>();
        long started = System.nanoTime();
        long end = started + (long) (minutes * 60e9);
        JobClient job = env.executeAsync("maintenance benchmark (" + variant + ")");
        long prevCpu = OS.getProcessCpuTime();
        long prevSamplerCpu = THREADS.getCurrentThreadCpuTime();
        long prevCommitted = 0;
        double prevSeconds = 0;
        try (ObjectStore store = ObjectStores.open(uri, Map.of())) {
            long next = started;
            while (true) {
                // Samples are scheduled every sampleSeconds, but one can take longer than that (a
                // scan of a table without maintenance): the run ends on the clock, not on the schedule.
                next = Math.max(next + sampleSeconds * 1_000_000_000L, System.nanoTime());
                if (next > end) {
                    break;
                }
                while (System.nanoTime() < next) {
                    if (job.getJobStatus().get().isGloballyTerminalState()) {
                        job.getJobExecutionResult().get(); // throws the job's failure
                        throw new IllegalStateException("the job ended on its own: "
                                + job.getJobStatus().get());
                    }
                    Thread.sleep(Math.min(200, Math.max(1, (next - System.nanoTime()) / 1_000_000)));
                }
                double seconds = (System.nanoTime() - started) / 1e9;
                Measured m = measure(store, uri, hotKeys);
                long cpu = OS.getProcessCpuTime();
                long samplerCpu = THREADS.getCurrentThreadCpuTime();
                long delta = m.committed - prevCommitted;
                double jobCpu = ((cpu - prevCpu) - (samplerCpu - prevSamplerCpu)) / 1e9;
                Sample s = new Sample(
                        seconds,
                        m.version,
                        m.versions,
                        m.fragments,
                        m.maxOverlays,
                        m.overlays,
                        m.manifestBytes,
                        directoryBytes(dir.resolve("table.lance")),
                        m.rows,
                        m.fullSeconds,
                        m.fullCpu,
                        m.narrowSeconds,
                        m.narrowCpu,
                        m.committed,
                        delta / (seconds - prevSeconds),
                        jobCpu,
                        delta == 0 ? Double.NaN : jobCpu * 100_000 / delta);
                samples.add(s);
                System.err.println(variant + ": " + row(s));
                prevCpu = cpu;
                prevSamplerCpu = samplerCpu;
                prevCommitted = m.committed;
                prevSeconds = seconds;
            }
        } finally {
            cancel(job);
        }
        if (samples.size() < 2) {
            throw new IllegalArgumentException("a run of " + minutes + " min sampled every " + sampleSeconds
                    + " s has fewer than 2 samples; run longer or sample more often");
        }
        long prefix = check(uri, hotKeys);
        return new Run(variant, minutes, samples, prefix);
    }

    private record Measured(
            long version,
            int versions,
            int fragments,
            int maxOverlays,
            int overlays,
            long manifestBytes,
            long rows,
            double fullSeconds,
            double fullCpu,
            double narrowSeconds,
            double narrowCpu,
            long committed) {}

    /**
     * The latest version's shape and both scans of it. The narrow scan runs first and reads the
     * marker: the committed prefix at that version.
     */
    private static Measured measure(ObjectStore store, String uri, int hotKeys) throws IOException {
        List<ManifestLocation> versions = VersionResolver.list(store);
        try (Dataset ds = Dataset.open(uri, Map.of())) {
            ManifestLocation latest = VersionResolver.version(store, ds.version());
            int maxOverlays = 0;
            int overlays = 0;
            for (Fragment f : ds.fragments()) {
                maxOverlays = Math.max(maxOverlays, f.overlays().size());
                overlays += f.overlays().size();
            }
            long marker = -1;
            long t0 = System.nanoTime();
            long c0 = THREADS.getCurrentThreadCpuTime();
            long narrowRows = 0;
            try (Scanner s = ds.scan(ScanOptions.all().withColumns(NARROW))) {
                while (s.hasNext()) {
                    try (VectorSchemaRoot b = s.next()) {
                        BigIntVector id = (BigIntVector) b.getVector("id");
                        Float8Vector score = (Float8Vector) b.getVector("score");
                        for (int i = 0; i < b.getRowCount(); i++) {
                            if (id.get(i) == MaintenanceBenchChanges.MARKER_ID) {
                                marker = (long) score.get(i);
                            }
                        }
                        narrowRows += b.getRowCount();
                    }
                }
            }
            long t1 = System.nanoTime();
            long c1 = THREADS.getCurrentThreadCpuTime();
            long fullRows = 0;
            try (Scanner s = ds.scan(ScanOptions.all())) {
                while (s.hasNext()) {
                    try (VectorSchemaRoot b = s.next()) {
                        fullRows += b.getRowCount();
                    }
                }
            }
            long t2 = System.nanoTime();
            long c2 = THREADS.getCurrentThreadCpuTime();
            if (fullRows != narrowRows) {
                throw new IllegalStateException("version " + ds.version() + " of " + uri + ": the full scan returned "
                        + fullRows + " rows, the narrow scan " + narrowRows);
            }
            return new Measured(
                    ds.version(),
                    versions.size(),
                    ds.fragments().size(),
                    maxOverlays,
                    overlays,
                    latest.size(),
                    fullRows,
                    (t2 - t1) / 1e9,
                    (c2 - c1) / 1e9,
                    (t1 - t0) / 1e9,
                    (c1 - c0) / 1e9,
                    marker + 1);
        }
    }

    /**
     * The latest version must be the model after some prefix of the changelog in its marker's
     * bracket; returns that prefix.
     */
    static long check(String uri, int hotKeys) throws IOException {
        try (Dataset ds = Dataset.open(uri, Map.of())) {
            String where = "version " + ds.version() + " of " + uri;
            MaintenanceBenchChanges.TableState table = new MaintenanceBenchChanges.TableState(SEED, hotKeys, where);
            try (Scanner s = ds.scan(ScanOptions.all())) {
                while (s.hasNext()) {
                    try (VectorSchemaRoot b = s.next()) {
                        BigIntVector id = (BigIntVector) b.getVector("id");
                        VarCharVector name = (VarCharVector) b.getVector("name");
                        IntVector age = (IntVector) b.getVector("age");
                        Float8Vector score = (Float8Vector) b.getVector("score");
                        for (int i = 0; i < b.getRowCount(); i++) {
                            table.add(
                                    id.get(i),
                                    name.isNull(i) ? null : new String(name.get(i), StandardCharsets.UTF_8),
                                    age.isNull(i) ? null : age.get(i),
                                    score.isNull(i) ? null : score.get(i));
                        }
                    }
                }
            }
            if (table.marker < 0) {
                throw new AssertionError(where + " holds no marker row: the sink committed nothing");
            }
            MaintenanceBenchChanges.Model model = new MaintenanceBenchChanges.Model(SEED, hotKeys);
            long lo = table.marker + 1;
            long hi = table.marker + MaintenanceBenchChanges.MARKER_EVERY;
            model.advanceTo(lo);
            while (!table.matches(model)) {
                if (model.prefix >= hi) {
                    model = new MaintenanceBenchChanges.Model(SEED, hotKeys);
                    model.advanceTo(lo);
                    throw new AssertionError(where + " equals the model after none of the changes " + lo + ".." + hi
                            + "; after " + lo + ": " + table.differences(model));
                }
                model.advanceTo(model.prefix + 1);
            }
            return model.prefix;
        }
    }

    /** Hot keys {@code 0..hotKeys-1} as {@link MaintenanceBenchChanges} describes, fragments of 10,000 rows. */
    static void createTable(String uri, int hotKeys) throws Exception {
        try (BufferAllocator a = new RootAllocator();
                VectorSchemaRoot root = VectorSchemaRoot.create(SinkBenchmark.SCHEMA, a)) {
            root.allocateNew();
            BigIntVector id = (BigIntVector) root.getVector("id");
            VarCharVector name = (VarCharVector) root.getVector("name");
            IntVector age = (IntVector) root.getVector("age");
            Float8Vector score = (Float8Vector) root.getVector("score");
            for (int k = 0; k < hotKeys; k++) {
                id.setSafe(k, k);
                name.setSafe(k, ("init-" + k).getBytes(StandardCharsets.UTF_8));
                age.setSafe(k, k % 100);
                score.setSafe(k, -1.0 - k);
            }
            root.setRowCount(hotKeys);
            Dataset.write(
                            uri,
                            Map.of(),
                            List.of(root),
                            SinkBenchmark.SCHEMA,
                            WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(INITIAL_ROWS_PER_FRAGMENT))
                    .close();
        }
    }

    /**
     * Cancels the job and waits for its end. The job's MiniCluster shuts down with it, so its status
     * cannot be asked afterwards: the result's future tells how it ended.
     */
    private static void cancel(JobClient job) throws Exception {
        if (job.getJobStatus().get().isGloballyTerminalState()) {
            return;
        }
        job.cancel().get();
        try {
            job.getJobExecutionResult().get();
        } catch (ExecutionException ended) {
            // The expected end: the result of a cancelled job is a failure naming the cancellation.
            if (!String.valueOf(stackOf(ended)).contains("cancel")) {
                throw ended;
            }
        }
    }

    private static String stackOf(Throwable t) {
        StringBuilder out = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            out.append(c).append('\n');
        }
        return out.toString().toLowerCase(Locale.ROOT);
    }

    private static void deleteRecursively(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    private static long directoryBytes(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile)
                    .mapToLong(p -> p.toFile().length())
                    .sum();
        } catch (java.io.UncheckedIOException e) {
            // Cleanup removed a file between listing and reading its size: measure again.
            return directoryBytes(dir);
        }
    }

    static final String HEADER = "| t (s) | version | versions kept | fragments | max overlays / fragment | overlays"
            + " | manifest KB | table MB | rows | full scan s (CPU s) | `id, score` scan s (CPU s) | changes/s committed"
            + " | job CPU s / 100k changes |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|";

    static String row(Sample s) {
        return String.format(
                Locale.ROOT,
                "| %.0f | %d | %d | %d | %d | %d | %.1f | %.1f | %,d | %.3f (%.3f) |" + " %.3f (%.3f) | %,.0f | %.2f |",
                s.seconds(),
                s.version(),
                s.versionsRetained(),
                s.fragments(),
                s.maxOverlays(),
                s.overlays(),
                s.manifestBytes() / 1024.0,
                s.tableBytes() / 1e6,
                s.rows(),
                s.fullSeconds(),
                s.fullCpu(),
                s.narrowSeconds(),
                s.narrowCpu(),
                s.changesPerSecond(),
                s.jobCpuPer100k());
    }

    static String markdown(Run run) {
        StringBuilder out = new StringBuilder(String.format(
                Locale.ROOT,
                "%n%s (%.1f min; the last version holds" + " %,d changes, checked row by row against the model)%n%n",
                run.variant(),
                run.minutes(),
                run.finalPrefix()));
        out.append(HEADER).append('\n');
        run.samples().forEach(s -> out.append(row(s)).append('\n'));
        return out.toString();
    }

    /** Throughput, job CPU, and the last sample's scans and manifest of each run, with/without ratios. */
    static String summary(List<Run> runs) {
        StringBuilder out = new StringBuilder("\n| | ");
        runs.forEach(r -> out.append(r.variant()).append(" | "));
        // Ratios against the run without maintenance, when it came first.
        boolean ratio = runs.size() >= 2 && runs.get(0).variant().startsWith("without");
        if (ratio) {
            runs.subList(1, runs.size()).forEach(r -> out.append(r.variant()).append(" / without | "));
        }
        int columns = runs.size() + (ratio ? runs.size() - 1 : 0);
        out.append("\n|---|").append("---:|".repeat(columns)).append('\n');
        line(out, runs, ratio, "changes/s committed (first sample to last)", "%,.0f", Run::throughput);
        line(out, runs, ratio, "job CPU s per 100k changes", "%.2f", Run::jobCpuPer100k);
        line(out, runs, ratio, "full scan at the end, s", "%.3f", r -> r.last().fullSeconds());
        line(
                out,
                runs,
                ratio,
                "full scan at the end, CPU s",
                "%.3f",
                r -> r.last().fullCpu());
        line(
                out,
                runs,
                ratio,
                "`id, score` scan at the end, s",
                "%.3f",
                r -> r.last().narrowSeconds());
        line(
                out,
                runs,
                ratio,
                "`id, score` scan at the end, CPU s",
                "%.3f",
                r -> r.last().narrowCpu());
        line(out, runs, ratio, "manifest at the end, KB", "%.1f", r -> r.last().manifestBytes() / 1024.0);
        line(out, runs, ratio, "versions kept at the end", "%.0f", r -> r.last().versionsRetained());
        line(out, runs, ratio, "fragments at the end", "%.0f", r -> r.last().fragments());
        line(
                out,
                runs,
                ratio,
                "max overlays per fragment at the end",
                "%.0f",
                r -> r.last().maxOverlays());
        line(
                out,
                runs,
                ratio,
                "table directory at the end, MB",
                "%.1f",
                r -> r.last().tableBytes() / 1e6);
        line(out, runs, ratio, "rows at the end", "%.0f", r -> r.last().rows());
        return out.toString();
    }

    private static void line(
            StringBuilder out,
            List<Run> runs,
            boolean ratio,
            String what,
            String format,
            java.util.function.ToDoubleFunction<Run> f) {
        out.append("| ").append(what).append(" | ");
        for (Run r : runs) {
            out.append(String.format(Locale.ROOT, format, f.applyAsDouble(r))).append(" | ");
        }
        if (ratio) {
            double without = f.applyAsDouble(runs.get(0));
            for (Run r : runs.subList(1, runs.size())) {
                double with = f.applyAsDouble(r);
                out.append(without == 0 ? "—" : String.format(Locale.ROOT, "%.2fx", with / without))
                        .append(" | ");
            }
        }
        out.append('\n');
    }
}
