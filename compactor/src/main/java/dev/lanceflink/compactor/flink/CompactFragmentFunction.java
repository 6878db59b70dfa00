package dev.lanceflink.compactor.flink;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.compactor.core.CompactionPlan;
import dev.lanceflink.compactor.core.CompactionTask;
import dev.lanceflink.compactor.core.CompactionTaskRunner;
import dev.lanceflink.compactor.core.TaskResult;
import dev.lanceflink.file.writer.FileWriterOptions;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.io.ObjectStores;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.ManifestIO;
import dev.lanceflink.table.VersionResolver;
import java.util.HashMap;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;

/**
 * Runs the task at a given index of the plan and emits its staged result. Each subtask opens the
 * table itself (the job graph carries only the URI, storage options and the plan) and reads the
 * planned version's manifest once.
 *
 * <p>Metrics, in group {@code lance_compaction}: {@code fragmentsPlanned} (gauge: fragments of the
 * whole plan), {@code fragmentsCompacted} (fragments this subtask finished; in mode
 * {@code fragments} every fragment of a rewritten group), {@code overlaysRead} (overlays of the
 * compacted fragments), {@code overlaysRemoved} (overlays the commit will remove),
 * {@code inputBytes} (base and overlay bytes the tasks read), {@code outputBytes} (bytes of the
 * files they wrote), {@code fragmentsWritten} and {@code rowsWritten} (new fragments and their
 * rows, mode {@code fragments}).
 */
final class CompactFragmentFunction extends RichMapFunction<Long, byte[]> {
    private static final long serialVersionUID = 1L;

    private final String tableUri;
    private final HashMap<String, String> storageOptions;
    private final CompactionPlan plan;

    private transient ObjectStore store;
    private transient BufferAllocator allocator;
    private transient Manifest manifest;
    private transient Counter fragmentsCompacted;
    private transient Counter overlaysRead;
    private transient Counter overlaysRemoved;
    private transient Counter inputBytes;
    private transient Counter outputBytes;
    private transient Counter fragmentsWritten;
    private transient Counter rowsWritten;

    CompactFragmentFunction(String tableUri, Map<String, String> storageOptions, CompactionPlan plan) {
        this.tableUri = requireNonNull(tableUri, "tableUri is null");
        this.storageOptions = new HashMap<>(storageOptions);
        this.plan = requireNonNull(plan, "plan is null");
    }

    @Override
    public void open(OpenContext context) throws Exception {
        store = ObjectStores.open(tableUri, storageOptions);
        allocator = new RootAllocator();
        manifest = ManifestIO.read(store, VersionResolver.version(store, plan.readVersion()));
        MetricGroup group = getRuntimeContext().getMetricGroup().addGroup("lance_compaction");
        fragmentsCompacted = group.counter("fragmentsCompacted");
        overlaysRead = group.counter("overlaysRead");
        overlaysRemoved = group.counter("overlaysRemoved");
        inputBytes = group.counter("inputBytes");
        outputBytes = group.counter("outputBytes");
        fragmentsWritten = group.counter("fragmentsWritten");
        rowsWritten = group.counter("rowsWritten");
        long planned =
                plan.tasks().stream().mapToLong(t -> t.fragmentIds().size()).sum();
        group.gauge("fragmentsPlanned", (Gauge<Long>) () -> planned);
    }

    @Override
    public byte[] map(Long index) throws Exception {
        CompactionTask task = plan.tasks().get(Math.toIntExact(index));
        TaskResult result = CompactionTaskRunner.run(store, manifest, task, allocator, FileWriterOptions.defaults());
        fragmentsCompacted.inc(task.fragmentIds().size());
        overlaysRead.inc(task.overlayPaths().size());
        overlaysRemoved.inc(task.overlayPaths().size() - task.overlaysAfter());
        inputBytes.inc(task.inputBytes());
        TaskResult.Output written = result.output();
        outputBytes.inc(written.bytes());
        fragmentsWritten.inc(written.newFragments());
        rowsWritten.inc(written.rowsWritten());
        return TaskResults.toBytes(result);
    }

    @Override
    public void close() throws Exception {
        try {
            if (allocator != null) {
                allocator.close();
            }
        } finally {
            if (store != null) {
                store.close();
            }
        }
    }
}
