package dev.lanceflink.read;

/**
 * The virtual columns a scan can append after the table's columns, as Lance names them. Both
 * are Lance uint64 values, never null.
 */
public enum RowMetaColumn {
    /** {@code fragment_id << 32 | offset}: where the row is now; changes when compaction moves it. */
    ROW_ADDRESS("_rowaddr"),
    /**
     * The row's id: with stable row ids (feature flag 2) the id from the fragment's row id
     * sequence, kept when compaction moves the row; without them Lance defines the row id as the
     * row address.
     */
    ROW_ID("_rowid");

    private final String columnName;

    RowMetaColumn(String columnName) {
        this.columnName = columnName;
    }

    /** The column's name in Lance (and in the scan's output schema). */
    public String columnName() {
        return columnName;
    }
}
