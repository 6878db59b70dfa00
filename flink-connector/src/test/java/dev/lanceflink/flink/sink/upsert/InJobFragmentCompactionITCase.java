package dev.lanceflink.flink.sink.upsert;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanceflink.flink.sink.maintenance.MaintenanceSettings;
import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.ManifestLocation;
import dev.lanceflink.testkit.VersionPoller;
import dev.lanceflink.testkit.flink.MiniClusters;
import dev.lanceflink.testkit.users.UsersChangelog;
import dev.lanceflink.testkit.users.UsersChangelog.Mix;
import dev.lanceflink.testkit.users.UsersTable;
import dev.lanceflink.txn.Operation;
import dev.lanceflink.txn.Transaction;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.table.data.RowData;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fragment compaction inside a streaming upsert job (parallelism 2, checkpoints every 200 ms)
 * whose changelog inserts new keys all along (so every checkpoint appends small fragments) and
 * updates and deletes existing ones, with cleanup on (retaining few versions, no minimum age). A
 * poller reads every version. The fragments stay under a bound although the sink creates many
 * times as many; the compactions' versions are cleaned up while the sink keeps changing rows they
 * moved (the key map follows them); and the table ends equal to the model cell by cell, without
 * a restart.
 */
class InJobFragmentCompactionITCase {
    private static final InMemoryReporter METRICS = InMemoryReporter.createWithRetainedMetrics();

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = MiniClusters.oneTaskManager(4, METRICS);

    private static final int INITIAL_KEYS = 1_000;
    private static final int KEYS = 4_000;
    /** Fragments below this many rows are compacted, 4 at least per run. */
    private static final int TARGET_ROWS = 1_500;

    private static final int MIN_FRAGMENTS = 4;
    /** Fragments any version may have. */
    private static final int BOUND = 40;

    @TempDir
    Path dir;

    @Test
    void fragmentsStayBoundedAndTheTableEqualsTheModel() throws Exception {
        String uri = dir.resolve("compacted-in-job.lance").toString();
        TreeMap<Long, UsersTable.Row> initial = Mix.SINK_TESTS.initialRows(INITIAL_KEYS);
        UsersTable.create(uri, initial, INITIAL_KEYS / 4);
        UsersChangelog m = new UsersChangelog(initial, Mix.SINK_TESTS).generate(29, 24_000, KEYS, false);

        FragmentPoller poller = new FragmentPoller(new LocalObjectStore(Path.of(uri)));
        MaintenanceSettings maintenance = MaintenanceSettings.enabledWithDefaults()
                .withChecks(1, Duration.ofSeconds(1))
                .withOverlayMerge(8, 0)
                .withOverlayFold(0, Duration.ZERO)
                .withCleanup(true, 6, Duration.ZERO, Duration.ofMinutes(1))
                .withExecution(Duration.ofSeconds(30), 2, 64)
                .withFragmentCompaction(
                        new MaintenanceSettings.FragmentCompaction(true, TARGET_ROWS, 0, 0.3, MIN_FRAGMENTS));
        JobClient job = poller.during(() -> {
            JobClient started = MaintainedUpsertJob.start(
                    uri, m.changes, maintenance, "compacted-in-job", 2, "upsert with in-job fragment compaction");
            started.getJobExecutionResult().get();
            return started;
        });

        UsersTable.assertLatestEquals(uri, Map.of(), m.model);
        assertThat(poller.failure).isNull();
        System.out.printf(
                "in-job fragment compaction: %d versions read, %d sink commits, %d compactions, max %d"
                        + " fragments (version %d), %d fragment ids used, %d compactions cleaned up while the job ran%n",
                poller.read,
                poller.sinkVersions,
                poller.rewrites.size(),
                poller.maxFragments,
                poller.worstVersion,
                poller.fragmentIdsUsed,
                poller.rewritesGone);
        assertThat(poller.sinkVersions).as("checkpoints committed").isGreaterThan(20);
        assertThat(poller.rewrites)
                .as("fragment compactions the maintenance committed")
                .hasSizeGreaterThan(2);
        assertThat(poller.fragmentIdsUsed)
                .as("fragments created, the sink's and the compactions'")
                .isGreaterThan(2 * BOUND);
        assertThat(poller.maxFragments)
                .as("fragments in any version (worst: version %s)", poller.worstVersion)
                .isLessThanOrEqualTo(BOUND);
        assertThat(poller.rewritesGone)
                .as("compactions whose version a cleanup removed while the sink ran")
                .isPositive();
        assertThat(counter(job, "failures")).isZero();
        assertThat(gauge(job, "lastRunFragmentsCompacted"))
                .as("metric of the last run")
                .isNotNull();
    }

