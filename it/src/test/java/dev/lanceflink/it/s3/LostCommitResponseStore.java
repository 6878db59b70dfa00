package dev.lanceflink.it.s3;

import dev.lanceflink.io.ForwardingObjectStore;
import dev.lanceflink.io.ObjectInfo;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.io.PutOutcomeUnknownException;
import java.io.IOException;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A store wrapper for the worst case a caller can meet: the manifest PUT of a commit is applied,
 * its response is lost ({@link PutOutcomeUnknownException}, as the store contract prescribes),
 * and the store is then unreachable for the committer's check of that manifest (its HEAD fails).
 * The committer cannot resolve the outcome, so the operation fails although its version exists.
 * A correct library keeps every file that version references; a correct caller finds its commit
 * before redoing it (a blind retry would apply the change twice).
 */
final class LostCommitResponseStore extends ForwardingObjectStore {
    private final AtomicInteger toLose = new AtomicInteger();
    private final AtomicReference<String> unreachable = new AtomicReference<>();

    LostCommitResponseStore(ObjectStore delegate) {
        super(delegate);
    }

    /** The next {@code n} successful manifest publications report an error instead. */
    void loseNextCommitResponses(int n) {
        toLose.set(n);
    }

    @Override
    public boolean putIfAbsent(String path, byte[] content) throws IOException {
        boolean created = delegate().putIfAbsent(path, content);
        if (created && path.endsWith(".manifest") && toLose.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            unreachable.set(path);
            throw new PutOutcomeUnknownException("Simulated: connection reset while reading the response to the"
                    + " conditional PUT of " + path + " (the object was created)", new IOException("connection reset"));
        }
        return created;
    }

    @Override
    public Optional<ObjectInfo> head(String path) throws IOException {
        String pending = unreachable.get();
        if (path.equals(pending) && unreachable.compareAndSet(pending, null)) { // CAS compares identity
            throw new IOException("Simulated: the store is unreachable (HEAD " + path + ")");
        }
        return delegate().head(path);
    }
}
