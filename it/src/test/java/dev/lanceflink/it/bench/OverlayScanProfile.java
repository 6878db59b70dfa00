package dev.lanceflink.it.bench;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.file.writer.FileWriterOptions;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.overlay.OverlayCommits;
import dev.lanceflink.overlay.OverlayWriter;
import dev.lanceflink.overlay.StagedWrite;
import dev.lanceflink.read.ScanOptions;
import dev.lanceflink.read.Scanner;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.txn.CommitOptions;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * A focused probe of what overlays cost a scan, for tuning the read path: the scan part of
 * {@link CompactionBenchmark} (same table and overlay history, {@link CompactionBenchData}) without
 * the compaction stages, with the table kept between runs so a profiler (JFR) can be attached to
 * the scans alone.
 *
 * <p>Usage (classpath as {@code it/run-benchmarks.sh} builds it):
 * {@code java ... OverlayScanProfile <table dir> [rows [fragments [commits [repeat]]]]}. If the
 * directory holds no table, it is written first (base as version 1, then one version per overlay
 * commit); then version 1 (no overlays) and the latest version are scanned, all columns and
 * {@code value} alone, taking turns, and the median CPU seconds of the scanning thread and their
 * ratio to the base are printed (with {@code -Dlf.profile.only=value} or {@code =all}: only the
 * overlaid scan of those columns, {@code repeat} times, for a profiler). Every scan's
 * {@code value} sum is checked against the model of the history. Not part of the test suite.
 */
