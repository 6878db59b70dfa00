package dev.lanceflink.flink.sink.upsert;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanceflink.compactor.core.MaintenanceLease;
import dev.lanceflink.flink.sink.BrokenMaintenanceStoreProvider;
import dev.lanceflink.flink.sink.maintenance.MaintenanceSettings;
import dev.lanceflink.flink.sink.maintenance.TableMaintainer;
import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.ManifestIO;
import dev.lanceflink.table.ManifestLocation;
import dev.lanceflink.table.VersionResolver;
import dev.lanceflink.testkit.VersionPoller;
import dev.lanceflink.testkit.flink.MiniClusters;
import dev.lanceflink.testkit.users.UsersChangelog;
import dev.lanceflink.testkit.users.UsersChangelog.Mix;
import dev.lanceflink.testkit.users.UsersTable;
import dev.lanceflink.txn.Operation;
import dev.lanceflink.txn.Transaction;
import dev.lanceflink.txn.TransactionStore;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Maintenance inside a streaming upsert job (parallelism 2, checkpoints every 200 ms) whose
 * changelog keeps updating the same 2,000 keys, so that every checkpoint adds overlays to the same
 * four fragments. A reader polls every version while the job runs. With maintenance on, no
 * version has more overlays per fragment than the bound plus what one checkpoint adds, old
 * versions are removed down to the retention, and the table ends equal to the model cell by cell.
 * With the lease held by another maintainer, maintenance skips (and says so in its metrics) and
 * the data path is the same; with maintenance failing, then hanging, it is the same too.
 */
class InJobMaintenanceITCase {
    private static final InMemoryReporter METRICS = InMemoryReporter.createWithRetainedMetrics();

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = MiniClusters.oneTaskManager(4, METRICS);

    private static final int KEYS = 2_000;
    private static final int BOUND = 8;
    private static final int RETAIN = 10;
    /** The bound no version exceeds: twice the merge trigger, the default. */
    private static final int HARD_BOUND = 2 * BOUND;

    @TempDir
    Path dir;

    private static MaintenanceSettings maintenance() {
        return MaintenanceSettings.enabledWithDefaults()
                .withChecks(1, Duration.ofSeconds(1))
                .withOverlayMerge(BOUND, 0)
                .withOverlayFold(0.9, Duration.ZERO)
                .withCleanup(true, RETAIN, Duration.ZERO, Duration.ofMinutes(1))
                .withExecution(Duration.ofSeconds(30), 2, 16);
    }

    private static JobClient start(String uri, UsersChangelog m, int perMilli) throws Exception {
        return MaintainedUpsertJob.start(
                uri, m.changes, maintenance(), "maintained", perMilli, "upsert with in-job maintenance");
    }

