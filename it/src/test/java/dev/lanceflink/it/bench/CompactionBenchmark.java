package dev.lanceflink.it.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lanceflink.compactor.CompactorMain;
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
import dev.lanceflink.table.OverlayCoverage;
import dev.lanceflink.txn.CommitOptions;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Issue #7's benchmark: what 50 overlays per fragment cost a scan, and what the compaction job
 * ({@link CompactorMain}, engine {@code threads}) takes to remove that cost.
 *
 * <p>One run: a table of {@code rows} rows ({@link CompactionBenchData}: {@code id int64, value
 * int32, text utf8, vector fixed_size_list<float32, 32>}) in {@code fragments} fragments gets
 * {@code commits} overlay commits, each with one overlay per fragment updating 1% of the rows of
 * {@code value} and {@code text} (alternately dense and sparse). The table is scanned (all
 * columns, and {@code value} alone) as written, with the overlays, after {@code overlay-merge},
 * and after {@code overlay-fold} of the merged table. Every scan is checked against the model of
 * the history (row count, {@code value} sum, hash of every {@code text} cell), so a compaction
 * that loses or reorders a cell fails the run.
 *
 * <p>Scan figures are the median of {@code lf.bench.repeat} (default 3; at least 11 for the short
 * {@code value}-only scans) timed scans after one untimed checking scan (and, before the first
 * stage, one untimed warm-up stage), as wall rows/s and CPU seconds of the scanning thread (our
 * scanner decodes on the calling thread; on a busy machine CPU time is the steadier figure). Compaction
 * figures: wall time of {@code CompactorMain.run} (plan, tasks, commit), cells read and written
 * (counted from the manifests before and after: coverage cardinalities, and for a fold the
 * {@code rows x folded columns} of the new base columns, which it reads and writes), bytes from
 * the job's JSON summary ({@code inputBytes}: the planned input files, for a fold the whole base
 * files too; {@code bytesWritten}).
 *
 * <p>Not part of the test suite: build as {@code it/run-benchmarks.sh} does and run this class's
 * {@code main} with {@code [rows [fragments [commits]]]} (defaults 1,000,000, 8, 50).
 */
public final class CompactionBenchmark {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<String> VALUE_ONLY = List.of("value");

    private CompactionBenchmark() {}

    /** Median wall seconds and median CPU seconds of the scanning thread over the timed scans. */
    record ScanStats(double seconds, double cpuSeconds) {}

    /**
     * The overlays of one table version.
     *
     * @param overlays overlay files over all fragments
     * @param denseOverlays of which dense (one shared coverage bitmap)
     * @param cells covered cells, summed over overlays and fields
     * @param bytes size of the overlay files
     * @param foldCells cells a fold writes: per fragment, physical rows x distinct overlaid fields
     */
    record OverlayCensus(int overlays, int denseOverlays, long cells, long bytes, long foldCells) {}

    /** One state of the table and its two scans. */
    record Stage(String name, OverlayCensus census, ScanStats all, ScanStats valueOnly) {}

    /** One run of the compaction job. */
    record CompactionStats(
            String mode,
            int parallelism,
            int fragmentsCompacted,
            OverlayCensus before,
            OverlayCensus after,
            long cellsRead,
            long cellsWritten,
            long inputBytes,
            long bytesWritten,
            double seconds,
            long jobMillis) {
        double cellsWrittenPerSecond() {
            return cellsWritten / seconds;
        }

        double cellsReadPerSecond() {
            return cellsRead / seconds;
        }

        double megabytesPerSecond() {
            return (inputBytes + bytesWritten) / 1e6 / seconds;
        }
    }

    /** Everything one run measured. */
    record Result(
            long rows,
            int fragments,
            int commits,
            int repeat,
            double historySeconds,
            List<Stage> stages,
            CompactionStats merge,
            CompactionStats fold) {}

    public static void main(String[] args) throws Exception {
        int rows = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        int fragments = args.length > 1 ? Integer.parseInt(args[1]) : 8;
        int commits = args.length > 2 ? Integer.parseInt(args[2]) : 50;
        int repeat = Integer.getInteger("lf.bench.repeat", 3);
        Path dir = Files.createTempDirectory("lance-compaction-bench");
        Result result = run(
                dir.resolve("table.lance"),
                rows,
                fragments,
                commits,
                repeat,
                Runtime.getRuntime().availableProcessors());
        System.out.println();
        System.out.println(markdown(result));
        System.out.println("Table in " + dir);
    }

