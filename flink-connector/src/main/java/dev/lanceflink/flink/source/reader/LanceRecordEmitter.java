package dev.lanceflink.flink.source.reader;

import dev.lanceflink.flink.source.split.LanceSplitState;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.connector.base.source.reader.RecordEmitter;
import org.apache.flink.table.data.RowData;

/** Emits the row and advances the split's resume position past it. */
public final class LanceRecordEmitter implements RecordEmitter<LanceRecord, RowData, LanceSplitState> {
    @Override
    public void emitRecord(LanceRecord record, SourceOutput<RowData> output, LanceSplitState state) {
        output.collect(record.row());
        state.emitted(record.offset());
    }
}
