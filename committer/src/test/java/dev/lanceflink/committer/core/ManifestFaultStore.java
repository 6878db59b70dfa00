package dev.lanceflink.committer.core;

import dev.lanceflink.io.ForwardingObjectStore;
import dev.lanceflink.io.ObjectInfo;
import dev.lanceflink.io.ObjectStore;
import java.io.IOException;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A test store that fails manifest publications (the commit point) on demand: either before the
 * manifest is written, or after it was written with the response lost (a plain I/O error, as a
 * dropped connection gives), optionally with the read-back of that manifest failing too.
 * Everything else passes through.
 */
final class ManifestFaultStore extends ForwardingObjectStore {
    private final AtomicInteger failBefore = new AtomicInteger();
    private final AtomicInteger loseResponse = new AtomicInteger();
    private final AtomicInteger publications = new AtomicInteger();
    private final AtomicInteger readBacksToFail = new AtomicInteger();
    private final AtomicInteger failReadBack = new AtomicInteger();
    private volatile String lostPath;
    private volatile IoAction beforeNextPublication;

    /** Something a test runs against the store. */
    interface IoAction {
        void run() throws IOException;
    }

    ManifestFaultStore(ObjectStore delegate) {
        super(delegate);
    }

    /** The next {@code n} manifest publications fail without writing anything. */
    void failNextPublications(int n) {
        failBefore.set(n);
    }

    /** The next {@code n} manifest publications are applied, then report an I/O error. */
    void loseNextResponses(int n) {
        loseResponse.set(n);
    }

    /**
     * After the next lost response, the next {@code n} existence checks of that manifest fail too
     * (the store is down for a moment), so the committer cannot tell whether it committed.
     */
    void failReadBacksAfterLostResponse(int n) {
        readBacksToFail.set(n);
    }

    /**
     * Runs {@code action} (e.g. another writer's commit) once, right before the next manifest
     * publication, so that the publication loses the race to it.
     */
    void beforeNextPublication(IoAction action) {
        beforeNextPublication = action;
    }

    int publications() {
        return publications.get();
    }

    @Override
    public boolean putIfAbsent(String path, byte[] content) throws IOException {
        if (path.startsWith("_versions/") && path.endsWith(".manifest")) {
            IoAction before = beforeNextPublication;
            if (before != null) {
                beforeNextPublication = null;
                before.run();
            }
            if (failBefore.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                throw new IOException("injected: connection refused before publishing " + path);
            }
            boolean created = delegate().putIfAbsent(path, content);
            if (created) {
                publications.incrementAndGet();
            }
            if (loseResponse.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                lostPath = path;
                failReadBack.set(readBacksToFail.getAndSet(0));
                throw new IOException("injected: connection reset after publishing " + path);
            }
            return created;
        }
        return delegate().putIfAbsent(path, content);
    }

    @Override
    public Optional<ObjectInfo> head(String path) throws IOException {
        if (path.equals(lostPath) && failReadBack.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            throw new IOException("injected: store unavailable reading " + path);
        }
        return delegate().head(path);
    }
}