    @Test
    void overlaysStayBoundedVersionsAreCleanedAndTheTableEqualsTheModel() throws Exception {
        String uri = dir.resolve("maintained.lance").toString();
        TreeMap<Long, UsersTable.Row> initial = Mix.SINK_TESTS.initialRows(KEYS);
        UsersTable.create(uri, initial, KEYS / 4);
        UsersChangelog m = new UsersChangelog(initial, Mix.SINK_TESTS).generate(17, 30_000, KEYS, false);

        OverlayPoller poller = new OverlayPoller(new LocalObjectStore(Path.of(uri)));
        JobClient job = poller.during(() -> {
            JobClient started = start(uri, m, 2);
            started.getJobExecutionResult().get();
            return started;
        });

        UsersTable.assertLatestEquals(uri, Map.of(), m.model);
        assertThat(poller.failure).isNull();
        assertThat(poller.sinkVersions).as("checkpoints committed").isGreaterThan(20);
        assertThat(poller.merges).as("overlay merges the maintenance committed").isGreaterThan(3);
        assertThat(poller.missed)
                .as("versions removed before the poller read them")
                .isZero();
        assertThat(poller.maxAddedByOneCheckpoint)
                .as("overlays one checkpoint adds to a fragment")
                .isBetween(1, 4);
        // Maintenance never holds up the sink, so the checkpoints that commit while a check runs add
        // to the bound. Measured on a loaded 2-core machine (checks of 80-1200 ms against 200 ms
        // checkpoints), a few versions go past bound + one checkpoint; none runs away (without
        // maintenance the overlays grow with every checkpoint, see the leased test).
        int strict = BOUND + poller.maxAddedByOneCheckpoint;
        System.out.printf(
                "in-job maintenance: %d versions read, max %d overlays per fragment (version %d), %d"
                        + " versions above %d%n",
                poller.read, poller.maxOverlays, poller.worstVersion, poller.above(strict), strict);
        assertThat(poller.maxOverlays)
                .as("overlays per fragment in any version (worst: version %s)", poller.worstVersion)
                .isLessThanOrEqualTo(3 * BOUND);
        assertThat(poller.above(strict))
                .as("versions with more than %s overlays in a fragment, of %s", strict, poller.read)
                .isLessThanOrEqualTo(poller.read / 5);

        try (ObjectStore store = new LocalObjectStore(Path.of(uri))) {
            List<ManifestLocation> left = VersionResolver.list(store);
            long latest = left.get(left.size() - 1).version();
            assertThat(latest).isGreaterThan(3L * RETAIN);
            assertThat(left.get(0).version()).as("the oldest version left").isGreaterThan(latest - 2L * RETAIN);
            // The retention, plus up to half of it waiting for the next (batched) cleanup, plus the
            // versions of the last checkpoints.
            assertThat(left).as("versions left of %s", latest).hasSizeLessThanOrEqualTo(RETAIN + RETAIN / 2 + 4);
            assertThat(new MaintenanceLease(store, "reader", Duration.ofMinutes(1), Clock.systemUTC()).current())
                    .get()
                    .satisfies(h -> assertThat(h.released())
                            .as("released when the job ended")
                            .isTrue());
        }
        assertThat(counter(job, "runs")).isPositive();
        assertThat(counter(job, "failures")).isZero();
        assertThat(counter(job, "skippedForLease")).isZero();
        // The gauges describe the table as the last check saw it.
        assertThat((Integer) gauge(job, "fragments")).isPositive();
        assertThat((Integer) gauge(job, "maxOverlaysPerFragment")).isBetween(0, 3 * BOUND);
        assertThat((Integer) gauge(job, "versionsRetained")).isBetween(1, RETAIN + RETAIN / 2 + 4);
        assertThat((Long) gauge(job, "liveRows")).isPositive();
        assertThat((Long) gauge(job, "dataBytes")).isPositive();
        assertThat((Long) gauge(job, "manifestBytes")).isPositive();
        assertThat((Long) gauge(job, "lastRunTimestamp")).isPositive();
        assertThat((Long) gauge(job, "lastRunDurationMs")).isNotNegative();
    }

    @Test
    void withTheLeaseHeldElsewhereMaintenanceIsSkippedAndTheDataPathIsUnaffected() throws Exception {
        String uri = dir.resolve("leased.lance").toString();
        TreeMap<Long, UsersTable.Row> initial = Mix.SINK_TESTS.initialRows(KEYS);
        UsersTable.create(uri, initial, KEYS / 4);
        UsersChangelog m = new UsersChangelog(initial, Mix.SINK_TESTS).generate(23, 15_000, KEYS, false);
        try (ObjectStore store = new LocalObjectStore(Path.of(uri))) {
            MaintenanceLease other = new MaintenanceLease(
                    store, "lance-flink compact on another host", Duration.ofHours(1), Clock.systemUTC());
            assertThat(other.acquire().acquired()).isTrue();

            JobClient job = start(uri, m, 2);
            job.getJobExecutionResult().get();

            UsersTable.assertLatestEquals(uri, Map.of(), m.model);
            assertThat(counter(job, "skippedForLease")).isPositive();
            assertThat(counter(job, "runs")).isZero();
            assertThat(counter(job, "failures")).isZero();
            MaintenanceLease.Holder holder = other.current().orElseThrow();
            assertThat(holder.owner()).isEqualTo("lance-flink compact on another host");
            assertThat(holder.epoch()).isEqualTo(1);
            List<ManifestLocation> versions = VersionResolver.list(store);
            assertThat(versions.get(0).version()).as("no version was removed").isEqualTo(1);
            int maxOverlays = 0;
            int boundMerges = 0;
            for (ManifestLocation loc : versions) {
                Manifest v = ManifestIO.read(store, loc);
                Optional<Transaction> txn = TransactionStore.read(store, v);
                assertThat(txn)
                        .get()
                        .satisfies(t -> assertThat(t.properties())
                                .doesNotContainKeys(
                                        TableMaintainer.OWNER_PROPERTY, Transaction.COMPACTION_MODE_PROPERTY));
                maxOverlays = Math.max(maxOverlays, maxOverlays(v));
                boundMerges += txn.get().operation() instanceof Operation.Merge ? 1 : 0;
            }
            // Nothing merged them but the checkpoint commits' hard bound, which needs no lease.
            assertThat(maxOverlays)
                    .as("overlays piled up with maintenance skipped, up to the commits' hard bound")
                    .isGreaterThan(BOUND)
                    .isEqualTo(HARD_BOUND);
            assertThat(boundMerges)
                    .as("checkpoint commits that merged overlays")
                    .isPositive();
        }
    }

