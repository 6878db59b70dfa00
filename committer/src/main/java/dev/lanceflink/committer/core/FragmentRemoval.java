package dev.lanceflink.committer.core;

import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.txn.Operation;
import dev.lanceflink.txn.TableHistory;
import dev.lanceflink.txn.Transaction;
import dev.lanceflink.txn.TransactionStore;
import java.io.IOException;
import java.util.Optional;

/**
 * Why a fragment the sink's key map points at is missing from the table. Two causes let the sink
 * go on: another writer deleted every row of it ({@code Delete}), so its rows are gone and a
 * deletion wins over any update; or a compaction's {@code Rewrite} moved its rows, which
 * {@link MovedRows} follows. Any other cause (an {@code Update} that moved rows, an
 * {@code Overwrite}) moved or replaced the rows in a way that cannot be followed: updates aimed at
 * the old addresses must not be dropped, so the sink fails with guidance instead.
 */
public final class FragmentRemoval {
    private FragmentRemoval() {}

    /** The version that removed the fragment and its operation, if found. */
    public record Cause(long version, String operation, boolean rowsDeleted) {
        /** True if the operation replaced the whole content rather than moving rows. */
        boolean contentReplaced() {
            return operation.equals("Overwrite") || operation.equals("Restore");
        }
    }

    /**
     * Looks back at most {@link TableHistory#WALK_LIMIT} versions for the last one that still had
     * the fragment; the version after it removed it. Empty if the walk reaches a version removed
     * by cleanup, or its limit, first (unknown).
     */
    public static Optional<Cause> find(TableHistory history, long fragmentId, Manifest latest) throws IOException {
        ObjectStore store = history.store();
        long removedAt = -1;
        for (long v = latest.version() - 1; v >= 1 && v >= latest.version() - TableHistory.WALK_LIMIT; v--) {
            Optional<Manifest> m = history.presentManifest(v);
            if (m.isEmpty()) {
                return Optional.empty(); // history removed by cleanup: unknown
            }
            if (m.get().fragment(fragmentId).isPresent()) {
                removedAt = v + 1;
                break;
            }
        }
        if (removedAt < 0) {
            return Optional.empty();
        }
        Optional<Transaction> known = history.transaction(removedAt);
        // Missing, or without a transaction: read it directly for the precise error.
        Transaction txn = known.isPresent() ? known.get() : TransactionStore.readForVersion(store, removedAt);
        Operation op = txn.operation();
        if (op instanceof Operation.Unknown u) {
            throw CheckpointCommitException.permanent("Fragment " + fragmentId + " is gone: "
                    + u.refusal(
                            removedAt,
                            store.rootUri(),
                            "whether it deleted the fragment's rows or moved them cannot be told, and changes"
                                    + " aimed at that fragment are not committed"));
        }
        return Optional.of(new Cause(removedAt, op.name(), op instanceof Operation.Delete));
    }

    /** True if every row of the fragment was deleted (so changes aimed at it can be dropped). */
    public static boolean rowsWereDeleted(TableHistory history, long fragmentId, Manifest latest, String what)
            throws IOException, CheckpointCommitException {
        ObjectStore store = history.store();
        Optional<Cause> cause = find(history, fragmentId, latest);
        if (cause.isPresent() && cause.get().rowsDeleted()) {
            return true;
        }
        throw CheckpointCommitException.permanent(what + " targets fragment " + fragmentId + ", which version "
                + latest.version() + " of " + store.rootUri() + " no longer has: "
                + cause.map(c -> "version " + c.version() + " (" + c.operation() + ") "
                                + (c.contentReplaced() ? "replaced the table's content" : "moved its rows elsewhere"))
                        .orElse("the versions that removed it are not readable any more")
                + ". The upsert sink's key map points at the old row addresses, so its updates cannot be placed"
                + " (rows moved by fragment compaction are followed; rows moved by another writer's row-rewriting"
                + " update, or a replaced table, are not). To recover, stop the job and start it without state,"
                + " which rebuilds the key map from the table");
    }
}
