package dev.lanceflink.committer.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanceflink.compact.FragmentRewriter;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.file.writer.FileWriterOptions;
import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.overlay.StagedWrite;
import dev.lanceflink.read.ScanOptions;
import dev.lanceflink.read.Scanner;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.ManifestIO;
import dev.lanceflink.table.VersionResolver;
import dev.lanceflink.txn.CommitOptions;
import dev.lanceflink.txn.Operation;
import dev.lanceflink.txn.TableCommitter;
import dev.lanceflink.txn.TableHistory;
import dev.lanceflink.txn.Transaction;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Locations taken before two successive compactions are translated to where the rows are after
 * both, from the log alone (also after a snapshot and restore, and with the compactions' versions
 * removed from the table); rows deleted before a compaction moved them have no location.
 */
class RewriteLogTest {
    @TempDir
    Path dir;

    private BufferAllocator allocator;
    private ObjectStore store;

    @BeforeEach
    void setUp() {
        allocator = new RootAllocator();
        store = new LocalObjectStore(dir);
    }

    @AfterEach
    void tearDown() throws Exception {
        store.close();
        allocator.close();
    }

    @Test
    void followsSuccessiveRewritesAndDropsRowsDeletedBeforeTheMove() throws Exception {
        createWithIds(50); // fragments 0..4 of 10 rows
        Map<Long, Long> before = addresses();
        RewriteLog log = new RewriteLog(latest().version());
        delete(before.get(3L), before.get(12L), before.get(19L)); // deleted before the first move
        Manifest first = rewrite(List.of(0L, 1L, 2L), 7);
        Map<Long, Long> afterFirst = addresses();
        delete(afterFirst.get(15L), afterFirst.get(27L)); // deleted between the moves
        Set<Long> firstNew = fragmentsNotIn(first, 3L, 4L);
        List<Long> second = new java.util.ArrayList<>(firstNew);
        second.add(3L);
        rewrite(second, 1000);
        Map<Long, Long> now = addresses();

        TableHistory history = new TableHistory(store);
        assertThat(log.learn(history, history.latestVersion())).isEqualTo(2);
        assertThat(log.rewrites()).isEqualTo(2);
        assertThat(log.movedFragments()).isEqualTo(3 + second.size());
        assertTranslated(log, before, now);

        // Kept in state and restored (merged from two subtasks' equal entries), then used after
        // the compactions' versions are gone from the table: nothing is read from its history.
        List<byte[]> entries = new java.util.ArrayList<>(log.snapshot());
        entries.addAll(log.snapshot());
        RewriteLog restored = RewriteLog.restore(entries).orElseThrow();
        assertThat(restored.through()).isEqualTo(log.through());
        assertThat(restored.rewrites()).isEqualTo(2);
        for (long v = 2; v < latest().version(); v++) {
            store.delete(VersionResolver.version(store, v).path());
        }
        assertTranslated(restored, before, now);
        assertThat(RewriteLog.restore(List.of()))
                .as("state from before the log existed")
                .isEmpty();
    }

    /**
     * A holder that made its locations current drops the Rewrites up to that version, but for the
     * chain of a location that could not be made current (its row deleted before a move): that
     * one still translates as before, to null.
     */
    @Test
    void dropsWhatNoLocationNeedsButTheChainsOfUntranslatableOnes() throws Exception {
        createWithIds(40); // fragments 0..3 of 10 rows
        Map<Long, Long> before = addresses();
        RewriteLog log = new RewriteLog(latest().version());
        delete(before.get(5L)); // fragment 0, deleted before its move
        long firstVersion = rewrite(List.of(0L, 1L), 1000).version();
        long secondVersion = rewrite(List.of(2L, 3L), 1000).version();
        TableHistory history = new TableHistory(store);
        assertThat(log.learn(history, history.latestVersion())).isEqualTo(2);
        Manifest latest = latest();

        long[] gone = {0, before.get(5L)};
        long[] moved = {0, before.get(25L)}; // fragment 2
        assertThat(log.translate(gone, latest)).isNull();
        assertThat(log.chainOf(gone, latest)).containsExactly(firstVersion);
        assertThat(log.chainOf(moved, latest)).containsExactly(secondVersion);
        long[] movedNow = log.translate(moved, latest);

        assertThat(log.dropThrough(firstVersion - 1, Set.of()))
                .as("nothing that old")
                .isZero();
        assertThat(log.dropThrough(latest.version(), log.chainOf(gone, latest))).isEqualTo(1);
        assertThat(log.rewrites()).isEqualTo(1);
        assertThat(log.translate(gone, latest)).as("its chain is kept").isNull();
        assertThat(log.translate(moved, latest))
                .as("an old location no longer translates: its holder made it current before the drop")
                .isSameAs(moved);
        assertThat(log.translate(movedNow, latest)).isSameAs(movedNow);
        RewriteLog restored = RewriteLog.restore(log.snapshot()).orElseThrow();
        assertThat(restored.rewrites()).as("the snapshot holds what is left").isEqualTo(1);
        assertThat(restored.translate(gone, latest)).isNull();
        assertThat(log.dropThrough(latest.version(), Set.of())).isEqualTo(1);
        assertThat(log.movedFragments()).isZero();
    }

