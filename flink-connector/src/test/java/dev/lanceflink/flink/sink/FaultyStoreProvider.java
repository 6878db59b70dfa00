package dev.lanceflink.flink.sink;

import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.io.ObjectStoreProvider;
import dev.lanceflink.io.ObjectStores;
import dev.lanceflink.io.PublicationFaultStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;

/**
 * Test store for {@code faulty://<local path>} tables: a {@link PublicationFaultStore} whose
 * manifest publications (the commit points) can be made to fail before writing, to write and then
 * lose the response, or to write and then crash the committer.
 * The budgets ({@link #FAULTS}) are static because Flink serializes the sink and opens stores
 * inside its tasks; tests reset them with {@link #reset()}.
 */
public final class FaultyStoreProvider implements ObjectStoreProvider {
    public static final PublicationFaultStore.Faults FAULTS = new PublicationFaultStore.Faults();

    public static void reset() {
        FAULTS.reset();
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
            return new PublicationFaultStore(
                    inner.contains("://")
                            ? ObjectStores.open(inner, storageOptions)
                            : new LocalObjectStore(Path.of(inner)),
                    FAULTS);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
