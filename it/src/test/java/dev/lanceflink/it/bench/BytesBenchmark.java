package dev.lanceflink.it.bench;

import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import dev.lanceflink.file.FileVersion;
import dev.lanceflink.file.LanceFileMetadata;
import dev.lanceflink.file.PageInfo;
import dev.lanceflink.file.writer.FileWriterOptions;
import dev.lanceflink.file.writer.LanceFileWriter;
import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.io.RangeReader;
import dev.lanceflink.it.peers.PeerData;
import dev.lanceflink.schema.LanceSchema;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import lance.encodings21.CompressiveEncoding;
import lance.encodings21.PageLayout;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Bytes on disk, ours against pylance (issue #17, "files no larger than Lance's own"): the same
 * generated rows are written by our {@link LanceFileWriter} and by pylance (its own Python
 * process, {@code it/pylance/pylance_bytes.py}, from an Arrow IPC file of the very same batches)
 * at file versions 2.1 and 2.2; both data files are then measured with our reader: bytes of the
 * page buffers per column, the whole file, the ratio ours/pylance, and the encodings of each
 * column's first page on both sides. Also prints our writer's CPU time per table (best of three
 * writes on this thread), and the size and CPU time of our writer with string compression off
 * (plain strings, the writer before dictionaries and FSST), so the gain and the cost of the
 * string encodings come from the same run.
 *
 * <p>Tables: the peer benchmark's rows ({@code id int64, name utf8, age int32, score float64,
 * vec float32[128]}), the same with 768-dimensional vectors, and a string-heavy table
 * (low-cardinality codes, medium-cardinality names, URLs, sentences, long descriptions).
 *
 * <p>Not part of the test suite: {@code it/run-benchmarks.sh bytes [rows [tables]]} (default
 * 200,000 rows per table, the 768-d table gets a tenth; tables: a comma-separated subset of
 * {@code peer-128,vectors-768,strings}).
 */
public final class BytesBenchmark {
    private static final int BATCH_ROWS = 8192;
    private static final int TIMED_WRITES = 3;

    private BytesBenchmark() {}

    record Table(String name, Schema schema, int rows, RowFiller filler) {}

    interface RowFiller {
        void fill(VectorSchemaRoot root, int from, int count);
    }

