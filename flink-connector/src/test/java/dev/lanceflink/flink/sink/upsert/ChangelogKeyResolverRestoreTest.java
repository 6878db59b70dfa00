package dev.lanceflink.flink.sink.upsert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.committer.core.TableLocation;
import dev.lanceflink.compact.FragmentRewriter;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.file.writer.FileWriterOptions;
import dev.lanceflink.flink.sink.KeyMapMode;
import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.overlay.StagedWrite;
import dev.lanceflink.schema.ColumnSet;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.ManifestIO;
import dev.lanceflink.table.VersionResolver;
import dev.lanceflink.testkit.users.UsersChangelog.Mix;
import dev.lanceflink.testkit.users.UsersTable;
import dev.lanceflink.txn.CommitOptions;
import dev.lanceflink.txn.TableCommitter;
import dev.lanceflink.txn.Transaction;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The key resolver's locations across a compaction, a restore and a cleanup, at the operator: a
 * key located before a compaction is updated at its row's new address, from state with the rewrite
 * log after the compaction's version is gone, and from state of the layout before the log existed
 * (the log is then learned from the history at restore); a row deleted before the compaction
 * moved its fragment gets no update; a key map that does not fit a compaction stops the job.
 */
class ChangelogKeyResolverRestoreTest {
    private static final RowType ROW = RowType.of(
            new LogicalType[] {
                new BigIntType(false), new VarCharType(VarCharType.MAX_LENGTH), new IntType(), new DoubleType()
            },
            new String[] {"id", "name", "age", "score"});
    private static final int[] KEY = {0};

    @TempDir
    Path dir;

    @Test
    void locationsFollowACompactionAcrossRestoreAndCleanup() throws Exception {
        String uri = dir.resolve("t.lance").toString();
        UsersTable.create(uri, Mix.SINK_TESTS.initialRows(40), 10); // fragments 0..3
        Map<Long, Long> before = UsersTable.rowAddresses(uri);

        OperatorSubtaskState bootstrapped;
        try (var h = harness(uri)) {
            h.open(); // bootstraps the key map from the table
            bootstrapped = h.snapshot(1, 1);
        }
        // Another writer deletes id 3, then a compaction moves fragments 0 and 1.
        deleteRow(uri, before.get(3L));
        compact(uri, 0L, 1L);
        Map<Long, Long> now = UsersTable.rowAddresses(uri);
        assertThat(now.get(5L)).isNotEqualTo(before.get(5L));

        // State of the layout before the rewrite log: the log is learned from the history.
        OperatorSubtaskState oldLayout = OperatorSubtaskState.builder()
                .setManagedKeyedState(bootstrapped.getManagedKeyedState())
                .build();
        try (var h = harness(uri)) {
            h.initializeState(oldLayout);
            h.open();
            assertThat(updates(h, 2, 5L, 17L)).containsExactly(now.get(5L), now.get(17L));
        }

        OperatorSubtaskState withLog;
        try (var h = harness(uri)) {
            h.initializeState(bootstrapped);
            h.open();
            assertThat(updates(h, 2, 5L)).containsExactly(now.get(5L));
            withLog = h.snapshot(2, 2);
        }
        // One more commit, then a cleanup removes every version but the latest: the compaction's too.
        try (BufferAllocator a = new RootAllocator();
                ObjectStore store = new LocalObjectStore(Path.of(uri))) {
            try (Dataset ds = Dataset.open(store, a)) {
                ds.deleteRows(new long[] {now.get(35L)}).close();
            }
            long latest = VersionResolver.latest(store).version();
            for (long v = 1; v < latest; v++) {
                store.delete(VersionResolver.version(store, v).path());
            }
        }
        try (var h = harness(uri)) {
            h.initializeState(withLog);
            h.open();
            // 7 and 12 were never touched since the compaction; 3 was deleted before it.
            assertThat(updates(h, 3, 7L, 12L, 3L)).containsExactly(now.get(7L), now.get(12L));
            // Written back: the next update needs no translation and lands at the same row.
            assertThat(updates(h, 4, 7L)).containsExactly(now.get(7L));
        }
    }