    @Test
    void anOverwriteClearsTheLogAndIsReportedByItsVersion() throws Exception {
        try (VectorSchemaRoot batch = TestTable.batch(allocator, 1, 2, 3, 4)) {
            Dataset.write(
                    store,
                    allocator,
                    List.of(batch),
                    TestTable.SCHEMA,
                    WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(2));
        }
        RewriteLog log = new RewriteLog(latest().version());
        rewrite(List.of(0L, 1L), 1000);
        TableHistory history = new TableHistory(store);
        assertThat(log.learn(history, history.latestVersion())).isEqualTo(1);
        assertThat(log.lastReplacement()).isZero();
        assertThat(log.rewriteOfFile(0x1234L))
                .as("no file of the sink's naming")
                .isEmpty();
        try (VectorSchemaRoot batch = TestTable.batch(allocator, 9)) {
            Dataset.write(store, allocator, List.of(batch), TestTable.SCHEMA, WriteParams.of(WriteMode.OVERWRITE));
        }
        long overwrite = latest().version();
        log.learn(history, overwrite);
        assertThat(log.lastReplacement()).isEqualTo(overwrite);
        assertThat(log.rewrites()).isZero();
    }

    /** Creates the table with ids 0 .. {@code rows - 1} in fragments of 10 rows. */
    private void createWithIds(int rows) throws Exception {
        long[] ids = new long[rows];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = i;
        }
        try (VectorSchemaRoot batch = TestTable.batch(allocator, ids)) {
            Dataset.write(
                    store,
                    allocator,
                    List.of(batch),
                    TestTable.SCHEMA,
                    WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(10));
        }
    }

    private void assertTranslated(RewriteLog log, Map<Long, Long> before, Map<Long, Long> now) throws Exception {
        Manifest latest = latest();
        for (Map.Entry<Long, Long> e : before.entrySet()) {
            long[] location = {0, e.getValue()};
            long[] t = log.translate(location, latest);
            Long expected = now.get(e.getKey());
            if (expected == null) {
                assertThat(t).as("id %s, deleted before a move", e.getKey()).isNull();
            } else if (e.getValue() >>> 32 == 4) {
                assertThat(t).as("id %s, never moved", e.getKey()).isSameAs(location);
            } else {
                assertThat(t).as("id %s", e.getKey()).containsExactly(0, expected);
                assertThat(log.translate(t, latest))
                        .as("a current location stays")
                        .isSameAs(t);
            }
        }
    }

    private Manifest latest() throws Exception {
        return ManifestIO.read(store, VersionResolver.latest(store));
    }

    private Manifest rewrite(List<Long> fragments, long targetRows) throws Exception {
        Manifest read = latest();
        StagedWrite staged =
                FragmentRewriter.rewrite(store, read, fragments, targetRows, allocator, FileWriterOptions.defaults());
        return TableCommitter.commit(
                store,
                Transaction.of(read.version(), (Operation.Rewrite) staged.operation(), Map.of()),
                CommitOptions.defaults());
    }

    private static Set<Long> fragmentsNotIn(Manifest m, long... except) {
        Set<Long> out = new java.util.TreeSet<>();
        m.fragments().forEach(f -> out.add(f.id()));
        for (long e : except) {
            out.remove(e);
        }
        return out;
    }

    private void delete(long... addresses) throws Exception {
        try (Dataset ds = Dataset.open(store, allocator)) {
            ds.deleteRows(addresses).close();
        }
    }

    /** id → row address of every live row. */
    private Map<Long, Long> addresses() throws Exception {
        Map<Long, Long> out = new HashMap<>();
        try (Dataset ds = Dataset.open(store, allocator);
                Scanner s = ds.scan(ScanOptions.all().withRowAddress(true))) {
            while (s.hasNext()) {
                try (VectorSchemaRoot b = s.next()) {
                    BigIntVector k = (BigIntVector) b.getVector("id");
                    UInt8Vector addr = (UInt8Vector) b.getVector(ScanOptions.ROW_ADDRESS);
                    for (int i = 0; i < b.getRowCount(); i++) {
                        out.put(k.get(i), addr.get(i));
                    }
                }
            }
        }
        return out;
    }
}
