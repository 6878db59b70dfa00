package dev.lanceflink.flink.sink.upsert;

import dev.lanceflink.committer.core.CommitSettings;
import dev.lanceflink.committer.core.TableLocation;
import dev.lanceflink.committer.core.WrittenChanges;
import dev.lanceflink.flink.sink.CommittingLanceSink;
import dev.lanceflink.table.TableSnapshot;
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
    /** The statement's pinned view of the table, or null to write by the latest version's schema. */
    private final TableSnapshot snapshot;

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
        this(table, batchRows, rowsPerFile, commitSettings, uidSuffix, rewriteRows, null);
    }

    /**
     * @param snapshot the statement's pinned view of the table (its version is the commit
     *     settings' read version): the writers write by its schema and field ids; null to write by
     *     the latest version's
     */
    public LanceChangeSink(
            TableLocation table,
            int batchRows,
            long rowsPerFile,
            CommitSettings commitSettings,
            String uidSuffix,
            boolean rewriteRows,
            TableSnapshot snapshot) {
        super(table, commitSettings, uidSuffix, false, rewriteRows);
        if (snapshot != null && snapshot.version() != commitSettings.readVersion()) {
            throw new IllegalArgumentException("The snapshot of " + table + " is of version " + snapshot.version()
                    + ", but the read version is " + commitSettings.readVersion());
        }
        this.batchRows = batchRows;
        this.rowsPerFile = rowsPerFile;
        this.rewriteRows = rewriteRows;
        this.snapshot = snapshot;
    }

    @Override
    public CommittingSinkWriter<LocatedChange, WrittenChanges> createWriter(WriterInitContext context)
            throws IOException {
        String tag = "j" + context.getJobInfo().getJobId().toString().substring(0, 8) + "-s"
                + context.getTaskInfo().getIndexOfThisSubtask() + "-a"
                + context.getTaskInfo().getAttemptNumber();
        return new LanceChangeWriter(
                table,
                tag,
                batchRows,
                commitSettings.readVersion(),
                rowsPerFile,
                rewriteRows,
                snapshot,
                context.metricGroup());
    }
}