public final class OverlayScanProfile {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private OverlayScanProfile() {}

    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            throw new IllegalArgumentException(
                    "Usage: OverlayScanProfile <table dir> [rows [fragments [commits [repeat]]]]");
        }
        Path table = Path.of(args[0]);
        int rows = args.length > 1 ? Integer.parseInt(args[1]) : 1_000_000;
        int fragments = args.length > 2 ? Integer.parseInt(args[2]) : 8;
        int commits = args.length > 3 ? Integer.parseInt(args[3]) : 50;
        int repeat = args.length > 4 ? Integer.parseInt(args[4]) : 11;
        String uri = table.toString();
        if (!Files.isDirectory(table.resolve("_versions"))) {
            long start = System.nanoTime();
            write(uri, rows, fragments, commits);
            System.out.printf(Locale.ROOT, "Wrote %s in %.1f s%n", uri, (System.nanoTime() - start) / 1e9);
        }
        long expectedValueSum;
        try (Dataset ds = Dataset.open(uri, Map.of())) {
            CompactionBenchData.Model model = model(ds);
            for (int c = 0; c < ds.version() - 1; c++) {
                model.apply(c);
            }
            expectedValueSum = model.valueSum();
        }
        String only = System.getProperty("lf.profile.only");
        if (only != null) {
            // For a profiler: only the overlaid scan of the named columns ("all" or a column list), many times.
            List<String> columns = only.equals("all") ? null : List.of(only.split(","));
            System.out.printf(
                    Locale.ROOT,
                    "CPU s (median of %d) of %s with overlays: %.3f%n",
                    repeat,
                    only,
                    scan(uri, columns, repeat, expectedValueSum));
            return;
        }
        // Warm-up: JIT the base and overlay paths before anything is timed.
        try (Dataset latest = Dataset.open(uri, Map.of());
                Dataset base = latest.checkoutVersion(1)) {
            for (int w = 0; w < 3; w++) {
                scanOnce(base, null, -1);
                scanOnce(latest, null, expectedValueSum);
            }
            // The four scans take turns, so a change in machine load hits all of them alike.
            double[][] cpu = new double[4][repeat];
            for (int k = 0; k < repeat; k++) {
                cpu[0][k] = scanOnce(base, null, -1);
                cpu[1][k] = scanOnce(base, List.of("value"), -1);
                cpu[2][k] = scanOnce(latest, null, expectedValueSum);
                cpu[3][k] = scanOnce(latest, List.of("value"), expectedValueSum);
            }
            double baseAll = median(cpu[0]);
            double baseValue = median(cpu[1]);
            double ovAll = median(cpu[2]);
            double ovValue = median(cpu[3]);
            System.out.printf(
                    Locale.ROOT,
                    "CPU s (median of %d): base all %.4f, value %.4f; overlays all %.4f"
                            + " (%.2fx), value %.4f (%.2fx)%n",
                    repeat,
                    baseAll,
                    baseValue,
                    ovAll,
                    ovAll / baseAll,
                    ovValue,
                    ovValue / baseValue);
        }
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    private static CompactionBenchData.Model model(Dataset ds) {
        return new CompactionBenchData.Model(
                ds.fragments().stream().mapToLong(Fragment::physicalRows).toArray());
    }

    /** Median CPU seconds of {@code repeat} scans of the latest version. */
    private static double scan(String uri, List<String> columns, int repeat, long expectedValueSum) throws IOException {
        double[] cpu = new double[repeat];
        try (Dataset ds = Dataset.open(uri, Map.of())) {
            for (int k = 0; k < repeat; k++) {
                cpu[k] = scanOnce(ds, columns, expectedValueSum);
            }
        }
        return median(cpu);
    }

    /** CPU seconds of one scan of {@code columns} (null: all); checks the value sum if {@code >= 0}. */
    private static double scanOnce(Dataset ds, List<String> columns, long expectedValueSum) throws IOException {
        long start = THREADS.getCurrentThreadCpuTime();
        long sum = 0;
        ScanOptions options = ScanOptions.all().withBatchSize(8192);
        try (Scanner s = ds.scan(columns == null ? options : options.withColumns(columns))) {
            while (s.hasNext()) {
                try (VectorSchemaRoot b = s.next()) {
                    IntVector value = (IntVector) b.getVector("value");
                    for (int r = 0; r < b.getRowCount(); r++) {
                        sum += value.get(r);
                    }
                }
            }
        }
        double cpu = (THREADS.getCurrentThreadCpuTime() - start) / 1e9;
        if (expectedValueSum >= 0 && sum != expectedValueSum) {
            throw new IllegalStateException("value sum " + sum + ", expected " + expectedValueSum);
        }
        return cpu;
    }

    private static void write(String uri, int rows, int fragments, int commits) throws IOException {
        long perFragment = (rows + fragments - 1) / fragments;
        List<VectorSchemaRoot> batches = new ArrayList<>();
        try (BufferAllocator allocator = new RootAllocator()) {
            try {
                for (int from = 0; from < rows; from += 16384) {
                    batches.add(CompactionBenchData.batch(allocator, from, Math.min(16384, rows - from)));
                }
                WriteParams params = WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(perFragment);
                Dataset.write(uri, Map.of(), batches, CompactionBenchData.SCHEMA, params)
                        .close();
            } finally {
                batches.forEach(VectorSchemaRoot::close);
            }
        }
        try (Dataset ds = Dataset.open(uri, Map.of())) {
            ObjectStore store = ds.store();
            BufferAllocator allocator = ds.allocator();
            CompactionBenchData.Model model = model(ds);
            int valueId = ds.schema().fieldByName("value").orElseThrow().id();
            int textId = ds.schema().fieldByName("text").orElseThrow().id();
            Manifest m = ds.manifest();
            for (int c = 0; c < commits; c++) {
                Map<Long, List<DataOverlayFile>> groups = new LinkedHashMap<>();
                List<String> written = new ArrayList<>();
                List<Fragment> frags = m.fragments();
                for (int f = 0; f < frags.size(); f++) {
                    Fragment fragment = frags.get(f);
                    try (OverlayWriter w = OverlayWriter.create(
                            store,
                            m,
                            fragment.id(),
                            new int[] {valueId, textId},
                            allocator,
                            FileWriterOptions.defaults())) {
                        long n = fragment.physicalRows();
                        long[] vo = CompactionBenchData.offsets(CompactionBenchData.valueResidue(c), n);
                        try (IntVector v = (IntVector)
                                CompactionBenchData.SCHEMA.findField("value").createVector(allocator)) {
                            v.allocateNew(vo.length);
                            for (int k = 0; k < vo.length; k++) {
                                v.set(k, CompactionBenchData.updatedValue(c, model.row(f, vo[k])));
                            }
                            v.setValueCount(vo.length);
                            w.writeField(valueId, addresses(fragment.id(), vo), v);
                        }
                        long[] to = CompactionBenchData.offsets(CompactionBenchData.textResidue(c), n);
                        try (VarCharVector v = (VarCharVector)
                                CompactionBenchData.SCHEMA.findField("text").createVector(allocator)) {
                            v.allocateNew((long) to.length * 16, to.length);
                            for (int k = 0; k < to.length; k++) {
                                v.setSafe(k, CompactionBenchData.updatedText(c, model.row(f, to[k])));
                            }
                            v.setValueCount(to.length);
                            w.writeField(textId, addresses(fragment.id(), to), v);
                        }
                        w.writtenPath().ifPresent(written::add);
                        w.finish().ifPresent(o -> groups.put(fragment.id(), List.of(o)));
                    }
                }
                StagedWrite staged = new StagedWrite(OverlayCommits.operation(groups), written);
                m = OverlayCommits.commit(store, m.version(), staged, Map.of(), CommitOptions.defaults());
                model.apply(c);
            }
        }
    }

    private static long[] addresses(long fragmentId, long[] offsets) {
        long[] out = new long[offsets.length];
        for (int k = 0; k < offsets.length; k++) {
            out[k] = fragmentId << 32 | offsets[k];
        }
        return out;
    }
}
