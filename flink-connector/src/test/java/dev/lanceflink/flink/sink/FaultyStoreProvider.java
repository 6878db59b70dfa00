package dev.lanceflink.flink.sink;

import dev.lanceflink.io.ForwardingObjectStore;
import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.io.ObjectStoreProvider;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Test store for {@code faulty://<local path>} tables: a local store whose manifest publications
 * (the commit points) can be made to fail before writing, to write and then lose the response, or
 * to write and then crash the committer.
 * The controls are static because Flink serializes the sink and opens stores inside its tasks;
 * tests reset them with {@link #reset()}.
 */
public final class FaultyStoreProvider implements ObjectStoreProvider {
    public static final AtomicInteger FAIL_BEFORE_PUBLISH = new AtomicInteger();
    public static final AtomicInteger LOSE_PUBLISH_RESPONSE = new AtomicInteger();
    public static final AtomicInteger CRASH_AFTER_PUBLISH = new AtomicInteger();
    public static final AtomicInteger INJECTED = new AtomicInteger();

    public static void reset() {
        FAIL_BEFORE_PUBLISH.set(0);
        LOSE_PUBLISH_RESPONSE.set(0);
        CRASH_AFTER_PUBLISH.set(0);
        INJECTED.set(0);
    }

    @Override
    public Set<String> schemes() {
        return Set.of("faulty");
    }

    @Override
    public ObjectStore open(String uri, Map<String, String> storageOptions) {
        String inner = uri.substring("faulty://".length());
        try {
            // faulty://s3://bucket/t wraps the S3 store; faulty:///local/path a local one.
            return new FaultyStore(inner.contains("://") ? dev.lanceflink.io.ObjectStores.open(inner, storageOptions)
                    : new LocalObjectStore(Path.of(inner)));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static boolean take(AtomicInteger budget) {
        return budget.getAndUpdate(n -> Math.max(0, n - 1)) > 0;
    }

    private static final class FaultyStore extends ForwardingObjectStore {
        FaultyStore(ObjectStore delegate) {
            super(delegate);
        }

        @Override
        public boolean putIfAbsent(String path, byte[] content) throws IOException {
            boolean manifest = path.startsWith("_versions/") && path.endsWith(".manifest");
            if (manifest && take(FAIL_BEFORE_PUBLISH)) {
                INJECTED.incrementAndGet();
                throw new IOException("injected: connection refused before publishing " + path);
            }
            boolean created = delegate().putIfAbsent(path, content);
            if (manifest && created && take(CRASH_AFTER_PUBLISH)) {
                INJECTED.incrementAndGet();
                // Not an I/O error: the committer task dies with the version already published.
                throw new IllegalStateException("injected: committer crashed after publishing " + path);
            }
            if (manifest && take(LOSE_PUBLISH_RESPONSE)) {
                INJECTED.incrementAndGet();
                throw new IOException("injected: connection reset after publishing " + path);
            }
            return created;
        }
    }
}
