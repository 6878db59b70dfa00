package dev.lanceflink.table;

import java.io.FileNotFoundException;

/**
 * A file that a table version references (a data, overlay or deletion file) does not exist in
 * storage: someone deleted it outside the table's own cleanup, or a cleanup that should have kept
 * it removed it. The message names the file, its fragment, the table and version, and what to do.
 *
 * <p>A {@link FileNotFoundException}, as the store's own report of the missing object was, so
 * code that handles missing objects keeps working; the store's report is the cause.
 */
public class MissingTableFileException extends FileNotFoundException {
    private static final long serialVersionUID = 1L;

    public MissingTableFileException(String message, Throwable cause) {
        super(message);
        initCause(cause);
    }
}
