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
import dev.lanceflink.flink.sink.writer.LanceSinkWriter;
import java.io.IOException;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessageTypeInfo;
import org.apache.flink.streaming.api.connector.sink2.SupportsPreCommitTopology;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.table.data.RowData;

/**
 * Exactly-once Flink sink (Sink V2) appending {@link RowData} to an existing Lance table. Build it
 * with {@link LanceSinkBuilder}.
 *
 * <p>Topology: parallel {@link LanceSinkWriter}s write new fragments and commit nothing; one
 * {@link LanceWriteAggregator} (parallelism 1, uid {@code lance-commit-aggregator-<suffix>})
 * gathers a checkpoint's fragments and holds the sink's commit user in its state; the
 * {@link LanceCommitter} on subtask 0 commits each checkpoint as one Lance version after the
 * checkpoint completed, skipping what an earlier attempt already committed.
 *
 * <p>Attach it with {@link LanceSinkBuilder#sinkTo}, which also sets the sink's uid. Attached with
 * {@code DataStream.sinkTo} directly, set a uid on the returned sink yourself: Flink requires it
 * because the aggregator has one, and the commit user's state is bound to these uids.
 */
public final class LanceSink implements Sink<RowData>, SupportsCommitter<CheckpointCommit>,
        SupportsPreCommitTopology<WrittenChanges, CheckpointCommit> {
    private static final long serialVersionUID = 1L;

    private final TableLocation table;
    private final long rowsPerFile;
    private final int batchRows;
    private final CommitSettings commitSettings;
    private final String uidSuffix;

    LanceSink(TableLocation table, long rowsPerFile, int batchRows, CommitSettings commitSettings, String uidSuffix) {
        this.table = requireNonNull(table, "table is null");
        this.rowsPerFile = rowsPerFile;
        this.batchRows = batchRows;
        this.commitSettings = requireNonNull(commitSettings, "commitSettings is null");
        this.uidSuffix = requireNonNull(uidSuffix, "uidSuffix is null");
    }

    @Override
    public CommittingSinkWriter<RowData, WrittenChanges> createWriter(WriterInitContext context) throws IOException {
        return new LanceSinkWriter(table, rowsPerFile, batchRows, context.metricGroup());
    }

    @Override
    public Committer<CheckpointCommit> createCommitter(CommitterInitContext context) throws IOException {
        return new LanceCommitter(table, commitSettings, context);
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
        return commitTopology(written, table, commitSettings, uidSuffix);
    }

    /**
     * Routes every writer's results to one {@link LanceWriteAggregator} (parallelism 1) that
     * gathers each checkpoint into one committable for the committer on subtask 0. Shared by the
     * append and the upsert sinks: the aggregator's uid (and the commit user in its state) is
     * {@code lance-commit-aggregator-<suffix>} for both.
     */
    public static DataStream<CommittableMessage<CheckpointCommit>> commitTopology(
            DataStream<CommittableMessage<WrittenChanges>> written, TableLocation table, CommitSettings settings,
            String uidSuffix) {
        return written.global()
                .transform("Lance commit aggregator", CommittableMessageTypeInfo.of(CheckpointCommitSerializer::new),
                        new LanceWriteAggregator(table, settings))
                .uid("lance-commit-aggregator-" + uidSuffix)
                .name("Lance commit aggregator")
                .setParallelism(1)
                .setMaxParallelism(1)
                .global();
    }

    /** The uid suffix of the sink's operators (state of the commit user is bound to it). */
    public String uidSuffix() {
        return uidSuffix;
    }
}
