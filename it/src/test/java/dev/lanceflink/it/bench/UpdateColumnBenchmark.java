package dev.lanceflink.it.bench;

import dev.lanceflink.committer.core.TableLocation;
import dev.lanceflink.committer.core.TargetedOverlay;
import dev.lanceflink.committer.core.WrittenChanges;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.flink.sink.upsert.LanceChangeWriter;
import dev.lanceflink.flink.sink.upsert.LocatedChange;
import dev.lanceflink.flink.sink.upsert.LocatedChangeSerializer;
import dev.lanceflink.flink.sink.upsert.RowAddressChanges;
import dev.lanceflink.flink.types.LanceTypeMapping;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.io.ObjectStores;
import dev.lanceflink.overlay.OverlayCommits;
import dev.lanceflink.overlay.StagedWrite;
import dev.lanceflink.read.ScanOptions;
import dev.lanceflink.read.Scanner;
import dev.lanceflink.schema.ColumnSet;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.RowAddress;
import dev.lanceflink.txn.CommitOptions;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.runtime.metrics.groups.InternalSinkWriterMetricGroup;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.types.logical.RowType;

/**
 * Issue #16's measurement: {@code UPDATE t SET age = age + 1} on every row of a table
 * {@code (id int64, age int32, embedding fixed_size_list<float32>[dims])}, through the operators
 * of the connector's row-address path (what Flink SQL UPDATE runs): per updated row the planner's
 * record (every declared column plus {@code _rowaddr}) goes through {@link RowAddressChanges},
 * is serialized with {@link LocatedChangeSerializer} (the bytes the keyBy between that map and the
 * writers ships), deserialized and handed to a {@link LanceChangeWriter}, whose checkpoint output
 * is then committed and checked (every age read back).
 *
 * <p>Reported per run: bytes shuffled (total and per row), the sending side's CPU (map and
 * serialize), and the writer's CPU (deserialize, write, prepareCommit), both as thread CPU time
 * (ThreadMXBean) per million rows. Running the operators in one thread, without a MiniCluster,
 * isolates exactly these costs from the scan and from scheduling noise. Not part of the test
 * suite: run {@code it/run-benchmarks.sh update-column [rows [dims [runs]]]} (default 200000 768 3).
 *
 * <p>After {@code runs} such updates, as many again go the upsert path's way: the changes the key
 * resolver emits for an upsert writing only {@code (id, age)} go straight to the writer (resolver
 * and writer are chained; the serializer round trip stands for the copy between them).
 */
public final class UpdateColumnBenchmark {
    private static final int CHUNK = 8192;
    private static final ColumnSet ID_AGE = ColumnSet.of(0, 1);

    private UpdateColumnBenchmark() {}

    public static void main(String[] args) throws Exception {
        int rows = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
        int dims = args.length > 1 ? Integer.parseInt(args[1]) : 768;
        int runs = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        Path dir = Files.createTempDirectory("lance-update-column-bench");
        String uri = dir.resolve("t.lance").toString();
        long rowsPerFragment = 100_000;
        long start = System.nanoTime();
        createTable(uri, rows, dims, rowsPerFragment);
        System.out.printf(
                Locale.ROOT,
                "table: %d rows, %d-d float32 vector, written in %.1f s%n",
                rows,
                dims,
                (System.nanoTime() - start) / 1e9);
        List<String> lines = new ArrayList<>();
        for (int run = 1; run <= 2 * runs; run++) {
            String line = runUpdate(uri, rows, dims, rowsPerFragment, run, run > runs);
            System.out.println(line);
            lines.add(line);
        }
        System.out.println();
        System.out.println("| run | path | rows | shuffled bytes | bytes/row | sender CPU ms per 1M rows"
                + " | writer CPU ms per 1M rows | wall s |");
        System.out.println("|---|---|---|---|---|---|---|---|");
        lines.forEach(System.out::println);
    }