    /**
     * Issue #15: the sink updates and deletes rows of every fragment every checkpoint (few new keys:
     * only deleted keys come back), so every fragment a compaction reads has changed by the time it
     * commits. The compactions carry those changes to their new fragments and land; they are
     * planned in groups of at most {@code max-fragments-per-run} fragments; the table ends equal to
     * the model cell by cell.
     */
    @Test
    void compactionsLandWhileTheSinkChangesEveryFragment() throws Exception {
        String uri = dir.resolve("updated-everywhere.lance").toString();
        // Fragments large enough that reading 8 of them takes longer than a checkpoint interval,
        // and changes spread over all of them: every compaction races the sink's commits.
        int keys = 20_000;
        TreeMap<Long, UsersTable.Row> initial = Mix.SINK_TESTS.initialRows(keys);
        UsersTable.create(uri, initial, keys / 40); // 40 fragments of 500 rows
        UsersChangelog m = new UsersChangelog(initial, Mix.SINK_TESTS).generate(31, 24_000, keys, false);

        RewritePoller poller = new RewritePoller(new LocalObjectStore(Path.of(uri)));
        MaintenanceSettings maintenance = MaintenanceSettings.enabledWithDefaults()
                .withChecks(1, Duration.ofSeconds(1))
                .withOverlayMerge(8, 0)
                .withOverlayFold(0, Duration.ZERO)
                .withCleanup(true, 6, Duration.ZERO, Duration.ofMinutes(1))
                .withExecution(Duration.ofSeconds(30), 2, 8)
                .withFragmentCompaction(new MaintenanceSettings.FragmentCompaction(true, 4_000, 0, 0.3, 4));
        // A compaction overlaps sink commits surely: the job's store opens data files late on
        // compaction task threads (SlowCompactionReadsStoreProvider), on a quiet machine too, where
        // a compaction was otherwise done between two commits. And after the changelog the job
        // goes on inserting new keys (small fragments to compact, every checkpoint), deleting them
        // again and changing rows of every fragment, until the poller has seen a compaction carry
        // the sink's changes (a minute at most).
        Churn tail = new Churn(m.model);
        JobClient job = poller.during(() -> {
            JobClient started = MaintainedUpsertJob.start(
                    "slowcompaction://" + uri,
                    m.changes,
                    tail,
                    maintenance,
                    "updated-everywhere",
                    2,
                    "upsert updating every fragment");
            started.getJobExecutionResult().get();
            return started;
        });

        UsersTable.assertLatestEquals(uri, Map.of(), m.model);
        assertThat(poller.failure).isNull();
        System.out.printf(
                "compaction under updates of every fragment: %d versions read, %d sink commits, %d compactions"
                        + " (%d carrying the sink's concurrent changes), at most %d fragments per compaction%n",
                poller.read, poller.sinkVersions, poller.rewrites, poller.carrying, poller.maxOldFragments);
        assertThat(poller.sinkVersions).as("checkpoints committed").isGreaterThan(20);
        assertThat(poller.rewrites).as("fragment compactions that landed").isGreaterThan(2);
        assertThat(poller.carrying)
                .as("compactions whose new fragments carry overlays or deletions the sink committed meanwhile")
                .isPositive();
        assertThat(poller.maxOldFragments)
                .as("fragments one compaction rewrote (max-fragments-per-run)")
                .isLessThanOrEqualTo(8);
        assertThat(counter(job, "failures")).isZero();
    }

    /**
     * The tail of {@link #compactionsLandWhileTheSinkChangesEveryFragment}: each step inserts a new
     * key (so every checkpoint appends small fragments and compactions keep being planned), deletes
     * one of the new keys inserted before at random once more than {@link #LIVE} are live (deletions
     * in the small fragments compactions read), and changes an existing key and changes it back
     * (overlays on every fragment). The drain deletes the new keys left, so the table ends as the
     * changelog's model.
     */
    static final class Churn implements MaintainedUpsertJob.Tail {
        private static final int LIVE = 1_000;
        private static final long FIRST_NEW_KEY = 1_000_000_000L;
        private final List<Long> existing;
        private final TreeMap<Long, UsersTable.Row> model;
        private final List<Long> live = new ArrayList<>();
        private final Map<Long, UsersTable.Row> liveRows = new HashMap<>();
        private long nextKey = FIRST_NEW_KEY;

