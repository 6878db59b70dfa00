package dev.lanceflink.io;

import static java.util.Objects.requireNonNull;

/**
 * One object of a listing or a head request.
 *
 * @param path key relative to the store root
 * @param size size in bytes
 * @param lastModifiedMillis modification time, epoch milliseconds (0 if unknown)
 */
public record ObjectInfo(String path, long size, long lastModifiedMillis) {
    public ObjectInfo {
        requireNonNull(path, "path is null");
    }

    /** The last path segment. */
    public String name() {
        int slash = path.lastIndexOf('/');
        return slash < 0 ? path : path.substring(slash + 1);
    }
}
