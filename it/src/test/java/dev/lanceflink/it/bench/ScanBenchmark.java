package dev.lanceflink.it.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.read.ScanOptions;
import dev.lanceflink.read.Scanner;
import dev.lanceflink.table.Fragment;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Issue #17's scan comparison: our reader and pylance 14 (in its own Python process, from the
 * venv the it module's build makes) scan the same table, all columns and a narrow projection,
 * without overlays (version 1) and with {@code commits} overlays per fragment (the latest
 * version), in one run.
 *
 * <p>Table and overlay history are the compaction benchmark's ({@link CompactionBenchData}:
 * {@code id int64, value int32, text utf8, vector fixed_size_list<float32, 32>}, every commit
 * one overlay per fragment updating 1% of the rows of {@code value} and {@code text}). Each
 * side runs one untimed scan, then {@code repeat} timed scans into Arrow batches (ours) or an
 * Arrow table (pylance's {@code to_table}); medians are printed. Both sides' row count and
 * {@code value} sum are checked against the model of the history, so a reader that misses an
 * overlay fails the run. Our scanner decodes on the calling thread: its CPU is that thread's;
 * pylance's is its whole process's (Lance decodes on a thread pool), so wall time is the fair
 * comparison and CPU shows the work.
 *
 * <p>Not part of the test suite: {@code it/run-benchmarks.sh scan [rows [fragments [commits]]]}
 * (defaults 1,000,000, 8, 50; {@code -Dlf.bench.repeat}, default 11).
 */
public final class ScanBenchmark {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The narrow projection: 2 of the 4 columns, one of them overlaid. */
    static final List<String> NARROW = List.of("id", "value");

    private ScanBenchmark() {}

    /** Median wall and CPU seconds. */
    record Timing(double seconds, double cpuSeconds) {}

    /** One scan measured on both sides. */
    record Row(String table, String columns, Timing ours, Timing pylance) {}

    public static void main(String[] args) throws Exception {
        int rows = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        int fragments = args.length > 1 ? Integer.parseInt(args[1]) : 8;
        int commits = args.length > 2 ? Integer.parseInt(args[2]) : 50;
        int repeat = Integer.getInteger("lf.bench.repeat", 11);
        Path python = Path.of(System.getProperty("lf.pylanceVenv", "it/target/pylance-venv"), "bin", "python");
        Path script = Path.of(System.getProperty("lf.scanScript", "it/pylance/scan_benchmark.py"));
        if (!Files.isExecutable(python) || !Files.isRegularFile(script)) {
            throw new IllegalStateException("Need pylance's venv at " + python + " and the script " + script
                    + ": run from the repository root after the it module's build made the venv"
                    + " (mvn -pl it generate-test-resources), or set -Dlf.pylanceVenv / -Dlf.scanScript");
        }
        Path dir = Files.createTempDirectory("lance-scan-bench");
        String uri = dir.resolve("table.lance").toString();
        CompactionBenchmark.writeBase(uri, rows, fragments);
        CompactionBenchData.Model model;
        try (Dataset ds = Dataset.open(uri, Map.of())) {
            model = new CompactionBenchData.Model(
                    ds.fragments().stream().mapToLong(Fragment::physicalRows).toArray());
        }
        long baseValueSum = model.valueSum();
        CompactionBenchmark.writeHistory(uri, commits, model);
        long overlaidValueSum = model.valueSum();
        long latest;
        try (Dataset ds = Dataset.open(uri, Map.of())) {
            latest = ds.version();
        }
        // JIT warm-up of our read paths (with and without overlays), so no measured scan pays for compilation.
        for (List<String> columns : Arrays.asList(null, NARROW)) {
            ours(uri, 1, columns, repeat, rows, baseValueSum);
            ours(uri, latest, columns, repeat, rows, overlaidValueSum);
        }
        List<Row> results = new ArrayList<>();
        String[] tables = {"no overlays (version 1)", commits + " overlays per fragment"};
        long[] versions = {1, latest};
        long[] sums = {baseValueSum, overlaidValueSum};
        for (int t = 0; t < 2; t++) {
            List<List<String>> projections = Arrays.asList(null, NARROW);
            List<Timing> py = pylance(python, script, uri, versions[t], repeat, projections, rows, sums[t]);
            for (int p = 0; p < projections.size(); p++) {
                Timing o = ours(uri, versions[t], projections.get(p), repeat, rows, sums[t]);
                results.add(new Row(
                        tables[t],
                        projections.get(p) == null ? "all 4" : String.join(", ", projections.get(p)),
                        o,
                        py.get(p)));
            }
        }
        System.out.println();
        System.out.println(markdown(rows, fragments, commits, repeat, results));
        System.out.println("Table in " + dir);
    }

    /** One checking scan, then {@code repeat} timed ones, of {@code columns} (null: all) at {@code version}. */
    static Timing ours(String uri, long version, List<String> columns, int repeat, long rows, long valueSum)
            throws IOException {
        double[] wall = new double[repeat];
        double[] cpu = new double[repeat];
        try (Dataset head = Dataset.open(uri, Map.of());
                Dataset ds = head.version() == version ? null : head.checkoutVersion(version)) {
            Dataset at = ds == null ? head : ds;
            for (int k = -1; k < repeat; k++) {
                long cpuStart = THREADS.getCurrentThreadCpuTime();
                long start = System.nanoTime();
                long[] totals = scanOnce(at, columns);
                if (k >= 0) {
                    wall[k] = (System.nanoTime() - start) / 1e9;
                    cpu[k] = (THREADS.getCurrentThreadCpuTime() - cpuStart) / 1e9;
                }
                check("our scan", columns, version, totals[0], totals[1], rows, valueSum);
            }
        }
        return new Timing(median(wall), median(cpu));
    }

    private static long[] scanOnce(Dataset ds, List<String> columns) throws IOException {
        long rows = 0;
        long valueSum = 0;
        ScanOptions options = ScanOptions.all().withBatchSize(8192);
        try (Scanner s = ds.scan(columns == null ? options : options.withColumns(columns))) {
            while (s.hasNext()) {
                try (VectorSchemaRoot b = s.next()) {
                    int n = b.getRowCount();
                    IntVector value = (IntVector) b.getVector("value");
                    for (int r = 0; r < n; r++) {
                        valueSum += value.get(r);
                    }
                    rows += n;
                }
            }
        }
        return new long[] {rows, valueSum};
    }

    /** pylance's timings of each projection (null: all columns), in one Python process with overlays enabled. */
    static List<Timing> pylance(
            Path python,
            Path script,
            String uri,
            long version,
            int repeat,
            List<List<String>> projections,
            long rows,
            long valueSum)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(
                List.of(python.toString(), script.toString(), uri, String.valueOf(version), String.valueOf(repeat)));
        for (List<String> p : projections) {
            command.add(p == null ? "*" : String.join(",", p));
        }
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().put("LANCE_ENABLE_UNSTABLE_DATA_OVERLAY_FILES", "1");
        Process process = builder.start();
        process.getOutputStream().close();
        CompletableFuture<String> out = drain(process.getInputStream());
        CompletableFuture<String> err = drain(process.getErrorStream());
        int code = process.waitFor();
        if (code != 0) {
            throw new IllegalStateException("pylance scan " + command + " exited with " + code + ": " + err.join());
        }
        JsonNode doc = JSON.readTree(out.join());
        List<Timing> timings = new ArrayList<>();
        for (int p = 0; p < projections.size(); p++) {
            JsonNode s = doc.get("scans").get(p);
            check(
                    "pylance's scan",
                    projections.get(p),
                    version,
                    s.get("rows").asLong(),
                    s.get("value_sum").asLong(),
                    rows,
                    valueSum);
            timings.add(new Timing(median(doubles(s.get("wall_s"))), median(doubles(s.get("cpu_s")))));
        }
        return timings;
    }

    private static void check(
            String who,
            List<String> columns,
            long version,
            long rows,
            long valueSum,
            long expectedRows,
            long expectedValueSum) {
        if (rows != expectedRows || valueSum != expectedValueSum) {
            throw new IllegalStateException(who + " of " + (columns == null ? "all columns" : columns) + " at version "
                    + version + " gave " + rows + " rows and value sum " + valueSum + "; the model says "
                    + expectedRows + " rows and value sum " + expectedValueSum);
        }
    }

    private static CompletableFuture<String> drain(InputStream in) {
        return CompletableFuture.supplyAsync(() -> {
            try (in) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                return "(unreadable: " + e + ")";
            }
        });
    }

    private static double[] doubles(JsonNode array) {
        double[] out = new double[array.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = array.get(i).asDouble();
        }
        return out;
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    static String markdown(int rows, int fragments, int commits, int repeat, List<Row> results) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(
                Locale.ROOT,
                "Table: %,d rows (id int64, value int32, text utf8, vector"
                        + " fixed_size_list<float32, %d>) in %d fragments; %d overlay commits (1%% of value and text each)."
                        + " Median of %d scans after one untimed scan.%n%n",
                rows,
                CompactionBenchData.DIM,
                fragments,
                commits,
                repeat));
        sb.append("| table | columns | lance-flink: wall s (CPU s, scanning thread) | pylance 14.0.2: wall s"
                + " (CPU s, process) | wall ours / pylance | CPU ours / pylance |\n");
        sb.append("|---|---|---:|---:|---:|---:|\n");
        for (Row r : results) {
            sb.append(String.format(
                    Locale.ROOT,
                    "| %s | %s | %.3f (%.3f) | %.3f (%.3f) | %.2f | %.2f |%n",
                    r.table(),
                    r.columns(),
                    r.ours().seconds(),
                    r.ours().cpuSeconds(),
                    r.pylance().seconds(),
                    r.pylance().cpuSeconds(),
                    r.ours().seconds() / r.pylance().seconds(),
                    r.ours().cpuSeconds() / r.pylance().cpuSeconds()));
        }
        return sb.toString();
    }
}
