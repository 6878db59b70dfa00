package dev.lanceflink.txn;

import dev.lanceflink.table.Manifest;
import java.io.IOException;
import java.util.Map;
import java.util.Optional;

/**
 * A change whose operation each commit attempt builds on the latest version, for {@link
 * TableCommitter#commit(dev.lanceflink.io.ObjectStore, CommitPlan, TableHistory, CommitOptions)}:
 * a writer that re-targets its change at whatever version it commits on (a sink checkpoint, a
 * compaction), and that must first check the change against what other writers committed since
 * it read the table.
 *
 * <p>Each attempt: the latest version is read; {@link #check} sees the transaction of every
 * version after {@link #readVersion()} up to it; {@link #build} makes the operation on it; the
 * manifest is published as exactly the next version. Another writer publishing first starts a new
 * attempt, after a {@link Backoff}, which checks the new versions too. So what was checked is
 * exactly what the change is committed on.
 */
public interface CommitPlan {

    /** The version the writer read: recorded as the transaction's {@code read_version}. */
    long readVersion();

    /** Properties of the transaction (e.g. a sink's commit marker). */
    default Map<String, String> properties() {
        return Map.of();
    }

    /**
     * Checks one version committed after {@link #readVersion()} (in ascending order, up to
     * {@code latest}) against the change; throws to fail the commit. The version is read through
     * {@code history} (cached: every attempt checks every concurrent version again, as the change
     * it builds may differ). {@link TableHistory#version} is empty for a version that no longer
     * exists.
     */
    default void check(long version, TableHistory history, Manifest latest) throws IOException {}

    /**
     * The operation to commit on {@code latest}, or empty if nothing is left to commit (the
     * commit then ends without a new version). Throw to fail the commit.
     */
    Optional<Operation> build(Manifest latest) throws IOException;

    /**
     * Called when another writer published the version an attempt built {@code op} for: the loop
     * checks and builds again. Files written only for {@code op} may be deleted. (A commit that
     * fails is not reported here: whoever called the loop decides about its files, by the
     * exception: after a {@link CommitConflictException} nothing of the commit was published;
     * after any other failure it may have been, or may still be.)
     */
    default void lost(Operation op) {}

    /**
     * Whether an attempt that failed with {@code failure} may be tried again, when {@link
     * CommitOptions#failureRetries()} leaves attempts: by default store errors and retryable
     * conflicts may, conflicts that are not retryable may not. A plan whose check or build throws
     * an {@link IOException} that another attempt cannot cure says so here.
     */
    default boolean mayRetry(IOException failure) {
        return TableCommitter.retryableFailure(failure);
    }

    /**
     * Called before the commit tries again after {@code failure} ({@link #mayRetry}): the
     * {@code failedAttempts}-th failed attempt. {@code op} is the operation that attempt built, or
     * null; if {@code mayBePublished}, a publication of this commit had an unknown outcome and may
     * still land, so files written for it must be kept.
     */
    default void retrying(int failedAttempts, IOException failure, Operation op, boolean mayBePublished) {}

    /**
     * Whether each attempt first waits while a slow commit of the same table in this JVM holds
     * its {@link CommitGate} (at most {@link CommitGate#MAX_WAIT}): a streaming sink's frequent,
     * cheap commits would otherwise win every race against it.
     */
    default boolean yieldsToSlowCommits() {
        return false;
    }

    /**
     * After this many races lost in a row the commit holds its table's {@link CommitGate} for its
     * remaining attempts, so that commits that {@linkplain #yieldsToSlowCommits() yield} let it
     * land; 0 (the default) never holds it.
     */
    default int holdsGateAfterLostRaces() {
        return 0;
    }
}
