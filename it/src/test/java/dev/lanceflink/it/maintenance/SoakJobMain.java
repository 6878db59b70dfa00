package dev.lanceflink.it.maintenance;

import dev.lanceflink.flink.sink.LanceSinkBuilder;
import dev.lanceflink.flink.sink.LanceSinkMode;
import dev.lanceflink.flink.sink.maintenance.MaintenanceSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.RecoveryClaimMode;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;

/**
 * One incarnation of {@link SinkSoakRunTest}'s streaming job, in a JVM of its own so that the test
 * can SIGKILL it: a local MiniCluster running {@link SoakChangelog}'s changes (a sequence source of
 * parallelism 1, so every checkpoint is a prefix of the changelog) into the upsert sink at
 * parallelism 2 with in-job maintenance, checkpoints every second retained on disk (RocksDB,
 * incremental, as the README's configuration for keyed tables), optionally restored from one.
 *
 * <p>Arguments: {@code uri checkpointDir restorePath|- seed count initialKeys keys changesPerSecond
 * retainMinAgeSeconds fragments|no-fragments [storageKey=value ...]}; {@code fragments} turns on
 * the in-job fragment compaction ({@link #FRAGMENT_COMPACTION}). Prints {@link #FINISHED} when the bounded changelog is committed.
 */
public final class SoakJobMain {
    static final String FINISHED = "SOAK JOB FINISHED";
    static final int CHECKPOINT_MILLIS = 1_000;
    /** Maintenance bounds, shared with the test's assertions. */
    static final int MAX_OVERLAYS = 8;
    /** Overlays per fragment that no version exceeds: the checkpoint commits merge a fragment's overlays past it. */
    static final int HARD_MAX_OVERLAYS = 2 * MAX_OVERLAYS;

    static final int RETAIN_VERSIONS = 20;
    /**
     * The shortest lease allowed: a SIGKILLed job cannot release its lease, and until it expires
     * neither the restored job nor the standalone compactor maintains the table.
     */
    static final Duration LEASE_TIMEOUT = MaintenanceSettings.MIN_LEASE_TIMEOUT;
    /**
     * The in-job fragment compaction when the test asks for it: pylance's target (one fragment
     * could hold the whole table), deletions materialised from 10 % on, a run once it would rewrite
     * 8 fragments (four checkpoints' worth of appended fragments at parallelism 2).
     */
    static final MaintenanceSettings.FragmentCompaction FRAGMENT_COMPACTION =
            new MaintenanceSettings.FragmentCompaction(true, 4096, 0, 0.1, 8);

    private SoakJobMain() {}

    static MaintenanceSettings maintenance(Duration retainMinAge, boolean fragments) {
        return MaintenanceSettings.enabledWithDefaults()
                .withFragmentCompaction(fragments ? FRAGMENT_COMPACTION : MaintenanceSettings.FragmentCompaction.OFF)
                .withChecks(1, Duration.ofSeconds(1))
                .withOverlayMerge(MAX_OVERLAYS, 0)
                .withHardMaxOverlays(HARD_MAX_OVERLAYS)
                .withOverlayFold(0.9, Duration.ZERO)
                // min-age 0: the count alone bounds the versions (the test passes a long one
                // when versions must stay); grace at its minimum.
                .withCleanup(true, RETAIN_VERSIONS, retainMinAge, MaintenanceSettings.MIN_GRACE)
                .withExecution(LEASE_TIMEOUT, 2, 16);
    }

    public static void main(String[] args) throws Exception {
        try {
            run(args);
            System.out.println(FINISHED);
            System.out.flush();
            System.exit(0);
        } catch (Throwable t) {
            t.printStackTrace(System.out);
            System.out.flush();
            System.exit(1);
        }
    }

    private static void run(String[] args) throws Exception {
        String uri = args[0];
        Path checkpoints = Path.of(args[1]);
        String restore = args[2];
        long seed = Long.parseLong(args[3]);
        int count = Integer.parseInt(args[4]);
        int initialKeys = Integer.parseInt(args[5]);
        long keys = Long.parseLong(args[6]);
        int perSecond = Integer.parseInt(args[7]);
        Duration retainMinAge = Duration.ofSeconds(Long.parseLong(args[8]));
        boolean fragments = switch (args[9]) {
            case "fragments" -> true;
            case "no-fragments" -> false;
            default ->
                throw new IllegalArgumentException("argument 10 must be fragments or no-fragments, got " + args[9]);
        };
        Map<String, String> storage = new LinkedHashMap<>();
        for (int i = 10; i < args.length; i++) {
            int eq = args[i].indexOf('=');
            storage.put(args[i].substring(0, eq), args[i].substring(eq + 1));
        }
        SoakChange.LOG = SoakChangelog.generate(seed, count, initialKeys, keys);

        Configuration conf = new Configuration();
        // A failure ends the incarnation (the test sees the exit code and the log): restarts are
        // the test's SIGKILL-and-restore cycles, not Flink's.
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        conf.set(StateBackendOptions.STATE_BACKEND, "rocksdb");
        conf.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, true);
        conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpoints.toUri().toString());
        conf.set(
                CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
                ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
        conf.set(CheckpointingOptions.MAX_RETAINED_CHECKPOINTS, 2);
        conf.set(CoreOptions.TMP_DIRS, checkpoints.resolveSibling("tmp").toString());
        if (!restore.equals("-")) {
            conf.set(StateRecoveryOptions.SAVEPOINT_PATH, restore);
            conf.set(StateRecoveryOptions.RESTORE_MODE, RecoveryClaimMode.CLAIM);
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(2);
        env.enableCheckpointing(CHECKPOINT_MILLIS);
        LanceSinkBuilder.forTable(uri)
                .storageOptions(storage)
                .mode(LanceSinkMode.UPSERT)
                .primaryKey("id")
                .rowsPerFile(1_000)
                .batchRows(256)
                .uidSuffix("soak")
                .maintenance(maintenance(retainMinAge, fragments))
                .sinkTo(env.fromSequence(0, count - 1)
                        .setParallelism(1)
                        .uid("sequence")
                        .map(new SoakChange(perSecond))
                        .setParallelism(1)
                        .uid("changes")
                        .returns(RowData.class));
        env.execute("soak: upsert with in-job maintenance");
    }

    /** Change {@code i} of the changelog, at about {@code perSecond} changes per second. */
    static final class SoakChange extends RichMapFunction<Long, RowData> {
        private static final long serialVersionUID = 1L;
        /** Generated in this JVM before the job starts (the MiniCluster runs here too). */
        static volatile SoakChangelog LOG;

        private final int perSecond;
        private transient long seen;

        SoakChange(int perSecond) {
            this.perSecond = perSecond;
        }

        @Override
        public RowData map(Long i) throws Exception {
            if (++seen % 10 == 0) {
                Thread.sleep(10_000L / perSecond);
            }
            return LOG.rowData(Math.toIntExact(i));
        }
    }
}
