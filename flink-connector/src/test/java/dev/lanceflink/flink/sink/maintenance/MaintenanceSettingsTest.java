package dev.lanceflink.flink.sink.maintenance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.flink.sink.LanceSink;
import dev.lanceflink.flink.sink.LanceSinkBuilder;
import dev.lanceflink.flink.sink.LanceSinkMode;
import dev.lanceflink.testkit.users.UsersTable;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Maintenance settings: defaults, and out-of-range values refused with a line naming the option. */
class MaintenanceSettingsTest {
    private static final Schema USERS = UsersTable.EXAMPLE_SCHEMA;

    @TempDir
    Path dir;

    @Test
    void offByDefaultAndTheDefaultsOfTheOptions() {
        MaintenanceSettings off = MaintenanceSettings.disabled();
        assertThat(off.enabled()).isFalse();
        MaintenanceSettings on = MaintenanceSettings.enabledWithDefaults();
        assertThat(on.enabled()).isTrue();
        assertThat(on.checkEveryCommits()).isEqualTo(10);
        assertThat(on.checkInterval()).isEqualTo(Duration.ofMinutes(1));
        assertThat(on.mergeMaxOverlays()).isEqualTo(8);
        assertThat(on.mergeMaxOverlayBytes()).isEqualTo(64L << 20);
        assertThat(on.foldMinCoverage()).isEqualTo(0.5);
        assertThat(on.cleanupEnabled()).isTrue();
        assertThat(on.retainVersions()).isEqualTo(10);
        assertThat(on.retainMinAge()).isEqualTo(Duration.ofHours(1));
        assertThat(on.cleanupGrace()).isEqualTo(Duration.ofHours(1));
        assertThat(on.mergeEnabled()).isTrue();
        assertThat(on.foldEnabled()).isTrue();
        assertThat(on.withOverlayFold(0, Duration.ZERO).foldEnabled()).isFalse();
        assertThat(on.fragments().enabled())
                .as("fragment compaction is off unless asked for")
                .isFalse();
        assertThat(on.fragments().targetRowsPerFragment()).isEqualTo(1024 * 1024);
        assertThat(on.fragments().minDeletedRatio()).isEqualTo(0.1);
        assertThat(on.fragments().minFragments()).isEqualTo(8);
    }

