package dev.lanceflink.flink.sink.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanceflink.compactor.core.MaintenanceLease;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.VersionInfo;
import dev.lanceflink.io.ForwardingObjectStore;
import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.table.ManifestNamingScheme;
import dev.lanceflink.testkit.time.TestClock;
import dev.lanceflink.txn.Transaction;
import dev.lanceflink.txn.TransactionStore;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One maintenance check against a real local table: what it runs, what it keeps, what it skips. */
class TableMaintainerTest {
    private static final String USER = "sink-user-1";
    private static final int[] ROWS = {0, 2, 4, 6, 8};

    @TempDir
    Path dir;

    private BufferAllocator allocator;
    private LocalObjectStore store;
    private Dataset ds;

    @BeforeEach
    void table() throws Exception {
        allocator = new RootAllocator();
        store = new LocalObjectStore(dir);
        ds = MaintenanceTables.create(store, allocator, 3, 50);
    }

    @AfterEach
    void close() throws Exception {
        ds.close();
        allocator.close();
    }

    private static MaintenanceSettings settings() {
        return MaintenanceSettings.enabledWithDefaults()
                .withOverlayMerge(3, 0)
                .withOverlayFold(0, Duration.ZERO)
                .withCleanup(true, 2, Duration.ZERO, Duration.ofHours(1));
    }

    private TableMaintainer maintainer(ObjectStore on, MaintenanceSettings s, String owner) {
        return new TableMaintainer(on, s, owner, Clock.systemUTC(), allocator);
    }

    /** Commits a fragment compaction (a Rewrite) of fragments 0 and 1 on {@link #ds}'s version; its version. */
    private long rewriteFragments0And1() throws Exception {
        dev.lanceflink.table.Manifest read = ds.manifest();
        dev.lanceflink.overlay.StagedWrite staged = dev.lanceflink.compact.FragmentRewriter.rewrite(
                store, read, List.of(0L, 1L), 1000, allocator, dev.lanceflink.file.writer.FileWriterOptions.defaults());
        return dev.lanceflink.txn.TableCommitter.commit(
                        store,
                        Transaction.of(read.version(), staged.operation(), java.util.Map.of()),
                        dev.lanceflink.txn.CommitOptions.defaults())
                .version();
    }

    @Test
    void aCompactionIsKeptUntilTheSinkCommittedTwoMoreCheckpoints() throws Exception {
        ds = MaintenanceTables.sinkCommit(ds, USER, 49);
        long commit49 = ds.version();
        long rewrite = rewriteFragments0And1();
        Dataset latest = ds.checkoutLatest();
        ds.close();
        ds = latest;
        TableMaintainer m = maintainer(store, settings(), "flink sink t");
        assertThat(m.keepFrom(USER, ds.manifest()))
                .as("the compaction is the newest version")
                .isEqualTo(commit49);
        ds = MaintenanceTables.sinkCommit(ds, USER, 50);
        assertThat(m.keepFrom(USER, ds.manifest())).as("one checkpoint later").isEqualTo(rewrite);
        ds = MaintenanceTables.sinkCommit(ds, USER, 51);
        assertThat(m.keepFrom(USER, ds.manifest()))
                .as("checkpoint 51 may have started before it")
                .isEqualTo(rewrite);
        ds = MaintenanceTables.sinkCommit(ds, USER, 52);
        assertThat(m.keepFrom(USER, ds.manifest()))
                .as("checkpoint 52 started after checkpoint 50 was committed")
                .isEqualTo(ds.version());
        assertThat(m.keepFrom("another sink", ds.manifest()))
                .as("no commit of that sink")
                .isZero();
    }

