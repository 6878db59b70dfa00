package dev.lanceflink.flink.sink.upsert;

import dev.lanceflink.committer.core.CommitSettings;
import dev.lanceflink.committer.core.TableLocation;
import dev.lanceflink.committer.core.WrittenChanges;
import dev.lanceflink.flink.sink.CommittingLanceSink;
import java.io.IOException;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/**
 * The Sink V2 part of the upsert and row-address sinks: parallel {@link LanceChangeWriter}s
 * receive resolved changes (from {@link ChangelogKeyResolver}, or straight from rows that carry
 * their row address) and write fragments, overlays and deletion offsets; the same aggregator and
 * committer as the append sink commit each checkpoint exactly once, in checkpoint order.
 * Built and wired by {@code LanceSinkBuilder}.
 */
public final class LanceChangeSink extends CommittingLanceSink<LocatedChange> {
    private static final long serialVersionUID = 1L;

    private final int batchRows;
    private final long rowsPerFile;
    private final boolean rewriteRows;

    /**
     * @param rowsPerFile rows per data file of rows the writers place themselves (moved rows found
     *     by address)
     * @param rewriteRows updates arrive as moves ({@link dev.lanceflink.flink.sink.UpdateMode#REWRITE_ROWS}):
     *     each checkpoint commits the old rows' deletions and the new rows as one Lance Update
     */
    public LanceChangeSink(
            TableLocation table,
            int batchRows,
            long rowsPerFile,
            CommitSettings commitSettings,
            String uidSuffix,
            boolean rewriteRows) {
        super(table, commitSettings, uidSuffix, false, rewriteRows);
        this.batchRows = batchRows;
        this.rowsPerFile = rowsPerFile;
        this.rewriteRows = rewriteRows;
    }

    @Override
    public CommittingSinkWriter<LocatedChange, WrittenChanges> createWriter(WriterInitContext context)
            throws IOException {
        String tag = "j" + context.getJobInfo().getJobId().toString().substring(0, 8) + "-s"
                + context.getTaskInfo().getIndexOfThisSubtask() + "-a"
                + context.getTaskInfo().getAttemptNumber();
        return new LanceChangeWriter(
                table, tag, batchRows, commitSettings.readVersion(), rowsPerFile, rewriteRows, context.metricGroup());
    }
}
