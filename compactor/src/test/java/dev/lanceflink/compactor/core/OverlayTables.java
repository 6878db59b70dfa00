package dev.lanceflink.compactor.core;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.read.ScanOptions;
import dev.lanceflink.read.Scanner;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Test tables {@code k int32 not null, a int64, s string} with several fragments and overlays
 * written through the library's own UPDATE path (one overlay per touched fragment per commit).
 */
public final class OverlayTables {
    public static final Schema SCHEMA = new Schema(List.of(
            Field.notNullable("k", new ArrowType.Int(32, true)),
            Field.nullable("a", new ArrowType.Int(64, true)),
            Field.nullable("s", ArrowType.Utf8.INSTANCE)));

    private OverlayTables() {}

    /** {@code fragments} fragments of {@code rowsPerFragment} rows: k = row number, a = 10k, s = "s<k>". */
    public static Dataset create(ObjectStore store, BufferAllocator allocator, int fragments, int rowsPerFragment)
            throws Exception {
        return create(store, allocator, fragments, rowsPerFragment, false);
    }

    /** As {@link #create(ObjectStore, BufferAllocator, int, int)}, optionally with stable row ids. */
    public static Dataset create(
            ObjectStore store, BufferAllocator allocator, int fragments, int rowsPerFragment, boolean stableRowIds)
            throws Exception {
        int n = fragments * rowsPerFragment;
        try (VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator)) {
            root.allocateNew();
            for (int k = 0; k < n; k++) {
                ((IntVector) root.getVector("k")).setSafe(k, k);
                ((BigIntVector) root.getVector("a")).setSafe(k, 10L * k);
                ((VarCharVector) root.getVector("s")).setSafe(k, ("s" + k).getBytes());
            }
            root.setRowCount(n);
            Dataset.write(
                    store,
                    allocator,
                    List.of(root),
                    SCHEMA,
                    WriteParams.of(WriteMode.CREATE)
                            .withMaxRowsPerFile(rowsPerFragment)
                            .withStableRowIds(stableRowIds));
        }
        return Dataset.open(store, allocator);
    }

    /**
     * One UPDATE commit: sets {@code a = value + offset} and {@code s = "u<value>"} (even offsets
     * only, so the overlays are sparse) at {@code offsets} of each given fragment.
     */
    public static Dataset update(Dataset ds, long[] fragmentIds, int[] offsets, long value) throws Exception {
        int n = fragmentIds.length * offsets.length;
        long[] addresses = new long[n];
        BufferAllocator allocator = ds.allocator();
        BigIntVector a = new BigIntVector("a", allocator);
        VarCharVector s = new VarCharVector("s", allocator);
        a.allocateNew(n);
        s.allocateNew();
        int i = 0;
        for (long f : fragmentIds) {
            for (int off : offsets) {
                addresses[i] = f << 32 | off;
                a.set(i, value + off);
                if (off % 2 == 0) {
                    s.setSafe(i, ("u" + value).getBytes());
                } else {
                    s.setNull(i);
                }
                i++;
            }
        }
        a.setValueCount(n);
        s.setValueCount(n);
        try (VectorSchemaRoot values = new VectorSchemaRoot(new ArrayList<>(List.of(a, s)))) {
            values.setRowCount(n);
            return ds.update(addresses, values);
        }
    }

    /** Every row as "k|a|s", in scan order (fragment, offset). */
    public static List<String> scan(Dataset ds) throws Exception {
        List<String> rows = new ArrayList<>();
        try (Scanner sc = ds.scan(ScanOptions.all())) {
            while (sc.hasNext()) {
                try (VectorSchemaRoot b = sc.next()) {
                    IntVector k = (IntVector) b.getVector("k");
                    BigIntVector a = (BigIntVector) b.getVector("a");
                    VarCharVector s = (VarCharVector) b.getVector("s");
                    for (int r = 0; r < b.getRowCount(); r++) {
                        rows.add(k.get(r) + "|" + (a.isNull(r) ? "null" : a.get(r)) + "|"
                                + (s.isNull(r) ? "null" : new String(s.get(r))));
                    }
                }
            }
        }
        return rows;
    }

    /** Every row as "k|a|s", sorted by k (a rewrite may move rows to fragments at the end of the table). */
    public static List<String> scanByKey(Dataset ds) throws Exception {
        List<String> rows = new ArrayList<>(scan(ds));
        rows.sort(java.util.Comparator.comparingInt(r -> Integer.parseInt(r.substring(0, r.indexOf('|')))));
        return rows;
    }

    /** Every live row's row address ({@code _rowaddr}), by key k. */
    public static Map<Integer, Long> addressesByKey(Dataset ds) throws Exception {
        Map<Integer, Long> out = new TreeMap<>();
        try (Scanner sc = ds.scan(ScanOptions.all().withRowAddress(true))) {
            while (sc.hasNext()) {
                try (VectorSchemaRoot b = sc.next()) {
                    IntVector k = (IntVector) b.getVector("k");
                    UInt8Vector addr = (UInt8Vector) b.getVector(ScanOptions.ROW_ADDRESS);
                    for (int r = 0; r < b.getRowCount(); r++) {
                        out.put(k.get(r), addr.get(r));
                    }
                }
            }
        }
        return out;
    }

    /** Number of overlays per fragment, in fragment order. */
    public static List<Integer> overlayCounts(Dataset ds) {
        return ds.fragments().stream().map(f -> f.overlays().size()).toList();
    }
}
