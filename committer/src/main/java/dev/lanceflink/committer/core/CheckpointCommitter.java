package dev.lanceflink.committer.core;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.txn.CommitConflictException;
import dev.lanceflink.txn.CommitOptions;
import dev.lanceflink.txn.Operation;
import dev.lanceflink.txn.TableCommitter;
import dev.lanceflink.txn.Transaction;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits one checkpoint's changes as one Lance version, exactly once.
 *
 * <p>Every attempt first looks for the checkpoint's {@link CommitMarker} among the versions
 * committed since the changes were gathered ({@link CheckpointCommit#baseVersion()}); only if it
 * is absent does it commit, against the latest version, with the marker in the transaction
 * properties. So a retry after a lost response, a committer that failed after committing, or a
 * restored job that replays the checkpoint all find the earlier commit and skip it.
 *
 * <p>Lost races against concurrent appends are absorbed by {@link TableCommitter} (it rebases);
 * a publication whose response was lost is resolved by {@link ResolvingCommitHandler}.
 * A retryable conflict or an I/O error is retried here, re-checking the marker each time, up to
 * {@code maxAttempts}; then, or on a conflict that is not retryable, a
 * {@link CheckpointCommitException} says why, and nothing of the checkpoint has been dropped.
 */
public final class CheckpointCommitter {
    private static final Logger LOG = LoggerFactory.getLogger(CheckpointCommitter.class);

    private final ObjectStore store;
    private final CommitOptions commitOptions;
    private final int maxAttempts;
    private final Duration retryBackoff;
    private final CommittedCheckpointFinder finder;

    /**
     * @param maxAttempts attempts per checkpoint before failing (each re-checks the marker)
     * @param retryBackoff wait before the second attempt; doubles per attempt, capped at 10 s
     */
    public CheckpointCommitter(ObjectStore store, CommitOptions commitOptions, int maxAttempts, Duration retryBackoff) {
        this.store = requireNonNull(store, "store is null");
        requireNonNull(commitOptions, "commitOptions is null");
        this.commitOptions = commitOptions.withCommitHandler(new ResolvingCommitHandler(commitOptions.commitHandler()));
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1, got " + maxAttempts);
        }
        this.maxAttempts = maxAttempts;
        this.retryBackoff = requireNonNull(retryBackoff, "retryBackoff is null");
        this.finder = new CommittedCheckpointFinder(store);
    }

    /** Commits {@code commit} unless an earlier attempt already did. */
    public CommitOutcome commit(CheckpointCommit commit) throws IOException {
        if (commit.isEmpty()) {
            return CommitOutcome.nothingToCommit(commit.checkpointId());
        }
        CommitMarker marker = commit.appendMarker();
        int conflicts = 0;
        IOException last = null;
        for (int attempt = 1; attempt <= maxAttempts; attempt++) {
            OptionalLong earlier = finder.findCommit(marker, commit.baseVersion());
            if (earlier.isPresent()) {
                LOG.info("Checkpoint {} of commit user {} is already committed to {} as version {}; skipping it",
                        commit.checkpointId(), commit.commitUser(), store.rootUri(), earlier.getAsLong());
                return new CommitOutcome(commit.checkpointId(), CommitOutcome.Kind.ALREADY_COMMITTED,
                        earlier.getAsLong(), attempt - 1, conflicts);
            }
            long latest = finder.latestVersion();
            if (latest == 0) {
                throw new CheckpointCommitException("Cannot commit checkpoint " + commit.checkpointId() + " to "
                        + store.rootUri() + ": the table has no versions (was it deleted?). The sink appends to an"
                        + " existing table; create it first");
            }
            Transaction txn = Transaction.of(latest, new Operation.Append(commit.fragments()), marker.toProperties());
            try {
                Manifest committed = TableCommitter.commit(store, txn, commitOptions);
                return new CommitOutcome(commit.checkpointId(), CommitOutcome.Kind.COMMITTED, committed.version(),
                        attempt, conflicts);
            } catch (CommitConflictException e) {
                if (!e.isRetryable()) {
                    throw new CheckpointCommitException("Checkpoint " + commit.checkpointId() + " (" + commit.rows()
                            + " rows in " + commit.fragments().size() + " new fragments) cannot be appended to "
                            + store.rootUri() + ": " + e.getMessage() + ". The job fails so that no rows are dropped;"
                            + " resolve the conflicting change, then restart from the last checkpoint", e);
                }
                conflicts++;
                last = e;
                LOG.warn("Attempt {}/{} to commit checkpoint {} to {} hit a retryable conflict: {}", attempt,
                        maxAttempts, commit.checkpointId(), store.rootUri(), e.getMessage());
            } catch (IOException e) {
                // The outcome may be unknown (e.g. a lost response): the next attempt re-checks the marker.
                last = e;
                LOG.warn("Attempt {}/{} to commit checkpoint {} to {} failed: {}", attempt, maxAttempts,
                        commit.checkpointId(), store.rootUri(), e.toString());
            }
            if (attempt < maxAttempts) {
                sleep(attempt);
            }
        }
        throw new CheckpointCommitException("Checkpoint " + commit.checkpointId() + " (" + commit.rows() + " rows in "
                + commit.fragments().size() + " new fragments) could not be committed to " + store.rootUri() + " in "
                + maxAttempts + " attempts (" + conflicts + " lost to conflicts); last error: " + last
                + ". The job fails so that no rows are dropped; a restart retries the commit (raise the sink's commit"
                + " retries if the table is busy)", last);
    }

    private void sleep(int attempt) throws IOException {
        long millis = Math.min(10_000L, retryBackoff.toMillis() << Math.min(attempt - 1, 16));
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("Interrupted while waiting to retry a commit to " + store.rootUri());
        }
    }
}
