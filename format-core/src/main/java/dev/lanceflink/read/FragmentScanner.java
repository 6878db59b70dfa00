package dev.lanceflink.read;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.expr.Expr;
import dev.lanceflink.expr.PredicateEvaluator;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.rowid.FragmentRowIds;
import dev.lanceflink.schema.LanceField;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.RowAddress;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

/**
 * Reads the physical offsets {@code [from, end)} of one fragment batch by batch: live rows only,
 * the filter's columns first and then only the selected rows of the output columns (late
 * materialization, so a selective filter reads little), overlays applied and deleted rows skipped
 * by {@link FragmentReader}. This is the one scan loop: {@link Scanner} runs it over whole
 * fragments, and an engine's split reader over any offset range, so that a restored split resumes
 * exactly where it stopped. Metadata columns are computed for exactly the rows returned.
 *
 * <p>Not thread-safe. The {@link FragmentReader} stays the caller's.
 */
public final class FragmentScanner {
    /** Arrow fields of the metadata columns, by ordinal: Lance's uint64, never null. */
    private static final Field[] METADATA_FIELDS = Arrays.stream(RowMetaColumn.values())
            .map(c -> new Field(c.columnName(), FieldType.notNullable(new ArrowType.Int(64, false)), null))
            .toArray(Field[]::new);

    /**
     * One batch: the rows (output columns, then the metadata columns) and the physical offset of
     * each row within its fragment. Belongs to the caller, who closes it.
     */
    public record Batch(VectorSchemaRoot rows, long[] offsets) implements AutoCloseable {
        @Override
        public void close() {
            rows.close();
        }
    }

    /**
     * What to read of each row.
     *
     * @param output top-level fields in output order
     * @param filter the rows to return, or null for all
     * @param filterFields the top-level fields {@code filter} references
     * @param metadata appended after {@code output}, in this order
     */
    public record Columns(
            List<LanceField> output, Expr filter, List<LanceField> filterFields, List<RowMetaColumn> metadata) {
        public Columns {
            output = List.copyOf(output);
            filterFields = List.copyOf(filterFields);
            metadata = List.copyOf(metadata);
            if (filter == null && !filterFields.isEmpty()) {
                throw new IllegalArgumentException("filterFields given without a filter: " + filterFields);
            }
        }
    }

    private final FragmentReader reader;
    private final Columns columns;
    private final long[] stableRowIds;
    private final int batchSize;
    private final long end;
    private final BufferAllocator allocator;
    private long position;
    private long remaining;
    private long rowsScanned;
    private long rowsEmitted;

    /**
     * @param stableRowIds the fragment's stable row ids by physical offset ({@link #stableRowIds}),
     *     or null when the table has none (then {@code _rowid} is the row address)
     * @param from first physical offset to read
     * @param end offset after the last one to read (clamped to the fragment's physical rows)
     * @param limit most rows to return, or {@link Long#MAX_VALUE}
     */
    public FragmentScanner(
            FragmentReader reader,
            Columns columns,
            long[] stableRowIds,
            int batchSize,
            long from,
            long end,
            long limit,
            BufferAllocator allocator) {
        this.reader = requireNonNull(reader, "reader is null");
        this.columns = requireNonNull(columns, "columns is null");
        if (batchSize < 1) {
            throw new IllegalArgumentException("batchSize must be positive, got " + batchSize);
        }
        if (from < 0 || limit < 0) {
            throw new IllegalArgumentException("from and limit must not be negative, got " + from + " and " + limit);
        }
        this.stableRowIds = stableRowIds;
        this.batchSize = batchSize;
        this.position = from;
        this.end = Math.min(end, reader.fragment().physicalRows());
        this.remaining = limit;
        this.allocator = requireNonNull(allocator, "allocator is null");
    }

    /**
     * The fragment's stable row ids by physical offset when {@code metadata} asks for
     * {@code _rowid} and the table has stable row ids; otherwise null (Lance's row id is then
     * the row address, which needs no lookup).
     */
    public static long[] stableRowIds(
            ObjectStore store, Manifest manifest, Fragment fragment, List<RowMetaColumn> metadata) throws IOException {
        return metadata.contains(RowMetaColumn.ROW_ID) && manifest.usesStableRowIds()
                ? FragmentRowIds.load(store, fragment)
                : null;
    }

