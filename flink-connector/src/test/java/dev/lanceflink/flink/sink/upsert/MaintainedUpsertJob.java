package dev.lanceflink.flink.sink.upsert;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanceflink.flink.sink.LanceSinkBuilder;
import dev.lanceflink.flink.sink.LanceSinkMode;
import dev.lanceflink.flink.sink.maintenance.MaintenanceSettings;
import dev.lanceflink.testkit.flink.JobEnvironments;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.apache.flink.api.common.functions.RichFlatMapFunction;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.util.Collector;

/**
 * The streaming upsert job of the in-job maintenance ITCases ({@link InJobMaintenanceITCase},
 * {@link InJobFragmentCompactionITCase}): parallelism 2, checkpoints every 200 ms, no restart, a
 * throttled source of {@link #CHANGES}, and the maintenance metrics it reports.
 */
final class MaintainedUpsertJob {
    /** The changelog the source emits (static: the map function is serialized). */
    static volatile List<RowData> CHANGES;

    /** Emitted after {@link #CHANGES}, see {@link #start(String, List, Tail, MaintenanceSettings, String, int, String)}. */
    static volatile Tail TAIL;

    /** Whether the tail is still wanted: it goes on while set (at most {@link #TAIL_STEPS} steps), then drains. */
    static final AtomicBoolean TAIL_WANTED = new AtomicBoolean();

    /** Most steps of a tail: 1 ms each, so about a minute. */
    static final int TAIL_STEPS = 60_000;

    /**
     * Changes the job goes on emitting after the changelog while a test waits for an event that
     * depends on timing (a compaction racing a sink commit). Steps and drain together leave the
     * table as the changelog left it.
     */
    interface Tail {
        /** Emits one step's changes; every pair of changes a step starts, it ends or leaves to {@link #drain}. */
        void step(Random random, Consumer<RowData> out);

        /** Emits the changes that undo what the steps left changed (keys they inserted). */
        void drain(Consumer<RowData> out);
    }

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
        return start(uri, changes, null, maintenance, uidSuffix, perMilli, jobName);
    }

    /**
     * Starts the job upserting {@code changes} and then, if {@code tail} is not null, a step of
     * {@code tail} every millisecond while {@link #TAIL_WANTED} is set (a test clears it once it
     * has seen what it waits for) and its drain.
     */
    static JobClient start(
            String uri,
            List<RowData> changes,
            Tail tail,
            MaintenanceSettings maintenance,
            String uidSuffix,
            int perMilli,
            String jobName)
            throws Exception {
        CHANGES = changes;
        TAIL = tail;
        TAIL_WANTED.set(tail != null);
        StreamExecutionEnvironment env = JobEnvironments.noRestarts(2, 200);
        LanceSinkBuilder.forTable(uri)
                .mode(LanceSinkMode.UPSERT)
                .primaryKey("id")
                .rowsPerFile(500)
                .batchRows(256)
                .uidSuffix(uidSuffix)
                .commitRetryBackoff(Duration.ofMillis(20))
                .maintenance(maintenance)
                .sinkTo(env.fromSequence(0, changes.size() + (tail == null ? 0L : TAIL_STEPS) - 1L)
                        .setParallelism(1)
                        .uid("changes")
                        .flatMap(new Throttled(perMilli))
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
        // findMetrics matches a pattern anywhere in the name ("fragments" would find
        // "fragmentsWithOverlays" too): keep the one whose name ends with it.
        Map<String, Metric> found = new HashMap<>(metrics.findMetrics(job.getJobID(), "maintenance." + name));
        found.keySet().removeIf(k -> !k.endsWith("maintenance." + name));
        assertThat(found).as("metric lance.maintenance.%s", name).hasSize(1);
        return found.values().iterator().next();
    }

    /**
     * Emits change {@code i}, sleeping 1 ms per {@code perMilli} changes so the input spans many
     * checkpoints; beyond the changelog, a step of the tail per millisecond while it is wanted,
     * then its drain, then nothing.
     */
    static final class Throttled extends RichFlatMapFunction<Long, RowData> {
        private static final long serialVersionUID = 1L;
        private final int perMilli;
        private transient long seen;
        private transient Random random;
        private transient boolean drained;

        Throttled(int perMilli) {
            this.perMilli = perMilli;
        }

        @Override
        public void flatMap(Long i, Collector<RowData> out) throws Exception {
            if (i < CHANGES.size()) {
                if (++seen % perMilli == 0) {
                    Thread.sleep(1);
                }
                out.collect(CHANGES.get((int) (long) i));
            } else if (TAIL_WANTED.get() && i < CHANGES.size() + TAIL_STEPS - 1L) {
                if (random == null) {
                    random = new Random(47);
                }
                Thread.sleep(1);
                TAIL.step(random, out::collect);
            } else if (!drained) {
                drained = true;
                TAIL.drain(out::collect);
            }
        }
    }
}
