package dev.lanceflink.committer.flink;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.committer.core.CheckpointCommit;
import dev.lanceflink.committer.core.CommitSettings;
import dev.lanceflink.committer.core.CommittedCheckpointFinder;
import dev.lanceflink.committer.core.RestoreCheck;
import dev.lanceflink.committer.core.TableLocation;
import dev.lanceflink.committer.core.TargetedDeletion;
import dev.lanceflink.committer.core.TargetedOverlay;
import dev.lanceflink.committer.core.WrittenChanges;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.table.Fragment;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.CommittableSummary;
import org.apache.flink.streaming.api.connector.sink2.CommittableWithLineage;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pre-commit step (parallelism 1): gathers every writer's {@link WrittenChanges} of a
 * checkpoint into one {@link CheckpointCommit}, so the committer commits each checkpoint as one
 * unit (one version per kind of change). It also owns the sink's identity: the commit user, created once and kept in operator
 * state so that it survives restores, also into a new job id.
 *
 * <p>All writers' results of checkpoint N arrive before N's barrier (writers emit them in
 * {@code prepareSnapshotPreBarrier}), so the commit is emitted in this operator's own
 * {@code prepareSnapshotPreBarrier(N)}, labelled N, and lands in the committer's state of
 * checkpoint N. At the end of a bounded input, whatever is still gathered is emitted in
 * {@link #endInput()}.
 *
 * <p>An overwriting sink ({@code INSERT OVERWRITE}) commits exactly once, at the end of its
 * bounded input, everything its writers wrote as one {@code Overwrite}: the commit is emitted even
 * when no writer wrote a row, because replacing the content with nothing empties the table. A
 * checkpoint before the end of input means streaming execution, where each checkpoint would
 * replace the rows of the one before; that fails the job instead.
 */
public final class LanceWriteAggregator extends AbstractStreamOperator<CommittableMessage<CheckpointCommit>>
        implements OneInputStreamOperator<CommittableMessage<WrittenChanges>, CommittableMessage<CheckpointCommit>>,
                BoundedOneInput {
    /** Its own logger, not the inherited one of Flink's operator base class: users configure {@code dev.lanceflink}. */
    private static final Logger LOG = LoggerFactory.getLogger(LanceWriteAggregator.class);

    private static final long serialVersionUID = 1L;

    private final TableLocation table;
    private final CommitSettings settings;
    private final boolean overwrite;
    private final boolean rewriteRows;

    private transient ListState<String> commitUserState;
    private transient String commitUser;
    private transient ObjectStore store;
    /** Results per checkpoint id, not yet emitted. */
    private transient TreeMap<Long, List<WrittenChanges>> gathered;
    /** Label of the last emitted commit (-1: none since this operator started). */
    private transient long lastEmittedCheckpoint;
    /** True once the input ended (an overwrite has then emitted its one commit). */
    private transient boolean inputEnded;

    /** An aggregator of changes that add to the table. */
    public LanceWriteAggregator(TableLocation table, CommitSettings settings) {
        this(table, settings, false);
    }

    /**
     * @param overwrite commit everything written, at the end of the input, as one overwrite of the
     *     table's content (batch execution only)
     */
    public LanceWriteAggregator(TableLocation table, CommitSettings settings, boolean overwrite) {
        this(table, settings, overwrite, false);
    }

    /**
     * @param rewriteRows the writers' deletions are the old versions of rows they wrote again
     *     (the sink's rewrite-rows update mode): each checkpoint commits them with the new rows as
     *     one row-moving update ({@link CheckpointCommit#rewriteRows()})
     */
    public LanceWriteAggregator(TableLocation table, CommitSettings settings, boolean overwrite, boolean rewriteRows) {
        this.table = requireNonNull(table, "table is null");
        this.settings = requireNonNull(settings, "settings is null");
        if (overwrite && rewriteRows) {
            throw new IllegalArgumentException("An overwriting sink for " + table + " replaces every row and rewrites"
                    + " none; overwrite and rewriteRows exclude each other");
        }
        this.overwrite = overwrite;
        this.rewriteRows = rewriteRows;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        gathered = new TreeMap<>();
        lastEmittedCheckpoint = context.getRestoredCheckpointId().orElse(-1L);
        commitUserState = context.getOperatorStateStore()
                .getListState(new ListStateDescriptor<>("lance-commit-user", StringSerializer.INSTANCE));
        Iterator<String> restored = commitUserState.get().iterator();
        boolean userRestored = restored.hasNext();
        commitUser = userRestored ? restored.next() : UUID.randomUUID().toString();
        commitUserState.update(List.of(commitUser));
        store = table.open();
        if (context.isRestored() && context.getRestoredCheckpointId().isPresent()) {
            if (!userRestored) {
                LOG.warn(
                        "The Lance sink for {} was restored from checkpoint {} without a commit user in its state"
                                + " (was its uid changed?); it commits as the new commit user {} and cannot recognise commits"
                                + " made before the restore",
                        table,
                        context.getRestoredCheckpointId().getAsLong(),
                        commitUser);
            }
            try {
                RestoreCheck.check(
                        store, commitUser, context.getRestoredCheckpointId().getAsLong(), settings);
            } catch (RestoreCheck.StaleRestoreException e) {
                throw new SinkStoppedException(e); // every restart would restore the same old state
            }
        }
        LOG.info("Lance sink for {} commits as commit user {}", table, commitUser);
    }

    @Override
    public void processElement(StreamRecord<CommittableMessage<WrittenChanges>> element) {
        if (element.getValue() instanceof CommittableWithLineage<WrittenChanges> written) {
            gathered.computeIfAbsent(written.getCheckpointId(), id -> new ArrayList<>())
                    .add(written.getCommittable());
        }
        // Summaries carry only counts; the gathered results are complete when the barrier arrives.
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        super.prepareSnapshotPreBarrier(checkpointId);
        if (overwrite) {
            if (!inputEnded) {
                throw new IllegalStateException("The overwriting Lance sink for " + table + " got checkpoint "
                        + checkpointId + " before the end of its input: an overwrite commits once, at the end of a"
                        + " bounded input, and each checkpoint would replace the rows of the one before. Run the"
                        + " job in BATCH execution mode (execution.runtime-mode: batch), or append instead of"
                        + " overwriting");
            }
            return; // the one commit was emitted at the end of the input
        }
        emit(gathered.headMap(checkpointId, true), checkpointId);
    }

    @Override
    public void endInput() throws Exception {
        inputEnded = true;
        if (!gathered.isEmpty()) {
            emit(gathered, Math.max(gathered.lastKey(), lastEmittedCheckpoint + 1));
        } else if (overwrite) {
            emit(gathered, lastEmittedCheckpoint + 1); // no rows at all: the overwrite empties the table
        }
    }

    /**
     * Emits {@code ready} as one commit labelled {@code checkpointId}, which is always above every
     * label emitted before: the (commit user, checkpoint) marker must name exactly one commit, or
     * a second commit under a used label would be taken for the first and skipped. Results that
     * arrive after their own checkpoint's barrier (possible with unaligned checkpoints) therefore
     * travel with the next checkpoint instead of reusing their old label.
     */
    private void emit(Map<Long, List<WrittenChanges>> ready, long checkpointId) throws Exception {
        if (ready.isEmpty() && !overwrite) {
            return;
        }
        if (checkpointId <= lastEmittedCheckpoint) {
            throw new IllegalStateException("Lance commit aggregator for " + table + " would emit checkpoint "
                    + checkpointId + " after checkpoint " + lastEmittedCheckpoint + "; checkpoint ids must grow");
        }
        List<Fragment> fragments = new ArrayList<>();
        List<TargetedOverlay> overlays = new ArrayList<>();
        List<TargetedDeletion> deletions = new ArrayList<>();
        long rows = 0;
        long cells = 0;
        long bytes = 0;
        // Results of older checkpoints first: their overlays must be applied before newer ones.
        for (List<WrittenChanges> results : ready.values()) {
            for (WrittenChanges w : results) {
                fragments.addAll(w.fragments());
                overlays.addAll(w.overlays());
                deletions.addAll(w.deletions());
                rows += w.rows();
                cells += w.cells();
                bytes += w.bytes();
            }
        }
        ready.clear();
        if (fragments.isEmpty() && overlays.isEmpty() && deletions.isEmpty() && !overwrite) {
            return;
        }
        long baseVersion = new CommittedCheckpointFinder(store).latestVersion();
        String jobId = getRuntimeContext().getJobInfo().getJobId().toString();
        CheckpointCommit commit = new CheckpointCommit(
                commitUser,
                jobId,
                checkpointId,
                baseVersion,
                fragments,
                overlays,
                deletions,
                rows,
                cells,
                bytes,
                overwrite,
                rewriteRows);
        output.collect(new StreamRecord<>(new CommittableSummary<>(0, 1, checkpointId, 1, 0)));
        output.collect(new StreamRecord<>(new CommittableWithLineage<>(commit, checkpointId, 0)));
        lastEmittedCheckpoint = checkpointId;
    }

    @Override
    public void close() throws Exception {
        try {
            if (store != null) {
                store.close();
            }
        } finally {
            super.close();
        }
    }
}
