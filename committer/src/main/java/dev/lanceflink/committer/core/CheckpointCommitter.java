package dev.lanceflink.committer.core;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.committer.core.CommittedCheckpointFinder.MarkedVersion;
import dev.lanceflink.compact.OverlayCompactor;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.ManifestIO;
import dev.lanceflink.table.VersionNotFoundException;
import dev.lanceflink.table.VersionResolver;
import dev.lanceflink.txn.CommitConflictException;
import dev.lanceflink.txn.CommitOptions;
import dev.lanceflink.txn.CommitPlan;
import dev.lanceflink.txn.Operation;
import dev.lanceflink.txn.TableCommitter;
import dev.lanceflink.txn.TableHistory;
import java.io.IOException;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
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
 * <p>The commit is a {@link CommitPlan} of the commit loop ({@link TableCommitter}), the only retry
 * loop: each attempt builds the checkpoint's operation on the latest version and publishes it as
 * exactly the next one; a lost race makes the loop check and build again. A publication whose
 * response was lost is resolved by {@link ResolvingCommitHandler}, or else by the loop, which finds
 * its own transaction. An I/O error, or a run of lost races, costs an attempt, and the loop tries
 * again (re-checking the marker) up to {@code maxAttempts} attempts; then, or on a conflict that is
 * not retryable, a {@link CheckpointCommitException} says why, and nothing of the checkpoint has
 * been dropped.
 *
 * <p>Changes computed from a pinned version (an {@code UPDATE} or row-level {@code DELETE}: the
 * {@code readVersion} constructor argument) are first checked against what other writers
 * committed since that version ({@link ConcurrentChangeCheck}, run by the commit loop on every
 * version after the one the statement read, which the transaction records as its read version),
 * and such a checkpoint fails instead of being rebased onto a change that makes it wrong (a lost
 * update, rows moved by compaction).
 */
public final class CheckpointCommitter {
    private static final Logger LOG = LoggerFactory.getLogger(CheckpointCommitter.class);

    private final ObjectStore store;
    private final CommitOptions commitOptions;
    private final int maxAttempts;
    /** Sink commits wait at most this long between attempts. */
    private static final Duration MAX_RETRY_BACKOFF = Duration.ofSeconds(10);

    /** The transactions every check walks, read once. */
    private final TableHistory history;

    private final CommittedCheckpointFinder finder;
    /** Set when the changes were computed from a pinned version (row-level statements), else null. */
    private final ConcurrentChangeCheck changeCheck;

    private final ReplacedContentCheck replacedContent;
    private final MovedRows movedRows;
    /** See {@link #withMaxOverlaysPerFragment}; 0: no bound. */
    private int maxOverlaysPerFragment;

    private volatile long overlayBoundMerges;

    /**
     * @param maxAttempts attempts per checkpoint before failing (each re-checks the marker)
     * @param retryBackoff bound of the random wait before the second attempt; doubles per attempt,
     *     capped at 10 s
     */
    public CheckpointCommitter(ObjectStore store, CommitOptions commitOptions, int maxAttempts, Duration retryBackoff) {
        this(store, commitOptions, maxAttempts, retryBackoff, 0);
    }

