package dev.lanceflink.compactor.core;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.dataset.Dataset;
import java.io.IOException;
import java.util.List;

/**
 * A task executor that lets a "streaming sink" commit after a compaction's first round of tasks
 * ran and before the compaction commits them: the race a compaction beside a sink either carries
 * the sink's changes through or loses and plans again.
 */
public final class SinkBetweenTasksAndCommit implements TaskExecutor {
    /** What the sink commits, on the latest version. */
    @FunctionalInterface
    public interface Commits {
        void commit(Dataset latest) throws Exception;
    }

    private final TaskExecutor engine;
    private final Dataset table;
    private final Commits sink;
    private int rounds;

    /**
     * @param engine runs the tasks
     * @param table the compacted table, whose latest version the sink commits on
     * @param sink what the sink commits, once, after the first round
     */
    public SinkBetweenTasksAndCommit(TaskExecutor engine, Dataset table, Commits sink) {
        this.engine = requireNonNull(engine, "engine is null");
        this.table = requireNonNull(table, "table is null");
        this.sink = requireNonNull(sink, "sink is null");
    }

    /** Rounds of tasks run: more than one when the compaction was planned again. */
    public int rounds() {
        return rounds;
    }

    @Override
    public List<TaskResult> execute(CompactionPlan plan, ProgressListener progress) throws IOException {
        List<TaskResult> results = engine.execute(plan, progress);
        if (rounds++ == 0) {
            try (Dataset latest = table.checkoutLatest()) {
                sink.commit(latest);
            } catch (IOException e) {
                throw e;
            } catch (Exception e) {
                throw new IOException(e);
            }
        }
        return results;
    }
}