    @Test
    void outOfRangeValuesNameTheirOption() {
        MaintenanceSettings on = MaintenanceSettings.enabledWithDefaults();
        assertThatThrownBy(() -> on.withOverlayMerge(1, 0))
                .hasMessage("'sink.maintenance.overlay-merge.max-overlays' must be 0 (off) or at least 2 (one overlay"
                        + " is already merged), got 1");
        assertThatThrownBy(() -> on.withOverlayMerge(8, -1))
                .hasMessageStartingWith("'sink.maintenance.overlay-merge.max-overlay-bytes' must be at least 0");
        assertThatThrownBy(() -> on.withOverlayFold(1.5, Duration.ZERO))
                .hasMessageStartingWith("'sink.maintenance.overlay-fold.min-coverage' must be a fraction from 0");
        assertThatThrownBy(() -> on.withOverlayFold(Double.NaN, Duration.ZERO))
                .hasMessageContaining("overlay-fold.min-coverage");
        assertThatThrownBy(() -> on.withOverlayFold(0.5, Duration.ofSeconds(-1)))
                .hasMessageStartingWith("'sink.maintenance.overlay-fold.quiet-period' must not be negative");
        assertThatThrownBy(() -> on.withChecks(0, Duration.ZERO))
                .hasMessageContaining(
                        "'sink.maintenance.check-every-commits' and 'sink.maintenance.check-interval'" + " are both 0");
        assertThatThrownBy(() -> on.withChecks(-1, Duration.ZERO))
                .hasMessageStartingWith("'sink.maintenance.check-every-commits' must be at least 0");
        assertThatThrownBy(() -> on.withCleanup(true, 0, Duration.ZERO, Duration.ofHours(1)))
                .hasMessageStartingWith("'sink.maintenance.cleanup.retain-versions' must be at least 1");
        assertThatThrownBy(() -> on.withCleanup(true, 5, Duration.ZERO, Duration.ofSeconds(59)))
                .hasMessageStartingWith("'sink.maintenance.cleanup.grace' must be at least 60 s");
        assertThatThrownBy(() -> on.withExecution(Duration.ofSeconds(5), 1, 1))
                .hasMessageStartingWith("'sink.maintenance.lease-timeout' must be at least 10 s");
        assertThatThrownBy(() -> on.withExecution(Duration.ofMinutes(1), 0, 1))
                .hasMessageStartingWith("'sink.maintenance.parallelism' must be at least 1");
        assertThatThrownBy(() -> on.withExecution(Duration.ofMinutes(1), 1, 0))
                .hasMessageStartingWith("'sink.maintenance.max-fragments-per-run' must be at least 1");
        assertThatThrownBy(() -> on.withOverlayMerge(0, 0)
                        .withOverlayFold(0, Duration.ZERO)
                        .withCleanup(false, 1, Duration.ZERO, Duration.ofHours(1)))
                .hasMessageContaining("'sink.maintenance.enabled' is true but every kind of maintenance is off");
        assertThatThrownBy(() -> new MaintenanceSettings.FragmentCompaction(true, 0, 0, 0.1, 1))
                .hasMessageStartingWith("'sink.maintenance.fragments.target-rows-per-fragment' must be at least 1");
        assertThatThrownBy(() -> new MaintenanceSettings.FragmentCompaction(true, 1L << 31, 0, 0.1, 1))
                .hasMessageStartingWith("'sink.maintenance.fragments.target-rows-per-fragment' must be at most");
        assertThatThrownBy(() -> new MaintenanceSettings.FragmentCompaction(true, 100, -1, 0.1, 1))
                .hasMessageStartingWith("'sink.maintenance.fragments.small-fragment-rows' must be at least 0");
        assertThatThrownBy(() -> new MaintenanceSettings.FragmentCompaction(true, 100, 0, 0, 1))
                .hasMessageStartingWith("'sink.maintenance.fragments.min-deleted-ratio' must be a fraction above 0");
        assertThatThrownBy(() -> new MaintenanceSettings.FragmentCompaction(true, 100, 0, 0.1, 0))
                .hasMessageStartingWith("'sink.maintenance.fragments.min-fragments' must be at least 1");
        // Fragment compaction alone is a kind of maintenance.
        assertThat(on.withFragmentCompaction(new MaintenanceSettings.FragmentCompaction(true, 100, 0, 0.1, 2))
                        .withOverlayMerge(0, 0)
                        .withOverlayFold(0, Duration.ZERO)
                        .withCleanup(false, 1, Duration.ZERO, Duration.ofHours(1))
                        .fragments()
                        .effectiveSmallFragmentRows())
                .isEqualTo(100);
        // Off: the same values are fine, nothing runs.
        assertThat(on.withEnabled(false)
                        .withOverlayMerge(0, 0)
                        .withOverlayFold(0, Duration.ZERO)
                        .withCleanup(false, 1, Duration.ZERO, Duration.ofHours(1))
                        .enabled())
                .isFalse();
    }

    /**
     * The hard bound on overlays per fragment that checkpoint commits enforce: twice the merge
     * trigger by default, following it; set explicitly at least the trigger, refused otherwise
     * with one line naming both options; none while maintenance is off.
     */
    @Test
    void theHardOverlayBoundDefaultsToTwiceTheMergeTriggerAndIsNeverBelowIt() {
        MaintenanceSettings on = MaintenanceSettings.enabledWithDefaults();
        assertThat(on.mergeHardMaxOverlays()).isZero();
        assertThat(on.effectiveHardMaxOverlays()).isEqualTo(16);
        assertThat(on.withOverlayMerge(5, 0).effectiveHardMaxOverlays()).isEqualTo(10);
        assertThat(on.withHardMaxOverlays(12).effectiveHardMaxOverlays()).isEqualTo(12);
        assertThat(on.withHardMaxOverlays(8).effectiveHardMaxOverlays()).isEqualTo(8);
        assertThat(on.withOverlayMerge(0, 1 << 20).effectiveHardMaxOverlays()).isZero();
        assertThat(on.withOverlayMerge(0, 1 << 20).withHardMaxOverlays(3).effectiveHardMaxOverlays())
                .isEqualTo(3);
        assertThat(on.withHardMaxOverlays(12).withEnabled(false).effectiveHardMaxOverlays())
                .isZero();
        assertThatThrownBy(() -> on.withHardMaxOverlays(7))
                .hasMessage("'sink.maintenance.overlay-merge.hard-max-overlays' (7) must be at least"
                        + " 'sink.maintenance.overlay-merge.max-overlays' (8): it is the bound checkpoint commits"
                        + " enforce when maintenance's merges at 'sink.maintenance.overlay-merge.max-overlays' fall"
                        + " behind");
        assertThatThrownBy(() -> on.withHardMaxOverlays(10).withOverlayMerge(11, 0))
                .hasMessageContaining("hard-max-overlays' (10) must be at least")
                .hasMessageContaining("max-overlays' (11)");
        assertThatThrownBy(() -> on.withHardMaxOverlays(1))
                .hasMessageStartingWith("'sink.maintenance.overlay-merge.hard-max-overlays' must be 0");
        assertThatThrownBy(() -> on.withHardMaxOverlays(-2))
                .hasMessageStartingWith("'sink.maintenance.overlay-merge.hard-max-overlays' must be 0");
    }

