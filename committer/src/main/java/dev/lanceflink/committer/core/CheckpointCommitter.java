package dev.lanceflink.committer.core;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.committer.core.CommittedCheckpointFinder.MarkedVersion;
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
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits one checkpoint's changes exactly once, as one Lance version ({@link CheckpointOperation}):
 * no reader ever sees a checkpoint half applied.
 *
 * <p>Every attempt first looks for the checkpoint's {@link CommitMarker} among the versions
 * committed since the changes were gathered ({@link CheckpointCommit#baseVersion()}); only if it
 * is absent does it commit, against the latest version, with the marker in the transaction
 * properties. So a retry after a lost response, a committer that failed after committing, or a
 * restored job that replays the checkpoint all find the earlier commit and skip it. A checkpoint
 * that an earlier version of the sink committed step by step ({@link CommitStep}) and that was cut
 * short resumes with the steps that had not landed, committed together.
 *
 * <p>Lost races against concurrent appends are absorbed by {@link TableCommitter} (it rebases);
 * a publication whose response was lost is resolved by {@link ResolvingCommitHandler}.
 * A retryable conflict or an I/O error is retried here, re-checking the marker each time, up to
 * {@code maxAttempts}; then, or on a conflict that is not retryable, a
 * {@link CheckpointCommitException} says why, and nothing of the checkpoint has been dropped.
 *
 * <p>Changes computed from a pinned version (an {@code UPDATE} or row-level {@code DELETE}: the
 * {@code readVersion} constructor argument) are first checked against what other writers
 * committed since that version ({@link ConcurrentChangeCheck}), and such a checkpoint fails
 * instead of being rebased onto a change that makes it wrong (a lost update, rows moved by
 * compaction).
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
    private final MovedRows movedRows;

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
        this.movedRows = new MovedRows(store);
    }

    /**
     * Commits {@code commit} as one version unless an earlier attempt already did. The outcome's
     * version is the version holding the checkpoint's changes (the last one, for a checkpoint an
     * earlier sink committed step by step).
     */
    public CommitOutcome commit(CheckpointCommit commit) throws IOException {
        if (commit.isEmpty()) {
            return CommitOutcome.nothingToCommit(commit.checkpointId());
        }
        int conflicts = 0;
        IOException last = null;
        for (int attempt = 1; attempt <= maxAttempts; attempt++) {
            Optional<MarkedVersion> newest = finder.newestOwnMarker(commit.commitUser(), commit.checkpointId(),
                    commit.baseVersion());
            int landedSteps = -1; // the highest step index of this checkpoint already committed
            if (newest.isPresent() && newest.get().marker().checkpointId() >= commit.checkpointId()) {
                CommitMarker m = newest.get().marker();
                landedSteps = m.checkpointId() > commit.checkpointId() ? CommitMarker.ALL_STEPS : m.step();
            }
            Set<CommitStep> remaining = EnumSet.noneOf(CommitStep.class);
            for (CommitStep step : CommitStep.values()) {
                if (step.index() > landedSteps && !commit.isEmpty(step)) {
                    remaining.add(step);
                }
            }
            if (remaining.isEmpty() || landedSteps == CommitMarker.ALL_STEPS) {
                long version = newest.orElseThrow().version();
                LOG.info("Checkpoint {} of commit user {} is already committed to {} (version {}); skipping it",
                        commit.checkpointId(), commit.commitUser(), store.rootUri(), version);
                return new CommitOutcome(commit.checkpointId(), CommitOutcome.Kind.ALREADY_COMMITTED, version,
                        attempt - 1, conflicts);
            }
            Manifest latest;
            try {
                latest = ManifestIO.read(store, VersionResolver.latest(store));
            } catch (VersionNotFoundException e) {
                throw CheckpointCommitException.permanent("Cannot commit checkpoint " + commit.checkpointId() + " to "
                        + store.rootUri() + ": the table has no versions (was it deleted?). The sink writes to an"
                        + " existing table; create it first", e);
            }
            if (changeCheck != null) {
                changeCheck.check(commit, remaining, latest);
            }
            CheckpointOperation.Built built = CheckpointOperation.build(commit, remaining, latest, store,
                    replacedContent, movedRows);
            if (built.operation().isEmpty()) {
                // Every change targets rows that are gone already. If an earlier step landed, that
                // version holds what the checkpoint changed.
                return landedSteps >= 0
                        ? new CommitOutcome(commit.checkpointId(), CommitOutcome.Kind.ALREADY_COMMITTED,
                                newest.orElseThrow().version(), attempt - 1, conflicts)
                        : new CommitOutcome(commit.checkpointId(), CommitOutcome.Kind.NOTHING_TO_COMMIT, 0,
                                attempt - 1, conflicts);
            }
            // The operation is built on the latest version; a row-level statement's transaction
            // still records the version the statement read, as Lance's own writers do.
            Transaction txn = Transaction.of(changeCheck == null ? latest.version() : changeCheck.readVersion(),
                    built.operation().get(), commit.marker().toProperties());
            try {
                Manifest committed = TableCommitter.commit(store, txn, latest.version(), changeCheck == null
                        ? commitOptions : ConcurrentChangeCheck.guard(commitOptions, latest.version()));
                return new CommitOutcome(commit.checkpointId(), CommitOutcome.Kind.COMMITTED, committed.version(),
                        attempt, conflicts);
            } catch (CommitConflictException e) {
                StagedFiles.deleteQuietly(store, built.writtenFiles()); // certainly not published
                if (!e.isRetryable()) {
                    throw new CheckpointCommitException(capitalized(commit.describe()) + " cannot be committed to "
                            + store.rootUri() + ": " + e.getMessage() + ". The job fails so that no change is dropped;"
                            + " resolve the conflicting change, then restart from the last checkpoint", e);
                }
                conflicts++;
                last = e;
                LOG.warn("Attempt {}/{} to commit checkpoint {} to {} hit a retryable conflict: {}", attempt,
                        maxAttempts, commit.checkpointId(), store.rootUri(), e.getMessage());
            } catch (IOException e) {
                // The outcome may be unknown (e.g. a lost response): the next attempt re-checks the
                // marker, and the files stay because the version may reference them.
                last = e;
                LOG.warn("Attempt {}/{} to commit checkpoint {} to {} failed: {}", attempt, maxAttempts,
                        commit.checkpointId(), store.rootUri(), e.toString());
            }
            if (attempt < maxAttempts) {
                sleep(attempt);
            }
        }
        throw new CheckpointCommitException(capitalized(commit.describe()) + " could not be committed to "
                + store.rootUri() + " in " + maxAttempts + " attempts (" + conflicts + " lost to conflicts); last"
                + " error: " + last + ". The job fails so that no change is dropped; a restart retries the commit"
                + " (raise the sink's commit retries if the table is busy)", last);
    }

    private static String capitalized(String s) {
        return s.isEmpty() ? s : Character.toUpperCase(s.charAt(0)) + s.substring(1);
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