    /**
     * Builds the table at {@code table} (must not exist), measures and checks every stage.
     *
     * @throws IllegalStateException if a scan differs from the model or a compaction does not commit
     */
    static Result run(Path table, int rows, int fragments, int commits, int repeat, int parallelism)
            throws IOException {
        if (rows < fragments || fragments < 1 || commits < 2 || repeat < 1) {
            throw new IllegalArgumentException("Need rows >= fragments >= 1, commits >= 2 and repeat >= 1; got " + rows
                    + " rows, " + fragments + " fragments, " + commits + " commits, repeat " + repeat);
        }
        String uri = table.toString();
        writeBase(uri, rows, fragments);
        CompactionBenchData.Model model;
        try (Dataset ds = Dataset.open(uri, Map.of())) {
            model = new CompactionBenchData.Model(
                    ds.fragments().stream().mapToLong(Fragment::physicalRows).toArray());
        }
        List<Stage> stages = new ArrayList<>();
        // JIT warm-up of the read path, so the first measured stage does not pay for compilation.
        stage("warm-up", uri, model, repeat);
        stages.add(stage("base, no overlays", uri, model, repeat));
        long start = System.nanoTime();
        writeHistory(uri, commits, model);
        double historySeconds = (System.nanoTime() - start) / 1e9;
        stages.add(stage(commits + " overlays per fragment", uri, model, repeat));
        CompactionStats merge = compact(uri, "overlay-merge", parallelism, fragments);
        stages.add(stage("after overlay-merge", uri, model, repeat));
        CompactionStats fold = compact(uri, "overlay-fold", parallelism, fragments);
        stages.add(stage("after overlay-fold", uri, model, repeat));
        return new Result(rows, fragments, commits, repeat, historySeconds, stages, merge, fold);
    }

    /** Writes the base table, {@code ceil(rows / fragments)} rows per fragment; not timed. */
    static void writeBase(String uri, int rows, int fragments) throws IOException {
        long perFragment = (rows + fragments - 1) / fragments;
        List<VectorSchemaRoot> batches = new ArrayList<>();
        try (BufferAllocator allocator = new RootAllocator()) {
            try {
                for (int from = 0; from < rows; from += 16384) {
                    batches.add(CompactionBenchData.batch(allocator, from, Math.min(16384, rows - from)));
                }
                WriteParams params = WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(perFragment);
                try (Dataset ds = Dataset.write(uri, Map.of(), batches, CompactionBenchData.SCHEMA, params)) {
                    if (ds.countRows() != rows || ds.fragments().size() != fragments) {
                        throw new IllegalStateException("Wrote " + ds.countRows() + " rows in "
                                + ds.fragments().size() + " fragments to " + uri + ", expected " + rows + " rows in "
                                + fragments);
                    }
                }
            } finally {
                batches.forEach(VectorSchemaRoot::close);
            }
        }
    }

