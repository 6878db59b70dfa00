package dev.lanceflink.flink.sink;

import dev.lanceflink.committer.core.CommitSettings;
import dev.lanceflink.committer.core.TableLocation;
import dev.lanceflink.committer.core.WrittenChanges;
import dev.lanceflink.committer.flink.LanceCommitter;
import dev.lanceflink.committer.flink.LanceWriteAggregator;
import dev.lanceflink.flink.sink.writer.LanceSinkWriter;
import java.io.IOException;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

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
public final class LanceSink extends CommittingLanceSink<RowData> {
    private static final long serialVersionUID = 1L;

    private final long rowsPerFile;
    private final int batchRows;
    /** The declared type of the input rows, or null: then the types the table's columns read as. */
    private RowType inputType;

    LanceSink(
            TableLocation table,
            long rowsPerFile,
            int batchRows,
            CommitSettings commitSettings,
            String uidSuffix,
            boolean overwrite) {
        super(table, commitSettings, uidSuffix, overwrite);
        this.rowsPerFile = rowsPerFile;
        this.batchRows = batchRows;
    }

    /**
     * Sets the declared type of the rows (a stream's {@code InternalTypeInfo}), so that each cell
     * is read with its declared precision, e.g. TIMESTAMP(3) rows into a microsecond column. Set
     * before the job is submitted; without it the rows must have the types the table's columns
     * read as in Flink.
     */
    void inputType(RowType type) {
        this.inputType = type;
    }

    @Override
    public CommittingSinkWriter<RowData, WrittenChanges> createWriter(WriterInitContext context) throws IOException {
        return new LanceSinkWriter(table, rowsPerFile, batchRows, inputType, context.metricGroup());
    }
}