    static Schema schema(int dims) {
        Field element =
                new Field("item", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)), null);
        return new Schema(List.of(
                new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
                new Field("age", FieldType.nullable(new ArrowType.Int(32, true)), null),
                new Field("embedding", FieldType.nullable(new ArrowType.FixedSizeList(dims)), List.of(element))));
    }

    static float value(long row, int d) {
        return (row % 1000) * 0.001f + d;
    }

    private static void createTable(String uri, int rows, int dims, long rowsPerFragment) throws IOException {
        Schema schema = schema(dims);
        try (BufferAllocator allocator = new RootAllocator()) {
            Iterable<VectorSchemaRoot> batches = () -> new Iterator<>() {
                int next;
                VectorSchemaRoot last;

                @Override
                public boolean hasNext() {
                    if (next >= rows && last != null) {
                        last.close();
                        last = null;
                    }
                    return next < rows;
                }

                @Override
                public VectorSchemaRoot next() {
                    if (last != null) {
                        last.close();
                    }
                    int n = Math.min(CHUNK, rows - next);
                    VectorSchemaRoot b = VectorSchemaRoot.create(schema, allocator);
                    b.allocateNew();
                    BigIntVector id = (BigIntVector) b.getVector(0);
                    IntVector age = (IntVector) b.getVector(1);
                    FixedSizeListVector emb = (FixedSizeListVector) b.getVector(2);
                    Float4Vector values = (Float4Vector) emb.getDataVector();
                    for (int r = 0; r < n; r++) {
                        long i = next + r;
                        id.setSafe(r, i);
                        age.setSafe(r, (int) (i % 100));
                        emb.setNotNull(r);
                        for (int d = 0; d < dims; d++) {
                            values.setSafe(r * dims + d, value(i, d));
                        }
                    }
                    values.setValueCount(n * dims);
                    b.setRowCount(n);
                    next += n;
                    last = b;
                    return b;
                }
            };
            Dataset.write(
                            uri,
                            Map.of(),
                            batches,
                            schema,
                            WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(rowsPerFragment))
                    .close();
        }
    }

    /**
     * One UPDATE of every row's age (run {@code k} leaves {@code age = id % 100 + k}); its table row.
     *
     * @param upsert the changes are what the key resolver emits for an upsert writing only
     *     {@code (id, age)} (the record's other columns NULL) instead of SQL UPDATE records
     */
    private static String runUpdate(String uri, int rows, int dims, long rowsPerFragment, int run, boolean upsert)
            throws Exception {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        Manifest before;
        try (Dataset d = Dataset.open(uri, Map.of())) {
            before = d.manifest();
        }
        RowType rowType = LanceTypeMapping.toRowType(before.schema().toArrow());
        RowAddressChanges changes = new RowAddressChanges(rowType, ColumnSet.of(1));
        LocatedChangeSerializer serializer = new LocatedChangeSerializer(rowType);
        DataOutputSerializer out = new DataOutputSerializer(1 << 20);
        DataInputDeserializer in = new DataInputDeserializer();
        long bytes = 0;
        long senderCpu = 0;
        long writerCpu = 0;
        long wall = System.nanoTime();
        WrittenChanges written;
        try (LanceChangeWriter writer = new LanceChangeWriter(
                TableLocation.of(uri),
                "bench-" + run,
                CHUNK,
                before.version(),
                Long.MAX_VALUE,
                false,
                InternalSinkWriterMetricGroup.wrap(UnregisteredMetricsGroup.createOperatorMetricGroup()))) {
            for (int from = 0; from < rows; from += CHUNK) {
                int n = Math.min(CHUNK, rows - from);
                long t0 = threads.getCurrentThreadCpuTime();
                out.clear();
                for (int r = 0; r < n; r++) {
                    long i = from + r;
                    long address = RowAddress.of(i / rowsPerFragment, i % rowsPerFragment);
                    if (upsert) {
                        // The key resolver's UPDATE of a row found by key; resolver and writer are
                        // chained, so this serialization stands for the copy between them.
                        serializer.serialize(
                                LocatedChange.update(
                                        0, address, ID_AGE, GenericRowData.of(i, (int) (i % 100) + run, null)),
                                out);
                        continue;
                    }
                    // The planner's record of an updated row: every declared column, then _rowaddr.
                    float[] e = new float[dims];
                    for (int d = 0; d < dims; d++) {
                        e[d] = value(i, d);
                    }
                    GenericRowData row = GenericRowData.of(i, (int) (i % 100) + run, new GenericArrayData(e), address);
                    serializer.serialize(changes.map(row), out);
                }
                long t1 = threads.getCurrentThreadCpuTime();
                bytes += out.length();
                in.setBuffer(out.getSharedBuffer(), 0, out.length());
                for (int r = 0; r < n; r++) {
                    LocatedChange c = serializer.deserialize(in);
                    writer.write(c, null);
                }
                long t2 = threads.getCurrentThreadCpuTime();
                senderCpu += t1 - t0;
                writerCpu += t2 - t1;
            }
            long t0 = threads.getCurrentThreadCpuTime();
            written = single(writer.prepareCommit());
            writerCpu += threads.getCurrentThreadCpuTime() - t0;
        }
        wall = System.nanoTime() - wall;
        commit(uri, before.version(), written);
        check(uri, rows, run);
        double perMillion = 1e6 / rows;
        return String.format(
                Locale.ROOT,
                "| %d | %s | %d | %d | %.1f | %.0f | %.0f | %.2f |",
                run,
                upsert ? "upsert (id, age)" : "SQL UPDATE",
                rows,
                bytes,
                (double) bytes / rows,
                senderCpu / 1e6 * perMillion,
                writerCpu / 1e6 * perMillion,
                wall / 1e9);
    }

    private static WrittenChanges single(java.util.Collection<WrittenChanges> c) {
        if (c.size() != 1) {
            throw new IllegalStateException("expected one WrittenChanges, got " + c.size());
        }
        return c.iterator().next();
    }

    private static void commit(String uri, long readVersion, WrittenChanges written) throws IOException {
        Map<Long, List<DataOverlayFile>> byFragment = new LinkedHashMap<>();
        List<String> paths = new ArrayList<>();
        for (TargetedOverlay o : written.overlays()) {
            if (o.target().isPending()) {
                throw new IllegalStateException("an overlay of a pending file: " + o);
            }
            byFragment
                    .computeIfAbsent(o.target().fragmentId(), k -> new ArrayList<>())
                    .add(o.overlay());
            paths.add("data/" + o.overlay().dataFile().path());
        }
        try (ObjectStore store = ObjectStores.open(uri, Map.of())) {
            OverlayCommits.commit(
                    store,
                    readVersion,
                    new StagedWrite(OverlayCommits.operation(byFragment), paths),
                    Map.of(),
                    CommitOptions.defaults());
        }
    }

    /** Every row's age is {@code id % 100 + run}. */
    private static void check(String uri, int rows, int run) throws IOException {
        long seen = 0;
        try (Dataset d = Dataset.open(uri, Map.of());
                Scanner s = d.scan(new ScanOptions(List.of("id", "age"), (String) null, -1, false, CHUNK))) {
            while (s.hasNext()) {
                try (VectorSchemaRoot b = s.next()) {
                    BigIntVector id = (BigIntVector) b.getVector("id");
                    IntVector age = (IntVector) b.getVector("age");
                    for (int r = 0; r < b.getRowCount(); r++) {
                        long i = id.get(r);
                        if (age.isNull(r) || age.get(r) != i % 100 + run) {
                            throw new IllegalStateException("row " + i + " has age "
                                    + (age.isNull(r) ? "NULL" : age.get(r)) + " after run " + run + ", expected "
                                    + (i % 100 + run));
                        }
                        seen++;
                    }
                }
            }
            for (Fragment f : d.manifest().fragments()) {
                if (f.overlays().size() != run) {
                    throw new IllegalStateException(
                            "fragment " + f.id() + " has " + f.overlays().size() + " overlays after run " + run);
                }
            }
        }
        if (seen != rows) {
            throw new IllegalStateException("read " + seen + " rows, expected " + rows);
        }
    }
}
