package dev.lanceflink.txn;

import java.io.IOException;

/**
 * A commit whose manifest may or may not have been published: the store lost the response of the
 * conditional put, and checking afterwards failed too; or the store could not tell whether the
 * put applied, the version was not there when looked for (the request may still be in flight),
 * and the commit then stopped (it gave up on lost races, or hit a conflict). Nothing was cleaned
 * up, because the files may belong to a committed version. Find out with {@link #transactionUuid()}: a version whose
 * transaction carries that uuid is this commit (see {@code Dataset.findTransaction}); if none
 * appears, the commit did not happen and may be redone.
 */
public class CommitOutcomeUnknownException extends IOException {
    private static final long serialVersionUID = 1L;

    private final String transactionUuid;
    private final long attemptedVersion;

    public CommitOutcomeUnknownException(
            String message, String transactionUuid, long attemptedVersion, Throwable cause) {
        super(message, cause);
        this.transactionUuid = transactionUuid;
        this.attemptedVersion = attemptedVersion;
    }

    /** The uuid of the transaction whose publish is in doubt. */
    public String transactionUuid() {
        return transactionUuid;
    }

    /** The version it tried to publish last. */
    public long attemptedVersion() {
        return attemptedVersion;
    }
}