    /**
     * Maintenance that fails, then hangs, then works again never fails or stalls the data path:
     * while the compaction tasks' data file accesses fail (each check reports the failures) the
     * sink goes on committing checkpoints, and so it does while a task hangs for many checkpoint
     * intervals; once the store works again, overlay merges land; the table ends equal to the
     * model, without a restart (the job has none).
     */
    @Test
    void failingAndThenHangingMaintenanceNeitherFailsNorStallsTheSink() throws Exception {
        String uri = dir.resolve("broken.lance").toString();
        TreeMap<Long, UsersTable.Row> initial = Mix.SINK_TESTS.initialRows(KEYS);
        UsersTable.create(uri, initial, KEYS / 4);
        UsersChangelog m = new UsersChangelog(initial, Mix.SINK_TESTS).generate(37, 10_000, KEYS, false);
        BrokenMaintenanceStoreProvider.reset(BrokenMaintenanceStoreProvider.Mode.FAIL);
        // After the changelog the job goes on changing rows of every fragment (overlays to merge)
        // until the maintenance has recovered.
        InJobFragmentCompactionITCase.Churn tail = new InJobFragmentCompactionITCase.Churn(m.model);
        OverlayPoller poller = new OverlayPoller(new LocalObjectStore(Path.of(uri)));
        int[] commitsWhileFailing = new int[2];
        int[] commitsWhileHanging = new int[1];
        JobClient job = poller.during(() -> {
            JobClient started = MaintainedUpsertJob.start(
                    "brokenmaintenance://" + uri,
                    m.changes,
                    tail,
                    maintenance(),
                    "broken",
                    2,
                    "upsert with broken maintenance");
            try {
                awaitUntil("a maintenance run fails", () -> BrokenMaintenanceStoreProvider.FAILED.get() > 0);
                int failed = BrokenMaintenanceStoreProvider.FAILED.get();
                int sinkVersions = poller.sinkVersions;
                awaitUntil(
                        "10 sink commits and more failed runs",
                        () -> poller.sinkVersions >= sinkVersions + 10
                                && BrokenMaintenanceStoreProvider.FAILED.get() > failed);
                commitsWhileFailing[0] = poller.sinkVersions - sinkVersions;
                commitsWhileFailing[1] = BrokenMaintenanceStoreProvider.FAILED.get() - failed;
                assertThat(poller.merges)
                        .as("merges while the store fails them")
                        .isZero();

                BrokenMaintenanceStoreProvider.switchTo(BrokenMaintenanceStoreProvider.Mode.HANG);
                awaitUntil("a maintenance run hangs", BrokenMaintenanceStoreProvider.HANGING::get);
                int atHang = poller.sinkVersions;
                // Long enough for the checkpoints' overlays to reach the hard bound: the commits
                // must merge them themselves (issue #15: under the bound at every moment).
                awaitUntil(
                        "10 sink commits while it hangs, one of them merging a fragment's overlays",
                        () -> poller.sinkVersions >= atHang + 10 && poller.boundMerges > 0);
                commitsWhileHanging[0] = poller.sinkVersions - atHang;
                assertThat(BrokenMaintenanceStoreProvider.HANGING)
                        .as("still hanging")
                        .isTrue();
                BrokenMaintenanceStoreProvider.release();

                awaitUntil("an overlay merge lands", () -> poller.merges > 0);
                MaintainedUpsertJob.TAIL_WANTED.set(false);
                started.getJobExecutionResult().get();
                return started;
            } finally {
                MaintainedUpsertJob.TAIL_WANTED.set(false);
                BrokenMaintenanceStoreProvider.release();
                if (!started.getJobStatus().get().isGloballyTerminalState()) {
                    started.cancel().get();
                }
            }
        });

        System.out.printf(
                "broken maintenance: %d sink commits and %d failed accesses while failing, %d sink commits while"
                        + " hanging; %d merges after, %d versions read%n",
                commitsWhileFailing[0], commitsWhileFailing[1], commitsWhileHanging[0], poller.merges, poller.read);
        System.out.printf(
                "broken maintenance: at most %d overlays per fragment (version %d; hard bound %d), %d checkpoint"
                        + " commits merged a fragment's overlays%n",
                poller.maxOverlays, poller.worstVersion, HARD_BOUND, poller.boundMerges);
        UsersTable.assertLatestEquals(uri, Map.of(), m.model);
        assertThat(poller.failure).isNull();
        assertThat(poller.maxOverlays)
                .as(
                        "overlays per fragment of every version (worst: version %s), maintenance failing then hanging",
                        poller.worstVersion)
                .isLessThanOrEqualTo(HARD_BOUND);
        assertThat(poller.boundMerges)
                .as("checkpoint commits that merged overlays")
                .isPositive();
        // The committer's gauge (subtask 0) counts them too.
        assertThat(METRICS.findMetrics(job.getJobID(), "lance.overlayBoundMerges")
                        .values())
                .anySatisfy(g -> assertThat((Long) ((org.apache.flink.metrics.Gauge<?>) g).getValue())
                        .isPositive());
        assertThat(poller.merges)
                .as("overlay merges after the store works again")
                .isPositive();
        assertThat(counter(job, "failures")).as("failures counted").isPositive();
        assertThat(counter(job, "runs")).isPositive();
        assertThat(counter(job, "skippedForLease")).isZero();
    }

