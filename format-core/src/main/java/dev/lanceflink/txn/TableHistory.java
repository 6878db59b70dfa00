package dev.lanceflink.txn;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.ManifestIO;
import dev.lanceflink.table.ManifestLocation;
import dev.lanceflink.table.VersionNotFoundException;
import dev.lanceflink.table.VersionResolver;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The committed versions of one table and the transactions that produced them, read once and
 * kept: a committed version never changes, and every walk over the history (the commit loop's
 * conflict check, a sink's idempotency and concurrent-change checks, following moved rows) reads
 * the same recent versions again and again. The cache is bounded ({@link #DEFAULT_CAPACITY}
 * versions unless told otherwise), least recently used dropped first; a version that does not
 * exist is not cached (one above the latest may be committed at any moment).
 *
 * <p>Not thread-safe: one instance per committer.
 */
public final class TableHistory {
    /** Versions kept by default: the longest walk of any checker (1000 versions) several times over. */
    public static final int DEFAULT_CAPACITY = 4096;

    /**
     * One committed version.
     *
     * @param transaction the transaction it records, or empty if it records none
     */
    public record Committed(long version, ManifestLocation location, Optional<Transaction> transaction) {}

    private final ObjectStore store;
    private final Map<Long, Committed> versions;

    public TableHistory(ObjectStore store) {
        this(store, DEFAULT_CAPACITY);
    }

    public TableHistory(ObjectStore store, int capacity) {
        this.store = requireNonNull(store, "store is null");
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1, got " + capacity);
        }
        this.versions = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Long, Committed> eldest) {
                return size() > capacity;
            }
        };
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
        Manifest m = ManifestIO.read(store, loc.get());
        Committed c = new Committed(version, loc.get(), TransactionStore.read(store, m));
        versions.put(version, c);
        return Optional.of(c);
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
