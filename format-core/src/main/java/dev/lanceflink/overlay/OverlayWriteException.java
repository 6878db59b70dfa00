package dev.lanceflink.overlay;

/**
 * A data overlay write was refused. Nothing of the refused batch was staged, and nothing is ever
 * committed by the writer itself. {@link #kind()} names the violated rule, mirroring the error
 * variants of Lance's overlay writer so callers can react per rule (for instance split a
 * multi-fragment scan on {@link Kind#FOREIGN_ROW_ADDRESS}).
 */
public final class OverlayWriteException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    /** The rule a write violated. */
    public enum Kind {
        /** A declared field id is not in the dataset schema, or is not a top-level field. */
        SCHEMA_MISMATCH,
        /** The dataset stores legacy (0.1) files; overlays need Lance file format 2.0 or later. */
        LEGACY_FILE_FORMAT,
        /** The field is (or contains) a blob column, which cannot be overlaid. */
        BLOB_FIELD,
        /** The field is a struct; this writer overlays atomic top-level columns only. */
        STRUCT_FIELD,
        /** A row address belongs to another fragment. */
        FOREIGN_ROW_ADDRESS,
        /** An offset is not below the fragment's physical row count. */
        OFFSET_OUT_OF_RANGE,
        /** Offsets of one field are not strictly increasing (within and across batches). */
        OFFSET_NOT_ASCENDING,
        /** A batch column is not one of the overlay's declared fields. */
        UNDECLARED_COLUMN,
        /** A batch names the same column twice. */
        DUPLICATE_COLUMN,
        /** A value column has another type than the field, or another length than its offsets. */
        VALUE_MISMATCH
    }

    private final Kind kind;

    public OverlayWriteException(Kind kind, String message) {
        super(message);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }
}
