package dev.lanceflink.flink.sink;

/**
 * How the sink changes the table. This release implements appends; updates and deletes
 * (overlays and deletion vectors driven by the RowKind) are planned as further modes.
 */
public enum LanceSinkMode {
    /** Every record is a new row; the table's existing rows are never touched. */
    APPEND
}
