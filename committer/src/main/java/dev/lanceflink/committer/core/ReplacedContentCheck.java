package dev.lanceflink.committer.core;

import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.txn.Operation;
import dev.lanceflink.txn.TableHistory;
import dev.lanceflink.txn.Transaction;
import java.io.IOException;
import java.util.Optional;

/**
 * Fails a deletion or overlay step whose targets were located in content that another writer has
 * since replaced ({@code Overwrite}, e.g. an {@code INSERT OVERWRITE}, or {@code Restore}).
 *
 * <p>Why a separate check, decided by the operations in the transaction history rather than by
 * fragment ids: an overwrite by Lance 14 (or this library) gives its fragments new ids after the
 * table's {@code max_fragment_id}, but a {@code Restore} brings back the ids of an older version,
 * and a writer that does not keep {@code max_fragment_id} may number an overwrite's fragments from
 * 0 again. Then a key map entry "fragment 0, offset 7" may well resolve in the new content, to an
 * unrelated row, and the deletion or overlay would silently hit it. {@link FragmentRemoval} only
 * notices targets whose fragment id is gone. Lance's own conflict check does not help either: each
 * step is built against the latest version, so an overwrite committed before that is not
 * concurrent to it.
 *
 * <p>Which versions are checked: those after the newest version this sink (commit user) committed
 * for an earlier checkpoint, or, if it has none among the latest {@value TableHistory#WALK_LIMIT}
 * versions, those after the version the checkpoint's changes were gathered at. The sink located its targets
 * after it started and saw the table up to its own previous commit, so a replacement in that range
 * certainly happened under its feet; one before it may have been seen by the sink's key map (a
 * job started on the overwritten table), which must not fail. Not detected: a replacement that
 * landed after the key map was built but before the sink's newest earlier commit, when that
 * commit only appended rows (appends are compatible with it, and the walk stops at the commit).
 */
final class ReplacedContentCheck {

    private final ObjectStore store;
    /** Transactions by version, read once (committed versions never change), shared with the other checks. */
    private final TableHistory history;

    ReplacedContentCheck(ObjectStore store) {
        this(new TableHistory(store));
    }

    ReplacedContentCheck(TableHistory history) {
        this.store = history.store();
        this.history = history;
    }

    /**
     * @param what the step's changes, for the message ("The deletions of checkpoint 7 (...)")
     * @throws CheckpointCommitException naming the replacing version, if the content was replaced
     */
    void check(CheckpointCommit commit, Manifest latest, String what) throws IOException {
        for (long v = latest.version(); v > 0 && v > latest.version() - TableHistory.WALK_LIMIT; v--) {
            Optional<Transaction> txn = transactionAt(v);
            if (txn.isEmpty()) {
                return; // history removed by cleanup (or never recorded): nothing provable
            }
            Optional<CommitMarker> marker = marker(txn.get(), v, store);
            if (isEarlierOwnCommit(marker, commit)) {
                return; // the sink's own earlier commit: what came before, it had seen
            }
            Operation op = txn.get().operation();
            // An operation of a newer Lance may have replaced the content too: judged like one that did.
            if (op instanceof Operation.Overwrite
                    || op instanceof Operation.Restore
                    || op instanceof Operation.Unknown) {
                if (v > commit.baseVersion() || ownCommitBelow(commit, v, latest.version()) > 0) {
                    throw replaced(what, v, op, marker);
                }
                return; // before the sink's changes were gathered and with no own commit since: seen at start
            }
        }
    }

    /**
     * The newest version below {@code below} committed by this sink for an earlier checkpoint, or -1 if none is
     * found within the walk (then nothing after it is known to be after the sink's start).
     */
    private long ownCommitBelow(CheckpointCommit commit, long below, long latest) throws IOException {
        for (long v = below - 1; v > 0 && v > latest - TableHistory.WALK_LIMIT; v--) {
            Optional<Transaction> txn = transactionAt(v);
            if (txn.isEmpty()) {
                return -1;
            }
            if (isEarlierOwnCommit(marker(txn.get(), v, store), commit)) {
                return v;
            }
        }
        return -1;
    }

    /**
     * A commit of this sink for an earlier checkpoint. The earlier steps of the same checkpoint do
     * not count: its targets were located before them.
     */
    private static boolean isEarlierOwnCommit(Optional<CommitMarker> marker, CheckpointCommit commit) {
        return marker.isPresent()
                && marker.get().commitUser().equals(commit.commitUser())
                && marker.get().checkpointId() != commit.checkpointId();
    }

    private Optional<Transaction> transactionAt(long version) throws IOException {
        return history.transaction(version);
    }

    private static Optional<CommitMarker> marker(Transaction txn, long version, ObjectStore store) {
        try {
            return CommitMarker.fromProperties(txn.properties(), "version " + version + " of " + store.rootUri());
        } catch (IllegalStateException malformed) {
            return Optional.empty(); // not provably this sink's: checked like any other writer's
        }
    }

    private CheckpointCommitException replaced(String what, long version, Operation op, Optional<CommitMarker> marker) {
        if (op instanceof Operation.Unknown u) {
            return CheckpointCommitException.permanent(what + " locates rows by fragment id and offset, but "
                    + u.refusal(
                            version,
                            store.rootUri(),
                            "whether it replaced the table's content after this sink"
                                    + " located them cannot be told, and nothing of this step is committed"));
        }
        return CheckpointCommitException.permanent(what + " locates rows by fragment id and offset, but version "
                + version
                + " of " + store.rootUri() + " (" + describe(op) + ", committed by "
                + marker.map(m -> "Flink sink " + m.commitUser()).orElse("another writer") + ") replaced the table's"
                + " content after this sink located them. The located fragment ids may name other rows in the new"
                + " content (a Restore brings old ids back), so the changes could hit unrelated rows; nothing of this"
                + " step is committed. The sink's key map describes the old content: stop the job and start it without"
                + " state, which rebuilds the key map from the table");
    }

    private static String describe(Operation op) {
        return op instanceof Operation.Restore r ? "Restore to version " + r.version() : op.name();
    }
}
