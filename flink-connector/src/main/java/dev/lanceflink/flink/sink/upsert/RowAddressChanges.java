package dev.lanceflink.flink.sink.upsert;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.schema.ColumnSet;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

/**
 * Turns rows that carry their row address (the table's columns, then {@code _rowaddr} as a last
 * BIGINT field) into located changes: DELETE records into deletions, all other kinds into
 * overlay cells of the written columns, or, in update mode rewrite-rows, into moves of the row
 * to wherever the writer appends (its other columns keep their values). This is what SQL UPDATE
 * and DELETE statements produce.
 */
public final class RowAddressChanges implements MapFunction<RowData, LocatedChange> {
    private static final long serialVersionUID = 1L;

    private final RowType rowType;
    private final ColumnSet writtenColumns;
    private final boolean deletesOnly;
    private final boolean rewriteRows;

    /** Updates as overlay cells of {@code writtenColumns}. */
    public RowAddressChanges(RowType rowType, ColumnSet writtenColumns) {
        this(rowType, writtenColumns, false, false);
    }

    private RowAddressChanges(RowType rowType, ColumnSet writtenColumns, boolean deletesOnly, boolean rewriteRows) {
        this.rowType = requireNonNull(rowType, "rowType is null");
        this.writtenColumns = requireNonNull(writtenColumns, "writtenColumns is null");
        this.deletesOnly = deletesOnly;
        this.rewriteRows = rewriteRows;
    }

    /** Records of one field, the row address; each deletes its row, whatever its RowKind. */
    public static RowAddressChanges deletes(RowType rowType) {
        return new RowAddressChanges(rowType, ColumnSet.EMPTY, true, false);
    }

    /** Updates as moves of the rows, with {@code writtenColumns} set from the records. */
    public static RowAddressChanges rewrites(RowType rowType, ColumnSet writtenColumns) {
        return new RowAddressChanges(rowType, writtenColumns, false, true);
    }

    @Override
    public LocatedChange map(RowData row) {
        if (deletesOnly) {
            if (row.getArity() != 1 || row.isNullAt(0)) {
                throw new IllegalArgumentException("A row-address delete record must hold exactly one non-NULL"
                        + " BIGINT, the row address (_rowaddr); got " + row.getArity() + " fields");
            }
            return LocatedChange.delete(0, row.getLong(0));
        }
        int n = rowType.getFieldCount();
        if (row.getArity() != n + 1) {
            throw new IllegalArgumentException(
                    "A row-address record has " + row.getArity() + " fields; it needs the" + " table's " + n
                            + " columns " + rowType.getFieldNames() + " followed by the row address (_rowaddr)");
        }
        if (row.isNullAt(n)) {
            throw new IllegalArgumentException("A row-address record has NULL as its row address (_rowaddr, field " + n
                    + "); every updated or deleted row must name the row it changes");
        }
        long address = row.getLong(n);
        return switch (row.getRowKind()) {
            case DELETE -> LocatedChange.delete(0, address);
            case UPDATE_BEFORE ->
                throw new IllegalArgumentException("Row-address records are the rows' new values or"
                        + " deletions; UPDATE_BEFORE (row " + address + ") is not expected. Drop before-images");
            default -> {
                for (int i = writtenColumns.first(); i >= 0 && i < n; i = writtenColumns.next(i + 1)) {
                    if (row.isNullAt(i) && !rowType.getTypeAt(i).isNullable()) {
                        throw new IllegalArgumentException(
                                "Column '" + rowType.getFieldNames().get(i) + "' is NOT NULL, but the update of row "
                                        + address + " sets it to NULL");
                    }
                }
                // Only the written cells cross the shuffle to the writers (see WrittenColumnsRow).
                RowData values = WrittenColumnsRow.of(writtenColumns, row, n);
                yield rewriteRows
                        ? LocatedChange.move(0, address, 0, 0, writtenColumns, values)
                        : LocatedChange.update(0, address, writtenColumns, values);
            }
        };
    }
}
