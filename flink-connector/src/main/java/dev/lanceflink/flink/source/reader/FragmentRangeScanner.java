package dev.lanceflink.flink.source.reader;

import dev.lanceflink.expr.Expr;
import dev.lanceflink.expr.PredicateEvaluator;
import dev.lanceflink.flink.source.MetadataColumn;
import dev.lanceflink.read.FragmentReader;
import dev.lanceflink.schema.LanceField;
import dev.lanceflink.table.RowAddress;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

/**
 * Reads the physical offsets {@code [from, end)} of one fragment batch by batch, the way
 * format-core's {@code Scanner} reads whole fragments (live rows only, filter columns first, then
 * only the selected rows of the output columns), but starting at any offset, so that a restored
 * split resumes exactly where its last checkpoint left it instead of re-reading the fragment.
 * Overlays and deletions are applied by {@link FragmentReader}; the metadata columns are computed
 * for exactly the rows emitted, so deleted rows are skipped by them as by the data.
 */
final class FragmentRangeScanner {
    /** Arrow fields of the metadata columns, by ordinal: Lance's uint64, never null. */
    private static final Field[] METADATA_FIELDS = Arrays.stream(MetadataColumn.values())
            .map(c -> new Field(c.key(), FieldType.notNullable(new ArrowType.Int(64, false)), null))
            .toArray(Field[]::new);

    private final FragmentReader reader;
    private final List<LanceField> outputFields;
    private final Expr filter;
    private final List<LanceField> filterFields;
    private final List<MetadataColumn> metadataColumns;
    /** Stable row id per physical offset, or null when the table has none (then {@code _rowid} = address). */
    private final long[] stableRowIds;
    private final int batchSize;
    private final long end;
    private final BufferAllocator allocator;
    private final ScanMetrics metrics;
    private long position;
    private long remaining;

    /**
     * @param metadataColumns appended after {@code outputFields}, in this order
     * @param stableRowIds the fragment's stable row ids by physical offset ({@code FragmentRowIds}),
     *     or null if the table does not use stable row ids
     */
    FragmentRangeScanner(FragmentReader reader, List<LanceField> outputFields, Expr filter,
            List<LanceField> filterFields, List<MetadataColumn> metadataColumns, long[] stableRowIds, int batchSize,
            long from, long end, long remainingLimit, BufferAllocator allocator, ScanMetrics metrics) {
        this.reader = reader;
        this.outputFields = outputFields;
        this.filter = filter;
        this.filterFields = filterFields;
        this.metadataColumns = metadataColumns;
        this.stableRowIds = stableRowIds;
        this.batchSize = batchSize;
        this.position = from;
        this.end = Math.min(end, reader.fragment().physicalRows());
        this.remaining = remainingLimit;
        this.allocator = allocator;
        this.metrics = metrics;
    }

    /** The next non-empty batch, or null when the range (or the limit) is exhausted. */
    ScannedBatch next() throws IOException {
        while (remaining > 0 && position < end) {
            long batchEnd = Math.min(position + batchSize, end);
            long[] rows = reader.liveOffsets(position, batchEnd);
            position = batchEnd;
            metrics.rowsScanned.inc(rows.length);
            if (filter != null && rows.length > 0) {
                rows = select(rows);
            }
            if (rows.length > remaining) {
                rows = Arrays.copyOf(rows, (int) remaining);
            }
            if (rows.length == 0) {
                continue;
            }
            remaining -= rows.length;
            ScannedBatch batch = new ScannedBatch(materialize(rows), rows);
            metrics.rowsEmitted.inc(rows.length);
            return batch;
        }
        return null;
    }

    private long[] select(long[] rows) throws IOException {
        List<FieldVector> vectors = new ArrayList<>();
        try {
            for (LanceField f : filterFields) {
                vectors.add(reader.read(f, rows));
            }
            VectorSchemaRoot batch = new VectorSchemaRoot(vectors);
            batch.setRowCount(rows.length);
            int[] selected = PredicateEvaluator.selectedRows(filter, batch);
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
            for (LanceField f : outputFields) {
                vectors.add(reader.read(f, rows));
            }
            for (MetadataColumn c : metadataColumns) {
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
    private UInt8Vector metadata(MetadataColumn column, long[] rows) {
        UInt8Vector out = new UInt8Vector(METADATA_FIELDS[column.ordinal()], allocator);
        out.allocateNew(rows.length);
        if (column == MetadataColumn.ROW_ID && stableRowIds != null) {
            for (int i = 0; i < rows.length; i++) {
                out.set(i, stableRowIds[(int) rows[i]]);
            }
        } else {
            // _rowaddr, and _rowid of a table without stable row ids, which Lance defines as the address.
            long high = RowAddress.firstOf(reader.fragment().id());
            for (int i = 0; i < rows.length; i++) {
                out.set(i, high | rows[i]);
            }
        }
        out.setValueCount(rows.length);
        return out;
    }
}
