package dev.lanceflink.flink.sink;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.committer.core.CheckpointCommit;
import dev.lanceflink.committer.core.CommitSettings;
import dev.lanceflink.committer.core.TableLocation;
import dev.lanceflink.committer.core.WrittenChanges;
import dev.lanceflink.committer.flink.CheckpointCommitSerializer;
import dev.lanceflink.committer.flink.LanceCommitter;
import dev.lanceflink.committer.flink.LanceWriteAggregator;
import dev.lanceflink.committer.flink.WrittenChangesSerializer;
import dev.lanceflink.flink.sink.maintenance.LanceMaintenanceOperator;
import dev.lanceflink.flink.sink.maintenance.MaintenanceSettings;
import java.io.IOException;
import java.time.Duration;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessageTypeInfo;
import org.apache.flink.streaming.api.connector.sink2.SupportsPostCommitTopology;
import org.apache.flink.streaming.api.connector.sink2.SupportsPreCommitTopology;
import org.apache.flink.streaming.api.datastream.DataStream;

/**
 * The commit half shared by the append and the upsert sinks: writers' {@link WrittenChanges} go
 * to one {@link LanceWriteAggregator} (parallelism 1, uid {@code lance-commit-aggregator-<suffix>},
 * holding the commit user in its state), whose per-checkpoint {@link CheckpointCommit} the
 * {@link LanceCommitter} on subtask 0 commits exactly once. Subclasses provide the writer. An
 * overwriting sink ({@code INSERT OVERWRITE}, batch only) commits everything at the end of its
 * input as one Lance {@code Overwrite}.
 *
 * <p>With maintenance on ({@link #maintenance(MaintenanceSettings)}), a
 * {@link LanceMaintenanceOperator} after the committer (parallelism 1, uid
 * {@code lance-maintenance-<suffix>}) keeps the table healthy from the committed checkpoints,
 * on its own thread; without it the post-commit topology is empty.
 *
 * @param <IN> what the writers consume
 */
public abstract class CommittingLanceSink<IN>
        implements Sink<IN>,
                SupportsCommitter<CheckpointCommit>,
                SupportsPreCommitTopology<WrittenChanges, CheckpointCommit>,
                SupportsPostCommitTopology<CheckpointCommit> {
    private static final long serialVersionUID = 1L;

    protected final TableLocation table;
    protected final CommitSettings commitSettings;
    private final String uidSuffix;
    private final boolean overwrite;
    private final boolean rewriteRows;
    private MaintenanceSettings maintenance = MaintenanceSettings.disabled();

    /** A sink whose commits add to the table. */
    protected CommittingLanceSink(TableLocation table, CommitSettings commitSettings, String uidSuffix) {
        this(table, commitSettings, uidSuffix, false);
    }

    /**
     * @param overwrite replace the table's content with what the writers wrote, in one commit at
     *     the end of a bounded input
     */
    protected CommittingLanceSink(
            TableLocation table, CommitSettings commitSettings, String uidSuffix, boolean overwrite) {
        this(table, commitSettings, uidSuffix, overwrite, false);
    }

    /**
     * @param rewriteRows the writers' deletions are the old versions of rows they write again
     *     ({@link UpdateMode#REWRITE_ROWS}): each checkpoint commits both as one Lance
     *     {@code Update}
     */
    protected CommittingLanceSink(
            TableLocation table,
            CommitSettings commitSettings,
            String uidSuffix,
            boolean overwrite,
            boolean rewriteRows) {
        this.table = requireNonNull(table, "table is null");
        this.commitSettings = requireNonNull(commitSettings, "commitSettings is null");
        this.uidSuffix = requireNonNull(uidSuffix, "uidSuffix is null");
        this.overwrite = overwrite;
        this.rewriteRows = rewriteRows;
    }

    @Override
    public Committer<CheckpointCommit> createCommitter(CommitterInitContext context) throws IOException {
        // The hard bound on overlays per fragment is enforced by the commits themselves, beside the
        // maintenance operator's asynchronous merges (MaintenanceSettings#effectiveHardMaxOverlays).
        int bound = overwrite ? 0 : maintenance.effectiveHardMaxOverlays();
        return new LanceCommitter(table, commitSettings.withMaxOverlaysPerFragment(bound), context);
    }

    @Override
    public SimpleVersionedSerializer<CheckpointCommit> getCommittableSerializer() {
        return new CheckpointCommitSerializer();
    }

    @Override
    public SimpleVersionedSerializer<WrittenChanges> getWriteResultSerializer() {
        return new WrittenChangesSerializer();
    }

    @Override
    public DataStream<CommittableMessage<CheckpointCommit>> addPreCommitTopology(
            DataStream<CommittableMessage<WrittenChanges>> written) {
        return written.global()
                .transform(
                        "Lance commit aggregator",
                        CommittableMessageTypeInfo.of(CheckpointCommitSerializer::new),
                        new LanceWriteAggregator(table, commitSettings, overwrite, rewriteRows))
                .uid("lance-commit-aggregator-" + uidSuffix)
                .name("Lance commit aggregator")
                .setParallelism(1)
                .setMaxParallelism(1)
                .global();
    }

    @Override
    public void addPostCommitTopology(DataStream<CommittableMessage<CheckpointCommit>> committed) {
        if (!maintenance.enabled()) {
            return;
        }
        // Checked here rather than where the sink is built: every way of attaching the sink (the
        // builder's build() and sinkTo, SQL) passes through this point with the job's checkpoint
        // configuration at hand.
        long interval =
                committed.getExecutionEnvironment().getCheckpointConfig().getCheckpointInterval();
        maintenance.checkAgainstCheckpointInterval(Duration.ofMillis(Math.max(0, interval)));
        committed
                .global()
                .transform("Lance maintenance", Types.VOID, new LanceMaintenanceOperator(table, maintenance, uidSuffix))
                .uid("lance-maintenance-" + uidSuffix)
                .name("Lance maintenance")
                .setParallelism(1)
                .setMaxParallelism(1);
    }

    /** Sets the in-job maintenance (default: off); call before the job is built. */
    public void maintenance(MaintenanceSettings settings) {
        this.maintenance = requireNonNull(settings, "settings is null");
    }

    /** The in-job maintenance settings. */
    public MaintenanceSettings maintenance() {
        return maintenance;
    }

    /** True if the sink replaces the table's content instead of adding to it. */
    public boolean overwrite() {
        return overwrite;
    }

    /** The uid suffix of the sink's operators (state of the commit user is bound to it). */
    public String uidSuffix() {
        return uidSuffix;
    }
}
