package dev.lanceflink.dataset;

import java.io.FileNotFoundException;

/** The location holds no Lance table. */
public class NotADatasetException extends FileNotFoundException {
    private static final long serialVersionUID = 1L;

    public NotADatasetException(String message, Throwable cause) {
        super(message);
        initCause(cause);
    }
}
