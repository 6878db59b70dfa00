package dev.lanceflink.compactor.core;

import java.io.IOException;
import java.util.List;

/**
 * Runs the tasks of a plan, possibly in parallel and elsewhere (threads, a Flink job), and returns
 * their staged results. All-or-nothing: if a task fails, the files staged by the others are
 * deleted and the failure is thrown, so nothing half-done is ever committed.
 */
public interface TaskExecutor {
    List<TaskResult> execute(CompactionPlan plan, ProgressListener progress) throws IOException;

    /** Told about every finished task, from the thread that collects the results. */
    @FunctionalInterface
    interface ProgressListener {
        void taskFinished(TaskResult result, int finished, int total);

        ProgressListener NONE = (r, f, t) -> {};
    }
}
