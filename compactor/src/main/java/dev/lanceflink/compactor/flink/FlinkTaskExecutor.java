package dev.lanceflink.compactor.flink;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.compactor.core.CompactionPlan;
import dev.lanceflink.compactor.core.TaskExecutor;
import dev.lanceflink.compactor.core.TaskResult;
import dev.lanceflink.io.ObjectStore;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.CloseableIterator;

/**
 * Runs a plan's tasks as a Flink batch job: a bounded source of task indices, spread over the
 * job's parallelism, each mapped to its staged result by {@link CompactFragmentFunction}; the
 * results stream back to the client, which commits them once (see
 * {@link dev.lanceflink.compactor.core.CompactionRun}).
 *
 * <p>Planning happens before the job, in one place (the client, or the JobManager in application
 * mode), on one pinned version; the commit happens after the job, in the same place. Committing
 * only what was collected means a failed or cancelled job commits nothing: its staged files are
 * unreferenced and the run can simply be started again.
 *
 * <p>{@link StreamExecutionEnvironment#getExecutionEnvironment()} gives the cluster's environment
 * under {@code flink run} and an in-process MiniCluster otherwise.
 */
public final class FlinkTaskExecutor implements TaskExecutor {
    private final String tableUri;
    private final Map<String, String> storageOptions;
    private final ObjectStore store;
    private final int parallelism;

    /**
     * @param store the client's handle on the table, used to delete staged files when the job fails
     * @param parallelism task parallelism; 0 keeps the environment's default
     */
    public FlinkTaskExecutor(String tableUri, Map<String, String> storageOptions, ObjectStore store, int parallelism) {
        this.tableUri = requireNonNull(tableUri, "tableUri is null");
        this.storageOptions = Map.copyOf(storageOptions);
        this.store = requireNonNull(store, "store is null");
        if (parallelism < 0) {
            throw new IllegalArgumentException("parallelism must be >= 0 (0 = Flink's default), got " + parallelism);
        }
        this.parallelism = parallelism;
    }

    @Override
    @SuppressWarnings("try") // CloseableIterator.close() declares Exception; it is handled below like any failure
    public List<TaskResult> execute(CompactionPlan plan, ProgressListener progress) throws IOException {
        if (plan.isEmpty()) {
            return List.of();
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setRuntimeMode(RuntimeExecutionMode.BATCH);
        int total = plan.tasks().size();
        int p = Math.min(parallelism > 0 ? parallelism : env.getParallelism(), total);
        var results = env.fromSequence(0, total - 1)
                .setParallelism(p)
                .name("compaction-tasks")
                .map(new CompactFragmentFunction(tableUri, storageOptions, plan))
                .setParallelism(p)
                .name("compact-fragment " + plan.mode().cliName())
                .returns(PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO);
        List<TaskResult> out = new ArrayList<>(total);
        String jobName = "lance-compaction " + plan.mode().cliName() + " " + tableUri + "@v" + plan.readVersion();
        try (CloseableIterator<byte[]> it = results.executeAndCollect(jobName)) {
            while (it.hasNext()) {
                TaskResult r = TaskResults.fromBytes(it.next());
                out.add(r);
                progress.taskFinished(r, out.size(), total);
            }
        } catch (Exception e) {
            discard(out);
            if (e instanceof IOException io) {
                throw io;
            }
            throw new IOException(
                    "The Flink compaction job '" + jobName + "' failed; nothing was committed and the"
                            + " run can be started again: " + e.getMessage(),
                    e);
        }
        if (out.size() != total) {
            discard(out);
            throw new IOException("The Flink compaction job '" + jobName + "' returned " + out.size() + " results for "
                    + total + " tasks; nothing was committed");
        }
        return out;
    }

    private void discard(List<TaskResult> results) {
        for (TaskResult r : results) {
            try {
                r.staged().discard(store);
            } catch (IOException | RuntimeException ignored) {
                // unreferenced files; removed by cleanup later
            }
        }
    }
}