    /** Waits (30 s at most) until {@code done}. */
    private static void awaitUntil(String what, BooleanSupplier done) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!done.getAsBoolean()) {
            assertThat(System.nanoTime() - deadline)
                    .as("waiting until %s", what)
                    .isNegative();
            Thread.sleep(10);
        }
    }

    private static long counter(JobClient job, String name) {
        return MaintainedUpsertJob.counter(METRICS, job, name);
    }

    private static Object gauge(JobClient job, String name) {
        return MaintainedUpsertJob.gauge(METRICS, job, name);
    }

    private static int maxOverlays(Manifest m) {
        int max = 0;
        for (Fragment f : m.fragments()) {
            max = Math.max(max, f.overlays().size());
        }
        return max;
    }

    /** Reads every version as soon as it appears: overlays per fragment, who committed it. */
    static final class OverlayPoller extends VersionPoller {
        /** Volatile: a test waits on them while the job runs. */
        volatile int sinkVersions;

        volatile int merges;
        /** Sink versions that are a Merge: a checkpoint whose commit merged a fragment's overlays. */
        volatile int boundMerges;

        int maxOverlays;
        long worstVersion;
        int maxAddedByOneCheckpoint;
        final List<Integer> perVersionMax = new ArrayList<>();

        OverlayPoller(ObjectStore store) {
            super(store, 5);
        }

        int above(int bound) {
            return (int) perVersionMax.stream().filter(n -> n > bound).count();
        }

        @Override
        protected void onVersion(Manifest m, Optional<Transaction> txn) {
            Map<String, String> properties = txn.map(Transaction::properties).orElse(Map.of());
            int max = maxOverlays(m);
            perVersionMax.add(max);
            if (max > maxOverlays) {
                maxOverlays = max;
                worstVersion = m.version();
            }
            if (Transaction.COMPACTION_OVERLAY_MERGE.equals(properties.get(Transaction.COMPACTION_MODE_PROPERTY))) {
                merges++;
            }
            if (properties.containsKey("flink.commit-user")) {
                sinkVersions++;
                if (txn.get().operation() instanceof Operation.Merge) {
                    boundMerges++;
                }
                for (Fragment f : m.fragments()) {
                    int added = 0;
                    for (DataOverlayFile o : f.overlays()) {
                        added += o.committedVersion() == m.version() ? 1 : 0;
                    }
                    maxAddedByOneCheckpoint = Math.max(maxAddedByOneCheckpoint, added);
                }
            }
        }
    }
}
