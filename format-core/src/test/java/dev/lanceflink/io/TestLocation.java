package dev.lanceflink.io;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.util.Map;

/**
 * A fresh, empty table location of a test: the URI a user would write and the Lance storage
 * options that reach it (empty for the local file system; endpoint and keys for S3).
 *
 * @param uri a local path or an {@code s3://bucket/prefix} URI
 * @param storageOptions Lance storage option keys ({@code aws_endpoint}, ...), never null
 */
public record TestLocation(String uri, Map<String, String> storageOptions) {

    public TestLocation {
        requireNonNull(uri, "uri is null");
        storageOptions = Map.copyOf(storageOptions);
    }

    /** Opens a store rooted at this location, as {@link ObjectStores#open} does for users. */
    public ObjectStore openStore() throws IOException {
        return ObjectStores.open(uri, storageOptions);
    }

    @Override
    public String toString() {
        return uri;
    }
}
