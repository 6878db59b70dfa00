package dev.lanceflink.overlay;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.txn.Operation;
import java.io.IOException;
import java.util.List;

/**
 * Files written for one operation that is not committed yet. A committer (for instance a Flink
 * committer) commits {@link #operation()} in a transaction; if it gives up, {@link #discard}
 * removes the files, which no manifest references.
 *
 * @param operation what to commit
 * @param writtenPaths files written for it, relative to the store root
 */
public record StagedWrite(Operation operation, List<String> writtenPaths) {
    public StagedWrite {
        requireNonNull(operation, "operation is null");
        writtenPaths = List.copyOf(writtenPaths);
    }

    /** Deletes the written files, best effort (unreferenced files are garbage either way). */
    public void discard(ObjectStore store) {
        discard(store, writtenPaths);
    }

    /** Deletes {@code paths}, best effort: files written for an operation that will not be committed. */
    public static void discard(ObjectStore store, List<String> paths) {
        for (String p : paths) {
            try {
                store.delete(p);
            } catch (IOException | RuntimeException ignored) {
                // unreferenced; table cleanup removes it later
            }
        }
    }
}
