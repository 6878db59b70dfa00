package dev.lanceflink.table;

/** Encoding of a deletion file ({@code DeletionFile.DeletionFileType}). */
public enum DeletionFileType {
    /** Arrow IPC file with one non-null UInt32 column {@code row_id}; extension {@code arrow}. */
    ARROW_ARRAY("arrow"),
    /** Portable 32-bit Roaring bitmap; extension {@code bin}. */
    BITMAP("bin");

    private final String extension;

    DeletionFileType(String extension) {
        this.extension = extension;
    }

    public String extension() {
        return extension;
    }
}