    /**
     * @param readVersion the version the changes were computed from (a row-level statement's
     *     scan), or 0: then each step first fails on conflicting changes committed since
     *     ({@link ConcurrentChangeCheck})
     */
    public CheckpointCommitter(
            ObjectStore store, CommitOptions commitOptions, int maxAttempts, Duration retryBackoff, long readVersion) {
        this.store = requireNonNull(store, "store is null");
        requireNonNull(commitOptions, "commitOptions is null");
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1, got " + maxAttempts);
        }
        requireNonNull(retryBackoff, "retryBackoff is null");
        this.commitOptions = commitOptions
                .withCommitHandler(new ResolvingCommitHandler(commitOptions.commitHandler()))
                .withFailureRetries(new CommitOptions.FailureRetries(maxAttempts, retryBackoff, MAX_RETRY_BACKOFF));
        this.maxAttempts = maxAttempts;
        this.history = new TableHistory(store);
        this.finder = new CommittedCheckpointFinder(history);
        this.changeCheck = readVersion > 0 ? new ConcurrentChangeCheck(history, readVersion) : null;
        this.replacedContent = new ReplacedContentCheck(history);
        this.movedRows = new MovedRows(history);
    }

    /**
     * Bounds the overlays per fragment where they are committed (0, the default: no bound): a
     * checkpoint whose overlays would leave a fragment with more than {@code max} overlays merges
     * all of that fragment's overlays, its own included, into one in the same version ({@link
     * dev.lanceflink.compact.OverlayCompactor#boundOverlays}). A backstop for when the sink's
     * maintenance does not merge them in time; it makes that checkpoint's commit read the
     * fragment's overlays and write one file, and commits a {@code Merge} instead of the plainer
     * operation, which concurrent Lance writers treat as a conflict to retry.
     */
    public CheckpointCommitter withMaxOverlaysPerFragment(int max) {
        if (max < 0) {
            throw new IllegalArgumentException(
                    "max overlays per fragment must not be negative (0 = no bound), got " + max);
        }
        this.maxOverlaysPerFragment = max;
        return this;
    }

    /** Fragments whose overlays committed checkpoints merged to stay within the bound, since this committer was made. */
    public long overlayBoundMerges() {
        return overlayBoundMerges;
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
        CheckpointPlan plan = new CheckpointPlan(commit);
        try {
            Optional<Manifest> committed = TableCommitter.commit(store, plan, history, commitOptions);
            if (committed.isPresent() && !plan.boundMerges.isEmpty()) {
                logBoundMerges(commit, plan, committed.get().version());
            }
            return committed.isPresent()
                    ? new CommitOutcome(
                            commit.checkpointId(),
                            CommitOutcome.Kind.COMMITTED,
                            committed.get().version(),
                            plan.failedAttempts + 1,
                            plan.lostRaces)
                    : plan.outcome.withConflicts(plan.lostRaces);
        } catch (CheckpointCommitException e) {
            plan.discardBuilt(); // refused before its publication
            throw e;
        } catch (CommitConflictException e) {
            // Certainly not published: while a publication is in doubt the loop ends in
            // CommitOutcomeUnknownException instead (below), which keeps the files.
            plan.discardBuilt();
            if (!e.isRetryable()) {
                throw new CheckpointCommitException(
                        capitalized(commit.describe()) + " cannot be committed to "
                                + store.rootUri() + ": " + e.getMessage()
                                + ". The job fails so that no change is dropped;"
                                + " resolve the conflicting change, then restart from the last checkpoint",
                        e);
            }
            throw exhausted(commit, plan, e);
        } catch (IOException e) {
            // The outcome may be unknown (e.g. a lost response): the files stay because the version
            // may reference them, and a restart finds the commit by its marker.
            throw exhausted(commit, plan, e);
        }
    }

    private void logBoundMerges(CheckpointCommit commit, CheckpointPlan plan, long version) {
        overlayBoundMerges += plan.boundMerges.size();
        for (OverlayCompactor.BoundMerge m : plan.boundMerges) {
            LOG.info(
                    "{}: fragment {} would have carried {} overlays, more than the bound of {}; version {} of {}"
                            + " merged them into 1 overlay of {} bytes (built in {} ms). In-job maintenance did not"
                            + " merge them in time",
                    capitalized(commit.describe()),
                    m.fragmentId(),
                    m.overlaysBefore(),
                    maxOverlaysPerFragment,
                    version,
                    store.rootUri(),
                    m.mergedBytes(),
                    plan.boundMergeMillis);
        }
    }

    private CheckpointCommitException exhausted(CheckpointCommit commit, CheckpointPlan plan, IOException last) {
        return new CheckpointCommitException(
                capitalized(commit.describe()) + " could not be committed to "
                        + store.rootUri() + " in " + maxAttempts + " attempts (" + plan.lostRaces
                        + " lost to conflicts);"
                        + " last error: " + last + ". The job fails so that no change is dropped; a restart retries the"
                        + " commit (raise the sink's commit retries if the table is busy)",
                last);
    }

    /**
     * The commit of one checkpoint, as a plan of the commit loop: each attempt's build first looks
     * for the checkpoint's marker (an earlier attempt, or an earlier run of the job, may have
     * committed it already), then checks a row-level statement's changes against every version
     * committed since the statement read, then builds the checkpoint's operation on the latest
     * version. The loop retries store errors and retryable conflicts up to {@code maxAttempts}
     * attempts; a refusal of the sink's own ({@link CheckpointCommitException}) is final.
     */
    private final class CheckpointPlan implements CommitPlan {
        /**
         * A checkpoint's commit is cheap and comes again at the next checkpoint: it lets a
         * compaction of the same table that keeps losing to it land first (CommitGate).
         */
        @Override
        public boolean yieldsToSlowCommits() {
            return true;
        }

        private final CheckpointCommit commit;
        /** Attempts that failed so far (lost races do not count). */
        private int failedAttempts;

        private final long readVersion;
        /** The outcome when the build found nothing to commit. */
        private CommitOutcome outcome;
        /** Files written by the last build, until it is published or given up. */
        private List<String> builtFiles = List.of();

        private int lostRaces;
        private Set<CommitStep> remaining;
        /** The overlay merges of the last build (see {@link #withMaxOverlaysPerFragment}). */
        private List<OverlayCompactor.BoundMerge> boundMerges = List.of();

        private long boundMergeMillis;

        CheckpointPlan(CheckpointCommit commit) throws IOException {
            this.commit = commit;
            Manifest latest;
            try {
                latest = ManifestIO.read(store, VersionResolver.latest(store));
            } catch (VersionNotFoundException e) {
                throw noVersions(e);
            }
            if (changeCheck == null) {
                readVersion = latest.version(); // blind changes read nothing but the version they are built on
            } else {
                readVersion = changeCheck.readVersion();
                if (latest.version() < readVersion) {
                    Set<CommitStep> all = EnumSet.noneOf(CommitStep.class);
                    for (CommitStep step : CommitStep.values()) {
                        if (!commit.isEmpty(step)) {
                            all.add(step);
                        }
                    }
                    changeCheck.check(commit, all, latest); // names the table's older version
                }
            }
        }

        private CheckpointCommitException noVersions(Throwable cause) {
            return CheckpointCommitException.permanent(
                    "Cannot commit checkpoint " + commit.checkpointId() + " to "
                            + store.rootUri() + ": the table has no versions (was it deleted?). The sink writes to an"
                            + " existing table; create it first",
                    cause);
        }

        @Override
        public long readVersion() {
            return readVersion;
        }

        @Override
        public Map<String, String> properties() {
            return commit.marker().toProperties();
        }

        @Override
        public void check(long version, TableHistory history, Manifest latest) throws IOException {
            if (changeCheck != null && remaining != null) {
                changeCheck.check(commit, remaining, version, latest);
            }
        }

        @Override
        public Optional<Operation> build(Manifest latest) throws IOException {
            Optional<MarkedVersion> newest =
                    finder.newestOwnMarker(commit.commitUser(), commit.checkpointId(), commit.baseVersion());
            int landedSteps = -1; // the highest step index of this checkpoint already committed
            if (newest.isPresent() && newest.get().marker().checkpointId() >= commit.checkpointId()) {
                CommitMarker m = newest.get().marker();
                landedSteps = m.checkpointId() > commit.checkpointId() ? CommitMarker.ALL_STEPS : m.step();
            }
            Set<CommitStep> steps = EnumSet.noneOf(CommitStep.class);
            for (CommitStep step : CommitStep.values()) {
                if (step.index() > landedSteps && !commit.isEmpty(step)) {
                    steps.add(step);
                }
            }
            if (steps.isEmpty() || landedSteps == CommitMarker.ALL_STEPS) {
                long version = newest.orElseThrow().version();
                LOG.info(
                        "Checkpoint {} of commit user {} is already committed to {} (version {}); skipping it",
                        commit.checkpointId(),
                        commit.commitUser(),
                        store.rootUri(),
                        version);
                outcome = new CommitOutcome(
                        commit.checkpointId(), CommitOutcome.Kind.ALREADY_COMMITTED, version, failedAttempts, 0);
                return Optional.empty();
            }
            if (changeCheck != null && !steps.equals(remaining)) {
                // The loop checked the versions with the steps it knew; the remaining steps changed
                // (an earlier step landed meanwhile): check them all again.
                changeCheck.check(commit, steps, latest);
            }
            remaining = steps;
            CheckpointOperation.Built built = CheckpointOperation.build(
                    commit, steps, latest, store, replacedContent, movedRows, maxOverlaysPerFragment);
            builtFiles = built.writtenFiles();
            boundMerges = built.boundMerges();
            boundMergeMillis = built.boundMergeMillis();
            if (built.operation().isEmpty()) {
                // Every change targets rows that are gone already. If an earlier step landed, that
                // version holds what the checkpoint changed.
                outcome = landedSteps >= 0
                        ? new CommitOutcome(
                                commit.checkpointId(),
                                CommitOutcome.Kind.ALREADY_COMMITTED,
                                newest.orElseThrow().version(),
                                failedAttempts,
                                0)
                        : new CommitOutcome(
                                commit.checkpointId(), CommitOutcome.Kind.NOTHING_TO_COMMIT, 0, failedAttempts, 0);
            }
            return built.operation();
        }

        @Override
        public boolean mayRetry(IOException failure) {
            return !(failure instanceof CheckpointCommitException) && CommitPlan.super.mayRetry(failure);
        }

        @Override
        public void retrying(int failedAttempts, IOException failure, Operation op, boolean mayBePublished) {
            this.failedAttempts = failedAttempts;
            if (failure instanceof CommitConflictException && !mayBePublished) {
                discardBuilt(); // certainly not published
            } else {
                builtFiles = List.of(); // a version may reference them: keep them
            }
            LOG.warn(
                    "Attempt {}/{} to commit checkpoint {} to {} failed: {}",
                    failedAttempts,
                    maxAttempts,
                    commit.checkpointId(),
                    store.rootUri(),
                    failure.toString());
        }

        @Override
        public void lost(Operation op) {
            lostRaces++;
            discardBuilt(); // another writer took the version: built again on the next one
        }

        void discardBuilt() {
            StagedFiles.deleteQuietly(store, builtFiles);
            builtFiles = List.of();
        }
    }

    private static String capitalized(String s) {
        return s.isEmpty() ? s : Character.toUpperCase(s.charAt(0)) + s.substring(1);
    }
}
