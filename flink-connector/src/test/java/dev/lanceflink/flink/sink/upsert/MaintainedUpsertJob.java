package dev.lanceflink.flink.sink.upsert;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanceflink.flink.sink.LanceSinkBuilder;
import dev.lanceflink.flink.sink.LanceSinkMode;
import dev.lanceflink.flink.sink.maintenance.MaintenanceSettings;
import dev.lanceflink.testkit.flink.JobEnvironments;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;

/**
 * The streaming upsert job of the in-job maintenance ITCases ({@link InJobMaintenanceITCase},
 * {@link InJobFragmentCompactionITCase}): parallelism 2, checkpoints every 200 ms, no restart, a
 * throttled source of {@link #CHANGES}, and the maintenance metrics it reports.
 */
final class MaintainedUpsertJob {
    /** The changelog the source emits (static: the map function is serialized). */
    static volatile List<RowData> CHANGES;

    /** Emitted after {@link #CHANGES}, see {@link #start(String, List, List, MaintenanceSettings, String, int, String)}. */
    static volatile List<RowData> TAIL = List.of();

    /** Whether the tail is still wanted: paced while set, run through unpaced once a test clears it. */
    static final AtomicBoolean TAIL_WANTED = new AtomicBoolean();

    private MaintainedUpsertJob() {}

    /** Starts the job upserting {@code changes} into {@code uri}, sleeping 1 ms per {@code perMilli} changes. */
    static JobClient start(
            String uri,
            List<RowData> changes,
            MaintenanceSettings maintenance,
            String uidSuffix,
            int perMilli,
            String jobName)
            throws Exception {
        return start(uri, changes, List.of(), maintenance, uidSuffix, perMilli, jobName);
    }

    /**
     * Starts the job upserting {@code changes} and then {@code tail}: changes that leave the table as
     * {@code changes} did (each key's last tail change is its final state) and keep the sink writing,
     * 1 ms per 10 changes, while {@link #TAIL_WANTED} is set. A test clears it once it has seen what
     * it waits for (an event that depends on timing, like a compaction racing a commit), and the
     * rest of the tail then goes through at full speed.
     */
    static JobClient start(
            String uri,
            List<RowData> changes,
            List<RowData> tail,
            MaintenanceSettings maintenance,
            String uidSuffix,
            int perMilli,
            String jobName)
            throws Exception {
        CHANGES = changes;
        TAIL = tail;
        TAIL_WANTED.set(!tail.isEmpty());
        StreamExecutionEnvironment env = JobEnvironments.noRestarts(2, 200);
        LanceSinkBuilder.forTable(uri)
                .mode(LanceSinkMode.UPSERT)
                .primaryKey("id")
                .rowsPerFile(500)
                .batchRows(256)
                .uidSuffix(uidSuffix)
                .commitRetryBackoff(Duration.ofMillis(20))
                .maintenance(maintenance)
                .sinkTo(env.fromSequence(0, changes.size() + tail.size() - 1L)
                        .setParallelism(1)
                        .uid("changes")
                        .map(new Throttled(perMilli))
                        .setParallelism(1)
                        .uid("throttled")
                        .returns(RowData.class));
        return env.executeAsync(jobName);
    }

    /** The maintenance counter {@code name} of {@code job}. */
    static long counter(InMemoryReporter metrics, JobClient job, String name) {
        return ((Counter) metric(metrics, job, name)).getCount();
    }

    /** The maintenance gauge {@code name} of {@code job}. */
    static Object gauge(InMemoryReporter metrics, JobClient job, String name) {
        return ((Gauge<?>) metric(metrics, job, name)).getValue();
    }

    private static Metric metric(InMemoryReporter metrics, JobClient job, String name) {
        Map<String, Metric> found = metrics.findMetrics(job.getJobID(), "maintenance." + name);
        assertThat(found).as("metric lance.maintenance.%s", name).hasSize(1);
        return found.values().iterator().next();
    }

    /** Emits change {@code i}; sleeps 1 ms per {@code perMilli} changes, so the input spans many checkpoints. */
    static final class Throttled extends RichMapFunction<Long, RowData> {
        private static final long serialVersionUID = 1L;
        private final int perMilli;
        private transient long seen;

        Throttled(int perMilli) {
            this.perMilli = perMilli;
        }

        @Override
        public RowData map(Long i) throws Exception {
            boolean tail = i >= CHANGES.size();
            if (++seen % (tail ? 10 : perMilli) == 0 && (!tail || TAIL_WANTED.get())) {
                Thread.sleep(1);
            }
            return tail ? TAIL.get((int) (i - CHANGES.size())) : CHANGES.get((int) (long) i);
        }
    }
}