    public static void main(String[] args) throws Exception {
        int rows = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
        Path python = Path.of(System.getProperty("lf.pylanceVenv", "it/target/pylance-venv"))
                .resolve("bin/python");
        Path script = Path.of(System.getProperty("lf.bytesScript", "it/pylance/pylance_bytes.py"));
        if (!Files.isExecutable(python) || !Files.isRegularFile(script)) {
            throw new IllegalStateException("need pylance's venv python (" + python + ") and " + script
                    + ": run it/run-benchmarks.sh bytes, which builds the venv first");
        }
        List<Table> tables = List.of(
                new Table("peer-128", peerSchema(128), rows, (root, from, n) -> fillPeer(root, from, n, 128)),
                new Table(
                        "vectors-768",
                        peerSchema(768),
                        Math.max(1, rows / 10),
                        (root, from, n) -> fillPeer(root, from, n, 768)),
                new Table("strings", stringSchema(), rows, BytesBenchmark::fillStrings));
        Path dir = Files.createTempDirectory("lance-bytes-benchmark");
        StringBuilder summary = new StringBuilder();
        summary.append(String.format(
                Locale.ROOT,
                "%-12s %-4s %14s %14s %7s %12s %14s %7s %12s%n",
                "table",
                "ver",
                "ours bytes",
                "pylance bytes",
                "ratio",
                "ours MB/s",
                "plain bytes",
                "ratio",
                "plain MB/s"));
        try (BufferAllocator allocator = new RootAllocator()) {
            for (Table t : tables) {
                if (!args2Tables(args).isEmpty() && !args2Tables(args).contains(t.name())) {
                    continue;
                }
                List<VectorSchemaRoot> batches = batches(allocator, t);
                try {
                    long rawBytes = rawBytes(batches);
                    Path arrow = dir.resolve(t.name() + ".arrow");
                    writeIpc(arrow, t.schema(), batches, allocator);
                    for (FileVersion v : List.of(FileVersion.V2_1, FileVersion.V2_2)) {
                        Path oursDir = Files.createDirectories(dir.resolve("ours-" + t.name() + "-" + v.label()));
                        // Plain strings = the writer before dictionaries and FSST: the "before" of the same run.
                        Path plainDir = Files.createDirectories(dir.resolve("plain-" + t.name() + "-" + v.label()));
                        FileWriterOptions plainOptions =
                                FileWriterOptions.defaults().withStringCompression(false);
                        long cpuNanos = Long.MAX_VALUE;
                        long plainNanos = Long.MAX_VALUE;
                        for (int i = 0; i < TIMED_WRITES; i++) {
                            plainNanos =
                                    Math.min(plainNanos, writeOurs(plainDir, t, v, batches, allocator, plainOptions));
                            cpuNanos = Math.min(
                                    cpuNanos,
                                    writeOurs(oursDir, t, v, batches, allocator, FileWriterOptions.defaults()));
                        }
                        Path ours = oursDir.resolve("data.lance");
                        long plainSize = Files.size(plainDir.resolve("data.lance"));
                        Path theirsUri = dir.resolve("pylance-" + t.name() + "-" + v.label() + ".lance");
                        runPylance(python, script, arrow, theirsUri, v.label());
                        Path theirs = onlyDataFile(theirsUri);
                        Map<String, Column> mine = measure(ours, t.schema());
                        Map<String, Column> other = measure(theirs, t.schema());
                        long oursSize = Files.size(ours);
                        long theirSize = Files.size(theirs);
                        double mbPerS = rawBytes / 1e6 / (cpuNanos / 1e9);
                        double plainMbPerS = rawBytes / 1e6 / (plainNanos / 1e9);
                        System.out.printf(
                                Locale.ROOT,
                                "%n== %s, %d rows, file version %s: ours %,d bytes, pylance %,d"
                                        + " bytes, ratio %.3f; our write %.0f ms CPU (%.0f MB/s of Arrow data)%n",
                                t.name(),
                                t.rows(),
                                v.label(),
                                oursSize,
                                theirSize,
                                (double) oursSize / theirSize,
                                cpuNanos / 1e6,
                                mbPerS);
                        System.out.printf(
                                Locale.ROOT,
                                "  %-12s %13s %13s %7s  %-40s %s%n",
                                "column",
                                "ours",
                                "pylance",
                                "ratio",
                                "ours (first page)",
                                "pylance (first page)");
                        for (String c : mine.keySet()) {
                            Column a = mine.get(c);
                            Column b = other.get(c);
                            System.out.printf(
                                    Locale.ROOT,
                                    "  %-12s %,13d %,13d %7.3f  %-40s %s%n",
                                    c,
                                    a.bytes,
                                    b.bytes,
                                    (double) a.bytes / b.bytes,
                                    a.encoding,
                                    b.encoding);
                        }
                        System.out.printf(
                                Locale.ROOT,
                                "  plain strings (no dictionary/FSST): %,d bytes, ratio %.3f,"
                                        + " %.0f ms CPU (%.0f MB/s)%n",
                                plainSize,
                                (double) plainSize / theirSize,
                                plainNanos / 1e6,
                                plainMbPerS);
                        summary.append(String.format(
                                Locale.ROOT,
                                "%-12s %-4s %,14d %,14d %7.3f %12.0f %,14d %7.3f %12.0f%n",
                                t.name(),
                                v.label(),
                                oursSize,
                                theirSize,
                                (double) oursSize / theirSize,
                                mbPerS,
                                plainSize,
                                (double) plainSize / theirSize,
                                plainMbPerS));
                    }
                } finally {
                    batches.forEach(VectorSchemaRoot::close);
                }
            }
        }
        System.out.printf(
                "%nSummary (whole data files; ratio = ours / pylance; MB/s = Arrow bytes per CPU second"
                        + " of our writer, best of %d; plain = our writer with string compression off, as before issue #17):"
                        + "%n%s",
                TIMED_WRITES, summary);
    }

    /** Optional second argument: a comma-separated list of the tables to run (default all). */
    private static List<String> args2Tables(String[] args) {
        return args.length > 1 ? List.of(args[1].split(",")) : List.of();
    }

    // ------------------------------------------------------------------ writing

    /** Writes the table with our file writer; returns the writing thread's CPU nanoseconds. */
    private static long writeOurs(
            Path dir,
            Table t,
            FileVersion v,
            List<VectorSchemaRoot> batches,
            BufferAllocator allocator,
            FileWriterOptions options)
            throws IOException {
        LanceSchema schema = LanceSchema.fromArrow(t.schema(), 0);
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long cpu = threads.getCurrentThreadCpuTime();
        try (LocalObjectStore store = new LocalObjectStore(dir);
                LanceFileWriter w = LanceFileWriter.create(store, "data.lance", schema, v, allocator, options)) {
            for (VectorSchemaRoot b : batches) {
                w.write(b);
            }
            w.finish();
        }
        return threads.getCurrentThreadCpuTime() - cpu;
    }

