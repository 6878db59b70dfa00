package dev.lanceflink.cli;

/**
 * The command line itself is wrong (unknown command or option, missing or malformed value).
 * Reported as {@code {"error"}} with exit code 2 (the usage goes to stderr), so scripts can tell
 * a typo from a dataset that cannot be read (exit code 1).
 */
public final class UsageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public UsageException(String message) {
        super(message);
    }
}
