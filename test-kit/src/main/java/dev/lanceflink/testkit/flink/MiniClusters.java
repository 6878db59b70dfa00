package dev.lanceflink.testkit.flink;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;

/**
 * The Flink MiniCluster the job tests register as a JUnit extension: one task manager with as
 * many slots as the test's jobs need at once, optionally reporting metrics to a test's reporter.
 */
public final class MiniClusters {
    private MiniClusters() {}

    /** One task manager with {@code slots} slots. */
    public static MiniClusterExtension oneTaskManager(int slots) {
        return new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
                .setNumberTaskManagers(1)
                .setNumberSlotsPerTaskManager(slots)
                .build());
    }

    /** As {@link #oneTaskManager(int)}, its metrics retained by {@code metrics}. */
    public static MiniClusterExtension oneTaskManager(int slots, InMemoryReporter metrics) {
        return new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
                .setConfiguration(metrics.addToConfiguration(new Configuration()))
                .setNumberTaskManagers(1)
                .setNumberSlotsPerTaskManager(slots)
                .build());
    }
}
