package dev.lanceflink.committer.core;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.io.PutOutcomeUnknownException;
import dev.lanceflink.txn.CommitHandler;
import java.io.IOException;
import java.util.Arrays;
import java.util.Optional;

/**
 * Publishes manifests through another handler and resolves a plain I/O error (such as a
 * connection reset) into a definite outcome by reading the manifest path back:
 * <ul>
 *   <li>our exact bytes are there: the publication landed and its response was lost, so it is a
 *       success (the commit must then not clean up its transaction file, which the manifest
 *       references);
 *   <li>nothing is there: the publication did not land; the original error is rethrown and the
 *       commit is retried;
 *   <li>other bytes are there: another writer won that version ({@code false});
 *   <li>the read-back fails too: {@link PutOutcomeUnknownException}, which the table committer
 *       resolves from the table state.
 * </ul>
 * Without this, a lost response reported as a plain I/O error would make the commit delete the
 * transaction file of a version that did land. The manifest bytes contain the transaction's
 * random UUID, so equal bytes can only come from this very publication.
 */
public final class ResolvingCommitHandler implements CommitHandler {
    private final CommitHandler delegate;

    public ResolvingCommitHandler(CommitHandler delegate) {
        this.delegate = requireNonNull(delegate, "delegate is null");
    }

    @Override
    public boolean publish(ObjectStore store, String manifestPath, byte[] manifest) throws IOException {
        try {
            return delegate.publish(store, manifestPath, manifest);
        } catch (PutOutcomeUnknownException e) {
            throw e;
        } catch (IOException e) {
            Optional<byte[]> there;
            try {
                there = store.exists(manifestPath) ? Optional.of(store.readAll(manifestPath)) : Optional.empty();
            } catch (IOException readBack) {
                e.addSuppressed(readBack);
                throw new PutOutcomeUnknownException(
                        "Publishing " + manifestPath + " in " + store.rootUri()
                                + " failed (" + e.getMessage()
                                + ") and reading it back failed too; the commit's outcome"
                                + " is unknown",
                        e);
            }
            if (there.isEmpty()) {
                throw e;
            }
            return Arrays.equals(there.get(), manifest);
        }
    }
}
