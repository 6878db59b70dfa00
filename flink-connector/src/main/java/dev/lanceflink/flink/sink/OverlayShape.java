package dev.lanceflink.flink.sink;

/** Which cells an update of an existing row overlays. */
public enum OverlayShape {
    /** Only the cells whose value changed, when the update's before-image (UPDATE_BEFORE) is known. */
    SPARSE,
    /** Every written column of every updated row, so each overlay file covers one set of rows for all its columns. */
    DENSE
}
