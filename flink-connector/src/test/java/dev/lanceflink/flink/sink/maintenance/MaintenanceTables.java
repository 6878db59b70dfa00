package dev.lanceflink.flink.sink.maintenance;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.read.ScanOptions;
import dev.lanceflink.read.Scanner;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/** Small tables {@code (k INT NOT NULL, v BIGINT)} whose updates land as overlays, for the maintenance tests. */
final class MaintenanceTables {
    static final Schema SCHEMA = new Schema(List.of(
            Field.notNullable("k", new ArrowType.Int(32, true)), Field.nullable("v", new ArrowType.Int(64, true))));

    private MaintenanceTables() {}

    /** {@code fragments} fragments of {@code rows} rows each; k = row number, v = k. */
    static Dataset create(ObjectStore store, BufferAllocator allocator, int fragments, int rows) throws Exception {
        int n = fragments * rows;
        try (VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator)) {
            root.allocateNew();
            for (int k = 0; k < n; k++) {
                ((IntVector) root.getVector("k")).setSafe(k, k);
                ((BigIntVector) root.getVector("v")).setSafe(k, k);
            }
            root.setRowCount(n);
            Dataset.write(
                    store,
                    allocator,
                    List.of(root),
                    SCHEMA,
                    WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(rows));
        }
        return Dataset.open(store, allocator);
    }

    /** One UPDATE commit (one overlay per fragment): {@code v = value} at the offsets of each fragment. */
    static Dataset update(Dataset ds, long[] fragments, int[] offsets, long value) throws Exception {
        int n = fragments.length * offsets.length;
        long[] addresses = new long[n];
        BigIntVector v = new BigIntVector("v", ds.allocator());
        v.allocateNew(n);
        int i = 0;
        for (long f : fragments) {
            for (int off : offsets) {
                addresses[i] = f << 32 | off;
                v.set(i++, value);
            }
        }
        v.setValueCount(n);
        try (VectorSchemaRoot values = new VectorSchemaRoot(new ArrayList<>(List.of(v)))) {
            values.setRowCount(n);
            Dataset next = ds.update(addresses, values);
            ds.close();
            return next;
        }
    }

    /** A commit that looks like the Flink sink's (it carries the commit user's marker): deletes key {@code k}. */
    static Dataset sinkCommit(Dataset ds, String commitUser, int k) throws Exception {
        Dataset next = ds.delete(
                "k = " + k,
                Map.of(
                        "flink.commit-user",
                        commitUser,
                        "flink.checkpoint-id",
                        String.valueOf(k),
                        "flink.commit-step",
                        "3"),
                dev.lanceflink.txn.CommitOptions.defaults());
        ds.close();
        return next;
    }

    /** Every row as "k=v", in key order. */
    static List<String> rows(Dataset ds) throws Exception {
        List<String> out = new ArrayList<>();
        try (Scanner s = ds.scan(ScanOptions.all())) {
            while (s.hasNext()) {
                try (VectorSchemaRoot b = s.next()) {
                    IntVector k = (IntVector) b.getVector("k");
                    BigIntVector v = (BigIntVector) b.getVector("v");
                    for (int r = 0; r < b.getRowCount(); r++) {
                        out.add(k.get(r) + "=" + (v.isNull(r) ? "null" : v.get(r)));
                    }
                }
            }
        }
        out.sort(java.util.Comparator.comparingInt(r -> Integer.parseInt(r.substring(0, r.indexOf('=')))));
        return out;
    }
}