    /**
     * A check renews the lease only between its runs, each starting with two thirds of the timeout
     * left at least, and starts runs for up to its interval: the timeout must be more than 1.5
     * intervals (the default interval where checks are by commit count only).
     */
    @Test
    void aLeaseTimeoutACheckCouldOutlastIsRefusedNamingBothOptions() {
        MaintenanceSettings on = MaintenanceSettings.enabledWithDefaults();
        assertThatThrownBy(() -> on.withExecution(Duration.ofSeconds(90), 1, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("'sink.maintenance.lease-timeout' (PT1M30S) must be more than 1.5 times"
                        + " 'sink.maintenance.check-interval' (PT1M)")
                .hasMessageContaining(
                        "raise 'sink.maintenance.lease-timeout' or lower" + " 'sink.maintenance.check-interval'");
        assertThat(on.withExecution(Duration.ofSeconds(91), 1, 1).leaseTimeout())
                .isEqualTo(Duration.ofSeconds(91));
        assertThatThrownBy(() -> on.withChecks(10, Duration.ofSeconds(7)).withExecution(Duration.ofSeconds(10), 1, 1))
                .hasMessageStartingWith("'sink.maintenance.lease-timeout' (PT10S) must be more than 1.5 times"
                        + " 'sink.maintenance.check-interval' (PT7S)");
        assertThat(on.withChecks(10, Duration.ofSeconds(6))
                        .withExecution(MaintenanceSettings.MIN_LEASE_TIMEOUT, 1, 1)
                        .checkBudget())
                .isEqualTo(Duration.ofSeconds(6));
        // By commit count only: a check still starts runs for up to the default interval.
        assertThatThrownBy(() -> on.withChecks(10, Duration.ZERO).withExecution(Duration.ofSeconds(60), 1, 1))
                .hasMessageStartingWith("'sink.maintenance.lease-timeout' (PT1M) must be more than 1.5 times"
                        + " 'sink.maintenance.check-interval' (PT0S, so checks start runs for up to PT1M)");
        assertThat(on.withChecks(10, Duration.ZERO).checkBudget()).isEqualTo(Duration.ofMinutes(1));
        // Off: nothing runs.
        assertThat(on.withEnabled(false)
                        .withExecution(MaintenanceSettings.MIN_LEASE_TIMEOUT, 1, 1)
                        .enabled())
                .isFalse();
    }

    @Test
    void theBuilderRefusesAGraceShorterThanThreeCheckpointIntervals() throws Exception {
        String uri = dir.resolve("t.lance").toString();
        Dataset.write(uri, Map.of(), List.of(), USERS, WriteParams.of(WriteMode.CREATE))
                .close();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.enableCheckpointing(Duration.ofMinutes(1).toMillis());
        MaintenanceSettings settings =
                MaintenanceSettings.enabledWithDefaults().withCleanup(true, 5, Duration.ZERO, Duration.ofMinutes(2));
        LanceSinkBuilder.forTable(uri)
                .mode(LanceSinkMode.APPEND)
                .maintenance(settings)
                .sinkTo(env.fromData((RowData) GenericRowData.of(1L, null, 1)));
        // Refused where the sink's topology is expanded, before the job is submitted.
        assertThatThrownBy(env::getStreamGraph)
                .hasMessageStartingWith("'sink.maintenance.cleanup.grace' (PT2M) must be at least three checkpoint"
                        + " intervals (3 x PT1M)");
    }

    @Test
    void theAppendSinkOfBuildRefusesAGraceShorterThanThreeCheckpointIntervalsToo() throws Exception {
        String uri = dir.resolve("t.lance").toString();
        Dataset.write(uri, Map.of(), List.of(), USERS, WriteParams.of(WriteMode.CREATE))
                .close();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.enableCheckpointing(Duration.ofSeconds(50).toMillis());
        MaintenanceSettings settings =
                MaintenanceSettings.enabledWithDefaults().withCleanup(true, 5, Duration.ZERO, Duration.ofMinutes(2));
        LanceSink sink = LanceSinkBuilder.forTable(uri).maintenance(settings).build();
        env.fromData((RowData) GenericRowData.of(1L, null, 1)).sinkTo(sink).uid("lance-sink");
        assertThatThrownBy(env::getStreamGraph)
                .hasMessageStartingWith("'sink.maintenance.cleanup.grace' (PT2M) must be at least three checkpoint"
                        + " intervals (3 x PT50S)");
    }

    @Test
    void sqlRefusesAnOutOfRangeMaintenanceOptionWhenTheStatementIsPlanned() throws Exception {
        String uri = dir.resolve("users.lance").toString();
        Dataset.write(uri, Map.of(), List.of(), USERS, WriteParams.of(WriteMode.CREATE))
                .close();
        TableEnvironment t = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        t.executeSql("CREATE TABLE users (id BIGINT NOT NULL, name STRING, age INT) WITH ('connector' = 'lance',"
                + " 'path' = '" + uri + "', 'sink.maintenance.enabled' = 'true',"
                + " 'sink.maintenance.overlay-merge.max-overlays' = '1')");
        assertThatThrownBy(() -> t.executeSql("INSERT INTO users VALUES (1, 'ann', 29)"))
                .hasStackTraceContaining("Table default_catalog.default_database.users:"
                        + " 'sink.maintenance.overlay-merge.max-overlays' must be 0 (off) or at least 2");
        try (Dataset d = Dataset.open(uri, Map.of())) {
            assertThat(d.version()).isEqualTo(1);
        }
        t.executeSql("CREATE TABLE users2 (id BIGINT NOT NULL, name STRING, age INT) WITH ('connector' = 'lance',"
                + " 'path' = '" + uri + "', 'sink.maintenance.enabled' = 'true',"
                + " 'sink.maintenance.fragments.enabled' = 'true', 'sink.maintenance.fragments.min-fragments' = '0')");
        assertThatThrownBy(() -> t.executeSql("INSERT INTO users2 VALUES (1, 'ann', 29)"))
                .hasStackTraceContaining("Table default_catalog.default_database.users2:"
                        + " 'sink.maintenance.fragments.min-fragments' must be at least 1");
        t.executeSql("CREATE TABLE users3 (id BIGINT NOT NULL, name STRING, age INT) WITH ('connector' = 'lance',"
                + " 'path' = '" + uri + "', 'sink.maintenance.enabled' = 'true',"
                + " 'sink.maintenance.lease-timeout' = '30 s')");
        assertThatThrownBy(() -> t.executeSql("INSERT INTO users3 VALUES (1, 'ann', 29)"))
                .hasStackTraceContaining("Table default_catalog.default_database.users3:"
                        + " 'sink.maintenance.lease-timeout' (PT30S) must be more than 1.5 times"
                        + " 'sink.maintenance.check-interval' (PT1M)");
        t.executeSql("CREATE TABLE users4 (id BIGINT NOT NULL, name STRING, age INT) WITH ('connector' = 'lance',"
                + " 'path' = '" + uri + "', 'sink.maintenance.enabled' = 'true',"
                + " 'sink.maintenance.overlay-merge.hard-max-overlays' = '6')");
        assertThatThrownBy(() -> t.executeSql("INSERT INTO users4 VALUES (1, 'ann', 29)"))
                .hasStackTraceContaining("Table default_catalog.default_database.users4:"
                        + " 'sink.maintenance.overlay-merge.hard-max-overlays' (6) must be at least"
                        + " 'sink.maintenance.overlay-merge.max-overlays' (8)");
    }
}
