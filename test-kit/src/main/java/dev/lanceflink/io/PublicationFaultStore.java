package dev.lanceflink.io;

import java.io.IOException;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A store that fails manifest publications ({@code putIfAbsent} of {@code _versions/*.manifest},
 * the commit point) on demand, counted down from budgets in {@link Faults}; every other call
 * passes through. Where {@link FaultInjectingObjectStore} draws faults per operation from a seed,
 * this one aims at exactly the commit point, which is what committer tests need:
 * <ul>
 *   <li>{@link Faults#failNextPublications}: the publication fails before writing anything;
 *   <li>{@link Faults#loseNextResponses}: it is applied, then its response is lost (a plain I/O
 *       error as a dropped connection gives, or with {@link Faults#reportLostResponsesAsUnknown}
 *       the {@link PutOutcomeUnknownException} the store contract prescribes when a store cannot
 *       tell), optionally with the read-back of that manifest failing too
 *       ({@link Faults#failReadBacksAfterLostResponse});
 *   <li>{@link Faults#crashAfterNextPublications}: it is applied, then the caller dies (not an I/O
 *       error: a committer task crashing with the version published);
 *   <li>{@link Faults#holdNextPublications}: it is not applied yet, and the caller gets the
 *       {@link PutOutcomeUnknownException} of a store that cannot tell; the request is still in
 *       flight, and {@link #landHeld()} applies it later (after the caller looked and found
 *       nothing, or gave up);
 *   <li>{@link Faults#beforeNextPublication}: something runs right before the next publication
 *       (e.g. another writer's commit, so that the publication loses the race).
 * </ul>
 * Several stores may share one {@link Faults}: a Flink sink opens its stores inside its tasks, so
 * a test reaches them only through one shared (static) instance.
 */
public final class PublicationFaultStore extends ForwardingObjectStore {
    private final Faults faults;

    /** A store with budgets of its own, all zero. */
    public PublicationFaultStore(ObjectStore delegate) {
        this(delegate, new Faults());
    }

    public PublicationFaultStore(ObjectStore delegate, Faults faults) {
        super(delegate);
        this.faults = faults;
    }

    public Faults faults() {
        return faults;
    }

    /** Shorthand for {@code faults().failNextPublications(n)}. */
    public void failNextPublications(int n) {
        faults.failNextPublications(n);
    }

    /** Shorthand for {@code faults().loseNextResponses(n)}. */
    public void loseNextResponses(int n) {
        faults.loseNextResponses(n);
    }

    /** Shorthand for {@code faults().failReadBacksAfterLostResponse(n)}. */
    public void failReadBacksAfterLostResponse(int n) {
        faults.failReadBacksAfterLostResponse(n);
    }

    /** Shorthand for {@code faults().beforeNextPublication(action)}. */
    public void beforeNextPublication(IoAction action) {
        faults.beforeNextPublication(action);
    }

    /** Shorthand for {@code faults().holdNextPublications(n)}. */
    public void holdNextPublications(int n) {
        faults.holdNextPublications(n);
    }

    /**
     * Applies the last publication held back ({@link Faults#holdNextPublications}): the request
     * that was still in flight lands now. Returns whether it created its manifest (false if the
     * version was taken meanwhile).
     *
     * @throws IllegalStateException if no publication is held
     */
    public boolean landHeld() throws IOException {
        Held held = faults.held;
        if (held == null) {
            throw new IllegalStateException("no publication is held");
        }
        faults.held = null;
        boolean created = delegate().putIfAbsent(held.path(), held.content());
        if (created) {
            faults.publications.incrementAndGet();
        }
        return created;
    }

    /** Manifests this store (or another sharing its {@link Faults}) created. */
    public int publications() {
        return faults.publications.get();
    }

    private static boolean isManifest(String path) {
        return path.startsWith("_versions/") && path.endsWith(".manifest");
    }

    private static boolean take(AtomicInteger budget) {
        return budget.getAndUpdate(n -> Math.max(0, n - 1)) > 0;
    }

    @Override
    public boolean putIfAbsent(String path, byte[] content) throws IOException {
        if (!isManifest(path)) {
            return delegate().putIfAbsent(path, content);
        }
        IoAction before = faults.beforeNextPublication;
        if (before != null) {
            faults.beforeNextPublication = null;
            before.run();
        }
        if (take(faults.failBefore)) {
            faults.injected.incrementAndGet();
            throw new IOException("injected: connection refused before publishing " + path);
        }
        if (take(faults.hold)) {
            faults.injected.incrementAndGet();
            faults.held = new Held(path, content.clone());
            throw new PutOutcomeUnknownException(
                    "injected: no response for " + path + " (the request is still in flight)",
                    new IOException("read timed out"));
        }
        boolean created = delegate().putIfAbsent(path, content);
        if (created) {
            faults.publications.incrementAndGet();
        }
        if (created && take(faults.crashAfter)) {
            faults.injected.incrementAndGet();
            // Not an I/O error: the committer dies with the version already published.
            throw new IllegalStateException("injected: committer crashed after publishing " + path);
        }
        if (take(faults.loseResponse)) {
            faults.injected.incrementAndGet();
            faults.lostPath = path;
            faults.failReadBack.set(faults.readBacksToFail.getAndSet(0));
            String message = "injected: connection reset after publishing " + path;
            if (faults.lostResponsesUnknown) {
                throw new PutOutcomeUnknownException(
                        message + " (created=" + created + ")", new IOException("connection reset"));
            }
            throw new IOException(message);
        }
        return created;
    }

    @Override
    public Optional<ObjectInfo> head(String path) throws IOException {
        if (path.equals(faults.lostPath) && take(faults.failReadBack)) {
            throw new IOException("injected: the store is unreachable (HEAD " + path + ")");
        }
        return delegate().head(path);
    }

    private record Held(String path, byte[] content) {}

    /** Something a test runs against the store. */
    public interface IoAction {
        void run() throws IOException;
    }

    /** The fault budgets of one or more {@link PublicationFaultStore}s; thread-safe. */
    public static final class Faults {
        private final AtomicInteger failBefore = new AtomicInteger();
        private final AtomicInteger loseResponse = new AtomicInteger();
        private final AtomicInteger crashAfter = new AtomicInteger();
        private final AtomicInteger hold = new AtomicInteger();
        private volatile Held held;
        private final AtomicInteger readBacksToFail = new AtomicInteger();
        private final AtomicInteger failReadBack = new AtomicInteger();
        private final AtomicInteger publications = new AtomicInteger();
        private final AtomicInteger injected = new AtomicInteger();
        private volatile boolean lostResponsesUnknown;
        private volatile String lostPath;
        private volatile IoAction beforeNextPublication;

        /** All budgets and counters back to zero, lost responses as plain I/O errors. */
        public void reset() {
            failBefore.set(0);
            loseResponse.set(0);
            crashAfter.set(0);
            hold.set(0);
            held = null;
            readBacksToFail.set(0);
            failReadBack.set(0);
            publications.set(0);
            injected.set(0);
            lostResponsesUnknown = false;
            lostPath = null;
            beforeNextPublication = null;
        }

        /** The next {@code n} manifest publications fail without writing anything. */
        public Faults failNextPublications(int n) {
            failBefore.set(n);
            return this;
        }

        /** The next {@code n} manifest publications are applied, then report an error. */
        public Faults loseNextResponses(int n) {
            loseResponse.set(n);
            return this;
        }

        /**
         * Lost responses are reported as {@link PutOutcomeUnknownException} (a store that cannot
         * tell whether its conditional PUT applied) rather than as a plain I/O error.
         */
        public Faults reportLostResponsesAsUnknown() {
            lostResponsesUnknown = true;
            return this;
        }

        /**
         * After the next lost response, the next {@code n} existence checks of that manifest fail
         * too (the store is down for a moment), so the committer cannot tell whether it committed.
         */
        public Faults failReadBacksAfterLostResponse(int n) {
            readBacksToFail.set(n);
            return this;
        }

        /**
         * The next {@code n} manifest publications are held back: not applied, reported as
         * {@link PutOutcomeUnknownException}. The last one held lands when the test calls
         * {@link PublicationFaultStore#landHeld()}.
         */
        public Faults holdNextPublications(int n) {
            hold.set(n);
            return this;
        }

        /** The next {@code n} manifest publications that create their manifest then crash the caller. */
        public Faults crashAfterNextPublications(int n) {
            crashAfter.set(n);
            return this;
        }

        /**
         * Runs {@code action} (e.g. another writer's commit) once, right before the next manifest
         * publication, so that the publication loses the race to it.
         */
        public Faults beforeNextPublication(IoAction action) {
            beforeNextPublication = action;
            return this;
        }

        /** Faults still to inject: publications that will fail, crash, lose their response or be held. */
        public int pending() {
            return failBefore.get() + loseResponse.get() + crashAfter.get() + hold.get();
        }

        /** Faults injected so far: failed, crashed, lost or held publications. */
        public int injected() {
            return injected.get();
        }
    }
}
