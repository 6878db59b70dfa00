package dev.lanceflink.oracle;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.lance.Dataset;
import org.lance.ReadOptions;
import org.lance.WriteParams;

/**
 * {@code churn}: the official SDK as a second, independent writer of a table another writer is
 * committing to at the same time. Round {@code r} appends the ids
 * {@code [firstId + r*rows, firstId + (r+1)*rows)} as one commit, then deletes that round's ids
 * divisible by {@code deleteMod} as another commit; it stops after {@code rounds} rounds or as
 * soon as the stop file exists. Every attempt is logged with the version it committed or the
 * SDK's error, so the caller can replay exactly the SDK's successful commits against the final
 * table. Failed attempts do not end the run: while the table carries features released Lance
 * refuses (data overlay files), every attempt fails with that refusal, and the caller asserts on
 * the messages.
 *
 * <p>Cell values are a pure function of the id, so the caller can check every SDK row without
 * being sent the rows: {@code int64} = id, {@code int32} = id % 100, {@code utf8} = "sdk-" + id,
 * {@code float64} = id / 4 (exact in binary).
 */
final class ChurnCommand {
    private final BufferAllocator allocator;

    ChurnCommand(BufferAllocator allocator) {
        this.allocator = allocator;
    }

    ObjectNode run(
            String uri,
            long firstId,
            int rowsPerRound,
            int rounds,
            int deleteMod,
            long pauseMillis,
            Path stopFile,
            Map<String, String> storageOptions)
            throws InterruptedException {
        ObjectNode out = DumpFormat.NODES.objectNode();
        ArrayNode ops = out.putArray("ops");
        int appends = 0;
        int deletes = 0;
        int failures = 0;
        for (int r = 0; r < rounds && (stopFile == null || !Files.exists(stopFile)); r++) {
            long lo = firstId + (long) r * rowsPerRound;
            long hi = lo + rowsPerRound;
            ObjectNode append = ops.addObject()
                    .put("op", "append")
                    .put("round", r)
                    .put("first_id", lo)
                    .put("end_id", hi);
            boolean appended = false;
            try {
                append.put("version", append(uri, lo, rowsPerRound, storageOptions));
                appends++;
                appended = true;
            } catch (RuntimeException | IOException e) {
                append.put("error", message(e));
                failures++;
            }
            if (appended) {
                // An empty range would still commit a version; only delete what this round wrote.
                Thread.sleep(pauseMillis);
                String filter = "id >= " + lo + " AND id < " + hi + " AND id % " + deleteMod + " = 0";
                ObjectNode delete =
                        ops.addObject().put("op", "delete").put("round", r).put("filter", filter);
                try (Dataset ds = open(uri, storageOptions)) {
                    ds.delete(filter);
                    delete.put("version", ds.version());
                    deletes++;
                } catch (RuntimeException e) {
                    delete.put("error", message(e));
                    failures++;
                }
            }
            Thread.sleep(pauseMillis);
        }
        out.put("appends_committed", appends);
        out.put("deletes_committed", deletes);
        out.put("failed_attempts", failures);
        return out;
    }

    private long append(String uri, long firstId, int rows, Map<String, String> storageOptions) throws IOException {
        Schema schema;
        try (Dataset ds = open(uri, storageOptions)) {
            schema = ds.getSchema();
        }
        try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
            root.allocateNew();
            for (FieldVector v : root.getFieldVectors()) {
                fill(v, firstId, rows);
            }
            root.setRowCount(rows);
            try (SingleBatchReader reader = new SingleBatchReader(root, allocator);
                    Dataset ds = Dataset.write()
                            .allocator(allocator)
                            .reader(reader)
                            .uri(uri)
                            .mode(WriteParams.WriteMode.APPEND)
                            .storageOptions(storageOptions)
                            .execute()) {
                return ds.version();
            }
        }
    }

    private static void fill(FieldVector vector, long firstId, int rows) {
        for (int i = 0; i < rows; i++) {
            long id = firstId + i;
            if (vector instanceof BigIntVector v) {
                v.setSafe(i, id);
            } else if (vector instanceof IntVector v) {
                v.setSafe(i, (int) (id % 100));
            } else if (vector instanceof VarCharVector v) {
                v.setSafe(i, ("sdk-" + id).getBytes(StandardCharsets.UTF_8));
            } else if (vector instanceof Float8Vector v) {
                v.setSafe(i, id / 4.0);
            } else {
                throw new IllegalArgumentException("churn: column '" + vector.getName() + "' has type "
                        + vector.getField().getType() + "; churn fills only int64, int32, utf8 and float64 columns");
            }
        }
        vector.setValueCount(rows);
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

    private static String message(Throwable e) {
        StringBuilder m = new StringBuilder(String.valueOf(e.getMessage()));
        for (Throwable c = e.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
            if (c.getMessage() != null && !m.toString().contains(c.getMessage())) {
                m.append(" (caused by: ").append(c.getMessage()).append(')');
            }
        }
        return m.toString();
    }
}
