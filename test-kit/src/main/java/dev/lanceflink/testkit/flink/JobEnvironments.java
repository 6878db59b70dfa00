package dev.lanceflink.testkit.flink;

import java.time.Duration;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/** The streaming environments the job tests run their jobs in (on the test's MiniCluster). */
public final class JobEnvironments {
    private JobEnvironments() {}

    /**
     * {@code parallelism}, a checkpoint every {@code checkpointMillis}, and no restart strategy:
     * any failure fails the job, and with it the test.
     */
    public static StreamExecutionEnvironment noRestarts(int parallelism, long checkpointMillis) {
        return streaming(parallelism, checkpointMillis, 0, Duration.ZERO, null);
    }

    /**
     * As {@link #noRestarts}, but with {@code restarts} restarts (none if 0), {@code restartDelay}
     * apart, and started from {@code savepoint} unless it is null.
     */
    public static StreamExecutionEnvironment streaming(
            int parallelism, long checkpointMillis, int restarts, Duration restartDelay, String savepoint) {
        Configuration conf = new Configuration();
        if (restarts > 0) {
            conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
            conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, restarts);
            conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, restartDelay);
        } else {
            conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        }
        if (savepoint != null) {
            conf.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(parallelism);
        env.enableCheckpointing(checkpointMillis);
        return env;
    }
}
