package dev.lanceflink.committer.core;

import static java.util.Objects.requireNonNull;

import java.io.Serializable;
import java.time.Duration;

/**
 * How the sink commits; serializable so it travels in the job graph.
 *
 * @param commitAttempts attempts per checkpoint before the job fails (lost races against other
 *     writers are checked and built again inside one attempt and do not count)
 * @param retryBackoff bound of the random wait before the second attempt, doubling per attempt
 * @param allowRestoreFromOlderState accept a restore from a checkpoint or savepoint older than
 *     the sink's last commit to the table (normally refused: its uncommitted data would be
 *     written again on top of what later checkpoints already committed)
 * @param restoreCheckVersions how many of the newest versions the restore check reads to find
 *     the sink's last commit
 * @param readVersion the table version a row-level statement ({@code UPDATE}, row-level
 *     {@code DELETE}) read, or 0 for none: then every commit first fails on changes other writers
 *     committed since that version to the rows it changes ({@link ConcurrentChangeCheck})
 * @param maxOverlaysPerFragment the hard bound on overlays per fragment (0: none): a checkpoint
 *     whose overlays would leave a fragment with more merges that fragment's overlays into one in
 *     the same commit ({@link CheckpointCommitter}). Set from the in-job maintenance settings: a
 *     backstop for when maintenance's own merges fall behind
 */
public record CommitSettings(
        int commitAttempts,
        Duration retryBackoff,
        boolean allowRestoreFromOlderState,
        int restoreCheckVersions,
        long readVersion,
        int maxOverlaysPerFragment)
        implements Serializable {
    private static final long serialVersionUID = 1L;

    public CommitSettings {
        if (commitAttempts < 1) {
            throw new IllegalArgumentException("commitAttempts must be at least 1, got " + commitAttempts);
        }
        requireNonNull(retryBackoff, "retryBackoff is null");
        if (retryBackoff.isNegative()) {
            throw new IllegalArgumentException("retryBackoff must not be negative, got " + retryBackoff);
        }
        if (restoreCheckVersions < 1) {
            throw new IllegalArgumentException("restoreCheckVersions must be at least 1, got " + restoreCheckVersions);
        }
        if (readVersion < 0) {
            throw new IllegalArgumentException("readVersion must not be negative (0 = none), got " + readVersion);
        }
        if (maxOverlaysPerFragment < 0) {
            throw new IllegalArgumentException(
                    "maxOverlaysPerFragment must not be negative (0 = no bound), got " + maxOverlaysPerFragment);
        }
    }

    /** Settings without a bound on overlays per fragment. */
    public CommitSettings(
            int commitAttempts,
            Duration retryBackoff,
            boolean allowRestoreFromOlderState,
            int restoreCheckVersions,
            long readVersion) {
        this(commitAttempts, retryBackoff, allowRestoreFromOlderState, restoreCheckVersions, readVersion, 0);
    }

    /** Settings without a pinned read version. */
    public CommitSettings(
            int commitAttempts, Duration retryBackoff, boolean allowRestoreFromOlderState, int restoreCheckVersions) {
        this(commitAttempts, retryBackoff, allowRestoreFromOlderState, restoreCheckVersions, 0);
    }

    /** 10 attempts from 200 ms, stale restores refused, the newest 1000 versions checked. */
    public static CommitSettings defaults() {
        return new CommitSettings(10, Duration.ofMillis(200), false, 1000);
    }

    public CommitSettings withCommitAttempts(int n) {
        return new CommitSettings(
                n, retryBackoff, allowRestoreFromOlderState, restoreCheckVersions, readVersion, maxOverlaysPerFragment);
    }

    public CommitSettings withRetryBackoff(Duration d) {
        return new CommitSettings(
                commitAttempts,
                d,
                allowRestoreFromOlderState,
                restoreCheckVersions,
                readVersion,
                maxOverlaysPerFragment);
    }

    public CommitSettings withAllowRestoreFromOlderState(boolean allow) {
        return new CommitSettings(
                commitAttempts, retryBackoff, allow, restoreCheckVersions, readVersion, maxOverlaysPerFragment);
    }

    /** Pins the version a row-level statement read (0 = none); see {@link #readVersion()}. */
    public CommitSettings withReadVersion(long version) {
        return new CommitSettings(
                commitAttempts,
                retryBackoff,
                allowRestoreFromOlderState,
                restoreCheckVersions,
                version,
                maxOverlaysPerFragment);
    }

    /** Bounds the overlays per fragment (0: no bound); see {@link #maxOverlaysPerFragment()}. */
    public CommitSettings withMaxOverlaysPerFragment(int max) {
        return new CommitSettings(
                commitAttempts, retryBackoff, allowRestoreFromOlderState, restoreCheckVersions, readVersion, max);
    }
}
