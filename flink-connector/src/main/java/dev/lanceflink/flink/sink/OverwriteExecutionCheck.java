package dev.lanceflink.flink.sink;

import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.dag.Transformation;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.transformations.WithBoundedness;

/**
 * Refuses an overwriting sink on a stream that will not run in BATCH execution: an overwrite is
 * one commit at the end of a bounded input, while a streaming job commits per checkpoint, and
 * each of those commits would replace the rows of the one before.
 *
 * <p>The execution mode is the stream environment's {@code execution.runtime-mode}; AUTOMATIC
 * means BATCH exactly when every source of the job is bounded, which Flink decides from the same
 * source transformations checked here. The aggregator checks again at run time (a checkpoint
 * before the end of input fails the job), for sinks attached without this builder.
 */
final class OverwriteExecutionCheck {
    private OverwriteExecutionCheck() {}

    static void requireBatch(DataStream<?> rows, String table) {
        RuntimeExecutionMode mode =
                rows.getExecutionEnvironment().getConfiguration().get(ExecutionOptions.RUNTIME_MODE);
        if (mode == RuntimeExecutionMode.BATCH) {
            return;
        }
        if (mode == RuntimeExecutionMode.AUTOMATIC) {
            List<String> unbounded = unboundedSources(rows.getTransformation());
            if (unbounded.isEmpty()) {
                return;
            }
            throw new IllegalStateException("The Lance sink for " + table + " overwrites the table, which needs BATCH"
                    + " execution, but execution.runtime-mode is AUTOMATIC and these sources are unbounded, so the job"
                    + " would run in STREAMING mode: " + unbounded + ". Overwrite with a bounded input in BATCH mode,"
                    + " or append instead");
        }
        throw new IllegalStateException("The Lance sink for " + table + " overwrites the table, which needs BATCH"
                + " execution (execution.runtime-mode: batch; in SQL, SET 'execution.runtime-mode' = 'batch'), but the"
                + " job runs in " + mode + " mode: an overwrite is one commit at the end of a bounded input, while a"
                + " streaming job commits per checkpoint and each commit would replace the rows of the one before."
                + " Append instead, or run the overwrite as a batch job");
    }

    private static List<String> unboundedSources(Transformation<?> sink) {
        List<String> out = new ArrayList<>();
        for (Transformation<?> t : sink.getTransitivePredecessors()) {
            if (t instanceof WithBoundedness b && b.getBoundedness() == Boundedness.CONTINUOUS_UNBOUNDED) {
                out.add(t.getName());
            }
        }
        return out;
    }
}