    /** Commits the history of {@link CompactionBenchData}: {@code commits} versions, one overlay per fragment each. */
    static void writeHistory(String uri, int commits, CompactionBenchData.Model model) throws IOException {
        try (Dataset ds = Dataset.open(uri, Map.of())) {
            ObjectStore store = ds.store();
            BufferAllocator allocator = ds.allocator();
            int valueId = ds.schema().fieldByName("value").orElseThrow().id();
            int textId = ds.schema().fieldByName("text").orElseThrow().id();
            Manifest m = ds.manifest();
            for (int c = 0; c < commits; c++) {
                Map<Long, List<DataOverlayFile>> groups = new LinkedHashMap<>();
                List<String> written = new ArrayList<>();
                List<Fragment> fragments = m.fragments();
                for (int f = 0; f < fragments.size(); f++) {
                    Fragment fragment = fragments.get(f);
                    try (OverlayWriter w = OverlayWriter.create(
                            store,
                            m,
                            fragment.id(),
                            new int[] {valueId, textId},
                            allocator,
                            FileWriterOptions.defaults())) {
                        long rows = fragment.physicalRows();
                        writeValues(
                                w,
                                valueId,
                                fragment.id(),
                                f,
                                c,
                                model,
                                CompactionBenchData.offsets(CompactionBenchData.valueResidue(c), rows),
                                allocator);
                        writeTexts(
                                w,
                                textId,
                                fragment.id(),
                                f,
                                c,
                                model,
                                CompactionBenchData.offsets(CompactionBenchData.textResidue(c), rows),
                                allocator);
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

    private static void writeValues(
            OverlayWriter w,
            int fieldId,
            long fragmentId,
            int f,
            int commit,
            CompactionBenchData.Model model,
            long[] offsets,
            BufferAllocator allocator)
            throws IOException {
        try (IntVector v =
                (IntVector) CompactionBenchData.SCHEMA.findField("value").createVector(allocator)) {
            v.allocateNew(offsets.length);
            for (int k = 0; k < offsets.length; k++) {
                v.set(k, CompactionBenchData.updatedValue(commit, model.row(f, offsets[k])));
            }
            v.setValueCount(offsets.length);
            w.writeField(fieldId, addresses(fragmentId, offsets), v);
        }
    }

    private static void writeTexts(
            OverlayWriter w,
            int fieldId,
            long fragmentId,
            int f,
            int commit,
            CompactionBenchData.Model model,
            long[] offsets,
            BufferAllocator allocator)
            throws IOException {
        try (VarCharVector v =
                (VarCharVector) CompactionBenchData.SCHEMA.findField("text").createVector(allocator)) {
            v.allocateNew((long) offsets.length * 16, offsets.length);
            for (int k = 0; k < offsets.length; k++) {
                v.setSafe(k, CompactionBenchData.updatedText(commit, model.row(f, offsets[k])));
            }
            v.setValueCount(offsets.length);
            w.writeField(fieldId, addresses(fragmentId, offsets), v);
        }
    }

    private static long[] addresses(long fragmentId, long[] offsets) {
        long[] out = new long[offsets.length];
        for (int k = 0; k < offsets.length; k++) {
            out[k] = fragmentId << 32 | offsets[k];
        }
        return out;
    }

    /** Runs the compaction job in-process and checks that it compacted every fragment. */
    private static CompactionStats compact(String uri, String mode, int parallelism, int fragments) throws IOException {
        OverlayCensus before = census(uri);
        // A merge needs two overlays (the planner's rule); the merged table has one per fragment, which
        // the default fold triggers (8 overlays, half the base bytes) would leave alone.
        String minOverlays = mode.equals("overlay-merge") ? "2" : "1";
        String[] args = {
            uri,
            "--mode",
            mode,
            "--engine",
            "threads",
            "--parallelism",
            String.valueOf(parallelism),
            "--min-overlays",
            minOverlays
        };
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        long start = System.nanoTime();
        int code = CompactorMain.run(
                args,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        double seconds = (System.nanoTime() - start) / 1e9;
        String stdout = out.toString(StandardCharsets.UTF_8);
        if (code != 0) {
            throw new IllegalStateException("compact " + String.join(" ", args) + " exited with " + code + ": " + stdout
                    + err.toString(StandardCharsets.UTF_8));
        }
        JsonNode summary = JSON.readTree(stdout);
        int compacted = summary.path("fragmentsCompacted").asInt(-1);
        if (!summary.path("status").asText().equals("committed") || compacted != fragments) {
            throw new IllegalStateException("compact " + String.join(" ", args) + " compacted " + compacted + " of "
                    + fragments + " fragments: " + stdout);
        }
        OverlayCensus after = census(uri);
        long cellsRead;
        long cellsWritten;
        if (mode.equals("overlay-merge")) {
            cellsRead = before.cells();
            cellsWritten = after.cells();
        } else {
            cellsRead = before.cells() + before.foldCells();
            cellsWritten = before.foldCells();
        }
        return new CompactionStats(
                mode,
                parallelism,
                compacted,
                before,
                after,
                cellsRead,
                cellsWritten,
                summary.path("inputBytes").asLong(),
                summary.path("bytesWritten").asLong(),
                seconds,
                summary.path("durationMillis").asLong());
    }

    /** Counts the overlays of the latest version. */
    static OverlayCensus census(String uri) throws IOException {
        int overlays = 0;
        int dense = 0;
        long cells = 0;
        long bytes = 0;
        long foldCells = 0;
        try (Dataset ds = Dataset.open(uri, Map.of())) {
            for (Fragment f : ds.fragments()) {
                Set<Integer> fields = new HashSet<>();
                for (DataOverlayFile o : f.overlays()) {
                    overlays++;
                    dense += o.coverage() instanceof OverlayCoverage.Dense ? 1 : 0;
                    bytes += o.dataFile().fileSizeBytes();
                    for (int p = 0; p < o.dataFile().fieldCount(); p++) {
                        cells += o.coverage().bitmap(p).getLongCardinality();
                        fields.add(o.dataFile().fieldId(p));
                    }
                }
                foldCells += f.physicalRows() * fields.size();
            }
        }
        return new OverlayCensus(overlays, dense, cells, bytes, foldCells);
    }

    /** A one-column scan is over in tens of milliseconds, where one scheduler hiccup shows: more runs. */
    static int valueOnlyRepeat(int repeat) {
        return Math.max(repeat, 11);
    }

    private static Stage stage(String name, String uri, CompactionBenchData.Model model, int repeat)
            throws IOException {
        long valueSum = model.valueSum();
        long textHashSum = model.textHashSum();
        ScanStats all = scan(uri, null, repeat, model.rows(), valueSum, textHashSum);
        ScanStats value = scan(uri, VALUE_ONLY, valueOnlyRepeat(repeat), model.rows(), valueSum, textHashSum);
        return new Stage(name, census(uri), all, value);
    }

    /**
     * One checking scan, then {@code repeat} timed ones, of {@code columns} (null: all). Checks the
     * row count, the {@code value} sum and, when scanned, the {@code text} hash sum.
     */
    private static ScanStats scan(
            String uri, List<String> columns, int repeat, long rows, long valueSum, long textHashSum)
            throws IOException {
        double[] wall = new double[repeat];
        double[] cpu = new double[repeat];
        try (Dataset ds = Dataset.open(uri, Map.of())) {
            for (int k = -1; k < repeat; k++) {
                long cpuStart = THREADS.getCurrentThreadCpuTime();
                long start = System.nanoTime();
                long[] totals = scanOnce(ds, columns);
                if (k >= 0) {
                    wall[k] = (System.nanoTime() - start) / 1e9;
                    cpu[k] = (THREADS.getCurrentThreadCpuTime() - cpuStart) / 1e9;
                }
                boolean textScanned = columns == null || columns.contains("text");
                if (totals[0] != rows || totals[1] != valueSum || (textScanned && totals[2] != textHashSum)) {
                    throw new IllegalStateException("Scan of " + columns + " of " + uri + " gave " + totals[0]
                            + " rows, value sum " + totals[1] + ", text hash sum " + totals[2] + "; expected " + rows
                            + " rows, value sum " + valueSum + (textScanned ? ", text hash sum " + textHashSum : ""));
                }
            }
        }
        return new ScanStats(median(wall), median(cpu));
    }

    /** Rows, {@code value} sum and {@code text} hash sum (0 when not scanned), read straight from the buffers. */
    private static long[] scanOnce(Dataset ds, List<String> columns) throws IOException {
        long rows = 0;
        long valueSum = 0;
        long textHashSum = 0;
        ScanOptions options = ScanOptions.all().withBatchSize(8192);
        try (Scanner s = ds.scan(columns == null ? options : options.withColumns(columns))) {
            while (s.hasNext()) {
                try (VectorSchemaRoot b = s.next()) {
                    int n = b.getRowCount();
                    IntVector value = (IntVector) b.getVector("value");
                    for (int r = 0; r < n; r++) {
                        valueSum += value.get(r);
                    }
                    if (b.getVector("text") instanceof VarCharVector text) {
                        ArrowBuf offsets = text.getOffsetBuffer();
                        ArrowBuf data = text.getDataBuffer();
                        for (int r = 0; r < n; r++) {
                            long h = 0;
                            int end = offsets.getInt((r + 1L) * 4);
                            for (int i = offsets.getInt(r * 4L); i < end; i++) {
                                h = h * 31 + (data.getByte(i) & 0xff);
                            }
                            textHashSum += h;
                        }
                    }
                    rows += n;
                }
            }
        }
        return new long[] {rows, valueSum, textHashSum};
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    /** The two markdown tables of the README. */
    static String markdown(Result r) {
        StringBuilder sb = new StringBuilder();
        List<Stage> st = r.stages();
        sb.append(String.format(
                Locale.ROOT,
                "Table: %,d rows (id int64, value int32, text utf8, vector"
                        + " fixed_size_list<float32, %d>) in %d fragments; %d overlay commits, each one overlay per fragment"
                        + " updating 1%% of the rows of value and text (even commits dense, odd sparse); history written"
                        + " in %.1f s.%n%n",
                r.rows(),
                CompactionBenchData.DIM,
                r.fragments(),
                r.commits(),
                r.historySeconds()));
        sb.append("| full scan, lance-flink reader (median of ")
                .append(r.repeat())
                .append("; wall rows/s, CPU s of the scanning thread) |");
        st.forEach(s -> sb.append(' ').append(s.name()).append(" |"));
        sb.append('\n').append("|---|");
        st.forEach(s -> sb.append("---:|"));
        sb.append('\n').append("| overlays (dense + sparse) |");
        st.forEach(s -> sb.append(String.format(
                Locale.ROOT,
                " %,d (%d + %d) |",
                s.census().overlays(),
                s.census().denseOverlays(),
                s.census().overlays() - s.census().denseOverlays())));
        sb.append('\n').append("| overlay cells / overlay MB |");
        st.forEach(s -> sb.append(String.format(
                Locale.ROOT, " %,d / %.1f |", s.census().cells(), s.census().bytes() / 1e6)));
        sb.append('\n').append("| all 4 columns |");
        st.forEach(s -> sb.append(scanCell(r.rows(), s.all())));
        sb.append('\n')
                .append("| `value` only (an overlaid column; median of ")
                .append(valueOnlyRepeat(r.repeat()))
                .append(") |");
        st.forEach(s -> sb.append(scanCell(r.rows(), s.valueOnly())));
        Stage base = st.get(0);
        sb.append('\n').append("| scan time relative to the base table (wall; CPU) |");
        st.forEach(s -> sb.append(String.format(
                Locale.ROOT,
                " all %.2fx; %.2fx, value %.2fx; %.2fx |",
                s.all().seconds() / base.all().seconds(),
                s.all().cpuSeconds() / base.all().cpuSeconds(),
                s.valueOnly().seconds() / base.valueOnly().seconds(),
                s.valueOnly().cpuSeconds() / base.valueOnly().cpuSeconds())));
        sb.append("\n\n");
        CompactionStats m = r.merge();
        CompactionStats f = r.fold();
        sb.append("| compaction job (CompactorMain, engine threads, parallelism ")
                .append(m.parallelism())
                .append(") | overlay-merge | overlay-fold of the merged table |\n|---|---:|---:|\n");
        sb.append(String.format(
                Locale.ROOT, "| fragments compacted | %d | %d |%n", m.fragmentsCompacted(), f.fragmentsCompacted()));
        sb.append(String.format(
                Locale.ROOT,
                "| overlays before -> after | %,d -> %,d | %,d -> %,d |%n",
                m.before().overlays(),
                m.after().overlays(),
                f.before().overlays(),
                f.after().overlays()));
        sb.append(String.format(
                Locale.ROOT,
                "| wall time, s (job's own durationMillis) | %.2f (%d ms) | %.2f (%d ms) |%n",
                m.seconds(),
                m.jobMillis(),
                f.seconds(),
                f.jobMillis()));
        sb.append(String.format(Locale.ROOT, "| cells read | %,d | %,d |%n", m.cellsRead(), f.cellsRead()));
        sb.append(String.format(Locale.ROOT, "| cells written | %,d | %,d |%n", m.cellsWritten(), f.cellsWritten()));
        sb.append(String.format(
                Locale.ROOT,
                "| cells/s (read; written) | %,.0f; %,.0f | %,.0f; %,.0f |%n",
                m.cellsReadPerSecond(),
                m.cellsWrittenPerSecond(),
                f.cellsReadPerSecond(),
                f.cellsWrittenPerSecond()));
        sb.append(String.format(
                Locale.ROOT,
                "| MB input (planned files) + MB written | %.1f + %.1f | %.1f + %.1f |%n",
                m.inputBytes() / 1e6,
                m.bytesWritten() / 1e6,
                f.inputBytes() / 1e6,
                f.bytesWritten() / 1e6));
        sb.append(String.format(
                Locale.ROOT,
                "| MB/s (input + written) | %.1f | %.1f |%n",
                m.megabytesPerSecond(),
                f.megabytesPerSecond()));
        return sb.toString();
    }

    private static String scanCell(long rows, ScanStats s) {
        return String.format(Locale.ROOT, " %,.0f (%.3f CPU s) |", rows / s.seconds(), s.cpuSeconds());
    }
}
