package dev.lanceflink.flink.table;

import dev.lanceflink.io.ForwardingObjectStore;
import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.io.ObjectStoreProvider;
import dev.lanceflink.io.RangeReader;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Test store for {@code manifestreads://<local path>} tables: a local store that records every
 * read of a manifest ({@code _versions/*.manifest}), with the reading thread. The record is static
 * because Flink serializes the source and sink and opens stores inside its tasks (all in this JVM
 * with a MiniCluster); tests {@link #reset()} it.
 */
public final class ManifestReadsStoreProvider implements ObjectStoreProvider {
    static final String SCHEME = "manifestreads";

    /** One manifest read: the path below the table root and the thread that read it. */
    record Read(String path, String thread) {}

    private static final ConcurrentLinkedQueue<Read> READS = new ConcurrentLinkedQueue<>();

    static void reset() {
        READS.clear();
    }

    static List<Read> reads() {
        return List.copyOf(READS);
    }

    @Override
    public Set<String> schemes() {
        return Set.of(SCHEME);
    }

    @Override
    public ObjectStore open(String uri, Map<String, String> storageOptions) {
        return new Recording(new LocalObjectStore(Path.of(uri.substring((SCHEME + "://").length()))));
    }

    private static final class Recording extends ForwardingObjectStore {
        Recording(ObjectStore delegate) {
            super(delegate);
        }

        private static void record(String path) {
            if (path.endsWith(".manifest")) {
                READS.add(new Read(path, Thread.currentThread().getName()));
            }
        }

        @Override
        public byte[] readAll(String path) throws IOException {
            record(path);
            return super.readAll(path);
        }

        @Override
        public RangeReader openReader(String path) throws IOException {
            record(path);
            return super.openReader(path);
        }

        @Override
        public RangeReader openReader(String path, long knownSize) throws IOException {
            record(path);
            return super.openReader(path, knownSize);
        }

        @Override
        public ObjectStore openAt(String uri) throws IOException {
            return uri.startsWith(SCHEME + "://")
                    ? new ManifestReadsStoreProvider().open(uri, Map.of())
                    : super.openAt(uri);
        }
    }
}
