package dev.lanceflink.it.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lanceflink.compact.OverlayCompactor;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.file.writer.FileWriterOptions;
import dev.lanceflink.it.interop.OracleProcess;
import dev.lanceflink.overlay.StagedWrite;
import dev.lanceflink.read.ScanOptions;
import dev.lanceflink.read.Scanner;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.txn.CommitOptions;
import dev.lanceflink.update.OverlayUpdate;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Issue #3's benchmarks: {@code UPDATE t SET value = value + 1 WHERE id IN (...)} on 1% of the
 * rows of a table {@code id int32, value int32, vector fixed_size_list<float32, 768>}, stored
 * three ways from byte-identical copies of one base table, in one run:
 *
 * <ul>
 *   <li>lance-flink, data overlay ({@link OverlayUpdate.Mode#OVERLAY}): one overlay file per
 *       touched fragment holding only the new {@code value} cells;
 *   <li>lance-flink, {@link OverlayUpdate.Mode#REWRITE_ROWS}: the rows move to a new fragment
 *       and are deleted from the old one, as Lance's own row-rewriting update does;
 *   <li>the official SDK 7.0.0 (oracle {@code bench-update}): a merge-insert on {@code id} with a
 *       source of {@code (id, value + 1)}, the SDK's closest equivalent of that UPDATE.
 * </ul>
 *
 * <p>Our timed update includes finding the rows (a scan of {@code id, value} with row addresses)
 * and computing {@code value + 1}; the SDK gets its source precomputed (it still joins on
 * {@code id}). Bytes written are the growth of the table directory (data, deletion, manifest and
 * transaction files). Then nine more overlay updates of other 1% slices give 10 live overlays
 * over 10% of the rows; full-scan throughput is compared with the same table after a fold (and the
 * SDK's reader on the folded table, which it can open again). Every
 * table's {@code value} sum is checked against the expected one, with our reader (the SDK cannot
 * open overlay tables). Not part of the test suite: run {@code it/run-benchmarks.sh overlay
 * [rows]}.
 */
public final class OverlayBenchmark {
    static final int DIM = 768;
    /** Every {@code EVERY}-th row is updated: 1%. */
    static final int EVERY = 100;

    static final int OVERLAYS = 10;
    static final Schema SCHEMA = new Schema(List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Int(32, true)), null),
            new Field("value", FieldType.notNullable(new ArrowType.Int(32, true)), null),
            new Field(
                    "vector",
                    FieldType.nullable(new ArrowType.FixedSizeList(DIM)),
                    List.of(new Field(
                            "item",
                            FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
                            null)))));

    /** Our scanner decodes on the calling thread, so that thread's CPU time is the scan's cost (ns precision). */
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private OverlayBenchmark() {}

    /** Outcome of one update: wall seconds (all of it, and the write + commit part) and directory growth. */
    private record UpdateRun(double seconds, double writeSeconds, long rows, long bytes, long files) {}

    /**
     * Best wall time and least CPU time of the scanning thread over the runs of a repeated scan:
     * on a busy machine wall time is noisy, CPU time much less so.
     */
    private record ScanRun(double seconds, double cpuSeconds) {}

    public static void main(String[] args) throws Exception {
        int rows = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        int repeat = Integer.getInteger("lf.bench.repeat", 3);
        Path dir = Files.createTempDirectory("lance-overlay-bench");
        Path base = dir.resolve("base.lance");
        Path overlay = dir.resolve("overlay.lance");
        Path rewrite = dir.resolve("rewrite.lance");
        Path sdk = dir.resolve("sdk.lance");
        OracleProcess oracle = OracleProcess.fromBuild().withTimeout(Duration.ofMinutes(30));

        long baseSum = 0;
        for (int i = 0; i < rows; i++) {
            baseSum += i % 1000;
        }
        try (BufferAllocator allocator = new RootAllocator()) {
            writeBase(allocator, base.toString(), rows);
        }
        for (Path copy : List.of(overlay, rewrite, sdk)) {
            copyTable(base, copy);
        }

        // Warm-up of our update path (JIT) on a small throwaway table, so neither mode pays for it.
        Path warm = dir.resolve("warmup.lance");
        try (BufferAllocator allocator = new RootAllocator()) {
            writeBase(allocator, warm.toString(), Math.min(rows, 50_000));
        }
        copyTable(warm, dir.resolve("warmup2.lance"));
        update(warm, EVERY, 0, OverlayUpdate.Mode.OVERLAY);
        update(dir.resolve("warmup2.lance"), EVERY, 0, OverlayUpdate.Mode.REWRITE_ROWS);

        UpdateRun viaOverlay = update(overlay, EVERY, 0, OverlayUpdate.Mode.OVERLAY);
        UpdateRun viaRewrite = update(rewrite, EVERY, 0, OverlayUpdate.Mode.REWRITE_ROWS);
        long sdkBefore = size(sdk);
        long sdkFilesBefore = files(sdk);
        JsonNode sdkRun = oracle.run(
                "bench-update",
                sdk.toString(),
                "--rows",
                String.valueOf(rows),
                "--every",
                String.valueOf(EVERY),
                "--phase",
                "0");
        long sdkBytes = size(sdk) - sdkBefore;
        long sdkFiles = files(sdk) - sdkFilesBefore;

        long slice = viaOverlay.rows();
        check("overlay", overlay, rows, baseSum + slice);
        check("rewrite", rewrite, rows, baseSum + slice);
        check("sdk", sdk, rows, baseSum + slice);
        if (sdkRun.get("rows_updated").asLong() != slice) {
            throw new IllegalStateException(
                    "The SDK updated " + sdkRun.get("rows_updated") + " rows, expected " + slice);
        }

        System.out.println();
        System.out.println("| UPDATE value = value + 1 on " + slice + " of " + rows + " rows (1%; id, value int32,"
                + " vector fixed_size_list<float32," + DIM + ">) | lance-flink overlay | lance-flink rewrite rows"
                + " | official SDK 7.0.0 merge_insert |");
        System.out.println("|---|---:|---:|---:|");
        System.out.println(String.format(
                Locale.ROOT, "| bytes written | %,d | %,d | %,d |", viaOverlay.bytes(), viaRewrite.bytes(), sdkBytes));
        System.out.println(String.format(
                Locale.ROOT, "| files written | %d | %d | %d |", viaOverlay.files(), viaRewrite.files(), sdkFiles));
        System.out.println(String.format(
                Locale.ROOT,
                "| bytes vs overlay | 1x | %.0fx | %.0fx |",
                (double) viaRewrite.bytes() / viaOverlay.bytes(),
                (double) sdkBytes / viaOverlay.bytes()));
        System.out.println(String.format(
                Locale.ROOT,
                "| time, s (ours: locate rows + write + commit) | %.3f | %.3f | %.3f |",
                viaOverlay.seconds(),
                viaRewrite.seconds(),
                sdkRun.get("seconds").asDouble()));
        System.out.println(String.format(
                Locale.ROOT,
                "| of which write + commit, s | %.3f | %.3f | n/a |",
                viaOverlay.writeSeconds(),
                viaRewrite.writeSeconds()));
        System.out.println("SDK merge_insert stats: " + sdkRun);

        // Nine more 1% slices: ten live overlays over 10% of the rows.
        long updatedTotal = slice;
        for (int phase = 1; phase < OVERLAYS; phase++) {
            updatedTotal +=
                    update(overlay, EVERY, phase, OverlayUpdate.Mode.OVERLAY).rows();
        }
        long expected = baseSum + updatedTotal;
        // A one-column scan is over in milliseconds: more runs for a stable minimum.
        int valueRepeat = Math.max(repeat, 10);
        ScanRun overlaidAll = scan(overlay, null, repeat, rows, expected);
        ScanRun overlaidValue = scan(overlay, List.of("value"), valueRepeat, rows, expected);
        long beforeFold = size(overlay);
        double foldSeconds = fold(overlay);
        long foldBytes = size(overlay) - beforeFold;
        ScanRun foldedAll = scan(overlay, null, repeat, rows, expected);
        ScanRun foldedValue = scan(overlay, List.of("value"), valueRepeat, rows, expected);
        // The SDK cannot open the table while it has overlays (reader flag 64); after the fold it can.
        JsonNode sdkFolded = oracle.run("bench-scan", overlay.toString(), "--repeat", String.valueOf(repeat));

        System.out.println();
        System.out.println("| full scan of " + rows + " rows, lance-flink reader"
                + " (best wall rows/s; least CPU s of the scanning thread)"
                + " | " + OVERLAYS + " overlays over " + (100L * updatedTotal / rows) + "% of the rows | after fold"
                + " | overlaid / folded (wall; CPU) |");
        System.out.println("|---|---:|---:|---:|");
        System.out.println(scanRow("all columns, best of " + repeat, rows, overlaidAll, foldedAll));
        System.out.println(scanRow("`value` only, best of " + valueRepeat, rows, overlaidValue, foldedValue));
        System.out.println(String.format(
                Locale.ROOT,
                "| official SDK 7.0.0 reader, all columns, best of %d | cannot open (reader flag 64) | %,.0f | n/a |",
                repeat,
                sdkFolded.get("rows_per_second").asDouble()));
        System.out.println(String.format(
                Locale.ROOT, "fold: %.3f s, %,d bytes written; files in %s", foldSeconds, foldBytes, dir));
    }

    private static String scanRow(String what, int rows, ScanRun overlaid, ScanRun folded) {
        return String.format(
                Locale.ROOT,
                "| %s | %,.0f (%.3f CPU s) | %,.0f (%.3f CPU s) | %.2f; %.2f |",
                what,
                rows / overlaid.seconds(),
                overlaid.cpuSeconds(),
                rows / folded.seconds(),
                folded.cpuSeconds(),
                overlaid.seconds() / folded.seconds(),
                overlaid.cpuSeconds() / folded.cpuSeconds());
    }

    /** Writes the base table in one go (one fragment up to 1,048,576 rows); not timed. */
    private static void writeBase(BufferAllocator allocator, String uri, int rows) throws IOException {
        List<VectorSchemaRoot> batches = new ArrayList<>();
        try {
            for (int from = 0; from < rows; from += 16384) {
                batches.add(batch(allocator, from, Math.min(16384, rows - from)));
            }
            try (Dataset ds = Dataset.write(uri, Map.of(), batches, SCHEMA, WriteParams.of(WriteMode.CREATE))) {
                if (ds.countRows() != rows) {
                    throw new IllegalStateException(
                            "wrote " + ds.countRows() + " rows to " + uri + ", expected " + rows);
                }
            }
        } finally {
            batches.forEach(VectorSchemaRoot::close);
        }
    }

    /** Rows {@code [from, from + count)}: {@code id = i}, {@code value = i % 1000}, a 768-d vector. */
    static VectorSchemaRoot batch(BufferAllocator allocator, int from, int count) {
        VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
        IntVector id = (IntVector) root.getVector("id");
        IntVector value = (IntVector) root.getVector("value");
        FixedSizeListVector vector = (FixedSizeListVector) root.getVector("vector");
        id.allocateNew(count);
        value.allocateNew(count);
        vector.allocateNew();
        Float4Vector items = (Float4Vector) vector.getDataVector();
        items.allocateNew(count * DIM);
        for (int r = 0; r < count; r++) {
            int i = from + r;
            id.set(r, i);
            value.set(r, i % 1000);
            vector.setNotNull(r);
            for (int j = 0; j < DIM; j++) {
                items.set(r * DIM + j, ((i * 31 + j * 7) % 1000) / 1000f);
            }
        }
        items.setValueCount(count * DIM);
        root.setRowCount(count);
        return root;
    }

    /**
     * {@code UPDATE t SET value = value + 1 WHERE id % every = phase}: a scan of {@code id, value}
     * with row addresses finds the rows, then one update commit stores the new values.
     */
    private static UpdateRun update(Path table, int every, int phase, OverlayUpdate.Mode mode) throws IOException {
        long bytesBefore = size(table);
        long filesBefore = files(table);
        long start = System.nanoTime();
        long writeStart;
        int n;
        try (Dataset ds = Dataset.open(table.toString(), Map.of())) {
            long[] addresses = new long[16];
            int[] values = new int[16];
            n = 0;
            try (Scanner s = ds.scan(ScanOptions.all()
                    .withColumns(List.of("id", "value"))
                    .withRowAddress(true)
                    .withBatchSize(8192))) {
                while (s.hasNext()) {
                    try (VectorSchemaRoot b = s.next()) {
                        IntVector id = (IntVector) b.getVector("id");
                        IntVector value = (IntVector) b.getVector("value");
                        UInt8Vector address = (UInt8Vector) b.getVector(ScanOptions.ROW_ADDRESS);
                        for (int r = 0; r < b.getRowCount(); r++) {
                            if (id.get(r) % every == phase) {
                                if (n == addresses.length) {
                                    addresses = Arrays.copyOf(addresses, n * 2);
                                    values = Arrays.copyOf(values, n * 2);
                                }
                                addresses[n] = address.get(r);
                                values[n++] = value.get(r) + 1;
                            }
                        }
                    }
                }
            }
            writeStart = System.nanoTime();
            try (VectorSchemaRoot newValues =
                    VectorSchemaRoot.create(new Schema(List.of(SCHEMA.findField("value"))), ds.allocator())) {
                IntVector v = (IntVector) newValues.getVector("value");
                v.allocateNew(n);
                for (int i = 0; i < n; i++) {
                    v.set(i, values[i]);
                }
                newValues.setRowCount(n);
                try (Dataset updated =
                        ds.update(Arrays.copyOf(addresses, n), newValues, mode, Map.of(), CommitOptions.defaults())) {
                    if (updated.version() != ds.version() + 1) {
                        throw new IllegalStateException("update of " + table + " committed version " + updated.version()
                                + ", expected " + (ds.version() + 1));
                    }
                }
            }
        }
        long end = System.nanoTime();
        return new UpdateRun(
                (end - start) / 1e9,
                (end - writeStart) / 1e9,
                n,
                size(table) - bytesBefore,
                files(table) - filesBefore);
    }

    /** Folds the overlays of every fragment that has some, one commit per fragment; returns the seconds taken. */
    private static double fold(Path table) throws IOException {
        long start = System.nanoTime();
        List<Long> overlaid = new ArrayList<>();
        try (Dataset ds = Dataset.open(table.toString(), Map.of())) {
            for (Fragment f : ds.fragments()) {
                if (!f.overlays().isEmpty()) {
                    overlaid.add(f.id());
                }
            }
        }
        for (long fragmentId : overlaid) {
            try (Dataset ds = Dataset.open(table.toString(), Map.of())) {
                StagedWrite staged = OverlayCompactor.fold(
                        ds.store(), ds.manifest(), fragmentId, ds.allocator(), FileWriterOptions.defaults());
                OverlayCompactor.commit(
                        ds.store(), ds.manifest(), fragmentId, staged, Map.of(), CommitOptions.defaults());
            }
        }
        return (System.nanoTime() - start) / 1e9;
    }

    /** Scans {@code columns} (null: all) {@code repeat} times and checks row count and {@code value} sum. */
    private static ScanRun scan(Path table, List<String> columns, int repeat, long expectedRows, long expectedSum)
            throws IOException {
        double bestSeconds = Double.MAX_VALUE;
        double leastCpu = Double.MAX_VALUE;
        try (Dataset ds = Dataset.open(table.toString(), Map.of())) {
            for (int k = 0; k < repeat; k++) {
                long cpu = THREADS.getCurrentThreadCpuTime();
                long start = System.nanoTime();
                long rows = 0;
                long sum = 0;
                ScanOptions options = ScanOptions.all().withBatchSize(8192);
                try (Scanner s = ds.scan(columns == null ? options : options.withColumns(columns))) {
                    while (s.hasNext()) {
                        try (VectorSchemaRoot b = s.next()) {
                            IntVector value = (IntVector) b.getVector("value");
                            for (int r = 0; r < b.getRowCount(); r++) {
                                sum += value.get(r);
                            }
                            rows += b.getRowCount();
                        }
                    }
                }
                bestSeconds = Math.min(bestSeconds, (System.nanoTime() - start) / 1e9);
                leastCpu = Math.min(leastCpu, (THREADS.getCurrentThreadCpuTime() - cpu) / 1e9);
                if (rows != expectedRows || sum != expectedSum) {
                    throw new IllegalStateException("scan of " + table + " gave " + rows + " rows with value sum " + sum
                            + ", expected " + expectedRows + " rows with sum " + expectedSum);
                }
            }
        }
        return new ScanRun(bestSeconds, leastCpu);
    }

    private static void check(String what, Path table, long expectedRows, long expectedSum) throws IOException {
        scan(table, List.of("value"), 1, expectedRows, expectedSum);
        System.out.println(what + ": " + expectedRows + " rows, value sum " + expectedSum + " as expected");
    }

    /**
     * A byte-identical copy of a table. Data files are hard-linked (Lance never changes a data
     * file once written) to save gigabytes; everything else (manifests, version hints) is copied
     * so that no writer of one copy can touch another.
     */
    private static void copyTable(Path from, Path to) throws IOException {
        try (var walk = Files.walk(from)) {
            for (Path p : (Iterable<Path>) walk::iterator) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else if (from.relativize(p).startsWith("data")) {
                    Files.createLink(target, p);
                } else {
                    Files.copy(p, target);
                }
            }
        }
    }

    private static long size(Path p) throws IOException {
        try (var walk = Files.walk(p)) {
            return walk.filter(Files::isRegularFile)
                    .mapToLong(f -> f.toFile().length())
                    .sum();
        }
    }

    private static long files(Path p) throws IOException {
        try (var walk = Files.walk(p)) {
            return walk.filter(Files::isRegularFile).count();
        }
    }
}
