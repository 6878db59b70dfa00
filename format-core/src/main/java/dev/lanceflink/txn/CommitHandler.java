package dev.lanceflink.txn;

import dev.lanceflink.io.ObjectStore;
import java.io.IOException;

/**
 * Publishes a manifest: the commit point of a table version. Must be atomic and must never replace
 * an existing manifest (a rename-over or plain PUT would silently discard a concurrent commit).
 */
@FunctionalInterface
public interface CommitHandler {

    /**
     * @return true if this call created {@code manifestPath}, false if a manifest already exists there
     * @throws dev.lanceflink.io.PutOutcomeUnknownException if the store cannot tell; the committer
     *     then checks whether the manifest that exists is its own
     */
    boolean publish(ObjectStore store, String manifestPath, byte[] manifest) throws IOException;

    /** The default: the store's atomic create-if-absent (hard link locally, conditional PUT on S3). */
    CommitHandler PUT_IF_ABSENT = ObjectStore::putIfAbsent;
}
