package dev.lanceflink.flink.source.enumerator;

import dev.lanceflink.flink.source.split.LanceSplit;
import java.util.ArrayDeque;
import java.util.List;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;

/**
 * Hands the splits of a bounded scan out one at a time, to whichever reader asks (pull-based, so
 * fast readers take more), and tells a reader that asks when none are left that it is done.
 * Splits returned by a failed reader go back to the front of the queue.
 */
public final class LanceSplitEnumerator implements SplitEnumerator<LanceSplit, LanceEnumeratorState> {
    private final SplitEnumeratorContext<LanceSplit> context;
    private final ArrayDeque<LanceSplit> pending;

    public LanceSplitEnumerator(SplitEnumeratorContext<LanceSplit> context, List<LanceSplit> splits) {
        this.context = context;
        this.pending = new ArrayDeque<>(splits);
    }

    @Override
    public void start() {
        // Splits were planned when the source was built; readers pull them.
    }

    @Override
    public void handleSplitRequest(int subtaskId, String requesterHostname) {
        LanceSplit next = pending.poll();
        if (next == null) {
            context.signalNoMoreSplits(subtaskId);
        } else {
            context.assignSplit(next, subtaskId);
        }
    }

    @Override
    public void addSplitsBack(List<LanceSplit> splits, int subtaskId) {
        for (int i = splits.size() - 1; i >= 0; i--) {
            pending.addFirst(splits.get(i));
        }
    }

    @Override
    public void addReader(int subtaskId) {
        // Readers request splits themselves.
    }

    @Override
    public LanceEnumeratorState snapshotState(long checkpointId) {
        return new LanceEnumeratorState(List.copyOf(pending));
    }

    @Override
    public void close() {
        // Nothing held.
    }
}
