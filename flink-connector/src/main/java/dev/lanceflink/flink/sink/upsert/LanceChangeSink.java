package dev.lanceflink.flink.sink.upsert;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.committer.core.CheckpointCommit;
import dev.lanceflink.committer.core.CommitSettings;
import dev.lanceflink.committer.core.TableLocation;
import dev.lanceflink.committer.core.WrittenChanges;
import dev.lanceflink.committer.flink.CheckpointCommitSerializer;
import dev.lanceflink.committer.flink.LanceCommitter;
import dev.lanceflink.committer.flink.WrittenChangesSerializer;
import dev.lanceflink.flink.sink.LanceSink;
import java.io.IOException;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.SupportsPreCommitTopology;
import org.apache.flink.streaming.api.datastream.DataStream;

/**
 * The Sink V2 part of the upsert and row-address sinks: parallel {@link LanceChangeWriter}s
 * receive resolved changes (from {@link ChangelogKeyResolver}, or straight from rows that carry
 * their row address) and write fragments, overlays and deletion offsets; the same aggregator and
 * committer as the append sink commit each checkpoint exactly once, in checkpoint order.
 * Built and wired by {@code LanceSinkBuilder}.
 */
public final class LanceChangeSink implements Sink<LocatedChange>, SupportsCommitter<CheckpointCommit>,
        SupportsPreCommitTopology<WrittenChanges, CheckpointCommit> {
    private static final long serialVersionUID = 1L;

    private final TableLocation table;
    private final int batchRows;
    private final CommitSettings commitSettings;
    private final String uidSuffix;

    public LanceChangeSink(TableLocation table, int batchRows, CommitSettings commitSettings, String uidSuffix) {
        this.table = requireNonNull(table, "table is null");
        this.batchRows = batchRows;
        this.commitSettings = requireNonNull(commitSettings, "commitSettings is null");
        this.uidSuffix = requireNonNull(uidSuffix, "uidSuffix is null");
    }

    @Override
    public CommittingSinkWriter<LocatedChange, WrittenChanges> createWriter(WriterInitContext context)
            throws IOException {
        String tag = "j" + context.getJobInfo().getJobId().toString().substring(0, 8) + "-s"
                + context.getTaskInfo().getIndexOfThisSubtask() + "-a" + context.getTaskInfo().getAttemptNumber();
        return new LanceChangeWriter(table, tag, batchRows, context.metricGroup());
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
        return LanceSink.commitTopology(written, table, commitSettings, uidSuffix);
    }

    public String uidSuffix() {
        return uidSuffix;
    }
}
