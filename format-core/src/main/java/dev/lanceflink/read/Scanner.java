package dev.lanceflink.read;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.expr.Expr;
import dev.lanceflink.expr.FilterException;
import dev.lanceflink.expr.PredicateEvaluator;
import dev.lanceflink.schema.LanceField;
import dev.lanceflink.schema.LanceSchema;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.RowAddress;
import dev.lanceflink.table.TableFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A scan of a table version in physical order (fragment by fragment, offset by offset). Each
 * batch is read in two steps: first the filter's columns for the live rows, then only the
 * selected rows of the output columns (late materialization), so a selective filter reads
 * little. Batches returned by {@link #next()} belong to the caller, who closes them.
 */
public final class Scanner implements Iterator<VectorSchemaRoot>, AutoCloseable {
    private final TableFiles files;
    private final List<Fragment> fragments;
    private final BufferAllocator allocator;
    private final ScanOptions options;
    private final List<LanceField> outputFields;
    private final Expr filter;
    private final List<LanceField> filterFields;
    private int fragmentIndex = -1;
    private FragmentReader reader;
    private long position;
    private long remaining;
    private VectorSchemaRoot pending;

    /**
     * @param files where the fragments' files are read from (their manifest's base paths
     *     resolved); stays the caller's
     */
    public Scanner(TableFiles files, LanceSchema schema, List<Fragment> fragments, ScanOptions options,
            BufferAllocator allocator) {
        this.files = requireNonNull(files, "files is null");
        this.fragments = List.copyOf(fragments);
        this.allocator = requireNonNull(allocator, "allocator is null");
        this.options = requireNonNull(options, "options is null");
        this.outputFields = resolve(schema, options.columns() == null ? names(schema) : options.columns());
        this.filter = options.filter();
        this.filterFields = filter == null ? List.of() : resolve(schema, PredicateEvaluator.referencedColumns(filter));
        this.remaining = options.limit() < 0 ? Long.MAX_VALUE : options.limit();
    }

    private static List<String> names(LanceSchema schema) {
        List<String> out = new ArrayList<>();
        schema.fields().forEach(f -> out.add(f.name()));
        return out;
    }

    private static List<LanceField> resolve(LanceSchema schema, List<String> columns) {
        List<LanceField> out = new ArrayList<>();
        for (String c : columns) {
            if (c.equals(ScanOptions.ROW_ADDRESS)) {
                throw new FilterException("'" + ScanOptions.ROW_ADDRESS + "' is a metadata column: ask for it with"
                        + " withRowAddress(true) instead of naming it");
            }
            out.add(schema.fieldByName(c).orElseThrow(() -> new FilterException("Column '" + c
                    + "' does not exist; the table has: " + String.join(", ", names(schema)))));
        }
        return out;
    }

    /** The schema of the batches. */
    public Schema outputSchema() {
        List<Field> fields = new ArrayList<>();
        for (LanceField f : outputFields) {
            fields.add(f.toArrow());
        }
        if (options.withRowAddress()) {
            fields.add(rowAddressField());
        }
        return new Schema(fields);
    }

    private static Field rowAddressField() {
        return new Field(ScanOptions.ROW_ADDRESS, FieldType.notNullable(new ArrowType.Int(64, false)), null);
    }

    @Override
    public boolean hasNext() {
        if (pending != null) {
            return true;
        }
        try {
            pending = advance();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return pending != null;
    }

    @Override
    public VectorSchemaRoot next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        VectorSchemaRoot out = pending;
        pending = null;
        return out;
    }

    private VectorSchemaRoot advance() throws IOException {
        while (remaining > 0) {
            if (reader == null || position >= reader.fragment().physicalRows()) {
                if (reader != null) {
                    reader.close();
                    reader = null;
                }
                fragmentIndex++;
                if (fragmentIndex >= fragments.size()) {
                    return null;
                }
                reader = new FragmentReader(files, fragments.get(fragmentIndex), allocator);
                position = 0;
                continue;
            }
            long end = Math.min(position + options.batchSize(), reader.fragment().physicalRows());
            long[] rows = reader.liveOffsets(position, end);
            position = end;
            if (filter != null && rows.length > 0) {
                rows = applyFilter(rows);
            }
            if (rows.length > remaining) {
                rows = Arrays.copyOf(rows, (int) remaining);
            }
            if (rows.length == 0) {
                continue;
            }
            remaining -= rows.length;
            return materialize(rows);
        }
        return null;
    }

    private long[] applyFilter(long[] rows) throws IOException {
        List<FieldVector> vectors = new ArrayList<>();
        try {
            for (LanceField f : filterFields) {
                vectors.add(reader.read(f, rows));
            }
            try (VectorSchemaRoot batch = new VectorSchemaRoot(vectors)) {
                vectors = List.of();
                batch.setRowCount(rows.length);
                int[] selected = PredicateEvaluator.selectedRows(filter, batch);
                long[] out = new long[selected.length];
                for (int i = 0; i < selected.length; i++) {
                    out[i] = rows[selected[i]];
                }
                return out;
            }
        } finally {
            vectors.forEach(FieldVector::close);
        }
    }

    private VectorSchemaRoot materialize(long[] rows) throws IOException {
        List<FieldVector> vectors = new ArrayList<>();
        try {
            for (LanceField f : outputFields) {
                vectors.add(reader.read(f, rows));
            }
            if (options.withRowAddress()) {
                UInt8Vector addr = new UInt8Vector(rowAddressField(), allocator);
                addr.allocateNew(rows.length);
                long high = RowAddress.firstOf(reader.fragment().id());
                for (int i = 0; i < rows.length; i++) {
                    addr.set(i, high | rows[i]);
                }
                addr.setValueCount(rows.length);
                vectors.add(addr);
            }
        } catch (IOException | RuntimeException e) {
            vectors.forEach(FieldVector::close);
            throw e;
        }
        VectorSchemaRoot root = new VectorSchemaRoot(vectors);
        root.setRowCount(rows.length);
        return root;
    }

    @Override
    public void close() throws IOException {
        if (pending != null) {
            pending.close();
            pending = null;
        }
        if (reader != null) {
            reader.close();
            reader = null;
        }
    }
}
