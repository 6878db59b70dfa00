package dev.lanceflink.it.s3;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.io.ObjectInfo;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.io.PutOutcomeUnknownException;
import dev.lanceflink.io.RangeReader;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Iterator;
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
final class LostCommitResponseStore implements ObjectStore {
    private final ObjectStore delegate;
    private final AtomicInteger toLose = new AtomicInteger();
    private final AtomicReference<String> unreachable = new AtomicReference<>();

    LostCommitResponseStore(ObjectStore delegate) {
        this.delegate = requireNonNull(delegate, "delegate is null");
    }

    /** The next {@code n} successful manifest publications report an error instead. */
    void loseNextCommitResponses(int n) {
        toLose.set(n);
    }

    @Override
    public boolean putIfAbsent(String path, byte[] content) throws IOException {
        boolean created = delegate.putIfAbsent(path, content);
        if (created && path.endsWith(".manifest") && toLose.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            unreachable.set(path);
            throw new PutOutcomeUnknownException("Simulated: connection reset while reading the response to the"
                    + " conditional PUT of " + path + " (the object was created)", new IOException("connection reset"));
        }
        return created;
    }

    @Override
    public String rootUri() {
        return delegate.rootUri();
    }

    @Override
    public byte[] readAll(String path) throws IOException {
        return delegate.readAll(path);
    }

    @Override
    public RangeReader openReader(String path) throws IOException {
        return delegate.openReader(path);
    }

    @Override
    public Optional<ObjectInfo> head(String path) throws IOException {
        String pending = unreachable.get();
        if (path.equals(pending) && unreachable.compareAndSet(pending, null)) { // CAS compares identity
            throw new IOException("Simulated: the store is unreachable (HEAD " + path + ")");
        }
        return delegate.head(path);
    }

    @Override
    public OutputStream create(String path) throws IOException {
        return delegate.create(path);
    }

    @Override
    public void put(String path, byte[] content) throws IOException {
        delegate.put(path, content);
    }

    @Override
    public Iterator<ObjectInfo> list(String directory) throws IOException {
        return delegate.list(directory);
    }

    @Override
    public Iterator<ObjectInfo> listRecursive(String prefix) throws IOException {
        return delegate.listRecursive(prefix);
    }

    @Override
    public void delete(String path) throws IOException {
        delegate.delete(path);
    }

    @Override
    public void close() throws IOException {
        delegate.close();
    }
}
