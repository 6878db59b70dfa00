package dev.lanceflink.committer.core;

import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.txn.TableHistory;
import dev.lanceflink.txn.Transaction;
import java.io.IOException;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Answers "is this checkpoint already committed?" by reading the {@link CommitMarker}s of
 * committed versions, newest first. Every walk is bounded: by the version a change was computed
 * against (nothing before it can contain the change) or by an explicit version count.
 *
 * <p>Versions are read through a {@link TableHistory}, once per committer.
 *
 * <p>A version inside the walk that no longer exists (removed by version cleanup) makes the
 * answer unknowable; that is an error, never a guess, because guessing "not committed" would
 * duplicate rows and guessing "committed" would lose them.
 */
public final class CommittedCheckpointFinder {
    private final ObjectStore store;
    private final TableHistory history;

    public CommittedCheckpointFinder(ObjectStore store) {
        this(new TableHistory(store));
    }

    /** A finder reading the versions through {@code history} (shared with the other checks of a committer). */
    public CommittedCheckpointFinder(TableHistory history) {
        this.store = history.store();
        this.history = history;
    }

    /** A committed version and the marker it carries. */
    public record MarkedVersion(long version, CommitMarker marker) {}

    /**
     * The version that committed {@code marker}'s (user, checkpoint, step), searching the versions
     * after {@code afterVersion} up to the latest: a version with the same or a later marker of
     * the user (see {@link #newestOwnMarker}), or empty.
     */
    public OptionalLong findCommit(CommitMarker marker, long afterVersion) throws IOException {
        Optional<MarkedVersion> newest = newestOwnMarker(marker.commitUser(), marker.checkpointId(), afterVersion);
        if (newest.isEmpty()) {
            return OptionalLong.empty();
        }
        CommitMarker m = newest.get().marker();
        int order = Long.compare(m.checkpointId(), marker.checkpointId());
        if (order == 0) {
            order = Integer.compare(m.step(), marker.step());
        }
        return order >= 0 ? OptionalLong.of(newest.get().version()) : OptionalLong.empty();
    }

    /**
     * The newest version after {@code afterVersion} that carries a marker of {@code commitUser},
     * or empty if none does.
     *
     * <p>One commit user commits its checkpoints, and the steps of each, strictly in order. So
     * this newest marker tells how far the user got: a later checkpoint means checkpoint
     * {@code checkpointId} was committed (or had nothing to commit) before it; the same checkpoint
     * tells which of its steps landed. That is why versions removed by cleanup are skipped: table
     * cleanup keeps each commit user's newest marked version. If the walk finds no marker of the
     * user while some versions in the range are missing, the answer is unknowable and that is an
     * error.
     *
     * @param checkpointId the checkpoint asked about, for the error message
     */
    public Optional<MarkedVersion> newestOwnMarker(String commitUser, long checkpointId, long afterVersion)
            throws IOException {
        long latest = latestVersion();
        long missing = -1;
        for (long v = latest; v > afterVersion; v--) {
            Optional<TableHistory.Committed> c = history.version(v);
            if (c.isEmpty()) {
                missing = v;
                continue;
            }
            Optional<CommitMarker> m = markerAt(c.get());
            if (m.isPresent() && m.get().commitUser().equals(commitUser)) {
                return Optional.of(new MarkedVersion(v, m.get()));
            }
        }
        if (missing >= 0) {
            throw new IllegalStateException("Cannot tell whether checkpoint " + checkpointId + " (commit user "
                    + commitUser + ") was already committed to " + store.rootUri() + ": version " + missing
                    + ", one of the versions after " + afterVersion + " that may hold it, no longer exists, and no"
                    + " later version carries a commit of this sink (removed by a version cleanup that does not keep"
                    + " the sink's last commit?). Committing again could duplicate rows, so the sink stops. Clean up"
                    + " with `lance-flink compact --mode cleanup`, which keeps it; to resume, restore the job from a"
                    + " newer checkpoint or start it without state");
        }
        return Optional.empty();
    }

    /**
     * The newest commit of {@code commitUser} among the latest {@code maxVersions} versions, or
     * empty if none of them carries its marker. Versions already removed by cleanup end the walk
     * (this is a best-effort safety check, not an idempotency decision).
     */
    public Optional<MarkedVersion> newestCommitOf(String commitUser, int maxVersions) throws IOException {
        long latest = latestVersion();
        for (long v = latest; v > 0 && v > latest - maxVersions; v--) {
            Optional<TableHistory.Committed> c = history.version(v);
            if (c.isEmpty()) {
                return Optional.empty();
            }
            Optional<CommitMarker> m = markerAt(c.get());
            if (m.isPresent() && m.get().commitUser().equals(commitUser)) {
                return Optional.of(new MarkedVersion(v, m.get()));
            }
        }
        return Optional.empty();
    }

    /** The latest version of the table, 0 if it has none. */
    public long latestVersion() throws IOException {
        return history.latestVersion();
    }

    private Optional<CommitMarker> markerAt(TableHistory.Committed c) {
        Optional<Transaction> txn = c.transaction();
        if (txn.isEmpty()) {
            return Optional.empty();
        }
        return CommitMarker.fromProperties(txn.get().properties(), "version " + c.version() + " of " + store.rootUri());
    }
}