        Churn(TreeMap<Long, UsersTable.Row> model) {
            this.model = model;
            this.existing = new ArrayList<>(model.keySet());
        }

        @Override
        public void step(Random r, Consumer<RowData> out) {
            long key = nextKey++;
            UsersTable.Row row = Mix.SINK_TESTS.inserted.row(r);
            out.accept(UsersChangelog.rowData(RowKind.INSERT, key, row));
            live.add(key);
            liveRows.put(key, row);
            if (live.size() > LIVE) {
                int at = r.nextInt(live.size());
                long gone = live.get(at);
                live.set(at, live.get(live.size() - 1));
                live.remove(live.size() - 1);
                out.accept(UsersChangelog.rowData(RowKind.DELETE, gone, liveRows.remove(gone)));
            }
            long id = existing.get(r.nextInt(existing.size()));
            UsersTable.Row last = model.get(id);
            out.accept(UsersChangelog.rowData(RowKind.UPDATE_AFTER, id, Mix.SINK_TESTS.updated.changed(last, r)));
            out.accept(UsersChangelog.rowData(RowKind.UPDATE_AFTER, id, last));
        }

        @Override
        public void drain(Consumer<RowData> out) {
            for (long key : live) {
                out.accept(UsersChangelog.rowData(RowKind.DELETE, key, liveRows.get(key)));
            }
            live.clear();
            liveRows.clear();
        }
    }

    /** Reads every version as it appears: compactions, and whether they carried concurrent changes. */
    static final class RewritePoller extends VersionPoller {
        int sinkVersions;
        int rewrites;
        int carrying;
        int maxOldFragments;

        RewritePoller(ObjectStore store) {
            super(store, 5);
        }

        @Override
        protected void onVersion(Manifest m, Optional<Transaction> txn) {
            if (txn.isPresent() && txn.get().operation() instanceof Operation.Rewrite rw) {
                rewrites++;
                maxOldFragments = Math.max(maxOldFragments, rw.oldFragmentIds().size());
                boolean carried = rw.groups().stream()
                        .flatMap(g -> g.newFragments().stream())
                        .anyMatch(f -> f.deletionFile() != null || !f.overlays().isEmpty());
                if (carried) {
                    carrying++;
                    MaintainedUpsertJob.TAIL_WANTED.set(false);
                }
            }
            if (txn.isPresent() && txn.get().properties().containsKey("flink.commit-user")) {
                sinkVersions++;
            }
        }
    }

    private static long counter(JobClient job, String name) {
        return MaintainedUpsertJob.counter(METRICS, job, name);
    }

    private static Object gauge(JobClient job, String name) {
        return MaintainedUpsertJob.gauge(METRICS, job, name);
    }

    /** Reads every version as it appears: fragments, compactions, sink commits. */
    static final class FragmentPoller extends VersionPoller {
        int sinkVersions;
        int maxFragments;
        long worstVersion;
        long fragmentIdsUsed;
        final List<Long> rewrites = new ArrayList<>();
        int rewritesGone;

        FragmentPoller(ObjectStore store) {
            super(store, 5);
        }

        @Override
        protected void onListed(List<ManifestLocation> versions) {
            // Compactions gone from the history while versions still come.
            long oldest = versions.isEmpty() ? 0 : versions.get(0).version();
            rewritesGone = (int) rewrites.stream().filter(v -> v < oldest).count();
        }

        @Override
        protected void onVersion(Manifest m, Optional<Transaction> txn) {
            if (m.fragments().size() > maxFragments) {
                maxFragments = m.fragments().size();
                worstVersion = m.version();
            }
            fragmentIdsUsed = Math.max(fragmentIdsUsed, m.nextFragmentId());
            if (txn.isPresent() && txn.get().operation() instanceof Operation.Rewrite) {
                rewrites.add(m.version());
            }
            if (txn.isPresent() && txn.get().properties().containsKey("flink.commit-user")) {
                sinkVersions++;
            }
        }
    }
}
