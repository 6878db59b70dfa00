package dev.lanceflink.flink.sink;

/** How the sink changes the table. */
public enum LanceSinkMode {
    /** Every record is a new row; the table's existing rows are never touched. RowKinds are ignored. */
    APPEND,
    /**
     * A changelog keyed by the primary key: a new key becomes a new row, an update of an existing
     * key becomes overlay cells of the columns written (only the changed ones when an
     * UPDATE_BEFORE precedes), a DELETE a deletion.
     */
    UPSERT,
    /**
     * Records carry the row address of an existing row in an extra last BIGINT field
     * ({@code _rowaddr}): INSERT/UPDATE_AFTER records become overlay cells of the columns written,
     * DELETE records deletions. What SQL UPDATE sends.
     */
    ROW_ADDRESS,
    /**
     * Records carry only a row address (one BIGINT field, {@code _rowaddr}); each deletes that
     * row. What a SQL row-level DELETE sends.
     */
    DELETE_BY_ROW_ADDRESS
}
