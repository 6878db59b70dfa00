package dev.lanceflink.flink.source.enumerator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanceflink.flink.source.split.LanceSplit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.BiConsumer;
import org.apache.flink.api.connector.source.ReaderInfo;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.connector.source.SplitsAssignment;
import org.apache.flink.metrics.groups.SplitEnumeratorMetricGroup;
import org.junit.jupiter.api.Test;

class LanceSplitEnumeratorTest {

    /** Records what the enumerator tells the readers, as "subtask:splitId" and "subtask:done". */
    private static final class RecordingContext implements SplitEnumeratorContext<LanceSplit> {
        final List<String> events = new ArrayList<>();

        @Override
        public SplitEnumeratorMetricGroup metricGroup() {
            throw new AssertionError("not used");
        }

        @Override
        public void sendEventToSourceReader(int subtaskId, SourceEvent event) {
            throw new AssertionError("not used");
        }

        @Override
        public int currentParallelism() {
            return 2;
        }

        @Override
        public Map<Integer, ReaderInfo> registeredReaders() {
            return Map.of();
        }

        @Override
        public void assignSplits(SplitsAssignment<LanceSplit> assignment) {
            assignment
                    .assignment()
                    .forEach((subtask, splits) -> splits.forEach(s -> events.add(subtask + ":" + s.splitId())));
        }

        @Override
        public void signalNoMoreSplits(int subtask) {
            events.add(subtask + ":done");
        }

        @Override
        public <T> void callAsync(Callable<T> callable, BiConsumer<T, Throwable> handler) {
            throw new AssertionError("not used");
        }

        @Override
        public <T> void callAsync(Callable<T> callable, BiConsumer<T, Throwable> handler, long delay, long period) {
            throw new AssertionError("not used");
        }

        @Override
        public void runInCoordinatorThread(Runnable runnable) {
            runnable.run();
        }
    }

    @Test
    void handsOutSplitsOnRequestAndTakesBackFailedOnesFirst() {
        RecordingContext ctx = new RecordingContext();
        LanceSplit a = LanceSplit.of(3, 0, 0, 10);
        LanceSplit b = LanceSplit.of(3, 1, 0, 10);
        LanceSplit c = LanceSplit.of(3, 2, 0, 10);
        LanceSplitEnumerator e = new LanceSplitEnumerator(ctx, List.of(a, b, c));
        e.handleSplitRequest(0, "h");
        e.handleSplitRequest(1, "h");
        LanceSplit progressed = a.withProgress(4, 4);
        e.addSplitsBack(List.of(progressed), 0);
        assertThat(e.snapshotState(1).pendingSplits()).containsExactly(progressed, c);
        e.handleSplitRequest(1, "h");
        e.handleSplitRequest(1, "h");
        e.handleSplitRequest(1, "h");
        assertThat(ctx.events)
                .containsExactly("0:v3-f0-0-10", "1:v3-f1-0-10", "1:v3-f0-0-10", "1:v3-f2-0-10", "1:done");
    }

    @Test
    void plannerCutsLargeFragmentsAndSkipsEmptyOnes() {
        var f0 = dev.lanceflink.table.Fragment.of(0, List.of(), 10);
        var f1 = dev.lanceflink.table.Fragment.of(5, List.of(), 4);
        assertThat(LanceSplitPlanner.plan(7, List.of(f0, f1), 4))
                .containsExactly(
                        LanceSplit.of(7, 0, 0, 4),
                        LanceSplit.of(7, 0, 4, 8),
                        LanceSplit.of(7, 0, 8, 10),
                        LanceSplit.of(7, 5, 0, 4));
    }
}