    /**
     * Issue #15: a barrier with enough compactions in the rewrite log makes every location of the
     * key map current and drops the compactions no location needs any more (the log is written at
     * every checkpoint: without this it grows with every compaction the sink lives through), but
     * those on the way of a row deleted before a compaction moved it. A restore from that state,
     * after a cleanup removed the compactions' versions, still updates every row where it is.
     */
    @ParameterizedTest
    @CsvSource({"KEYED_STATE, false", "KEYED_STATE, true", "IN_MEMORY, false"})
    void aSweepMakesTheKeyMapCurrentAndDropsTheCompactionsNoLocationNeeds(KeyMapMode mode, boolean rocksDb)
            throws Exception {
        String uri = dir.resolve("t.lance").toString();
        UsersTable.create(uri, Mix.SINK_TESTS.initialRows(40), 10); // fragments 0..3
        Map<Long, Long> before = UsersTable.rowAddresses(uri);
        OperatorSubtaskState swept;
        ChangelogKeyResolver resolver = resolver(uri, mode).sweepingAfter(1);
        try (var h = harness(resolver)) {
            if (rocksDb) {
                h.setStateBackend(new EmbeddedRocksDBStateBackend()); // applyToAllKeys over RocksDB
            }
            h.open(); // bootstraps the key map from the table
            deleteRow(uri, before.get(3L)); // another writer, before the compaction
            compact(uri, 0L, 1L);
            h.prepareSnapshotPreBarrier(1);
            assertThat(resolver.rewritesLogged())
                    .as("kept: id 3's row was deleted before it moved")
                    .isEqualTo(1);
            compact(uri, 2L, 3L);
            h.prepareSnapshotPreBarrier(2);
            assertThat(resolver.rewritesLogged())
                    .as("the second compaction: every location it moved is made current")
                    .isEqualTo(1);
            swept = h.snapshot(2, 2);
        }
        Map<Long, Long> now = UsersTable.rowAddresses(uri);
        assertThat(now.get(25L)).isNotEqualTo(before.get(25L));
        try (BufferAllocator a = new RootAllocator();
                ObjectStore store = new LocalObjectStore(Path.of(uri))) {
            long latest = VersionResolver.latest(store).version();
            for (long v = 1; v < latest; v++) {
                store.delete(VersionResolver.version(store, v).path());
            }
        }
        try (var h = harness(resolver(uri, mode))) {
            if (rocksDb) {
                h.setStateBackend(new EmbeddedRocksDBStateBackend());
            }
            h.initializeState(swept);
            h.open();
            if (mode == KeyMapMode.KEYED_STATE) {
                // The key map still names id 3's deleted row: its update is dropped.
                assertThat(updates(h, 3, 7L, 25L, 3L)).containsExactly(now.get(7L), now.get(25L));
            } else {
                // Rebuilt from the table at restore (id 3 is absent there: an upsert would insert it).
                assertThat(updates(h, 3, 7L, 25L)).containsExactly(now.get(7L), now.get(25L));
            }
        }
    }

    /**
     * A sweep costs a pass over every key, during which the subtask processes nothing: the next
     * one waits for a multiple of its duration, however many compactions arrive meanwhile.
     */
    @ParameterizedTest
    @CsvSource({"KEYED_STATE", "IN_MEMORY"})
    void aSweepWaitsForAMultipleOfTheLastOnesDuration(KeyMapMode mode) throws Exception {
        String uri = dir.resolve("t.lance").toString();
        UsersTable.create(uri, Mix.SINK_TESTS.initialRows(40), 10); // fragments 0..3
        ChangelogKeyResolver resolver = resolver(uri, mode).sweepingAfter(1).sweepDutyFactor(1_000_000);
        try (var h = harness(resolver)) {
            h.open();
            compact(uri, 0L, 1L);
            h.prepareSnapshotPreBarrier(1);
            assertThat(resolver.rewritesLogged()).as("the first sweep runs").isZero();
            compact(uri, 2L, 3L);
            h.prepareSnapshotPreBarrier(2);
            assertThat(resolver.rewritesLogged())
                    .as("the next waits a million times the first one's duration")
                    .isEqualTo(1);
        }
    }

