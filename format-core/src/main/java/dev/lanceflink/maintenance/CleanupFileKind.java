package dev.lanceflink.maintenance;

/** The kind of a file cleanup deletes; also the directory it lives in. */
public enum CleanupFileKind {
    /** {@code _versions/*.manifest} of a removed version. */
    MANIFEST("manifest"),
    /** {@code _transactions/*.txn}. */
    TRANSACTION("transaction"),
    /** {@code data/*.lance}: base data files and overlay value files. */
    DATA("data"),
    /** {@code _deletions/*.arrow|*.bin}. */
    DELETION("deletion"),
    /** A file under {@code _indices/<uuid>/}. */
    INDEX("index");

    private final String label;

    CleanupFileKind(String label) {
        this.label = label;
    }

    /** The name used in JSON output. */
    public String label() {
        return label;
    }
}
