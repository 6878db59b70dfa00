package dev.lanceflink.committer.flink;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.committer.core.CheckpointCommit;
import dev.lanceflink.committer.core.CheckpointCommitException;
import dev.lanceflink.committer.core.CheckpointCommitter;
import dev.lanceflink.committer.core.CommitOutcome;
import dev.lanceflink.committer.core.CommitSettings;
import dev.lanceflink.committer.core.TableLocation;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.txn.CommitOptions;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;

/**
 * The Sink V2 committer: commits each checkpoint's {@link CheckpointCommit} as one Lance version,
 * in checkpoint order, through {@link CheckpointCommitter} (which skips what is already committed).
 *
 * <p>All committables are routed to subtask 0; receiving one elsewhere means the topology is
 * wired wrongly and fails fast instead of committing from several places. A checkpoint that
 * cannot be committed fails the job (the committable stays in Flink's state and is retried after
 * the restart); it is never marked failed and dropped. A failure that no restart can cure stops the
 * job instead ({@link SinkStoppedException}).
 *
 * <p>Metrics (group {@code lance}): {@code lastCommittedVersion}, {@code secondsSinceLastCommit},
 * {@code lastCommitDurationMs}, {@code committedCheckpoints}, {@code alreadyCommittedCheckpoints},
 * {@code commitConflicts}, {@code commitRetries}, {@code overlayBoundMerges} (fragments whose overlays a
 * checkpoint's commit merged to keep {@link CommitSettings#maxOverlaysPerFragment()}).
 */
public final class LanceCommitter implements Committer<CheckpointCommit> {
    private final TableLocation table;
    private final int subtask;
    private final ObjectStore store;
    private final CheckpointCommitter committer;
    private final Counter committed;
    private final Counter alreadyCommitted;
    private final Counter conflicts;
    private final Counter retries;
    private volatile long lastCommittedVersion = -1;
    private volatile long lastCommitNanos = System.nanoTime();
    private volatile long lastCommitDurationMs;

    public LanceCommitter(TableLocation table, CommitSettings settings, CommitterInitContext context)
            throws IOException {
        this(table, settings, context.getTaskInfo().getIndexOfThisSubtask(), context.metricGroup());
    }

    LanceCommitter(TableLocation table, CommitSettings settings, int subtask, MetricGroup metrics) throws IOException {
        this.table = requireNonNull(table, "table is null");
        this.subtask = subtask;
        this.store = table.open();
        this.committer = new CheckpointCommitter(
                        store,
                        // The transaction only inline in the manifest (writer flag 32), not also in a
                        // _transactions/*.txn file: a sink commits every checkpoint, and an overlay commit's
                        // transaction holds every new cell's coverage bitmap, so the second copy was a fifth
                        // of what a stream of small updates wrote. Lance readers and writers read the inline
                        // copy first.
                        CommitOptions.defaults().withTransactionStorage(false, true),
                        settings.commitAttempts(),
                        settings.retryBackoff(),
                        settings.readVersion())
                .withMaxOverlaysPerFragment(settings.maxOverlaysPerFragment());
        MetricGroup group = metrics.addGroup("lance");
        this.committed = group.counter("committedCheckpoints");
        this.alreadyCommitted = group.counter("alreadyCommittedCheckpoints");
        this.conflicts = group.counter("commitConflicts");
        this.retries = group.counter("commitRetries");
        group.gauge("lastCommittedVersion", () -> lastCommittedVersion);
        group.gauge("secondsSinceLastCommit", () -> (System.nanoTime() - lastCommitNanos) / 1_000_000_000L);
        group.gauge("lastCommitDurationMs", () -> lastCommitDurationMs);
        group.gauge("overlayBoundMerges", committer::overlayBoundMerges);
    }

    @Override
    public void commit(Collection<CommitRequest<CheckpointCommit>> requests) throws IOException {
        if (requests.isEmpty()) {
            return;
        }
        if (subtask != 0) {
            throw new IllegalStateException("Lance committer subtask " + subtask + " received " + requests.size()
                    + " committables for " + table + "; only subtask 0 may commit. The sink topology is wired"
                    + " wrongly (the pre-commit aggregator must route everything to subtask 0)");
        }
        List<CommitRequest<CheckpointCommit>> ordered = new ArrayList<>(requests);
        ordered.sort(Comparator.comparingLong(r -> r.getCommittable().checkpointId()));
        for (CommitRequest<CheckpointCommit> request : ordered) {
            long start = System.nanoTime();
            // Throws (failing the job) if the checkpoint cannot be committed: later checkpoints
            // must not overtake it, and nothing may be dropped.
            CommitOutcome outcome;
            try {
                outcome = committer.commit(request.getCommittable());
            } catch (CheckpointCommitException e) {
                if (e.restartCannotHelp()) {
                    throw new SinkStoppedException(e);
                }
                throw e;
            }
            conflicts.inc(outcome.conflicts());
            retries.inc(Math.max(0, outcome.attempts() - 1));
            switch (outcome.kind()) {
                case COMMITTED -> {
                    committed.inc();
                    lastCommittedVersion = outcome.version();
                    lastCommitNanos = System.nanoTime();
                    lastCommitDurationMs = (lastCommitNanos - start) / 1_000_000L;
                }
                case ALREADY_COMMITTED -> {
                    alreadyCommitted.inc();
                    lastCommittedVersion = Math.max(lastCommittedVersion, outcome.version());
                    request.signalAlreadyCommitted();
                }
                case NOTHING_TO_COMMIT -> {
                    // an empty checkpoint: no version
                }
            }
        }
    }

    @Override
    public void close() throws IOException {
        store.close();
    }
}