    /**
     * A key map that does not fit a compaction its rewrite log learned (here the table was
     * replaced behind the sink's back by one of smaller fragments, which were then compacted)
     * stops the job: every restart would restore the same map and fail the same way.
     */
    @Test
    void aKeyMapThatDoesNotFitALearnedCompactionStopsTheJob() throws Exception {
        String uri = dir.resolve("t.lance").toString();
        UsersTable.create(uri, Mix.SINK_TESTS.initialRows(40), 10); // fragments 0..3 of 10 rows
        OperatorSubtaskState bootstrapped;
        try (var h = harness(uri)) {
            h.open(); // id 5 is at offset 5 of fragment 0
            bootstrapped = h.snapshot(1, 1);
        }
        try (var files = Files.walk(Path.of(uri))) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
        UsersTable.create(uri, Mix.SINK_TESTS.initialRows(40), 3); // fragment 0 has 3 rows
        compact(uri, 0L, 1L);
        try (var h = harness(uri)) {
            h.initializeState(bootstrapped);
            h.open();
            assertThatThrownBy(() -> updates(h, 2, 5L))
                    .hasStackTraceContaining("does not fit the Rewrite of version")
                    .hasStackTraceContaining("restart the sink without state")
                    .satisfies(ChangelogKeyResolverInMemoryTest::stopsTheJob);
        }
    }

    private static ChangelogKeyResolver resolver(String uri, KeyMapMode mode) {
        return new ChangelogKeyResolver(
                TableLocation.of(uri), ROW, KEY, ColumnSet.firstColumns(4), false, 100, false, mode);
    }

    private static void deleteRow(String uri, long address) throws Exception {
        try (BufferAllocator a = new RootAllocator();
                ObjectStore store = new LocalObjectStore(Path.of(uri));
                Dataset ds = Dataset.open(store, a)) {
            ds.deleteRows(new long[] {address}).close();
        }
    }

    /** Commits a fragment compaction (a Rewrite) of {@code fragments}. */
    private static void compact(String uri, Long... fragments) throws Exception {
        try (BufferAllocator a = new RootAllocator();
                ObjectStore store = new LocalObjectStore(Path.of(uri))) {
            Manifest read = ManifestIO.read(store, VersionResolver.latest(store));
            StagedWrite rewrite =
                    FragmentRewriter.rewrite(store, read, List.of(fragments), 1000, a, FileWriterOptions.defaults());
            TableCommitter.commit(
                    store, Transaction.of(read.version(), rewrite.operation(), Map.of()), CommitOptions.defaults());
        }
    }

    private static KeyedOneInputStreamOperatorTestHarness<RowData, RowData, LocatedChange> harness(String uri)
            throws Exception {
        return harness(resolver(uri, KeyMapMode.KEYED_STATE));
    }

    private static KeyedOneInputStreamOperatorTestHarness<RowData, RowData, LocatedChange> harness(
            ChangelogKeyResolver resolver) throws Exception {
        PrimaryKeySelector keys = new PrimaryKeySelector(ROW, KEY);
        var h = new KeyedOneInputStreamOperatorTestHarness<>(resolver, keys, InternalTypeInfo.of(keys.keyType()));
        h.setup(new LocatedChangeTypeInfo(ROW)
                .createSerializer(h.getExecutionConfig().getSerializerConfig()));
        return h;
    }

    /** Updates the age of {@code ids}, passes a barrier, and returns the row addresses the updates name. */
    private static List<Long> updates(
            KeyedOneInputStreamOperatorTestHarness<RowData, RowData, LocatedChange> h, long checkpoint, long... ids)
            throws Exception {
        h.getOutput().clear();
        for (long id : ids) {
            h.processElement(
                    GenericRowData.ofKind(RowKind.UPDATE_AFTER, id, StringData.fromString("n" + id), 99, 1.0),
                    checkpoint);
        }
        h.prepareSnapshotPreBarrier(checkpoint);
        List<LocatedChange> out = h.extractOutputValues();
        assertThat(out).allSatisfy(c -> {
            assertThat(c.kind()).isEqualTo(LocatedChange.Kind.UPDATE);
            assertThat(c.fileId()).isZero();
        });
        return out.stream().map(LocatedChange::position).toList();
    }
}
