package dev.lanceflink.overlay;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.read.ScanOptions;
import dev.lanceflink.read.Scanner;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.util.Text;

/** Reads tables into plain Java values for assertions. */
public final class OverlayTestSupport {
    private OverlayTestSupport() {}

    /** Row address → values of {@code columns} (null for NULL; strings as String), live rows only. */
    public static Map<Long, List<Object>> rows(Dataset ds, List<String> columns) throws Exception {
        Map<Long, List<Object>> out = new TreeMap<>();
        try (Scanner s = ds.scan(
                ScanOptions.all().withColumns(columns).withRowAddress(true).withBatchSize(37))) {
            while (s.hasNext()) {
                try (VectorSchemaRoot b = s.next()) {
                    UInt8Vector addr = (UInt8Vector) b.getVector(ScanOptions.ROW_ADDRESS);
                    for (int r = 0; r < b.getRowCount(); r++) {
                        List<Object> row = new ArrayList<>();
                        for (String c : columns) {
                            row.add(plain(b.getVector(c), r));
                        }
                        out.put(addr.get(r), row);
                    }
                }
            }
        }
        return out;
    }

    /** One column of all live rows in scan order. */
    public static List<Object> column(Dataset ds, String column) throws Exception {
        List<Object> out = new ArrayList<>();
        for (List<Object> row : rows(ds, List.of(column)).values()) {
            out.add(row.get(0));
        }
        return out;
    }

    public static Object plain(FieldVector v, int r) {
        Object o = v.getObject(r);
        if (o instanceof Text t) {
            return t.toString();
        }
        if (o instanceof List<?> l) {
            return new ArrayList<>(l);
        }
        return o;
    }
}
