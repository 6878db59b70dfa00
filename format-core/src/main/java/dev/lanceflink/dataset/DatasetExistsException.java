package dev.lanceflink.dataset;

/**
 * A {@link WriteMode#CREATE} found a table at the location: there before it started, or created
 * by a concurrent writer while it ran (the concurrent creator's version 1 stays; this write
 * committed nothing). An {@link IllegalStateException}, as a CREATE over an existing table always
 * was, so that callers can tell "someone else created it" from other failures.
 */
public class DatasetExistsException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    public DatasetExistsException(String message, Throwable cause) {
        super(message, cause);
    }
}
