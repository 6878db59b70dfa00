package dev.lanceflink.committer.core;

import dev.lanceflink.io.ObjectStore;
import java.io.IOException;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Refuses a restore from state older than what the sink already committed. Checkpoint ids only
 * grow, also across a restore into a new job, and checkpoint N is committed only after it
 * completed; so after a normal failover the table holds no commit of this sink newer than the
 * restored checkpoint. If it does, the job was restored from an older checkpoint or savepoint, and
 * the rows written since then would be appended a second time.
 */
public final class RestoreCheck {
    private static final Logger LOG = LoggerFactory.getLogger(RestoreCheck.class);

    private RestoreCheck() {}

    /**
     * @throws StaleRestoreException if the table has a commit of {@code commitUser} for a
     *     checkpoint after {@code restoredCheckpointId} and {@code settings} do not allow it
     */
    public static void check(ObjectStore store, String commitUser, long restoredCheckpointId, CommitSettings settings)
            throws IOException {
        Optional<CommittedCheckpointFinder.MarkedVersion> newest =
                new CommittedCheckpointFinder(store).newestCommitOf(commitUser, settings.restoreCheckVersions());
        if (newest.isEmpty() || newest.get().marker().checkpointId() <= restoredCheckpointId) {
            return;
        }
        String message = "The sink was restored from checkpoint " + restoredCheckpointId + ", but version "
                + newest.get().version() + " of " + store.rootUri() + " already holds its commit of checkpoint "
                + newest.get().marker().checkpointId() + " (commit user " + commitUser + ", job "
                + newest.get().marker().jobId() + "). Restoring from older state would append the rows written"
                + " since then a second time. Restore from the newest checkpoint or savepoint instead, or start the"
                + " job without state; to accept the duplicates, set the sink option"
                + " allowRestoreFromOlderState(true)";
        if (settings.allowRestoreFromOlderState()) {
            LOG.warn("{} (allowed by configuration)", message);
            return;
        }
        throw new StaleRestoreException(message);
    }

    /**
     * A restore from state older than the sink's last commit. No restart cures it (each restores
     * the same state): the Flink sink stops the job on it.
     */
    public static final class StaleRestoreException extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        public StaleRestoreException(String message) {
            super(message);
        }
    }
}
