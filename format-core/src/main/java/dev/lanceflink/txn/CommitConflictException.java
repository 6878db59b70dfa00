package dev.lanceflink.txn;

import java.io.IOException;

/**
 * A commit lost against concurrent commits and could not be rebased. Nothing of it was published:
 * its transaction file and any deletion files it wrote have been removed (best effort), and a
 * caller may delete what it staged for the commit. (The commit loop never ends in this exception
 * while a publication of the commit may still land: that is {@link CommitOutcomeUnknownException}.)
 *
 * <p>{@link #isRetryable()}: the caller may re-read the table, recompute its change and commit
 * again. Otherwise the two operations contradict each other and retrying would change meaning.
 */
public class CommitConflictException extends IOException {
    private static final long serialVersionUID = 1L;

    private final boolean retryable;
    private final long conflictingVersion;

    public CommitConflictException(String message, boolean retryable, long conflictingVersion) {
        super(message);
        this.retryable = retryable;
        this.conflictingVersion = conflictingVersion;
    }

    public boolean isRetryable() {
        return retryable;
    }

    /** The committed version whose transaction conflicted, or -1 if the retries were exhausted. */
    public long conflictingVersion() {
        return conflictingVersion;
    }
}