    private static void runPylance(Path python, Path script, Path arrow, Path uri, String version)
            throws IOException, InterruptedException {
        Process p = new ProcessBuilder(python.toString(), script.toString(), arrow.toString(), uri.toString(), version)
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(600, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException("pylance write of " + arrow + " at " + version + " failed: " + out);
        }
    }

    private static Path onlyDataFile(Path uri) throws IOException {
        try (Stream<Path> files = Files.list(uri.resolve("data"))) {
            List<Path> data = files.filter(f -> f.toString().endsWith(".lance")).toList();
            if (data.size() != 1) {
                throw new IllegalStateException("expected one data file in " + uri + ", found " + data);
            }
            return data.get(0);
        }
    }

    private static void writeIpc(Path file, Schema schema, List<VectorSchemaRoot> batches, BufferAllocator allocator)
            throws IOException {
        try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
                FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
                ArrowFileWriter w = new ArrowFileWriter(root, null, ch)) {
            w.start();
            for (VectorSchemaRoot b : batches) {
                try (ArrowRecordBatch rb = new VectorUnloader(b).getRecordBatch()) {
                    new VectorLoader(root).load(rb);
                }
                w.writeBatch();
            }
            w.end();
        }
    }

    // ------------------------------------------------------------------ measuring

    record Column(long bytes, String encoding) {}

    /** Page-buffer bytes of each top-level column (the schemas here have one column per field). */
    private static Map<String, Column> measure(Path file, Schema schema) throws IOException {
        Map<String, Column> out = new LinkedHashMap<>();
        try (LocalObjectStore store = new LocalObjectStore(file.getParent());
                RangeReader reader = store.openReader(file.getFileName().toString())) {
            LanceFileMetadata meta = LanceFileMetadata.read(reader, file.toString());
            if (meta.numColumns() != schema.getFields().size()) {
                throw new IllegalStateException(file + " has " + meta.numColumns() + " columns, the schema "
                        + schema.getFields().size() + " fields");
            }
            for (int c = 0; c < meta.numColumns(); c++) {
                long bytes = 0;
                PageInfo[] pages = meta.pages(c);
                Map<String, Integer> encodings = new TreeMap<>();
                for (PageInfo p : pages) {
                    for (long s : p.bufferSizes()) {
                        bytes += s;
                    }
                    encodings.merge(describe(p), 1, Integer::sum);
                }
                String enc =
                        encodings.size() == 1 ? encodings.keySet().iterator().next() : encodings.toString();
                out.put(schema.getFields().get(c).getName(), new Column(bytes, pages.length + "p " + enc));
            }
        }
        return out;
    }

    /** Short description of a 2.1+ page layout: layout, value compression, dictionary. */
    static String describe(PageInfo page) throws IOException {
        PageLayout layout = PageLayout.parseFrom(page.encoding().getValue());
        return switch (layout.getLayoutCase()) {
            case MINI_BLOCK_LAYOUT ->
                "mb " + describe(layout.getMiniBlockLayout().getValueCompression())
                        + (layout.getMiniBlockLayout().hasDictionary()
                                ? " dict[" + layout.getMiniBlockLayout().getNumDictionaryItems() + "] "
                                        + describe(layout.getMiniBlockLayout().getDictionary())
                                : "");
            case FULL_ZIP_LAYOUT -> "fz " + describe(layout.getFullZipLayout().getValueCompression());
            case CONSTANT_LAYOUT -> "const";
            default -> layout.getLayoutCase().name().toLowerCase(Locale.ROOT);
        };
    }

    private static String describe(CompressiveEncoding e) {
        FieldDescriptor set = e.getOneofFieldDescriptor(
                CompressiveEncoding.getDescriptor().getOneofs().get(0));
        if (set == null) {
            return "?";
        }
        Message inner = (Message) e.getField(set);
        List<String> parts = new ArrayList<>();
        for (Map.Entry<FieldDescriptor, Object> f : inner.getAllFields().entrySet()) {
            Object v = f.getValue();
            if (v instanceof CompressiveEncoding c) {
                parts.add(describe(c));
            } else if (v instanceof Message m) {
                parts.add(m.toString().replaceAll("\\s+", " ").trim());
            } else if (!(v instanceof com.google.protobuf.ByteString)) {
                parts.add(String.valueOf(v));
            }
        }
        return set.getName() + (parts.isEmpty() ? "" : "(" + String.join(",", parts) + ")");
    }

    private static long rawBytes(List<VectorSchemaRoot> batches) {
        long total = 0;
        for (VectorSchemaRoot b : batches) {
            for (var v : b.getFieldVectors()) {
                total += v.getBufferSize();
            }
        }
        return total;
    }

    // ------------------------------------------------------------------ data

    private static List<VectorSchemaRoot> batches(BufferAllocator allocator, Table t) {
        List<VectorSchemaRoot> out = new ArrayList<>();
        for (int from = 0; from < t.rows(); from += BATCH_ROWS) {
            int n = Math.min(BATCH_ROWS, t.rows() - from);
            VectorSchemaRoot root = VectorSchemaRoot.create(t.schema(), allocator);
            root.allocateNew();
            t.filler().fill(root, from, n);
            root.setRowCount(n);
            out.add(root);
        }
        return out;
    }

    static Schema peerSchema(int dim) {
        return new Schema(List.of(
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
                                FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
                                null)))));
    }

    /** The peer benchmark's rows (the same generator all peers use). */
    private static void fillPeer(VectorSchemaRoot root, int from, int n, int dim) {
        BigIntVector id = (BigIntVector) root.getVector("id");
        VarCharVector name = (VarCharVector) root.getVector("name");
        IntVector age = (IntVector) root.getVector("age");
        Float8Vector score = (Float8Vector) root.getVector("score");
        FixedSizeListVector vec = (FixedSizeListVector) root.getVector("vec");
        Float4Vector items = (Float4Vector) vec.getDataVector();
        items.allocateNew(n * dim);
        float[] v = new float[dim];
        for (int r = 0; r < n; r++) {
            long k = from + r;
            id.setSafe(r, k);
            name.setSafe(r, PeerData.name(k).getBytes(StandardCharsets.UTF_8));
            age.setSafe(r, PeerData.age(k));
            score.setSafe(r, PeerData.score(k));
            vec.setNotNull(r);
            PeerData.vector(k, v);
            for (int d = 0; d < dim; d++) {
                items.set(r * dim + d, v[d]);
            }
        }
        items.setValueCount(n * dim);
        for (var f : root.getFieldVectors()) {
            f.setValueCount(n);
        }
    }

    static Schema stringSchema() {
        return new Schema(List.of(
                new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
                new Field("country", FieldType.nullable(new ArrowType.Utf8()), null),
                new Field("status", FieldType.nullable(new ArrowType.Utf8()), null),
                new Field("name", FieldType.nullable(new ArrowType.Utf8()), null),
                new Field("url", FieldType.nullable(new ArrowType.Utf8()), null),
                new Field("sentence", FieldType.nullable(new ArrowType.Utf8()), null),
                new Field("description", FieldType.nullable(new ArrowType.Utf8()), null)));
    }

    private static final String[] COUNTRIES = {
        "US", "DE", "FR", "GB", "JP", "CN", "IN", "BR", "CA", "AU", "ES", "IT", "NL", "SE", "NO", "PL", "MX", "KR",
        "CH", "AT", "BE", "DK", "FI", "IE", "PT", "CZ", "GR", "TR", "ZA", "AR"
    };
    private static final String[] STATUSES = {"active", "inactive", "pending", "suspended", "deleted"};
    private static final String[] FIRST = {
        "Anna", "Ben", "Carla", "David", "Emma", "Felix", "Greta", "Hugo", "Ines", "Jonas", "Klara", "Lukas", "Mia",
        "Noah", "Olivia", "Paul", "Quinn", "Rosa", "Simon", "Tara", "Uwe", "Vera", "Willi", "Xenia", "Yusuf", "Zoe",
        "Alice", "Bruno", "Chloe", "Dario", "Elena", "Frank", "Gina", "Henry"
    };
    private static final String[] LAST = {
        "Smith",
        "Mueller",
        "Garcia",
        "Rossi",
        "Tanaka",
        "Nowak",
        "Silva",
        "Dubois",
        "Jensen",
        "Kowalski",
        "Novak",
        "Ivanov",
        "Schmidt",
        "Fischer",
        "Weber",
        "Meyer",
        "Wagner",
        "Becker",
        "Hoffmann",
        "Koch",
        "Richter",
        "Klein",
        "Wolf",
        "Lopez",
        "Martin",
        "Bernard",
        "Moreau",
        "Laurent",
        "Lefebvre",
        "Petit",
        "Nakamura",
        "Kim",
        "Park",
        "Chen",
        "Wang",
        "Singh",
        "Kumar",
        "Khan",
        "Ali",
        "Costa"
    };
    private static final String[] WORDS = {
        "the",
        "stream",
        "table",
        "lance",
        "flink",
        "overlay",
        "column",
        "vector",
        "quick",
        "brown",
        "fox",
        "jumps",
        "over",
        "lazy",
        "dog",
        "data",
        "file",
        "format",
        "page",
        "chunk",
        "index",
        "query",
        "scan",
        "write",
        "read",
        "commit",
        "fragment",
        "version",
        "schema",
        "field",
        "value",
        "string",
        "number",
        "compaction",
        "checkpoint",
        "snapshot",
        "manifest",
        "storage",
        "object",
        "bucket",
        "region",
        "cluster",
        "node",
        "task",
        "job",
        "operator",
        "window",
        "event",
        "time",
        "watermark",
        "state",
        "backend"
    };
    private static final String[] SECTIONS = {
        "products", "blog", "docs", "support", "news", "careers", "shop", "account", "search", "category"
    };

    private static void fillStrings(VectorSchemaRoot root, int from, int n) {
        BigIntVector id = (BigIntVector) root.getVector("id");
        VarCharVector country = (VarCharVector) root.getVector("country");
        VarCharVector status = (VarCharVector) root.getVector("status");
        VarCharVector name = (VarCharVector) root.getVector("name");
        VarCharVector url = (VarCharVector) root.getVector("url");
        VarCharVector sentence = (VarCharVector) root.getVector("sentence");
        VarCharVector description = (VarCharVector) root.getVector("description");
        StringBuilder sb = new StringBuilder(512);
        for (int r = 0; r < n; r++) {
            long k = from + r;
            long h = PeerData.mix(k);
            id.setSafe(r, k);
            if (k % 37 == 5) {
                country.setNull(r);
            } else {
                // skewed: a few countries dominate, as real code columns do
                int c = (int) Math.min(
                        COUNTRIES.length - 1, Long.numberOfTrailingZeros(h | (1L << 40)) * 3L + ((h >>> 50) % 3));
                country.setSafe(r, COUNTRIES[c].getBytes(StandardCharsets.UTF_8));
            }
            status.setSafe(
                    r,
                    STATUSES[(int) Long.remainderUnsigned(h >>> 8, STATUSES.length)].getBytes(StandardCharsets.UTF_8));
            name.setSafe(
                    r,
                    (FIRST[(int) Long.remainderUnsigned(h >>> 16, FIRST.length)] + " "
                                    + LAST[(int) Long.remainderUnsigned(h >>> 24, LAST.length)])
                            .getBytes(StandardCharsets.UTF_8));
            sb.setLength(0);
            sb.append("https://www.example.com/")
                    .append(SECTIONS[(int) Long.remainderUnsigned(h >>> 32, SECTIONS.length)])
                    .append('/')
                    .append(WORDS[(int) Long.remainderUnsigned(h >>> 36, WORDS.length)])
                    .append('-')
                    .append(WORDS[(int) Long.remainderUnsigned(h >>> 42, WORDS.length)])
                    .append("?id=")
                    .append(k)
                    .append("&ref=")
                    .append(SECTIONS[(int) Long.remainderUnsigned(h >>> 48, SECTIONS.length)]);
            url.setSafe(r, sb.toString().getBytes(StandardCharsets.UTF_8));
            words(sb, PeerData.mix(h), 8 + (int) Long.remainderUnsigned(h >>> 52, 12));
            sentence.setSafe(r, sb.toString().getBytes(StandardCharsets.UTF_8));
            if (k % 11 == 3) {
                description.setNull(r);
            } else {
                words(sb, PeerData.mix(h + 1), 40 + (int) Long.remainderUnsigned(h >>> 56, 30));
                description.setSafe(r, sb.toString().getBytes(StandardCharsets.UTF_8));
            }
        }
        for (var f : root.getFieldVectors()) {
            f.setValueCount(n);
        }
    }

    private static void words(StringBuilder sb, long seed, int count) {
        sb.setLength(0);
        long s = seed | 1;
        for (int i = 0; i < count; i++) {
            s ^= s << 13;
            s ^= s >>> 7;
            s ^= s << 17;
            if (i > 0) {
                sb.append(' ');
            }
            sb.append(WORDS[(int) Long.remainderUnsigned(s, WORDS.length)]);
        }
        sb.append('.');
    }
}