    @Test
    void mergesFoldsAndCleansUpKeepingValuesAndEveryVersionFromTheSinksNewestCommit() throws Exception {
        for (int r = 0; r < 4; r++) {
            ds = MaintenanceTables.update(ds, new long[] {0, 1}, ROWS, 100 + r);
        }
        ds = MaintenanceTables.update(ds, new long[] {2}, new int[] {1}, 7);
        ds = MaintenanceTables.sinkCommit(ds, USER, 49); // the sink's newest commit: version 7
        long sinkCommit = ds.version();
        List<String> before = MaintenanceTables.rows(ds);
        Thread.sleep(20); // versions must be older than the (zero) minimum age

        // Retain only the newest version: the sink's commit, older than the merge, must stay all the same.
        TableMaintainer m = maintainer(
                store, settings().withCleanup(true, 1, Duration.ZERO, Duration.ofHours(1)), "flink sink t of job 1");
        TableMaintainer.Report r = m.check(USER, Duration.ofSeconds(1));
        assertThat(r.outcome()).as(r.describe()).isEqualTo(TableMaintainer.Outcome.RAN);
        assertThat(r.failures()).isEmpty();
        assertThat(r.fragmentsMerged()).isEqualTo(2);
        assertThat(r.overlaysRemoved()).isEqualTo(6);
        assertThat(r.health().maxOverlaysPerFragment()).isEqualTo(4);
        assertThat(r.due().reasons()).contains("merge 2 fragments: >= 3 overlays");
        assertThat(r.versionsRemoved())
                .as("every version before the sink's commit")
                .isEqualTo((int) sinkCommit - 1);

        try (Dataset after = ds.checkoutLatest()) {
            assertThat(MaintenanceTables.rows(after)).isEqualTo(before);
            assertThat(after.fragments()).extracting(f -> f.overlays().size()).containsExactly(1, 1, 1);
            Transaction merge = TransactionStore.readForVersion(store, after.version());
            assertThat(merge.properties())
                    .containsEntry(TableMaintainer.OWNER_PROPERTY, "flink sink t of job 1")
                    .containsEntry(Transaction.COMPACTION_MODE_PROPERTY, "overlay-merge");
            List<Long> versions =
                    after.versions().stream().map(VersionInfo::version).toList();
            assertThat(versions)
                    .as("the sink's commit and everything after it stay")
                    .containsExactly(sinkCommit, after.version());
        }
        // Nothing is due any more: the check releases the lease for other maintainers.
        TableMaintainer.Report again = m.check(USER, Duration.ofSeconds(1));
        assertThat(again.outcome()).as(again.describe()).isEqualTo(TableMaintainer.Outcome.NOTHING_DUE);
        assertThat(new MaintenanceLease(store, "reader", Duration.ofMinutes(1), Clock.systemUTC()).current())
                .get()
                .satisfies(h -> assertThat(h.released()).isTrue());

        // A quiet table: every fragment's overlays are folded.
        TableMaintainer folding =
                maintainer(store, settings().withOverlayFold(0, Duration.ofMinutes(1)), "flink sink t");
        TableMaintainer.Report fold = folding.check(USER, Duration.ofMinutes(2));
        assertThat(fold.fragmentsFolded()).as(fold.describe()).isEqualTo(3);
        try (Dataset after = ds.checkoutLatest()) {
            assertThat(MaintenanceTables.rows(after)).isEqualTo(before);
            assertThat(after.fragments())
                    .allSatisfy(f -> assertThat(f.overlays()).isEmpty());
        }
    }

    /**
     * More fragments are due than one run takes: the check runs one run after another (the
     * fragments with the most overlays first), not one run per check, while its interval lasts.
     */
    @Test
    void aCheckTakesWhatIsDueInSeveralRunsOfAtMostMaxFragmentsPerRun() throws Exception {
        for (int r = 0; r < 3; r++) {
            ds = MaintenanceTables.update(ds, new long[] {0, 1, 2}, ROWS, 100 + r);
        }
        ds = MaintenanceTables.update(ds, new long[] {2}, ROWS, 7);
        List<String> before = MaintenanceTables.rows(ds);
        long versionBefore = ds.version();
        MaintenanceSettings oneAtATime = settings()
                .withCleanup(false, 1, Duration.ZERO, Duration.ofHours(1))
                .withExecution(MaintenanceSettings.DEFAULT_LEASE_TIMEOUT, 1, 1);
        TableMaintainer.Report r = maintainer(store, oneAtATime, "flink sink t").check(USER, Duration.ZERO);
        assertThat(r.outcome()).as(r.describe()).isEqualTo(TableMaintainer.Outcome.RAN);
        assertThat(r.failures()).isEmpty();
        assertThat(r.fragmentsMerged()).as(r.describe()).isEqualTo(3);
        assertThat(r.overlaysRemoved()).isEqualTo(7);
        try (Dataset after = ds.checkoutLatest()) {
            assertThat(MaintenanceTables.rows(after)).isEqualTo(before);
            assertThat(after.fragments()).extracting(f -> f.overlays().size()).containsExactly(1, 1, 1);
            assertThat(after.version()).as("one commit per run").isEqualTo(versionBefore + 3);
        }
        try (Dataset first = ds.checkoutVersion(versionBefore + 1)) {
            assertThat(first.fragments())
                    .as("the fragment with the most overlays (4) went first")
                    .extracting(f -> f.overlays().size())
                    .containsExactly(3, 3, 1);
        }
        // With an interval already used up, one run only: the rest waits for the next check.
        Dataset latest = ds.checkoutLatest();
        ds.close();
        ds = latest;
        for (int round = 0; round < 3; round++) {
            ds = MaintenanceTables.update(ds, new long[] {0, 1, 2}, ROWS, 200 + round);
        }
        TableMaintainer.Report once = maintainer(
                        store,
                        oneAtATime.withChecks(oneAtATime.checkEveryCommits(), Duration.ofNanos(1)),
                        "flink sink t")
                .check(USER, Duration.ZERO);
        assertThat(once.fragmentsMerged()).as(once.describe()).isEqualTo(1);
    }

