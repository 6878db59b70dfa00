package dev.lanceflink.cli;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.read.ScanOptions;
import dev.lanceflink.read.Scanner;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * {@code dump}: the rows of one table version as
 * {@code {"version", "schema": [{"name","type","nullable"}], "num_rows", "rows": [...]}} in the
 * dump conventions of {@link ArrowJson}. Rows come in physical scan order (fragments in manifest
 * order, rows by offset, deleted rows skipped) unless {@code --order-by} sorts them (stable: ties
 * keep scan order; the limit then applies after sorting, as in SQL).
 *
 * <p>The scanned batches are kept until the document is written: {@code num_rows} precedes the
 * rows and sorting needs every row. A dump is a debugging and testing tool; bound it with
 * {@code --limit} or {@code --columns} on large tables.
 */
final class DumpCommand {
    private static final int BATCH_SIZE = 8192;

    private DumpCommand() {}

    static void run(Dataset dataset, CliArguments args, JsonGenerator g) throws IOException {
        List<String> output = args.columns() != null
                ? args.columns()
                : dataset.schema().fields().stream().map(f -> f.name()).toList();
        Set<String> scanned = new LinkedHashSet<>(output);
        for (String key : args.orderBy()) {
            if (key.equals(ScanOptions.ROW_ADDRESS)) {
                if (!args.withRowAddress()) {
                    throw new UsageException(
                            "dump: --order-by " + ScanOptions.ROW_ADDRESS + " needs --with-row-address");
                }
            } else {
                scanned.add(key);
            }
        }
        boolean sorted = !args.orderBy().isEmpty();
        ScanOptions options = new ScanOptions(
                new ArrayList<>(scanned), args.filter(), sorted ? -1 : args.limit(), args.withRowAddress(), BATCH_SIZE);
        List<VectorSchemaRoot> batches = new ArrayList<>();
        try (Scanner scanner = dataset.scan(options)) {
            List<Field> fields = new ArrayList<>();
            for (Field f : scanner.outputSchema().getFields()) {
                if (output.contains(f.getName()) || f.getName().equals(ScanOptions.ROW_ADDRESS)) {
                    fields.add(f);
                }
            }
            int total = 0;
            while (scanner.hasNext()) {
                VectorSchemaRoot batch = scanner.next();
                batches.add(batch);
                total = Math.addExact(total, batch.getRowCount());
            }
            long[] rows = rowOrder(batches, total, args.orderBy());
            int count = args.limit() >= 0 && args.limit() < rows.length ? (int) args.limit() : rows.length;

            g.writeStartObject();
            g.writeNumberField("version", dataset.version());
            g.writeArrayFieldStart("schema");
            for (Field f : fields) {
                g.writeStartObject();
                g.writeStringField("name", f.getName());
                g.writeStringField("type", ArrowJson.typeName(f));
                g.writeBooleanField("nullable", f.isNullable());
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeNumberField("num_rows", count);
            g.writeArrayFieldStart("rows");
            FieldVector[][] vectors = new FieldVector[batches.size()][];
            for (int b = 0; b < batches.size(); b++) {
                vectors[b] = new FieldVector[fields.size()];
                for (int c = 0; c < fields.size(); c++) {
                    vectors[b][c] = batches.get(b).getVector(fields.get(c).getName());
                }
            }
            for (int i = 0; i < count; i++) {
                int b = (int) (rows[i] >>> 32);
                int r = (int) rows[i];
                g.writeStartObject();
                for (int c = 0; c < fields.size(); c++) {
                    g.writeFieldName(fields.get(c).getName());
                    ArrowJson.writeValue(g, vectors[b][c], r);
                }
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
        } finally {
            batches.forEach(VectorSchemaRoot::close);
        }
    }

    /**
     * The rows to print, in order, each as {@code batch << 32 | row}: scan order, or stably sorted
     * by the {@code orderBy} columns.
     */
    private static long[] rowOrder(List<VectorSchemaRoot> batches, int total, List<String> orderBy) {
        long[] rows = new long[total];
        int n = 0;
        for (int b = 0; b < batches.size(); b++) {
            for (int r = 0; r < batches.get(b).getRowCount(); r++) {
                rows[n++] = (long) b << 32 | r;
            }
        }
        if (orderBy.isEmpty()) {
            return rows;
        }
        Object[][] keys = new Object[total][orderBy.size()];
        n = 0;
        for (VectorSchemaRoot batch : batches) {
            for (int k = 0; k < orderBy.size(); k++) {
                FieldVector v = batch.getVector(orderBy.get(k));
                for (int r = 0; r < batch.getRowCount(); r++) {
                    keys[n + r][k] = SortKeys.key(v, r);
                }
            }
            n += batch.getRowCount();
        }
        Integer[] positions = new Integer[total];
        Arrays.setAll(positions, i -> i);
        // Arrays.sort on objects is a stable merge sort: equal keys keep scan order.
        Arrays.sort(positions, (x, y) -> {
            for (int k = 0; k < orderBy.size(); k++) {
                int c = SortKeys.ORDER.compare(keys[x][k], keys[y][k]);
                if (c != 0) {
                    return c;
                }
            }
            return 0;
        });
        long[] out = new long[total];
        for (int i = 0; i < total; i++) {
            out[i] = rows[positions[i]];
        }
        return out;
    }
}
