package dev.lanceflink.flink.source.reader;

import dev.lanceflink.flink.source.LanceReadSpec;
import dev.lanceflink.flink.source.split.LanceSplit;
import dev.lanceflink.flink.source.split.LanceSplitState;
import java.util.Map;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.connector.base.source.reader.SingleThreadMultiplexSourceReaderBase;
import org.apache.flink.table.data.RowData;

/**
 * The source reader: one fetcher thread reads Arrow batches ({@link LanceSplitReader}), the task
 * thread emits their rows. It asks the enumerator for one split at start and one more each time a
 * split finishes.
 */
public final class LanceSourceReader
        extends SingleThreadMultiplexSourceReaderBase<LanceRecord, RowData, LanceSplit, LanceSplitState> {

    public LanceSourceReader(LanceReadSpec spec, SourceReaderContext context) {
        this(spec, context, ScanMetrics.register(context.metricGroup()));
    }

    private LanceSourceReader(LanceReadSpec spec, SourceReaderContext context, ScanMetrics metrics) {
        super(() -> new LanceSplitReader(spec, metrics), new LanceRecordEmitter(), context.getConfiguration(), context);
    }

    @Override
    public void start() {
        super.start();
        context.sendSplitRequest();
    }

    @Override
    protected void onSplitFinished(Map<String, LanceSplitState> finishedSplitIds) {
        context.sendSplitRequest();
    }

    @Override
    protected LanceSplitState initializedState(LanceSplit split) {
        return new LanceSplitState(split);
    }

    @Override
    protected LanceSplit toSplitType(String splitId, LanceSplitState state) {
        return state.toSplit();
    }
}
