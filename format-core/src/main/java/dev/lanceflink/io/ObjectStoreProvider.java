package dev.lanceflink.io;

import java.io.IOException;
import java.util.Map;
import java.util.Set;

/**
 * Opens stores for one URI scheme. Implementations are found with {@link java.util.ServiceLoader}
 * (s3-store registers {@code s3}); {@code file} and plain paths are built in.
 */
public interface ObjectStoreProvider {

    /** URI schemes handled, lower case, e.g. {@code "s3"}. */
    Set<String> schemes();

    /**
     * Opens a store rooted at {@code uri}.
     *
     * @param storageOptions Lance's storage option keys ({@code aws_endpoint}, ...)
     */
    ObjectStore open(String uri, Map<String, String> storageOptions) throws IOException;
}
