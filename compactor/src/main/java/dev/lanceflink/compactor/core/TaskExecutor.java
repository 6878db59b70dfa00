package dev.lanceflink.compactor.core;

import dev.lanceflink.table.Manifest;
import java.io.IOException;
import java.util.List;

/**
 * Runs the tasks of a plan, possibly in parallel and elsewhere (threads, a Flink job), and returns
 * their staged results. All-or-nothing: if a task fails, the files staged by the others are
 * deleted and the failure is thrown, so nothing half-done is ever committed.
 */
public interface TaskExecutor {
    List<TaskResult> execute(CompactionPlan plan, ProgressListener progress) throws IOException;

    /**
     * As {@link #execute(CompactionPlan, ProgressListener)}, with the manifest of the plan's read
     * version, which the caller already read: an executor running the tasks in this process uses
     * it instead of reading and decoding it again (on a table with many overlays the manifest is
     * tens of MB, seconds per read). The default ignores it.
     *
     * @param planned the manifest of {@code plan.readVersion()}
     */
    default List<TaskResult> execute(CompactionPlan plan, Manifest planned, ProgressListener progress)
            throws IOException {
        return execute(plan, progress);
    }

    /** Told about every finished task, from the thread that collects the results. */
    @FunctionalInterface
    interface ProgressListener {
        void taskFinished(TaskResult result, int finished, int total);

        ProgressListener NONE = (r, f, t) -> {};
    }
}
