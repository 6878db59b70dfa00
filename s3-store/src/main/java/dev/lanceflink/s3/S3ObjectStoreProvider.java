package dev.lanceflink.s3;

import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.io.ObjectStoreProvider;
import java.io.IOException;
import java.util.Map;
import java.util.Set;

/**
 * Opens {@link S3ObjectStore}s for {@code s3://} (and Hadoop-style {@code s3a://}) URIs; registered
 * in {@code META-INF/services/dev.lanceflink.io.ObjectStoreProvider}. Settings come from the
 * storage options, then the {@code AWS_*} environment variables ({@link S3StoreConfig}).
 */
public final class S3ObjectStoreProvider implements ObjectStoreProvider {

    @Override
    public Set<String> schemes() {
        return Set.of("s3", "s3a");
    }

    @Override
    public ObjectStore open(String uri, Map<String, String> storageOptions) throws IOException {
        try {
            S3StoreConfig config = S3StoreConfig.fromOptionsAndEnvironment(storageOptions);
            return S3ObjectStore.open(uri, config);
        } catch (IllegalArgumentException e) {
            throw new IOException("Cannot open " + uri + ": " + e.getMessage(), e);
        }
    }
}
