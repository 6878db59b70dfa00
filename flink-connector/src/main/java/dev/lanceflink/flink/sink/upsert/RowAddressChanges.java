package dev.lanceflink.flink.sink.upsert;

import static java.util.Objects.requireNonNull;

import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.utils.ProjectedRowData;
import org.apache.flink.table.types.logical.RowType;

/**
 * Turns rows that carry their row address (the table's columns, then {@code _rowaddr} as a last
 * BIGINT field) into located changes: DELETE records into deletions, all other kinds into
 * overlay cells of the written columns. This is what SQL UPDATE and DELETE statements produce.
 */
public final class RowAddressChanges implements MapFunction<RowData, LocatedChange> {
    private static final long serialVersionUID = 1L;

    private final RowType rowType;
    private final long writtenColumns;
    private final boolean deletesOnly;

    public RowAddressChanges(RowType rowType, long writtenColumns) {
        this(rowType, writtenColumns, false);
    }

    private RowAddressChanges(RowType rowType, long writtenColumns, boolean deletesOnly) {
        this.rowType = requireNonNull(rowType, "rowType is null");
        this.writtenColumns = writtenColumns;
        this.deletesOnly = deletesOnly;
    }

    /** Records of one field, the row address; each deletes its row, whatever its RowKind. */
    public static RowAddressChanges deletes(RowType rowType) {
        return new RowAddressChanges(rowType, 0, true);
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
            throw new IllegalArgumentException("A row-address record has " + row.getArity() + " fields; it needs the"
                    + " table's " + n + " columns " + rowType.getFieldNames() + " followed by the row address (_rowaddr)");
        }
        if (row.isNullAt(n)) {
            throw new IllegalArgumentException("A row-address record has NULL as its row address (_rowaddr, field " + n
                    + "); every updated or deleted row must name the row it changes");
        }
        long address = row.getLong(n);
        return switch (row.getRowKind()) {
            case DELETE -> LocatedChange.delete(0, address);
            case UPDATE_BEFORE -> throw new IllegalArgumentException("Row-address records are the rows' new values or"
                    + " deletions; UPDATE_BEFORE (row " + address + ") is not expected. Drop before-images");
            default -> {
                for (int i = 0; i < n; i++) {
                    if ((writtenColumns & (1L << i)) != 0 && row.isNullAt(i) && !rowType.getTypeAt(i).isNullable()) {
                        throw new IllegalArgumentException("Column '" + rowType.getFieldNames().get(i)
                                + "' is NOT NULL, but the update of row " + address + " sets it to NULL");
                    }
                }
                int[] table = new int[n];
                for (int i = 0; i < n; i++) {
                    table[i] = i;
                }
                yield LocatedChange.update(0, address, writtenColumns, ProjectedRowData.from(table).replaceRow(row));
            }
        };
    }
}
