package dev.lanceflink.maintenance;

import java.io.IOException;

/**
 * Cleanup stopped because it could not be sure what the table still needs (an unreadable
 * manifest, tag or transaction, a table feature it does not understand, branches, a tag added to
 * a version being removed). Nothing more was deleted after the problem was found; the message
 * names the object and what to do.
 */
public class CleanupAbortedException extends IOException {
    private static final long serialVersionUID = 1L;

    public CleanupAbortedException(String message) {
        super(message);
    }

    public CleanupAbortedException(String message, Throwable cause) {
        super(message, cause);
    }
}