    /**
     * A check whose runs are long against the lease (5 s each by the clock, a 10 s lease, three
     * runs) renews it between its runs: another maintainer trying after each run never gets it, and
     * every run lands.
     */
    @Test
    void theLeaseIsRenewedBetweenTheRunsOfALongCheck() throws Exception {
        for (int r = 0; r < 3; r++) {
            ds = MaintenanceTables.update(ds, new long[] {0, 1, 2}, ROWS, 100 + r);
        }
        TestClock clock = new TestClock();
        List<Boolean> otherTookIt = new ArrayList<>();
        ObjectStore slow = runsTaking(Duration.ofSeconds(5), clock, otherTookIt);
        TableMaintainer.Report r = new TableMaintainer(slow, oneRunPerFragment(), "flink sink t", clock, allocator)
                .check(USER, Duration.ZERO);
        assertThat(r.failures()).as(r.describe()).isEmpty();
        assertThat(r.fragmentsMerged()).as(r.describe()).isEqualTo(3);
        assertThat(otherTookIt)
                .as("the other maintainer's attempts after each run (the first lease expired after run 2)")
                .containsExactly(false, false, false);
    }

    /**
     * A check that lost the lease during a run (which took longer than the lease) stops there: the
     * run's commit stays, no further run or step starts, and one failure line says who has the
     * lease now.
     */
    @Test
    void aCheckThatLostTheLeaseStopsAfterItsCurrentRun() throws Exception {
        for (int r = 0; r < 3; r++) {
            ds = MaintenanceTables.update(ds, new long[] {0, 1, 2}, ROWS, 100 + r);
        }
        long versionBefore = ds.version();
        TestClock clock = new TestClock();
        List<Boolean> otherTookIt = new ArrayList<>();
        ObjectStore slow = runsTaking(Duration.ofSeconds(15), clock, otherTookIt);
        TableMaintainer.Report r = new TableMaintainer(slow, oneRunPerFragment(), "flink sink t", clock, allocator)
                .check(USER, Duration.ZERO);
        assertThat(otherTookIt).containsExactly(true);
        assertThat(r.fragmentsMerged()).as(r.describe()).isEqualTo(1);
        assertThat(r.failures())
                .singleElement()
                .asString()
                .startsWith("overlay-merge run 2: not run, the maintenance lease is now held by " + OTHER);
        try (Dataset after = ds.checkoutLatest()) {
            assertThat(after.version()).as("the first run's commit").isEqualTo(versionBefore + 1);
        }
    }

    private static final String OTHER = "lance-flink compact --mode overlay-merge";

    /** Merges of one fragment per run, checks every 6 s, the shortest lease (10 s). */
    private static MaintenanceSettings oneRunPerFragment() {
        return settings()
                .withCleanup(false, 1, Duration.ZERO, Duration.ofHours(1))
                .withChecks(1, Duration.ofSeconds(6))
                .withExecution(MaintenanceSettings.MIN_LEASE_TIMEOUT, 1, 1);
    }

