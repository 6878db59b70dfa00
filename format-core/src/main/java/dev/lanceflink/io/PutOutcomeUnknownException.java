package dev.lanceflink.io;

import java.io.IOException;

/**
 * A conditional put whose outcome could not be established (for example the response was lost
 * and the object's creation tag could not be read back). Never treated as success: the caller
 * must find out from the table state whether its commit landed.
 */
public class PutOutcomeUnknownException extends IOException {
    private static final long serialVersionUID = 1L;

    public PutOutcomeUnknownException(String message, Throwable cause) {
        super(message, cause);
    }
}