    /** The Arrow field of a metadata column. */
    public static Field field(RowMetaColumn column) {
        return METADATA_FIELDS[column.ordinal()];
    }

    /** The next non-empty batch, or null when the range (or the limit) is exhausted. */
    public Batch next() throws IOException {
        while (remaining > 0 && position < end) {
            long batchEnd = Math.min(position + batchSize, end);
            long[] rows = reader.liveOffsets(position, batchEnd);
            position = batchEnd;
            rowsScanned += rows.length;
            if (columns.filter() != null && rows.length > 0) {
                rows = select(rows);
            }
            if (rows.length > remaining) {
                rows = Arrays.copyOf(rows, (int) remaining);
            }
            if (rows.length == 0) {
                continue;
            }
            remaining -= rows.length;
            Batch batch = new Batch(materialize(rows), rows);
            rowsEmitted += rows.length;
            return batch;
        }
        return null;
    }

    /** Live rows whose filter columns were read and evaluated (all live rows read, without a filter). */
    public long rowsScanned() {
        return rowsScanned;
    }

    /** Rows returned so far. */
    public long rowsEmitted() {
        return rowsEmitted;
    }

    private long[] select(long[] rows) throws IOException {
        List<FieldVector> vectors = new ArrayList<>();
        try {
            for (LanceField f : columns.filterFields()) {
                vectors.add(reader.read(f, rows));
            }
            VectorSchemaRoot batch = new VectorSchemaRoot(vectors);
            batch.setRowCount(rows.length);
            int[] selected = PredicateEvaluator.selectedRows(columns.filter(), batch);
            long[] out = new long[selected.length];
            for (int i = 0; i < selected.length; i++) {
                out[i] = rows[selected[i]];
            }
            return out;
        } finally {
            vectors.forEach(FieldVector::close);
        }
    }

    private VectorSchemaRoot materialize(long[] rows) throws IOException {
        List<FieldVector> vectors = new ArrayList<>();
        try {
            for (LanceField f : columns.output()) {
                vectors.add(reader.read(f, rows));
            }
            for (RowMetaColumn c : columns.metadata()) {
                vectors.add(metadata(c, rows));
            }
        } catch (IOException | RuntimeException e) {
            vectors.forEach(FieldVector::close);
            throw e;
        }
        VectorSchemaRoot root = new VectorSchemaRoot(vectors);
        root.setRowCount(rows.length);
        return root;
    }

    /** One metadata column for the physical offsets {@code rows}, as Lance's uint64. */
    private UInt8Vector metadata(RowMetaColumn column, long[] rows) {
        UInt8Vector out = new UInt8Vector(field(column), allocator);
        int n = rows.length;
        out.allocateNew(n);
        // Never null: the validity bits are set a byte at a time and the values written to the
        // data buffer directly. UInt8Vector.set per row (a validity bit and a value, each bounds-
        // checked) was a third of the upsert sink's key map bootstrap, which reads only the key
        // column besides this one.
        ArrowBuf validity = out.getValidityBuffer();
        int fullBytes = n >>> 3;
        validity.setOne(0, fullBytes);
        for (int i = fullBytes << 3; i < n; i++) {
            BitVectorHelper.setBit(validity, i);
        }
        ArrowBuf data = out.getDataBuffer();
        if (column == RowMetaColumn.ROW_ID && stableRowIds != null) {
            for (int i = 0; i < n; i++) {
                data.setLong((long) i * Long.BYTES, stableRowIds[(int) rows[i]]);
            }
        } else {
            // _rowaddr, and _rowid of a table without stable row ids, which Lance defines as the address.
            long high = RowAddress.firstOf(reader.fragment().id());
            for (int i = 0; i < n; i++) {
                data.setLong((long) i * Long.BYTES, high | rows[i]);
            }
        }
        out.setValueCount(n);
        return out;
    }
}
