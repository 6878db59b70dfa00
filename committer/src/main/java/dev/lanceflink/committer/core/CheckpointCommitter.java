package dev.lanceflink.committer.core;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.ManifestIO;
import dev.lanceflink.table.VersionNotFoundException;
import dev.lanceflink.table.VersionResolver;
import dev.lanceflink.txn.CommitConflictException;
import dev.lanceflink.txn.CommitOptions;
import dev.lanceflink.txn.TableCommitter;
import dev.lanceflink.txn.Transaction;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits one checkpoint's changes exactly once: one Lance version per {@link CommitStep} it has.
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
 *
 * <p>Changes computed from a pinned version (an {@code UPDATE} or row-level {@code DELETE}: the
 * {@code readVersion} constructor argument) are first checked against what other writers
 * committed since that version ({@link ConcurrentChangeCheck}), and such a step fails instead of
 * being rebased onto a change that makes it wrong (a lost update, rows moved by compaction).
 */
public final class CheckpointCommitter {
    private static final Logger LOG = LoggerFactory.getLogger(CheckpointCommitter.class);

    private final ObjectStore store;
    private final CommitOptions commitOptions;
    private final int maxAttempts;
    private final Duration retryBackoff;
    private final CommittedCheckpointFinder finder;
    /** Set when the changes were computed from a pinned version (row-level statements), else null. */
    private final ConcurrentChangeCheck changeCheck;
    private final ReplacedContentCheck replacedContent;

    /**
     * @param maxAttempts attempts per checkpoint before failing (each re-checks the marker)
     * @param retryBackoff wait before the second attempt; doubles per attempt, capped at 10 s
     */
    public CheckpointCommitter(ObjectStore store, CommitOptions commitOptions, int maxAttempts, Duration retryBackoff) {
        this(store, commitOptions, maxAttempts, retryBackoff, 0);
    }

