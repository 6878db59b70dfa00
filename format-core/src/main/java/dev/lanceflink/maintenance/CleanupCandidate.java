package dev.lanceflink.maintenance;

import static java.util.Objects.requireNonNull;

/**
 * One file a plan deletes.
 *
 * @param path relative to the table root, e.g. {@code data/0101…ab.lance}
 * @param sizeBytes size from the listing
 * @param lastModifiedMillis modification time from the listing, epoch ms (0 if the store did not say)
 */
public record CleanupCandidate(
        String path, CleanupFileKind kind, CleanupReason reason, long sizeBytes, long lastModifiedMillis) {
    public CleanupCandidate {
        requireNonNull(path, "path is null");
        requireNonNull(kind, "kind is null");
        requireNonNull(reason, "reason is null");
    }
}
