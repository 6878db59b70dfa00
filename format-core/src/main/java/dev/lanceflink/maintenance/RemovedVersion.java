package dev.lanceflink.maintenance;

import static java.util.Objects.requireNonNull;

import java.time.Instant;

/**
 * A version whose manifest a plan deletes.
 *
 * @param manifestPath relative to the table root
 * @param timestamp commit time from the manifest, or null if it has none
 */
public record RemovedVersion(long version, String manifestPath, long sizeBytes, Instant timestamp) {
    public RemovedVersion {
        requireNonNull(manifestPath, "manifestPath is null");
    }
}
