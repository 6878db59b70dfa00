package dev.lanceflink.committer.core;

/**
 * What committing one checkpoint did.
 *
 * @param checkpointId the checkpoint
 * @param kind committed now, found already committed (by an earlier attempt or an earlier run of
 *     the job), or nothing to commit
 * @param version the version holding the checkpoint's changes; 0 when there was nothing to commit
 * @param attempts commit attempts made (0 when nothing was attempted)
 * @param conflicts attempts lost to a retryable conflict with a concurrent writer
 */
public record CommitOutcome(long checkpointId, Kind kind, long version, int attempts, int conflicts) {

    /** How a checkpoint ended up in the table. */
    public enum Kind {
        COMMITTED,
        ALREADY_COMMITTED,
        NOTHING_TO_COMMIT
    }

    public static CommitOutcome nothingToCommit(long checkpointId) {
        return new CommitOutcome(checkpointId, Kind.NOTHING_TO_COMMIT, 0, 0, 0);
    }

    public CommitOutcome withConflicts(int n) {
        return new CommitOutcome(checkpointId, kind, version, attempts, n);
    }
}
