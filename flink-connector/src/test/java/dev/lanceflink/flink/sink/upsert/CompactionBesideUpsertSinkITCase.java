package dev.lanceflink.flink.sink.upsert;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanceflink.compact.FragmentRewriter;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.VersionInfo;
import dev.lanceflink.file.writer.FileWriterOptions;
import dev.lanceflink.flink.sink.LanceSinkBuilder;
import dev.lanceflink.flink.sink.LanceSinkMode;
import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.overlay.StagedWrite;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.ManifestIO;
import dev.lanceflink.table.VersionResolver;
import dev.lanceflink.testkit.users.UsersChangelog;
import dev.lanceflink.testkit.users.UsersChangelog.Mix;
import dev.lanceflink.testkit.users.UsersTable;
import dev.lanceflink.txn.CommitConflictException;
import dev.lanceflink.txn.CommitOptions;
import dev.lanceflink.txn.TableCommitter;
import dev.lanceflink.txn.Transaction;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fragment compaction next to a running upsert sink: another writer rewrites every fragment (rows
 * move to new fragments at new offsets) three times while the sink runs, each time between two
 * phases of its changes, so that the next phase updates, deletes and inserts keys located before
 * the move. The sink follows the moved rows and ends equal to the model cell by
 * cell, with no restart (the job runs without restart strategy).
 */
class CompactionBesideUpsertSinkITCase {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1)
            .setNumberSlotsPerTaskManager(4)
            .build());

    @TempDir
    Path dir;

    @Test
    void theSinkFollowsRowsACompactionMovesUnderIt() throws Exception {
        String uri = dir.resolve("compacted.lance").toString();
        TreeMap<Long, UsersTable.Row> initial = Mix.SINK_TESTS.initialRows(3_000);
        UsersTable.create(uri, initial, 300);
        UsersChangelog m = new UsersChangelog(initial, Mix.SINK_TESTS).generate(7, 30_000, 4_000, false);
        UpsertSinkITCase.CHANGES = m.changes;
        UpsertSinkITCase.WRITER_FAILURES.set(0);

        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> compactorError = new AtomicReference<>();
        COMPACTIONS.set(0);
        WANTED.set(0);
        // Compacts every fragment whenever the source asks for one more compaction (between its
        // phases), retrying when it loses to the sink's commit.
        Thread compactor = new Thread(() -> {
            try (BufferAllocator allocator = new RootAllocator(); ObjectStore store = new LocalObjectStore(Path.of(uri))) {
                while (!stop.get()) {
                    Thread.sleep(50);
                    if (COMPACTIONS.get() >= WANTED.get()) {
                        continue;
                    }
                    Manifest latest = ManifestIO.read(store, VersionResolver.latest(store));
                    List<Long> ids = latest.fragments().stream().map(Fragment::id).toList();
                    StagedWrite rewrite = FragmentRewriter.rewrite(store, latest, ids, 1_500, allocator,
                            FileWriterOptions.defaults());
                    try {
                        TableCommitter.commit(store, Transaction.of(latest.version(), rewrite.operation(), Map.of()),
                                CommitOptions.defaults());
                        COMPACTIONS.incrementAndGet();
                    } catch (CommitConflictException e) {
                        rewrite.discard(store); // lost to the sink's commit: plan again
                    }
                }
            } catch (Throwable t) {
                compactorError.set(t);
            }
        }, "compactor");

        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(2);
        env.enableCheckpointing(150);
        LanceSinkBuilder.forTable(uri).mode(LanceSinkMode.UPSERT).primaryKey("id").rowsPerFile(500)
                .uidSuffix("beside-compaction").commitRetries(30).commitRetryBackoff(Duration.ofMillis(10))
                .sinkTo(env.fromSequence(0, m.changes.size() - 1).setParallelism(1)
                        .map(new PhasedChange(m.changes.size() / PHASES)).setParallelism(1)
                        .returns(RowData.class));
        compactor.start();
        try {
            env.execute("upsert beside a compaction");
        } finally {
            stop.set(true);
            compactor.join();
        }

        assertThat(compactorError.get()).as("the compactor's failure").isNull();
        UsersTable.assertLatestEquals(uri, Map.of(), m.model);
        try (Dataset ds = Dataset.open(uri, Map.of())) {
            List<VersionInfo> versions = ds.versions();
            long lastSink = versions.stream().filter(v -> !v.operation().equals("Rewrite"))
                    .mapToLong(VersionInfo::version).max().orElseThrow();
            assertThat(versions.stream().filter(v -> v.operation().equals("Rewrite") && v.version() < lastSink)
                    .count()).as("compactions followed by commits of the sink").isEqualTo(PHASES - 1);
        }
    }

    private static final int PHASES = 4;
    static final AtomicInteger COMPACTIONS = new AtomicInteger();
    static final AtomicInteger WANTED = new AtomicInteger();

    /**
     * The changes in phases: before phase k it asks for compaction k and waits until it landed, so
     * that the next changes are aimed at rows located before the move.
     */
    static final class PhasedChange extends RichMapFunction<Long, RowData> {
        private static final long serialVersionUID = 1L;
        private final int perPhase;

        PhasedChange(int perPhase) {
            this.perPhase = perPhase;
        }

        @Override
        public RowData map(Long i) throws Exception {
            if (i > 0 && i % perPhase == 0 && i / perPhase < PHASES) {
                int phase = (int) (i / perPhase);
                WANTED.set(phase);
                long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
                while (COMPACTIONS.get() < phase) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("compaction " + phase + " did not land in 2 minutes");
                    }
                    Thread.sleep(20);
                }
            }
            if (i % 8 == 0) {
                Thread.sleep(1);
            }
            return UpsertSinkITCase.CHANGES.get((int) (long) i);
        }
    }
}
