package dev.lanceflink.flink.sink.upsert;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.VersionInfo;
import dev.lanceflink.flink.sink.KeyMapMode;
import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.testkit.flink.MiniClusters;
import dev.lanceflink.testkit.users.UsersChangelog;
import dev.lanceflink.testkit.users.UsersChangelog.Mix;
import dev.lanceflink.testkit.users.UsersTable;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.table.data.RowData;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Fragment compaction next to a running upsert sink: another writer rewrites every fragment (rows
 * move to new fragments at new offsets) three times while the sink runs, each time between two
 * phases of its changes, so that the next phase updates, deletes and inserts keys located before
 * the move. The sink follows the moved rows and ends equal to the model cell by
 * cell, with no restart (the job runs without restart strategy), in both key map modes.
 */
class CompactionBesideUpsertSinkITCase {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = MiniClusters.oneTaskManager(4);

    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(KeyMapMode.class)
    void theSinkFollowsRowsACompactionMovesUnderIt(KeyMapMode keyMap) throws Exception {
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
        Thread compactor = new Thread(
                () -> {
                    try (BufferAllocator allocator = new RootAllocator();
                            ObjectStore store = new LocalObjectStore(Path.of(uri))) {
                        while (!stop.get()) {
                            Thread.sleep(50);
                            if (COMPACTIONS.get() < WANTED.get()
                                    && CompactionBesideSink.compactAll(store, allocator)
                                            .isPresent()) {
                                COMPACTIONS.incrementAndGet();
                            }
                        }
                    } catch (Throwable t) {
                        compactorError.set(t);
                    }
                },
                "compactor");

        compactor.start();
        try {
            CompactionBesideSink.runSink(
                    uri,
                    m.changes.size(),
                    new PhasedChange(m.changes.size() / PHASES),
                    "beside-compaction",
                    "upsert beside a compaction, key map " + keyMap.optionValue(),
                    keyMap);
        } finally {
            stop.set(true);
            compactor.join();
        }

        assertThat(compactorError.get()).as("the compactor's failure").isNull();
        UsersTable.assertLatestEquals(uri, Map.of(), m.model);
        try (Dataset ds = Dataset.open(uri, Map.of())) {
            List<VersionInfo> versions = ds.versions();
            long lastSink = versions.stream()
                    .filter(v -> !v.operation().equals("Rewrite"))
                    .mapToLong(VersionInfo::version)
                    .max()
                    .orElseThrow();
            assertThat(versions.stream()
                            .filter(v -> v.operation().equals("Rewrite") && v.version() < lastSink)
                            .count())
                    .as("compactions followed by commits of the sink")
                    .isEqualTo(PHASES - 1);
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
                CompactionBesideSink.awaitCompaction((int) (i / perPhase), WANTED, COMPACTIONS);
            }
            if (i % 8 == 0) {
                Thread.sleep(1);
            }
            return UpsertSinkITCase.CHANGES.get((int) (long) i);
        }
    }
}
