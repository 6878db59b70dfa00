package dev.lanceflink.io;

import java.io.IOException;

/**
 * An object is not as large as the table metadata that references it says (a data file's
 * {@code file_size_bytes}). Reading it with the recorded size would take the footer from the wrong
 * offset, so the read stops here instead. The table metadata is wrong or the object was replaced.
 */
public final class WrongObjectSizeException extends IOException {
    private final String object;
    private final long recordedSize;
    private final long actualSize;

    /**
     * @param object the object's full location, for the message
     * @param recordedSize the size the metadata records
     * @param actualSize the size the store reports, or -1 if it only reported the object to be smaller
     */
    public WrongObjectSizeException(String object, long recordedSize, long actualSize) {
        super(object + (actualSize < 0 ? " is smaller than" : " is " + actualSize + " bytes, not") + " the "
                + recordedSize + " bytes recorded for it (a data file's file_size_bytes in the manifest, or a "
                + "manifest's listed size). The file was replaced after it was recorded, or the recorded size is "
                + "wrong. Files of a Lance table are immutable: restore the original file, or rewrite the fragment");
        this.object = object;
        this.recordedSize = recordedSize;
        this.actualSize = actualSize;
    }

    public String object() {
        return object;
    }

    public long recordedSize() {
        return recordedSize;
    }

    /** The actual size, or -1 when the store could only tell that the object is smaller than recorded. */
    public long actualSize() {
        return actualSize;
    }
}
