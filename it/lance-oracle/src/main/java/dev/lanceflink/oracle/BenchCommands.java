package dev.lanceflink.oracle;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.lance.Dataset;
import org.lance.ReadOptions;
import org.lance.WriteParams;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;
import org.lance.merge.MergeInsertParams;
import org.lance.merge.MergeInsertResult;

/**
 * Timed runs of the official SDK for the side-by-side benchmarks. Data is generated before the
 * clock starts, so only the SDK's own work is measured.
 */
final class BenchCommands {
    private final BufferAllocator allocator;

    BenchCommands(BufferAllocator allocator) {
        this.allocator = allocator;
    }

    /** {@code bench-write}: writes {@code rows} rows of {@link BenchData} in batches; times the write. */
    ObjectNode write(
            String uri,
            int rows,
            int batchRows,
            String storageVersion,
            boolean append,
            Map<String, String> storageOptions)
            throws IOException {
        List<VectorSchemaRoot> batches = new ArrayList<>();
        try {
            for (int from = 0; from < rows; from += batchRows) {
                batches.add(BenchData.batch(allocator, from, Math.min(batchRows, rows - from)));
            }
            long start = System.nanoTime();
            try (ListReader reader = new ListReader(batches, BenchData.SCHEMA, allocator)) {
                var builder = Dataset.write()
                        .allocator(allocator)
                        .reader(reader)
                        .uri(uri)
                        .mode(append ? WriteParams.WriteMode.APPEND : WriteParams.WriteMode.CREATE)
                        .storageOptions(storageOptions);
                if (storageVersion != null) {
                    builder.dataStorageVersion(storageVersion);
                }
                try (Dataset ds = builder.execute()) {
                    double seconds = (System.nanoTime() - start) / 1e9;
                    ObjectNode out = DumpFormat.NODES.objectNode();
                    out.put("rows", rows);
                    out.put("seconds", seconds);
                    out.put("rows_per_second", rows / seconds);
                    out.put("version", ds.version());
                    return out;
                }
            }
        } finally {
            batches.forEach(VectorSchemaRoot::close);
        }
    }

    /** {@code bench-scan}: scans every column {@code repeat} times; reports each time and the best. */
    ObjectNode scan(String uri, int repeat, Map<String, String> storageOptions) throws Exception {
        double[] seconds = new double[repeat];
        long rows = 0;
        long checksum = 0;
        try (Dataset ds = Dataset.open()
                .allocator(allocator)
                .uri(uri)
                .readOptions(new ReadOptions.Builder()
                        .setStorageOptions(storageOptions)
                        .build())
                .build()) {
            for (int k = 0; k < repeat; k++) {
                long start = System.nanoTime();
                rows = 0;
                try (LanceScanner scanner = ds.newScan(new ScanOptions.Builder().build());
                        ArrowReader reader = scanner.scanBatches()) {
                    while (reader.loadNextBatch()) {
                        VectorSchemaRoot b = reader.getVectorSchemaRoot();
                        rows += b.getRowCount();
                        checksum += b.getFieldVectors().get(0).getValueCount();
                    }
                }
                seconds[k] = (System.nanoTime() - start) / 1e9;
            }
        }
        ObjectNode out = DumpFormat.NODES.objectNode();
        out.put("rows", rows);
        out.put("checksum", checksum);
        var times = out.putArray("seconds");
        Arrays.stream(seconds).forEach(times::add);
        double best = Arrays.stream(seconds).min().orElse(0);
        out.put("best_seconds", best);
        out.put("rows_per_second", rows / best);
        return out;
    }

    /**
     * {@code bench-update}: the SDK's closest equivalent of {@code UPDATE t SET value = value + 1
     * WHERE id IN (...)} on the overlay benchmark's table ({@code id int32 NOT NULL, value int32
     * NOT NULL, vector ...}, {@code value = id % 1000}; see the connector's
     * {@code dev.lanceflink.it.bench.OverlayBenchmark}). The 7.0.0 Java SDK has no UPDATE call, so
     * this is a merge-insert on {@code id} whose source holds only {@code id} and the new
     * {@code value} of every row with {@code id % every == phase}, matched rows updated, unmatched
     * source rows ignored. The source is built before the clock starts.
     */
    ObjectNode update(String uri, int rows, int every, int phase, Map<String, String> storageOptions) throws Exception {
        if (phase < 0 || phase >= every) {
            throw new IllegalArgumentException(
                    "bench-update: --phase must be in [0, --every), got phase " + phase + " with every " + every);
        }
        Schema sourceSchema = new Schema(List.of(
                new Field("id", FieldType.notNullable(new ArrowType.Int(32, true)), null),
                new Field("value", FieldType.notNullable(new ArrowType.Int(32, true)), null)));
        int count = 0;
        for (int i = phase; i < rows; i += every) {
            count++;
        }
        VectorSchemaRoot source = VectorSchemaRoot.create(sourceSchema, allocator);
        try {
            IntVector id = (IntVector) source.getVector("id");
            IntVector value = (IntVector) source.getVector("value");
            id.allocateNew(count);
            value.allocateNew(count);
            int r = 0;
            for (int i = phase; i < rows; i += every) {
                id.set(r, i);
                value.set(r, i % 1000 + 1);
                r++;
            }
            source.setRowCount(count);
            try (Dataset ds = Dataset.open()
                            .allocator(allocator)
                            .uri(uri)
                            .readOptions(new ReadOptions.Builder()
                                    .setStorageOptions(storageOptions)
                                    .build())
                            .build();
                    ArrowArrayStream stream = ArrowArrayStream.allocateNew(allocator)) {
                // The exported stream owns the reader from here on and closes it when released.
                Data.exportArrayStream(allocator, new ListReader(List.of(source), sourceSchema, allocator), stream);
                MergeInsertParams params = new MergeInsertParams(List.of("id"))
                        .withMatchedUpdateAll()
                        .withNotMatched(MergeInsertParams.WhenNotMatched.DoNothing);
                long start = System.nanoTime();
                MergeInsertResult result = ds.mergeInsert(params, stream);
                double seconds = (System.nanoTime() - start) / 1e9;
                try (Dataset updated = result.dataset()) {
                    ObjectNode out = DumpFormat.NODES.objectNode();
                    out.put("rows_in_source", count);
                    out.put("rows_updated", result.stats().numUpdatedRows());
                    out.put("rows_inserted", result.stats().numInsertedRows());
                    out.put("rows_deleted", result.stats().numDeletedRows());
                    out.put("bytes_written", result.stats().bytesWritten());
                    out.put("files_written", result.stats().numFilesWritten());
                    out.put("seconds", seconds);
                    out.put("version", updated.version());
                    return out;
                }
            }
        } finally {
            source.close();
        }
    }

    /** Hands prepared batches to the SDK one after another. */
    private static final class ListReader extends ArrowReader {
        private final List<VectorSchemaRoot> batches;
        private final Schema schema;
        private int next;

        ListReader(List<VectorSchemaRoot> batches, Schema schema, BufferAllocator allocator) {
            super(allocator);
            this.batches = batches;
            this.schema = schema;
        }

        @Override
        public boolean loadNextBatch() throws IOException {
            ensureInitialized();
            if (next >= batches.size()) {
                return false;
            }
            try (ArrowRecordBatch batch = new VectorUnloader(batches.get(next++)).getRecordBatch()) {
                loadRecordBatch(batch);
            }
            return true;
        }

        @Override
        public long bytesRead() {
            return 0;
        }

        @Override
        protected void closeReadSource() {}

        @Override
        protected Schema readSchema() {
            return schema;
        }
    }
}