    /**
     * {@link #store}, on which each run takes {@code perRun} by {@code clock} (it advances when the
     * run commits a version), after which another maintainer tries to take the lease (noted in
     * {@code otherTookIt}).
     */
    private ObjectStore runsTaking(Duration perRun, TestClock clock, List<Boolean> otherTookIt) {
        MaintenanceLease other = new MaintenanceLease(store, OTHER, Duration.ofHours(1), clock);
        return new ForwardingObjectStore(store) {
            @Override
            public boolean putIfAbsent(String path, byte[] content) throws IOException {
                boolean put = super.putIfAbsent(path, content);
                if (put && path.startsWith(ManifestNamingScheme.VERSIONS_DIR + "/")) {
                    clock.advance(perRun);
                    otherTookIt.add(other.acquire().acquired());
                }
                return put;
            }
        };
    }

    /**
     * A commit lands between the check's reading of the latest version and the cleanup's plan
     * (which counts the versions to retain from the latest version it reads itself): the cleanup
     * still keeps the compaction the sink's key map may not have learned yet, and does not fail.
     */
    @Test
    void aCommitDuringTheCleanupsPlanningKeepsACompactionTheSinkMayNotHaveLearned() throws Exception {
        for (int r = 0; r < 4; r++) {
            ds = MaintenanceTables.update(ds, new long[] {2}, ROWS, r);
        }
        ds = MaintenanceTables.sinkCommit(ds, USER, 49);
        long rewrite = rewriteFragments0And1();
        Dataset latest = ds.checkoutLatest();
        ds.close();
        ds = MaintenanceTables.sinkCommit(latest, USER, 50);
        Thread.sleep(20); // versions must be older than the (zero) minimum age
        AtomicBoolean commitDuringPlan = new AtomicBoolean(true);
        ObjectStore racing = new ForwardingObjectStore(store) {
            @Override
            public java.util.Iterator<dev.lanceflink.io.ObjectInfo> list(String directory) throws IOException {
                boolean fromCleanupPlan = StackWalker.getInstance()
                        .walk(frames -> frames.anyMatch(
                                f -> f.getClassName().equals(dev.lanceflink.maintenance.TableCleanup.class.getName())
                                        && f.getMethodName().equals("plan")));
                if (fromCleanupPlan && commitDuringPlan.getAndSet(false)) {
                    try {
                        ds = MaintenanceTables.update(ds, new long[] {2}, ROWS, 77); // another writer
                    } catch (Exception e) {
                        throw new IOException(e);
                    }
                }
                return super.list(directory);
            }
        };
        TableMaintainer m = maintainer(
                racing,
                settings().withOverlayMerge(0, 0).withCleanup(true, 1, Duration.ZERO, Duration.ofHours(1)),
                "flink sink t");
        assertThat(m.keepFrom(USER, ds.manifest())).isEqualTo(rewrite);
        TableMaintainer.Report r = m.check(USER, Duration.ofSeconds(1));
        assertThat(commitDuringPlan).as("the commit was injected").isFalse();
        assertThat(r.failures()).as(r.describe()).isEmpty();
        assertThat(r.versionsRemoved()).as(r.describe()).isEqualTo((int) rewrite - 1);
        try (Dataset after = ds.checkoutLatest()) {
            assertThat(after.versions().stream().map(VersionInfo::version).toList())
                    .containsExactly(rewrite, rewrite + 1, rewrite + 2);
        }
    }

    @Test
    void theMergeTriggerIsLoweredByTheOverlaysThatArrivedBetweenChecks() throws Exception {
        MaintenanceSettings bound8 =
                settings().withOverlayMerge(8, 0).withCleanup(false, 1, Duration.ZERO, Duration.ofHours(1));
        TableMaintainer m = maintainer(store, bound8, "flink sink t");
        ds = MaintenanceTables.update(ds, new long[] {0}, ROWS, 1);
        assertThat(m.check(USER, Duration.ZERO).outcome()).isEqualTo(TableMaintainer.Outcome.NOTHING_DUE);
        for (int r = 0; r < 4; r++) {
            ds = MaintenanceTables.update(ds, new long[] {0}, ROWS, 10 + r);
        }
        // 5 overlays: below 8, but 4 arrived since the last check, so as many may arrive during this one.
        TableMaintainer.Report r = m.check(USER, Duration.ZERO);
        assertThat(r.outcome()).as(r.describe()).isEqualTo(TableMaintainer.Outcome.RAN);
        assertThat(r.due().reasons()).containsExactly("merge 1 fragments: >= 4 overlays");
        assertThat(r.fragmentsMerged()).isEqualTo(1);
        // A fresh maintainer has seen no arrivals: the configured count applies.
        ds = ds.checkoutLatest();
        for (int i = 0; i < 5; i++) {
            ds = MaintenanceTables.update(ds, new long[] {1}, ROWS, 20 + i);
        }
        assertThat(maintainer(store, bound8, "flink sink t")
                        .check(USER, Duration.ZERO)
                        .outcome())
                .isEqualTo(TableMaintainer.Outcome.NOTHING_DUE);
    }

