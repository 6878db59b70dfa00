package dev.lanceflink.flink.sink.upsert;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.VersionInfo;
import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.maintenance.CleanupPolicy;
import dev.lanceflink.maintenance.TableCleanup;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.VersionResolver;
import dev.lanceflink.testkit.flink.MiniClusters;
import dev.lanceflink.testkit.users.UsersChangelog;
import dev.lanceflink.testkit.users.UsersChangelog.Mix;
import dev.lanceflink.testkit.users.UsersTable;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.table.data.RowData;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A compaction lands beside a running upsert sink and a version cleanup then removes the
 * compaction's version (and the old fragments' files) from the table, before most keys located
 * before the move change again. The sink's key map follows the moves it learned while the version
 * was there (kept by the resolver, not read from the history again), so those later changes land
 * on the right rows: the table ends equal to the model cell by cell, with no restart. Before the
 * key map followed compactions, such a change stopped the job.
 */
class CompactionThenCleanupBesideUpsertSinkITCase {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = MiniClusters.oneTaskManager(4);

    private static final int PHASES = 3;
    /** Sink commits after a compaction before the cleanup runs: the resolver has then surely seen it. */
    private static final int SINK_COMMITS_BEFORE_CLEANUP = 3;

    static final AtomicInteger COMPACTIONS = new AtomicInteger();
    static final AtomicInteger CLEANED = new AtomicInteger();
    static final AtomicInteger WANTED = new AtomicInteger();

    @TempDir
    Path dir;

    @Test
    void changesOfRowsLocatedBeforeACleanedUpCompactionLand() throws Exception {
        String uri = dir.resolve("compacted-cleaned.lance").toString();
        TreeMap<Long, UsersTable.Row> initial = Mix.SINK_TESTS.initialRows(3_000);
        UsersTable.create(uri, initial, 300);
        UsersChangelog m = new UsersChangelog(initial, Mix.SINK_TESTS).generate(11, 24_000, 4_000, false);
        UpsertSinkITCase.CHANGES = m.changes;
        UpsertSinkITCase.WRITER_FAILURES.set(0);

        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> maintenanceError = new AtomicReference<>();
        List<Long> rewriteVersions = new CopyOnWriteArrayList<>();
        List<Integer> versionsRemoved = new CopyOnWriteArrayList<>();
        COMPACTIONS.set(0);
        CLEANED.set(0);
        WANTED.set(0);
        // When the source asks for phase k: compacts every fragment (retrying when it loses to
        // the sink's commit), waits for a few sink commits on top, then removes every version but
        // the latest and the sink's last commit, the compaction's included.
        Thread maintenance = new Thread(
                () -> {
                    try (BufferAllocator allocator = new RootAllocator();
                            ObjectStore store = new LocalObjectStore(Path.of(uri))) {
                        while (!stop.get()) {
                            Thread.sleep(50);
                            if (COMPACTIONS.get() < WANTED.get()) {
                                Optional<Manifest> done = CompactionBesideSink.compactAll(store, allocator);
                                if (done.isPresent()) {
                                    rewriteVersions.add(done.get().version());
                                    COMPACTIONS.incrementAndGet();
                                }
                            } else if (CLEANED.get() < COMPACTIONS.get()) {
                                long rewritten = rewriteVersions.get(rewriteVersions.size() - 1);
                                if (VersionResolver.latest(store).version() < rewritten + SINK_COMMITS_BEFORE_CLEANUP) {
                                    continue;
                                }
                                CleanupPolicy policy = new CleanupPolicy(
                                        Duration.ZERO,
                                        1,
                                        Duration.ofHours(1),
                                        Instant.now(),
                                        "flink.commit-user",
                                        Set.of());
                                versionsRemoved.add(TableCleanup.execute(store, TableCleanup.plan(store, policy))
                                        .versionsRemoved());
                                assertThat(VersionResolver.find(store, rewritten))
                                        .as("the compaction's version %s after the" + " cleanup", rewritten)
                                        .isEmpty();
                                CLEANED.incrementAndGet();
                            }
                        }
                    } catch (Throwable t) {
                        maintenanceError.set(t);
                    }
                },
                "compactor-and-cleanup");

        maintenance.start();
        try {
            CompactionBesideSink.runSink(
                    uri,
                    m.changes.size(),
                    new CleanedPhases(m.changes.size() / (PHASES + 1)),
                    "beside-cleanup",
                    "upsert beside a compaction and a cleanup");
        } finally {
            stop.set(true);
            maintenance.join();
        }

        assertThat(maintenanceError.get())
                .as("the compactor's or cleanup's failure")
                .isNull();
        assertThat(CLEANED.get()).isEqualTo(PHASES);
        assertThat(versionsRemoved).allSatisfy(n -> assertThat(n).isPositive());
        UsersTable.assertLatestEquals(uri, Map.of(), m.model);
        try (Dataset ds = Dataset.open(uri, Map.of())) {
            List<VersionInfo> versions = ds.versions();
            assertThat(versions.stream()
                            .filter(v -> v.operation().equals("Rewrite"))
                            .toList())
                    .as("compactions still in the history")
                    .isEmpty();
        }
    }

    /**
     * The changes in phases. Before phase k it asks for compaction k and waits until it landed;
     * then, until the cleanup removed the compaction's version, it emits slowly (so that checkpoints
     * and sink commits go on, but few keys change), and at full speed afterwards: most of the
     * phase's changes are aimed at rows located before the move, after its version is gone.
     */
    static final class CleanedPhases extends RichMapFunction<Long, RowData> {
        private static final long serialVersionUID = 1L;
        private final int perPhase;

        CleanedPhases(int perPhase) {
            this.perPhase = perPhase;
        }

        @Override
        public RowData map(Long i) throws Exception {
            int phase = (int) Math.min(PHASES, i / perPhase);
            if (phase > 0 && i % perPhase == 0 && i / perPhase <= PHASES) {
                CompactionBesideSink.awaitCompaction(phase, WANTED, COMPACTIONS);
            }
            if (CLEANED.get() < phase) {
                Thread.sleep(25);
            } else if (i % 8 == 0) {
                Thread.sleep(1);
            }
            return UpsertSinkITCase.CHANGES.get((int) (long) i);
        }
    }
}
