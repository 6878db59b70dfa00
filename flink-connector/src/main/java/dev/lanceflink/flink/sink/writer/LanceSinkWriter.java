package dev.lanceflink.flink.sink.writer;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.committer.core.TableLocation;
import dev.lanceflink.committer.core.WrittenChanges;
import dev.lanceflink.file.FileVersion;
import dev.lanceflink.file.writer.FileWriterOptions;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.schema.LanceSchema;
import dev.lanceflink.table.DataFile;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.write.FragmentWriter;
import java.io.IOException;
import java.util.Collection;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.groups.SinkWriterMetricGroup;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

/**
 * One parallel writer of the Lance sink. Rows are gathered into Arrow batches of
 * {@code batchRows} and written into new data files of at most {@code rowsPerFile} rows; at each
 * checkpoint the open file is finished and the new, uncommitted fragments go to the committer.
 * The writer commits nothing and keeps no state: a checkpoint's rows are all in files before its
 * barrier passes. Files of a failed attempt are deleted when the writer closes; any that survive
 * a crash are unreferenced and harmless. File names are random 128-bit names (Lance's scheme), so
 * they never collide across jobs, subtasks, attempts or checkpoints.
 *
 * <p>Metrics (group {@code lance}): {@code rowsWritten}, {@code filesWritten}, {@code bytesWritten},
 * {@code lastFlushDurationMs}; also Flink's standard {@code numRecordsSend} and {@code numBytesSend}.
 */
public final class LanceSinkWriter implements CommittingSinkWriter<RowData, WrittenChanges> {
    private final TableLocation table;
    private final long rowsPerFile;
    private final int batchRows;
    private final ObjectStore store;
    private final BufferAllocator allocator;
    private final LanceSchema schema;
    private final FileVersion fileVersion;
    private final RowDataToArrow batch;
    private final Counter rowsWritten;
    private final Counter filesWritten;
    private final Counter bytesWritten;
    private final Counter recordsSent;
    private final Counter bytesSent;
    private volatile long lastFlushDurationMs;
    private FragmentWriter files;

    public LanceSinkWriter(TableLocation table, long rowsPerFile, int batchRows, SinkWriterMetricGroup metrics)
            throws IOException {
        this(table, rowsPerFile, batchRows, null, metrics);
    }

    /**
     * @param inputType the declared type of the rows, or null for the types the table's columns
     *     read as in Flink (see {@link RowDataToArrow})
     */
    public LanceSinkWriter(
            TableLocation table, long rowsPerFile, int batchRows, RowType inputType, SinkWriterMetricGroup metrics)
            throws IOException {
        this.table = requireNonNull(table, "table is null");
        if (rowsPerFile < 1 || batchRows < 1) {
            throw new IllegalArgumentException(
                    "rowsPerFile and batchRows must be positive, got " + rowsPerFile + " and " + batchRows);
        }
        this.rowsPerFile = rowsPerFile;
        this.batchRows = batchRows;
        this.store = table.open();
        this.allocator = new RootAllocator();
        try {
            Manifest latest = LatestTableVersion.read(store, table);
            this.schema = latest.schema();
            this.fileVersion = FileVersion.parse(latest.dataFormat().version());
            this.batch = new RowDataToArrow(schema.toArrow(), inputType, allocator, table.uri());
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
        MetricGroup group = metrics.addGroup("lance");
        this.rowsWritten = group.counter("rowsWritten");
        this.filesWritten = group.counter("filesWritten");
        this.bytesWritten = group.counter("bytesWritten");
        group.gauge("lastFlushDurationMs", () -> lastFlushDurationMs);
        // Flink's standard sink metrics, shown in the web UI.
        this.recordsSent = metrics.getNumRecordsSendCounter();
        this.bytesSent = metrics.getNumBytesSendCounter();
    }

    @Override
    public void write(RowData row, Context context) throws IOException {
        batch.append(row);
        if (batch.rowCount() >= batchRows) {
            writeBatch();
        }
    }

    private void writeBatch() throws IOException {
        if (batch.rowCount() == 0) {
            return;
        }
        if (files == null) {
            files = new FragmentWriter(
                    store, schema, fileVersion, rowsPerFile, allocator, FileWriterOptions.defaults());
        }
        files.write(batch.batch());
        rowsWritten.inc(batch.rowCount());
        recordsSent.inc(batch.rowCount());
        batch.reset();
    }

    @Override
    public void flush(boolean endOfInput) {
        // Everything is written in prepareCommit, which Flink calls right after this.
    }

    @Override
    public Collection<WrittenChanges> prepareCommit() throws IOException {
        long start = System.nanoTime();
        writeBatch();
        if (files == null) {
            return List.of();
        }
        // The fragment writer stays open across checkpoints: its next file reuses the page
        // buffers the last one grew, instead of allocating (and garbage-collecting) them anew.
        List<Fragment> fragments = files.flush();
        if (fragments.isEmpty()) {
            return List.of();
        }
        long rows = 0;
        long bytes = 0;
        for (Fragment f : fragments) {
            rows += f.physicalRows();
            for (DataFile d : f.files()) {
                bytes += d.fileSizeBytes();
            }
        }
        filesWritten.inc(fragments.size());
        bytesWritten.inc(bytes);
        bytesSent.inc(bytes);
        lastFlushDurationMs = (System.nanoTime() - start) / 1_000_000L;
        return List.of(WrittenChanges.ofFragments(fragments, rows, bytes));
    }

    @Override
    public void close() throws IOException {
        try {
            if (files != null) {
                files.close(); // deletes the files written since the last checkpoint's flush
                files = null;
            }
            if (batch != null) {
                batch.close();
            }
            allocator.close();
        } finally {
            store.close();
        }
    }
}
