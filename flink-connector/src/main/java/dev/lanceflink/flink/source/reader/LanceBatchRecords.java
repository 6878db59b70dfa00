package dev.lanceflink.flink.source.reader;

import dev.lanceflink.flink.types.ArrowColumnVectors;
import dev.lanceflink.read.FragmentScanner;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.table.data.columnar.ColumnarRowData;

/**
 * One fetch result: either one Arrow batch of one split, or the news that a split is finished.
 * The Arrow memory is released in {@link #recycle()}, which Flink calls after every row of the
 * batch has been emitted (and, with object reuse disabled, copied by the next operator).
 */
final class LanceBatchRecords implements RecordsWithSplitIds<LanceRecord> {
    private final String splitId;
    private final FragmentScanner.Batch batch;
    private final Set<String> finished;
    private final Consumer<LanceBatchRecords> onRecycle;
    private final LanceRecord record;
    private final int rows;
    private boolean splitHandedOut;
    private int next;

    private LanceBatchRecords(
            String splitId, FragmentScanner.Batch batch, Set<String> finished, Consumer<LanceBatchRecords> onRecycle) {
        this.splitId = splitId;
        this.batch = batch;
        this.finished = finished;
        this.onRecycle = onRecycle;
        this.rows = batch == null ? 0 : batch.rows().getRowCount();
        this.record = batch == null
                ? null
                : new LanceRecord(new ColumnarRowData(
                        ArrowColumnVectors.batch(batch.rows().getFieldVectors(), rows)));
    }

    static LanceBatchRecords of(String splitId, FragmentScanner.Batch batch, Consumer<LanceBatchRecords> onRecycle) {
        return new LanceBatchRecords(splitId, batch, Set.of(), onRecycle);
    }

    static LanceBatchRecords finished(String splitId) {
        return new LanceBatchRecords(null, null, Set.of(splitId), r -> {});
    }

    static LanceBatchRecords nothing() {
        return new LanceBatchRecords(null, null, Set.of(), r -> {});
    }

    @Override
    public String nextSplit() {
        if (batch == null || splitHandedOut) {
            return null;
        }
        splitHandedOut = true;
        return splitId;
    }

    @Override
    public LanceRecord nextRecordFromSplit() {
        if (next >= rows) {
            return null;
        }
        record.row.setRowId(next);
        record.offset = batch.offsets()[next];
        next++;
        return record;
    }

    @Override
    public Set<String> finishedSplits() {
        return finished;
    }

    @Override
    public void recycle() {
        release();
        onRecycle.accept(this);
    }

    void release() {
        if (batch != null) {
            batch.close();
        }
    }
}
