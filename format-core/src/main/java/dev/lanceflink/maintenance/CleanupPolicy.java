package dev.lanceflink.maintenance;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.time.Instant;
import java.util.Set;

/**
 * What {@link TableCleanup} keeps. A version is retained if any rule holds; a file is deleted only
 * if no retained version references it.
 *
 * @param retainVersionsNewerThan keep every version whose commit timestamp is later than
 *     {@code now - retainVersionsNewerThan} (zero keeps none by age)
 * @param retainLastVersions keep the newest this many versions; at least 1, because the latest
 *     version is the table
 * @param unreferencedGrace a file that no manifest references (not even a removed one) may belong
 *     to a write or commit still in flight, e.g. a checkpoint whose commit has not landed; it is
 *     deleted only once its modification time is older than {@code now - unreferencedGrace}. Make
 *     it longer than the longest time between writing a file and committing it (for a Flink sink:
 *     checkpoint interval plus restart time). Lance uses 7 days
 * @param now the reference time for both ages (inject it in tests; {@code Instant.now()} otherwise)
 * @param markerPropertyKey transaction property that names a writer whose last commit must stay
 *     findable (e.g. a Flink sink's {@code flink.commit-user}); for every value of it, the newest
 *     version carrying it is retained. Null disables marker retention
 * @param releasedMarkerValues values of {@code markerPropertyKey} whose writers are gone for good
 *     (a dropped sink), so their last commit no longer needs to be kept
 */
public record CleanupPolicy(
        Duration retainVersionsNewerThan,
        int retainLastVersions,
        Duration unreferencedGrace,
        Instant now,
        String markerPropertyKey,
        Set<String> releasedMarkerValues) {

    /** Lance's own age threshold for files that no manifest references. */
    public static final Duration LANCE_UNVERIFIED_GRACE = Duration.ofDays(7);

    public CleanupPolicy {
        requireNonNull(retainVersionsNewerThan, "retainVersionsNewerThan is null");
        requireNonNull(unreferencedGrace, "unreferencedGrace is null");
        requireNonNull(now, "now is null");
        if (retainVersionsNewerThan.isNegative()) {
            throw new IllegalArgumentException(
                    "retainVersionsNewerThan must not be negative, got " + retainVersionsNewerThan);
        }
        if (unreferencedGrace.isNegative()) {
            throw new IllegalArgumentException("unreferencedGrace must not be negative, got " + unreferencedGrace);
        }
        if (retainLastVersions < 1) {
            throw new IllegalArgumentException("retainLastVersions must be at least 1 (the latest version is the"
                    + " table itself), got " + retainLastVersions);
        }
        if (markerPropertyKey != null && markerPropertyKey.isEmpty()) {
            throw new IllegalArgumentException("markerPropertyKey is empty; use null to disable marker retention");
        }
        releasedMarkerValues =
                Set.copyOf(requireNonNull(releasedMarkerValues, "releasedMarkerValues is null (use Set.of())"));
    }

    /** Versions committed after this instant are retained. */
    public Instant versionCutoff() {
        return now.minus(retainVersionsNewerThan);
    }

    /** Unreferenced files modified before this instant may be deleted. */
    public Instant fileCutoff() {
        return now.minus(unreferencedGrace);
    }
}