    @Test
    void withoutACommitOfTheSinkNoVersionIsRemoved() throws Exception {
        for (int r = 0; r < 5; r++) {
            ds = MaintenanceTables.update(ds, new long[] {0}, ROWS, r);
        }
        Thread.sleep(20);
        MaintenanceSettings cleanupOnly = settings().withOverlayMerge(0, 0);
        TableMaintainer.Report unknownUser = maintainer(store, cleanupOnly, "a").check(null, Duration.ZERO);
        assertThat(unknownUser.outcome()).isEqualTo(TableMaintainer.Outcome.NOTHING_DUE);
        TableMaintainer.Report noMarker = maintainer(store, cleanupOnly, "a").check(USER, Duration.ZERO);
        assertThat(noMarker.outcome())
                .as("no version carries the sink's marker: keep all")
                .isEqualTo(TableMaintainer.Outcome.NOTHING_DUE);
        assertThat(noMarker.versions()).isEqualTo(6);
    }

    @Test
    void withTheLeaseHeldElsewhereTheCheckChangesNothing() throws Exception {
        for (int r = 0; r < 4; r++) {
            ds = MaintenanceTables.update(ds, new long[] {0}, ROWS, r);
        }
        MaintenanceLease other = new MaintenanceLease(
                store, "lance-flink compact --mode fragments", Duration.ofHours(1), Clock.systemUTC());
        assertThat(other.acquire().acquired()).isTrue();
        long version = ds.version();

        TableMaintainer.Report r = maintainer(store, settings(), "flink sink t").check(USER, Duration.ZERO);
        assertThat(r.outcome()).isEqualTo(TableMaintainer.Outcome.SKIPPED_FOR_LEASE);
        assertThat(r.leaseHolder()).startsWith("held by lance-flink compact --mode fragments until");
        assertThat(r.describe()).contains("merge 1 fragments: >= 3 overlays").contains("held by lance-flink compact");
        try (Dataset after = ds.checkoutLatest()) {
            assertThat(after.version()).isEqualTo(version);
        }
    }

    @Test
    void aFailingStepIsReportedAndTheNextCheckRetriesIt() throws Exception {
        for (int r = 0; r < 4; r++) {
            ds = MaintenanceTables.update(ds, new long[] {0}, ROWS, r);
        }
        List<String> before = MaintenanceTables.rows(ds);
        AtomicBoolean broken = new AtomicBoolean(true);
        ObjectStore failing = new ForwardingObjectStore(store) {
            @Override
            public OutputStream create(String path) throws IOException {
                if (broken.get() && path.startsWith("data/")) {
                    throw new IOException("injected: the store refuses new data files");
                }
                return super.create(path);
            }
        };
        TableMaintainer m = maintainer(
                failing, settings().withCleanup(false, 1, Duration.ZERO, Duration.ofHours(1)), "flink sink t");
        TableMaintainer.Report r = m.check(USER, Duration.ZERO);
        assertThat(r.outcome()).isEqualTo(TableMaintainer.Outcome.RAN);
        assertThat(r.failures())
                .singleElement()
                .asString()
                .startsWith("overlay-merge: ")
                .contains("injected: the store refuses new data files");
        assertThat(r.describe()).contains("FAILED");
        try (Dataset after = ds.checkoutLatest()) {
            assertThat(after.version()).isEqualTo(ds.version());
        }

        broken.set(false);
        TableMaintainer.Report retry = m.check(USER, Duration.ZERO);
        assertThat(retry.failures()).isEmpty();
        assertThat(retry.fragmentsMerged()).isEqualTo(1);
        try (Dataset after = ds.checkoutLatest()) {
            assertThat(MaintenanceTables.rows(after)).isEqualTo(before);
        }
    }
}
