package dev.lanceflink.read;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.expr.Expr;
import dev.lanceflink.expr.FilterException;
import dev.lanceflink.expr.PredicateEvaluator;
import dev.lanceflink.schema.LanceField;
import dev.lanceflink.schema.LanceSchema;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.TableFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A scan of a table version in physical order (fragment by fragment, offset by offset), each
 * fragment read by a {@link FragmentScanner}: first the filter's columns for the live rows, then
 * only the selected rows of the output columns (late materialization), so a selective filter
 * reads little. Batches returned by {@link #next()} belong to the caller, who closes them.
 */
public final class Scanner implements Iterator<VectorSchemaRoot>, AutoCloseable {
    private final TableFiles files;
    private final List<Fragment> fragments;
    private final BufferAllocator allocator;
    private final ScanOptions options;
    private final List<LanceField> outputFields;
    private final FragmentScanner.Columns columns;
    private int fragmentIndex = -1;
    private FragmentReader reader;
    private FragmentScanner fragmentScanner;
    private long remaining;
    private VectorSchemaRoot pending;

    /**
     * @param files where the fragments' files are read from (their manifest's base paths
     *     resolved); stays the caller's
     */
    public Scanner(
            TableFiles files,
            LanceSchema schema,
            List<Fragment> fragments,
            ScanOptions options,
            BufferAllocator allocator) {
        this.files = requireNonNull(files, "files is null");
        this.fragments = List.copyOf(fragments);
        this.allocator = requireNonNull(allocator, "allocator is null");
        this.options = requireNonNull(options, "options is null");
        this.outputFields = resolve(schema, options.columns() == null ? names(schema) : options.columns());
        Expr filter = options.filter();
        List<LanceField> filterFields =
                filter == null ? List.of() : resolve(schema, PredicateEvaluator.referencedColumns(filter));
        this.remaining = options.limit() < 0 ? Long.MAX_VALUE : options.limit();
        this.columns = new FragmentScanner.Columns(
                outputFields,
                filter,
                filterFields,
                options.withRowAddress() ? List.of(RowMetaColumn.ROW_ADDRESS) : List.of());
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
            out.add(schema.fieldByName(c)
                    .orElseThrow(() -> new FilterException(
                            "Column '" + c + "' does not exist; the table has: " + String.join(", ", names(schema)))));
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
        return FragmentScanner.field(RowMetaColumn.ROW_ADDRESS);
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
            if (fragmentScanner == null) {
                if (reader != null) {
                    reader.close();
                    reader = null;
                }
                fragmentIndex++;
                if (fragmentIndex >= fragments.size()) {
                    return null;
                }
                Fragment fragment = fragments.get(fragmentIndex);
                reader = new FragmentReader(files, fragment, allocator);
                fragmentScanner = new FragmentScanner(
                        reader, columns, null, options.batchSize(), 0, fragment.physicalRows(), remaining, allocator);
            }
            FragmentScanner.Batch batch = fragmentScanner.next();
            if (batch == null) {
                fragmentScanner = null;
                continue;
            }
            remaining -= batch.offsets().length;
            return batch.rows();
        }
        return null;
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
