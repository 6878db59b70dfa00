package dev.lanceflink.txn;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.ManifestIO;
import dev.lanceflink.table.ManifestLocation;
import dev.lanceflink.table.VersionNotFoundException;
import dev.lanceflink.table.VersionResolver;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The committed versions of one table and the transactions that produced them, read once and
 * kept: a committed version never changes, and every walk over the history (the commit loop's
 * conflict check, a sink's idempotency and concurrent-change checks, following moved rows) reads
 * the same recent versions again and again. The cache is bounded by a number of versions
 * ({@link #DEFAULT_CAPACITY} unless told otherwise) and by the encoded bytes of the transactions
 * it holds ({@link #DEFAULT_BYTE_BUDGET}), least recently used dropped first: a transaction that
 * lists updated fragments carries their overlays' metadata, so on a table whose fragments pile up
 * overlays each one weighs megabytes, and a count alone let a long-running sink run out of heap.
 * A version that does not exist is not cached (one above the latest may be committed at any
 * moment).
 *
 * <p>Not thread-safe: one instance per committer.
 */
public final class TableHistory {
    /**
     * How far back any walk over the history looks, in versions: a walk that has not found its
     * answer by then gives up (each says what that means for it). Bounds the work of one walk on
     * a table with a long history.
     */
    public static final int WALK_LIMIT = 1000;

    /** Versions kept by default: the longest walk ({@link #WALK_LIMIT}) several times over. */
    public static final int DEFAULT_CAPACITY = 4096;

    /**
     * Encoded transaction bytes kept by default: thousands of a streaming sink's small commits, or
     * a few dozen of the multi-megabyte ones a table without overlay maintenance ends up with.
     */
    public static final long DEFAULT_BYTE_BUDGET = 32L << 20;

    /** What an entry weighs besides its transaction's bytes (the record, its location, the map entry). */
    private static final int ENTRY_OVERHEAD = 256;

    /**
     * One committed version.
     *
     * @param transaction the transaction it records, or empty if it records none
     * @param timestamp when it was committed (its manifest's timestamp)
     * @param liveRows the rows it holds, deleted ones not counted
     */
    public record Committed(
            long version,
            ManifestLocation location,
            Optional<Transaction> transaction,
            Instant timestamp,
            long liveRows) {}

    /** A committed version with its manifest, read for a walk over manifests. */
    public record Loaded(Committed committed, Manifest manifest) {}

    private final ObjectStore store;
    private final int capacity;
    private final long byteBudget;
    /** Access-ordered: the least recently used version first. */
    private final LinkedHashMap<Long, Committed> versions = new LinkedHashMap<>(16, 0.75f, true);

    private final Map<Long, Integer> weights = new HashMap<>();
    private long weight;

    public TableHistory(ObjectStore store) {
        this(store, DEFAULT_CAPACITY);
    }

    public TableHistory(ObjectStore store, int capacity) {
        this(store, capacity, DEFAULT_BYTE_BUDGET);
    }

    /**
     * @param capacity versions kept at most
     * @param byteBudget encoded transaction bytes kept at most (the newest version is kept whatever it weighs)
     */
    public TableHistory(ObjectStore store, int capacity, long byteBudget) {
        this.store = requireNonNull(store, "store is null");
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1, got " + capacity);
        }
        if (byteBudget < 1) {
            throw new IllegalArgumentException("byteBudget must be at least 1, got " + byteBudget);
        }
        this.capacity = capacity;
        this.byteBudget = byteBudget;
    }

    /** Versions the cache holds now. */
    int cachedVersions() {
        return versions.size();
    }

    private void cache(Committed c, int encodedBytes) {
        forget(c.version());
        int w = ENTRY_OVERHEAD + encodedBytes;
        versions.put(c.version(), c);
        weights.put(c.version(), w);
        weight += w;
        Iterator<Long> eldest = versions.keySet().iterator();
        while (versions.size() > 1 && (versions.size() > capacity || weight > byteBudget)) {
            long v = eldest.next();
            eldest.remove();
            weight -= weights.remove(v);
        }
    }

    private void forget(long version) {
        if (versions.remove(version) != null) {
            weight -= weights.remove(version);
        }
    }

    public ObjectStore store() {
        return store;
    }

    /** Version {@code version}, or empty if it does not exist (removed by cleanup, or not committed yet). */
    public Optional<Committed> version(long version) throws IOException {
        Committed known = versions.get(version);
        if (known != null) {
            return Optional.of(known);
        }
        Optional<ManifestLocation> loc = VersionResolver.find(store, version);
        if (loc.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(read(version, loc.get()));
    }

    private Committed read(long version, ManifestLocation loc) throws IOException {
        return load(version, loc).committed();
    }

    private Loaded load(long version, ManifestLocation loc) throws IOException {
        Manifest m = ManifestIO.read(store, loc);
        Committed known = versions.get(version);
        if (known != null && known.location().path().equals(loc.path())) {
            return new Loaded(known, m);
        }
        TransactionStore.Read txn = TransactionStore.readEncoded(store, m);
        Committed c = new Committed(version, loc, txn.transaction(), m.timestamp(), m.countLiveRows());
        cache(c, txn.encodedBytes());
        return new Loaded(c, m);
    }

    /**
     * Every version the store holds now, oldest first: one listing of the versions directory,
     * and each version's manifest and transaction read only if not known yet (so listing a long
     * history again reads only the versions committed since, as far as the cache holds).
     */
    public List<Committed> list() throws IOException {
        List<Committed> out = new ArrayList<>();
        for (ManifestLocation loc : VersionResolver.list(store)) {
            Committed known = versions.get(loc.version());
            out.add(known != null && known.location().path().equals(loc.path()) ? known : read(loc.version(), loc));
        }
        return out;
    }

    /**
     * Version {@code version} with its manifest if it exists now (as {@link #present}): for a walk
     * that compares manifests and needs the transaction too (e.g. a progress report). The manifest
     * is read from the store each time, the transaction only once.
     */
    public Optional<Loaded> load(long version) throws IOException {
        Optional<ManifestLocation> loc = VersionResolver.find(store, version);
        if (loc.isEmpty()) {
            forget(version);
            return Optional.empty();
        }
        return Optional.of(load(version, loc.get()));
    }

    /**
     * Version {@code version} if it exists now. Unlike {@link #version}, which answers a version
     * removed by cleanup from the cache if it was read before, this asks the store (one existence
     * check) every time: for walks that must stop, or skip, where cleanup removed history. The
     * manifest and transaction are still read only once; a version found removed is forgotten.
     */
    public Optional<Committed> present(long version) throws IOException {
        Optional<ManifestLocation> loc = VersionResolver.find(store, version);
        if (loc.isEmpty()) {
            forget(version);
            return Optional.empty();
        }
        Committed known = versions.get(version);
        if (known != null) {
            return Optional.of(known);
        }
        return Optional.of(read(version, loc.get()));
    }

    /**
     * The manifest of a committed version. Manifests are not cached (unlike transactions they
     * grow with the table, and the cache holds thousands of versions); the known location saves
     * looking the version up again.
     */
    public Manifest manifest(Committed version) throws IOException {
        return ManifestIO.read(store, version.location());
    }

    /**
     * The manifest of version {@code version}, read from the store (not cached, as above).
     *
     * @throws VersionNotFoundException if the version does not exist (removed by cleanup, or not
     *     committed yet)
     */
    public Manifest manifest(long version) throws IOException {
        return ManifestIO.read(store, VersionResolver.version(store, version));
    }

    /**
     * The manifest of version {@code version} if it exists now (as {@link #present}), read from the
     * store each time: for walks over manifests (which fragments a version had), which need neither
     * the transaction nor a cache entry.
     */
    public Optional<Manifest> presentManifest(long version) throws IOException {
        Optional<ManifestLocation> loc = VersionResolver.find(store, version);
        if (loc.isEmpty()) {
            forget(version);
            return Optional.empty();
        }
        return Optional.of(ManifestIO.read(store, loc.get()));
    }

    /**
     * The transaction of version {@code version}, or empty if the version does not exist or
     * records no transaction.
     */
    public Optional<Transaction> transaction(long version) throws IOException {
        return version(version).flatMap(Committed::transaction);
    }

    /** The latest version of the table, 0 if it has none. Never cached. */
    public long latestVersion() throws IOException {
        try {
            return VersionResolver.latest(store).version();
        } catch (VersionNotFoundException e) {
            return 0;
        }
    }
}
