package dev.lanceflink.it.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.it.interop.OracleProcess;
import dev.lanceflink.read.ScanOptions;
import dev.lanceflink.read.Scanner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Issue #2's benchmarks, ours and the official SDK's side by side in one run: append throughput
 * of a 1M-row 2.1 table (int32, utf8, 128-d float32 vector) and full-scan throughput of the same
 * table, each reader on the table each writer wrote. Not part of the test suite; run it with
 * {@code it/run-benchmarks.sh [rows]}. Data is generated before any clock starts; each scan is
 * repeated and the best time kept (the first of ours also warms up the JIT, as does a small
 * warm-up write).
 */
public final class FormatBenchmark {
    private FormatBenchmark() {}

    public static void main(String[] args) throws Exception {
        int rows = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        int repeat = 3;
        String scanOnly = System.getProperty("lf.bench.scanOnly");
        if (scanOnly != null) {
            scanOnly(Path.of(scanOnly), rows, Integer.getInteger("lf.bench.repeat", repeat));
            return;
        }
        Path dir = Files.createTempDirectory("lance-bench");
        OracleProcess oracle = OracleProcess.fromBuild().withTimeout(Duration.ofMinutes(20));
        String sdkTable = dir.resolve("sdk.lance").toString();
        String ourTable = dir.resolve("ours.lance").toString();

        JsonNode sdkWrite =
                oracle.run("bench-write", sdkTable, "--rows", String.valueOf(rows), "--data-storage-version", "2.1");
        double ourWriteSeconds;
        try (BufferAllocator allocator = new RootAllocator()) {
            write(allocator, dir.resolve("warmup.lance").toString(), Math.min(rows, 200_000));
            ourWriteSeconds = write(allocator, ourTable, rows);
        }
        double ourScanSdk = scan(sdkTable, repeat, rows);
        double ourScanOurs = scan(ourTable, repeat, rows);
        JsonNode sdkScanSdk = oracle.run("bench-scan", sdkTable, "--repeat", String.valueOf(repeat));
        JsonNode sdkScanOurs = oracle.run("bench-scan", ourTable, "--repeat", String.valueOf(repeat));

        double sdkWriteSeconds = sdkWrite.get("seconds").asDouble();
        List<String[]> table = new ArrayList<>();
        table.add(row("append " + rows + " rows (rows/s)", rows / ourWriteSeconds, rows / sdkWriteSeconds));
        table.add(row(
                "full scan of the SDK-written table (rows/s)",
                rows / ourScanSdk,
                sdkScanSdk.get("rows_per_second").asDouble()));
        table.add(row(
                "full scan of our table (rows/s)",
                rows / ourScanOurs,
                sdkScanOurs.get("rows_per_second").asDouble()));
        System.out.println(
                "| benchmark (" + rows + " rows: int32, utf8, fixed_size_list<float32,128>; file version 2.1)"
                        + " | lance-flink | official SDK 7.0.0 | ours / SDK |");
        System.out.println("|---|---:|---:|---:|");
        for (String[] r : table) {
            System.out.println("| " + String.join(" | ", r) + " |");
        }
        System.out.println("table sizes: ours " + size(Path.of(ourTable)) / 1_000_000 + " MB, SDK "
                + size(Path.of(sdkTable)) / 1_000_000 + " MB; files in " + dir);
    }

    /**
     * Scan-only mode ({@code -Dlf.bench.scanOnly=<dir of an earlier run>}): scans the
     * {@code sdk.lance} and {@code ours.lance} tables left by a full run with our reader only, to
     * iterate on read performance without the oracle and the writes.
     */
    private static void scanOnly(Path dir, int rows, int repeat) throws Exception {
        // On a busy machine wall time is noisy; the scanning thread's CPU time (the scan runs on
        // this thread; GC and JIT threads excluded) is not.
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        for (String table : new String[] {"sdk.lance", "ours.lance"}) {
            double bestWall = Double.MAX_VALUE;
            double bestCpu = Double.MAX_VALUE;
            for (int k = 0; k < repeat; k++) {
                long cpu = threads.getCurrentThreadCpuTime();
                bestWall = Math.min(bestWall, scan(dir.resolve(table).toString(), 1, rows));
                bestCpu = Math.min(bestCpu, (threads.getCurrentThreadCpuTime() - cpu) / 1e9);
            }
            System.out.println(String.format(
                    Locale.ROOT,
                    "full scan of %s: %,.0f rows/s (best of %d: %.3f s wall, %.3f s CPU of the scanning thread)",
                    table,
                    rows / bestWall,
                    repeat,
                    bestWall,
                    bestCpu));
        }
    }

    private static String[] row(String what, double ours, double sdk) {
        return new String[] {
            what,
            String.format(Locale.ROOT, "%,.0f", ours),
            String.format(Locale.ROOT, "%,.0f", sdk),
            String.format(Locale.ROOT, "%.2f", ours / sdk)
        };
    }

    private static double write(BufferAllocator allocator, String uri, int rows) throws Exception {
        List<VectorSchemaRoot> batches = new ArrayList<>();
        try {
            for (int from = 0; from < rows; from += 65536) {
                batches.add(BenchData.batch(allocator, from, Math.min(65536, rows - from)));
            }
            long start = System.nanoTime();
            try (Dataset ds =
                    Dataset.write(uri, Map.of(), batches, BenchData.SCHEMA, WriteParams.of(WriteMode.CREATE))) {
                double seconds = (System.nanoTime() - start) / 1e9;
                if (ds.countRows() != rows) {
                    throw new IllegalStateException("wrote " + ds.countRows() + " rows, expected " + rows);
                }
                return seconds;
            }
        } finally {
            batches.forEach(VectorSchemaRoot::close);
        }
    }

    private static double scan(String uri, int repeat, long expectedRows) throws Exception {
        double best = Double.MAX_VALUE;
        try (Dataset ds = Dataset.open(uri, Map.of())) {
            for (int k = 0; k < repeat; k++) {
                long start = System.nanoTime();
                long rows = 0;
                try (Scanner s = ds.scan(ScanOptions.all().withBatchSize(8192))) {
                    while (s.hasNext()) {
                        try (VectorSchemaRoot b = s.next()) {
                            rows += b.getRowCount();
                        }
                    }
                }
                best = Math.min(best, (System.nanoTime() - start) / 1e9);
                if (rows != expectedRows) {
                    throw new IllegalStateException(
                            "scanned " + rows + " rows of " + uri + ", expected " + expectedRows);
                }
            }
        }
        return best;
    }

    private static long size(Path p) throws Exception {
        try (var walk = Files.walk(p)) {
            return walk.filter(Files::isRegularFile)
                    .mapToLong(f -> f.toFile().length())
                    .sum();
        }
    }
}
