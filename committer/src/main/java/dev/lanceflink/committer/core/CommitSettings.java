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
 */
public record CommitSettings(
        int commitAttempts,
        Duration retryBackoff,
        boolean allowRestoreFromOlderState,
        int restoreCheckVersions,
        long readVersion)
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
        return new CommitSettings(n, retryBackoff, allowRestoreFromOlderState, restoreCheckVersions, readVersion);
    }

    public CommitSettings withRetryBackoff(Duration d) {
        return new CommitSettings(commitAttempts, d, allowRestoreFromOlderState, restoreCheckVersions, readVersion);
    }

    public CommitSettings withAllowRestoreFromOlderState(boolean allow) {
        return new CommitSettings(commitAttempts, retryBackoff, allow, restoreCheckVersions, readVersion);
    }

    /** Pins the version a row-level statement read (0 = none); see {@link #readVersion()}. */
    public CommitSettings withReadVersion(long version) {
        return new CommitSettings(
                commitAttempts, retryBackoff, allowRestoreFromOlderState, restoreCheckVersions, version);
    }
}
