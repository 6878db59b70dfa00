package dev.lanceflink.oracle;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.lance.Dataset;
import org.lance.ReadOptions;
import org.lance.WriteParams;
import org.lance.merge.MergeInsertParams;
import org.lance.merge.MergeInsertResult;

/**
 * {@code bench-sink-rows}: the SDK's side of the connector's sink benchmark
 * ({@code dev.lanceflink.it.bench.SinkBenchmark}). It writes the benchmark's rows into an existing
 * {@code (id int64, name utf8, age int32, score float64)} table in {@code commits} commits, as
 * the sink commits once per checkpoint:
 *
 * <ul>
 *   <li>append (no {@code --keys}): rows {@code i} in {@code [0, rows)} with id {@code keys0 + i},
 *       one {@code Dataset.write(APPEND)} per commit;
 *   <li>upsert ({@code --keys K}): row {@code i} has id {@code (i * 7919) % K}; each commit is one
 *       merge-insert on {@code id} (matched rows updated, others inserted). A merge-insert source
 *       must not hold a key twice, so each commit's slice keeps the last row per key, which leaves
 *       the table exactly as applying every row in order would.
 * </ul>
 *
 * Row {@code i}'s cells: name {@code "r-" + i}, age {@code i % 100}, score {@code i / 4}. All
 * batches are built before the clock starts.
 */
final class SinkBenchCommand {
    /** Multiplier of the upsert key sequence; prime, so it visits every key of a 10^n key space. */
    static final long KEY_STRIDE = 7919;

    private final BufferAllocator allocator;

    SinkBenchCommand(BufferAllocator allocator) {
        this.allocator = allocator;
    }

    ObjectNode run(
            String uri, int rows, int commits, Integer keys, long firstAppendId, Map<String, String> storageOptions)
            throws Exception {
        List<VectorSchemaRoot> slices = new ArrayList<>();
        Schema schema;
        try (Dataset ds = open(uri, storageOptions)) {
            schema = ds.getSchema();
        }
        try {
            int per = (rows + commits - 1) / commits;
            for (int from = 0; from < rows; from += per) {
                slices.add(slice(schema, from, Math.min(rows, from + per), keys, firstAppendId));
            }
            double[] seconds = new double[slices.size()];
            long start = System.nanoTime();
            for (int c = 0; c < slices.size(); c++) {
                long t = System.nanoTime();
                if (keys == null) {
                    append(uri, slices.get(c), storageOptions);
                } else {
                    mergeInsert(uri, slices.get(c), storageOptions);
                }
                seconds[c] = (System.nanoTime() - t) / 1e9;
            }
            double total = (System.nanoTime() - start) / 1e9;
            ObjectNode out = DumpFormat.NODES.objectNode();
            out.put("rows", rows);
            // After the per-commit deduplication of upserts: the rows the SDK was actually handed.
            out.put(
                    "source_rows",
                    slices.stream().mapToLong(VectorSchemaRoot::getRowCount).sum());
            out.put("commits", slices.size());
            out.put("seconds", total);
            out.put("rows_per_second", rows / total);
            ArrayNode perCommit = out.putArray("commit_seconds");
            for (double s : seconds) {
                perCommit.add(s);
            }
            try (Dataset ds = open(uri, storageOptions)) {
                out.put("num_rows", ds.countRows());
                out.put("version", ds.version());
            }
            return out;
        } finally {
            slices.forEach(VectorSchemaRoot::close);
        }
    }

    private VectorSchemaRoot slice(Schema schema, int from, int to, Integer keys, long firstAppendId) {
        // Upserts: the last row per key of this slice, in first-seen key order.
        Map<Long, Integer> lastRowOfKey = new LinkedHashMap<>();
        for (int i = from; i < to; i++) {
            lastRowOfKey.put(keys == null ? firstAppendId + i : (i * KEY_STRIDE) % keys, i);
        }
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
        root.allocateNew();
        BigIntVector id = (BigIntVector) root.getVector("id");
        VarCharVector name = (VarCharVector) root.getVector("name");
        IntVector age = (IntVector) root.getVector("age");
        Float8Vector score = (Float8Vector) root.getVector("score");
        int r = 0;
        for (Map.Entry<Long, Integer> e : lastRowOfKey.entrySet()) {
            int i = e.getValue();
            id.setSafe(r, e.getKey());
            name.setSafe(r, ("r-" + i).getBytes(StandardCharsets.UTF_8));
            age.setSafe(r, i % 100);
            score.setSafe(r, i / 4.0);
            r++;
        }
        root.setRowCount(r);
        return root;
    }

    private void append(String uri, VectorSchemaRoot slice, Map<String, String> storageOptions) throws IOException {
        try (SingleBatchReader reader = new SingleBatchReader(slice, allocator);
                Dataset ds = Dataset.write()
                        .allocator(allocator)
                        .reader(reader)
                        .uri(uri)
                        .mode(WriteParams.WriteMode.APPEND)
                        .storageOptions(storageOptions)
                        .execute()) {
            ds.version();
        }
    }

    private void mergeInsert(String uri, VectorSchemaRoot slice, Map<String, String> storageOptions) throws Exception {
        try (Dataset ds = open(uri, storageOptions);
                ArrowArrayStream stream = ArrowArrayStream.allocateNew(allocator)) {
            // The exported stream owns the reader and closes it when released; the slice stays ours.
            Data.exportArrayStream(allocator, new SingleBatchReader(slice, allocator), stream);
            MergeInsertParams params = new MergeInsertParams(List.of("id"))
                    .withMatchedUpdateAll()
                    .withNotMatched(MergeInsertParams.WhenNotMatched.InsertAll);
            MergeInsertResult result = ds.mergeInsert(params, stream);
            result.dataset().close();
        }
    }

    private Dataset open(String uri, Map<String, String> storageOptions) {
        return Dataset.open()
                .allocator(allocator)
                .uri(uri)
                .readOptions(new ReadOptions.Builder()
                        .setStorageOptions(storageOptions)
                        .build())
                .build();
    }
}