    /**
     * @param readVersion the version the changes were computed from (a row-level statement's
     *     scan), or 0: then each step first fails on conflicting changes committed since
     *     ({@link ConcurrentChangeCheck})
     */
    public CheckpointCommitter(ObjectStore store, CommitOptions commitOptions, int maxAttempts, Duration retryBackoff,
            long readVersion) {
        this.store = requireNonNull(store, "store is null");
        requireNonNull(commitOptions, "commitOptions is null");
        this.commitOptions = commitOptions.withCommitHandler(new ResolvingCommitHandler(commitOptions.commitHandler()));
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1, got " + maxAttempts);
        }
        this.maxAttempts = maxAttempts;
        this.retryBackoff = requireNonNull(retryBackoff, "retryBackoff is null");
        this.finder = new CommittedCheckpointFinder(store);
        this.changeCheck = readVersion > 0 ? new ConcurrentChangeCheck(store, readVersion) : null;
        this.replacedContent = new ReplacedContentCheck(store);
    }

    /**
     * Commits {@code commit}'s steps in order ({@link CommitStep}), each unless an earlier attempt
     * already did. The outcome's version is the last version holding the checkpoint's changes.
     */
    public CommitOutcome commit(CheckpointCommit commit) throws IOException {
        if (commit.isEmpty()) {
            return CommitOutcome.nothingToCommit(commit.checkpointId());
        }
        boolean committedNow = false;
        long version = 0;
        int attempts = 0;
        int conflicts = 0;
        for (CommitStep step : CommitStep.values()) {
            if (commit.isEmpty(step)) {
                continue;
            }
            CommitOutcome o = commitStep(commit, step);
            attempts += o.attempts();
            conflicts += o.conflicts();
            if (o.kind() == CommitOutcome.Kind.COMMITTED) {
                committedNow = true;
            }
            if (o.kind() != CommitOutcome.Kind.NOTHING_TO_COMMIT) {
                version = Math.max(version, o.version());
            }
        }
        if (version == 0) {
            return new CommitOutcome(commit.checkpointId(), CommitOutcome.Kind.NOTHING_TO_COMMIT, 0, attempts, conflicts);
        }
        return new CommitOutcome(commit.checkpointId(),
                committedNow ? CommitOutcome.Kind.COMMITTED : CommitOutcome.Kind.ALREADY_COMMITTED, version, attempts,
                conflicts);
    }

    private CommitOutcome commitStep(CheckpointCommit commit, CommitStep step) throws IOException {
        CommitMarker marker = commit.marker(step);
        int conflicts = 0;
        IOException last = null;
        for (int attempt = 1; attempt <= maxAttempts; attempt++) {
            OptionalLong earlier = finder.findCommit(marker, commit.baseVersion());
            if (earlier.isPresent()) {
                LOG.info("Step {} of checkpoint {} of commit user {} is already committed to {} as version {};"
                        + " skipping it", step, commit.checkpointId(), commit.commitUser(), store.rootUri(),
                        earlier.getAsLong());
                return new CommitOutcome(commit.checkpointId(), CommitOutcome.Kind.ALREADY_COMMITTED,
                        earlier.getAsLong(), attempt - 1, conflicts);
            }
            Manifest latest;
            try {
                latest = ManifestIO.read(store, VersionResolver.latest(store));
            } catch (VersionNotFoundException e) {
                throw new CheckpointCommitException("Cannot commit checkpoint " + commit.checkpointId() + " to "
                        + store.rootUri() + ": the table has no versions (was it deleted?). The sink writes to an"
                        + " existing table; create it first", e);
            }
            if (changeCheck != null) {
                changeCheck.check(commit, step, latest);
            }
            StepOperations.Built built = StepOperations.build(step, commit, latest, store, replacedContent);
            if (built.operation().isEmpty()) {
                return new CommitOutcome(commit.checkpointId(), CommitOutcome.Kind.NOTHING_TO_COMMIT, 0, attempt - 1,
                        conflicts);
            }
            Transaction txn = Transaction.of(latest.version(), built.operation().get(), marker.toProperties());
            try {
                Manifest committed = TableCommitter.commit(store, txn, changeCheck == null ? commitOptions
                        : ConcurrentChangeCheck.guard(commitOptions, latest.version()));
                return new CommitOutcome(commit.checkpointId(), CommitOutcome.Kind.COMMITTED, committed.version(),
                        attempt, conflicts);
            } catch (CommitConflictException e) {
                StagedFiles.deleteQuietly(store, built.writtenFiles()); // certainly not published
                if (!e.isRetryable()) {
                    throw new CheckpointCommitException("Step " + step + " of " + commit.describe()
                            + " cannot be committed to " + store.rootUri() + ": " + e.getMessage() + ". The job fails"
                            + " so that no change is dropped; resolve the conflicting change, then restart from the"
                            + " last checkpoint", e);
                }
                conflicts++;
                last = e;
                LOG.warn("Attempt {}/{} to commit step {} of checkpoint {} to {} hit a retryable conflict: {}", attempt,
                        maxAttempts, step, commit.checkpointId(), store.rootUri(), e.getMessage());
            } catch (IOException e) {
                // The outcome may be unknown (e.g. a lost response): the next attempt re-checks the
                // marker, and the files stay because the version may reference them.
                last = e;
                LOG.warn("Attempt {}/{} to commit step {} of checkpoint {} to {} failed: {}", attempt, maxAttempts,
                        step, commit.checkpointId(), store.rootUri(), e.toString());
            }
            if (attempt < maxAttempts) {
                sleep(attempt);
            }
        }
        throw new CheckpointCommitException("Step " + step + " of " + commit.describe() + " could not be committed to "
                + store.rootUri() + " in " + maxAttempts + " attempts (" + conflicts + " lost to conflicts); last"
                + " error: " + last + ". The job fails so that no change is dropped; a restart retries the commit"
                + " (raise the sink's commit retries if the table is busy)", last);
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
