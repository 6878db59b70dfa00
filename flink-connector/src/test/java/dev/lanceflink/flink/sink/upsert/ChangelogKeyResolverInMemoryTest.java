package dev.lanceflink.flink.sink.upsert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.committer.core.PendingFiles;
import dev.lanceflink.committer.core.TableLocation;
import dev.lanceflink.committer.flink.SinkStoppedException;
import dev.lanceflink.compact.FragmentRewriter;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.file.FileVersion;
import dev.lanceflink.file.writer.FileWriterOptions;
import dev.lanceflink.flink.sink.KeyMapMode;
import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.overlay.StagedWrite;
import dev.lanceflink.schema.ColumnSet;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.ManifestIO;
import dev.lanceflink.table.RowAddress;
import dev.lanceflink.table.VersionResolver;
import dev.lanceflink.testkit.users.UsersChangelog.Mix;
import dev.lanceflink.testkit.users.UsersTable;
import dev.lanceflink.txn.CommitOptions;
import dev.lanceflink.txn.Operation;
import dev.lanceflink.txn.TableCommitter;
import dev.lanceflink.txn.Transaction;
import dev.lanceflink.write.FragmentWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.throwable.ThrowableClassifier;
import org.apache.flink.runtime.throwable.ThrowableType;
import org.apache.flink.streaming.util.AbstractStreamOperatorTestHarness;
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
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The key resolver with {@code 'sink.key-map' = 'in-memory'} at the operator: the map is rebuilt
 * from the table at every start and the restored uncommitted changes are replayed over it, so a
 * restored checkpoint's insert and delete hold whether its commit landed before the restore or
 * not, a compaction in between is followed, a rescale keeps each key's change in the subtask that
 * owns it, and state of the other mode is refused.
 */
class ChangelogKeyResolverInMemoryTest {
    private static final int MAX_PARALLELISM = 128;
    private static final RowType ROW = RowType.of(
            new LogicalType[] {
                new BigIntType(false), new VarCharType(VarCharType.MAX_LENGTH), new IntType(), new DoubleType()
            },
            new String[] {"id", "name", "age", "score"});
    private static final int[] KEY = {0};

    @TempDir
    Path dir;

    private String uri;

    @BeforeEach
    void createTable() throws Exception {
        uri = dir.resolve("t.lance").toString();
        UsersTable.create(uri, Mix.SINK_TESTS.initialRows(20), 10); // ids 0-9 in fragment 0, 10-19 in 1
    }

    /** Checkpoint 1 inserts id 100 and deletes id 7; returns its state and the insert's data file id. */
    private Checkpoint insertAndDelete() throws Exception {
        try (var h = harness(KeyMapMode.IN_MEMORY, 1, 0)) {
            h.open();
            h.processElement(row(RowKind.INSERT, 100), 1);
            h.processElement(row(RowKind.DELETE, 7), 1);
            h.prepareSnapshotPreBarrier(1); // the harness's snapshot does not
            OperatorSubtaskState state = h.snapshot(1, 1);
            assertThat(h.numKeyedStateEntries())
                    .as("the keyed backend stays empty")
                    .isZero();
            List<LocatedChange> out = h.extractOutputValues();
            assertThat(out)
                    .extracting(LocatedChange::kind)
                    .containsExactlyInAnyOrder(LocatedChange.Kind.INSERT, LocatedChange.Kind.DELETE);
            LocatedChange insert = out.stream()
                    .filter(c -> c.kind() == LocatedChange.Kind.INSERT)
                    .findFirst()
                    .orElseThrow();
            assertThat(insert.fileId()).isNotZero();
            assertThat(insert.position()).isZero();
            LocatedChange delete = out.stream()
                    .filter(c -> c.kind() == LocatedChange.Kind.DELETE)
                    .findFirst()
                    .orElseThrow();
            assertThat(delete.fileId()).isZero();
            assertThat(delete.position()).isEqualTo(RowAddress.of(0, 7));
            return new Checkpoint(state, insert.fileId());
        }
    }

    private record Checkpoint(OperatorSubtaskState state, long fileId) {}

    @Test
    void aPendingInsertAndDeleteAreReplayedWhenTheirCommitHasNotLanded() throws Exception {
        Checkpoint c = insertAndDelete();
        try (var h = harness(KeyMapMode.IN_MEMORY, 1, 0)) {
            h.initializeState(c.state());
            h.open();
            List<LocatedChange> out = upserts(h, 2, 100L, 7L, 5L);
            assertThat(out.get(0).kind()).isEqualTo(LocatedChange.Kind.UPDATE);
            assertThat(out.get(0).fileId()).as("the pending insert's file").isEqualTo(c.fileId());
            assertThat(out.get(0).position()).isZero();
            assertThat(out.get(1).kind())
                    .as("deleted in the pending checkpoint: a new row")
                    .isEqualTo(LocatedChange.Kind.INSERT);
            assertThat(out.get(2).kind()).isEqualTo(LocatedChange.Kind.UPDATE);
            assertThat(out.get(2).fileId()).isZero();
            assertThat(out.get(2).position()).isEqualTo(RowAddress.of(0, 5));
            assertThat(h.numKeyedStateEntries()).isZero();
        }
    }

    @Test
    void aCommittedCheckpointIsLeftToTheScan() throws Exception {
        Checkpoint c = insertAndDelete();
        commit(c.fileId());
        try (var h = harness(KeyMapMode.IN_MEMORY, 1, 0)) {
            h.initializeState(c.state());
            h.open();
            List<LocatedChange> out = upserts(h, 2, 100L, 7L);
            assertThat(out.get(0).kind()).isEqualTo(LocatedChange.Kind.UPDATE);
            assertThat(out.get(0).fileId()).isZero();
            assertThat(out.get(0).position()).isEqualTo(RowAddress.of(fragmentOf(c.fileId()), 0));
            assertThat(out.get(1).kind()).isEqualTo(LocatedChange.Kind.INSERT);
        }
    }

    @Test
    void aCompactionBetweenSnapshotAndRestoreIsFollowed() throws Exception {
        Checkpoint c = insertAndDelete();
        commit(c.fileId());
        try (BufferAllocator a = new RootAllocator();
                ObjectStore store = new LocalObjectStore(Path.of(uri))) {
            Manifest read = ManifestIO.read(store, VersionResolver.latest(store));
            long sinkFragment = PendingFiles.index(read).get(c.fileId()).id();
            StagedWrite rewrite = FragmentRewriter.rewrite(
                    store, read, List.of(0L, sinkFragment), 1000, a, FileWriterOptions.defaults());
            TableCommitter.commit(
                    store, Transaction.of(read.version(), rewrite.operation(), Map.of()), CommitOptions.defaults());
        }
        Map<Long, Long> now = UsersTable.rowAddresses(uri);
        assertThat(now.get(5L)).isNotEqualTo(RowAddress.of(0, 5));
        try (var h = harness(KeyMapMode.IN_MEMORY, 1, 0)) {
            h.initializeState(c.state());
            h.open();
            List<LocatedChange> out = upserts(h, 2, 100L, 5L, 7L);
            assertThat(out.subList(0, 2)).allSatisfy(u -> {
                assertThat(u.kind()).isEqualTo(LocatedChange.Kind.UPDATE);
                assertThat(u.fileId()).isZero();
            });
            assertThat(out.get(0).position()).isEqualTo(now.get(100L));
            assertThat(out.get(1).position()).isEqualTo(now.get(5L));
            assertThat(out.get(2).kind()).isEqualTo(LocatedChange.Kind.INSERT);
        }
    }

    @Test
    void aRescaleKeepsEachPendingChangeInTheSubtaskOwningItsKey() throws Exception {
        long[] inserted = {100, 101, 102, 103, 104, 105, 106, 107};
        long[] deleted = {1, 2, 3, 11, 12, 13};
        Map<Long, long[]> insertedAt = new HashMap<>();
        OperatorSubtaskState[] states = new OperatorSubtaskState[2];
        for (int s = 0; s < 2; s++) {
            try (var h = harness(KeyMapMode.IN_MEMORY, 2, s)) {
                h.open();
                for (long id : inserted) {
                    if (subtaskOf(id, 2) == s) {
                        h.processElement(row(RowKind.INSERT, id), 1);
                    }
                }
                for (long id : deleted) {
                    if (subtaskOf(id, 2) == s) {
                        h.processElement(row(RowKind.DELETE, id), 1);
                    }
                }
                h.prepareSnapshotPreBarrier(1);
                states[s] = h.snapshot(1, 1);
                for (LocatedChange out : h.extractOutputValues()) {
                    if (out.kind() == LocatedChange.Kind.INSERT) {
                        insertedAt.put(out.row().getLong(0), new long[] {out.fileId(), out.position()});
                    }
                }
            }
        }
        assertThat(insertedAt).hasSize(inserted.length);
        OperatorSubtaskState merged = AbstractStreamOperatorTestHarness.repackageState(states);
        int updated = 0;
        for (int s = 0; s < 3; s++) {
            try (var h = harness(KeyMapMode.IN_MEMORY, 3, s)) {
                h.initializeState(
                        AbstractStreamOperatorTestHarness.repartitionOperatorState(merged, MAX_PARALLELISM, 2, 3, s));
                h.open();
                List<Long> mine = new ArrayList<>();
                for (long id : inserted) {
                    if (subtaskOf(id, 3) == s) {
                        mine.add(id);
                    }
                }
                for (long id : deleted) {
                    if (subtaskOf(id, 3) == s) {
                        mine.add(id);
                    }
                }
                List<LocatedChange> out =
                        upserts(h, 2, mine.stream().mapToLong(Long::longValue).toArray());
                for (int i = 0; i < mine.size(); i++) {
                    long id = mine.get(i);
                    LocatedChange u = out.get(i);
                    if (insertedAt.containsKey(id)) {
                        assertThat(u.kind()).as("id %d", id).isEqualTo(LocatedChange.Kind.UPDATE);
                        assertThat(new long[] {u.fileId(), u.position()})
                                .as("id %d", id)
                                .containsExactly(insertedAt.get(id));
                    } else {
                        assertThat(u.kind()).as("id %d", id).isEqualTo(LocatedChange.Kind.INSERT);
                    }
                    updated++;
                }
            }
        }
        assertThat(updated).isEqualTo(inserted.length + deleted.length);
    }

    /** As {@link #insertAndDelete}, in keyed-state mode: the map of 20 keys bootstrapped into keyed state. */
    private Checkpoint insertAndDeleteInKeyedState() throws Exception {
        try (var h = harness(KeyMapMode.KEYED_STATE, 1, 0)) {
            h.open(); // bootstraps 20 keys into keyed state
            h.processElement(row(RowKind.INSERT, 100), 1);
            h.processElement(row(RowKind.DELETE, 7), 1);
            h.prepareSnapshotPreBarrier(1);
            OperatorSubtaskState state = h.snapshot(1, 1);
            assertThat(h.numKeyedStateEntries()).isEqualTo(20);
            LocatedChange insert = h.extractOutputValues().stream()
                    .filter(c -> c.kind() == LocatedChange.Kind.INSERT)
                    .findFirst()
                    .orElseThrow();
            return new Checkpoint(state, insert.fileId());
        }
    }

    /**
     * The default flipped to in-memory: a savepoint of the keyed-state map whose checkpoint (insert
     * of 100, delete of 7) has not been committed restores with the keyed map as it is, no scan
     * (which would find 7, deleted in the pending checkpoint, still in the table); a later restore
     * before anything commits still does, with the in-memory checkpoint's insert replayed over it;
     * once the table shows that later checkpoint committed the keyed entries are cleared and the
     * next restore scans the table.
     */
    @Test
    void keyedStateWithAnUncommittedCheckpointMigratesWithoutAScan() throws Exception {
        Checkpoint c = insertAndDeleteInKeyedState();
        OperatorSubtaskState migrating;
        long reinsertedFile;
        try (var h = harness(KeyMapMode.IN_MEMORY, 1, 0)) {
            h.initializeState(c.state());
            h.open();
            assertThat(h.numKeyedStateEntries())
                    .as("the keyed map stays until proven committed")
                    .isEqualTo(20);
            List<LocatedChange> out = upserts(h, 2, 100L, 7L, 5L);
            assertThat(out.get(0).kind()).isEqualTo(LocatedChange.Kind.UPDATE);
            assertThat(out.get(0).fileId()).as("the pending insert's file").isEqualTo(c.fileId());
            assertThat(out.get(0).position()).isZero();
            assertThat(out.get(1).kind())
                    .as("deleted in the pending keyed-state checkpoint: a new row, not an update of the old one")
                    .isEqualTo(LocatedChange.Kind.INSERT);
            reinsertedFile = out.get(1).fileId();
            assertThat(out.get(2).kind()).isEqualTo(LocatedChange.Kind.UPDATE);
            assertThat(out.get(2).fileId()).isZero();
            assertThat(out.get(2).position()).isEqualTo(RowAddress.of(0, 5));
            migrating = h.snapshot(2, 2);
            assertThat(h.numKeyedStateEntries()).isEqualTo(20);
        }
        try (var h = harness(KeyMapMode.IN_MEMORY, 1, 0)) {
            h.initializeState(migrating);
            h.open();
            List<LocatedChange> out = upserts(h, 3, 100L, 7L, 5L);
            assertThat(out).extracting(LocatedChange::kind).containsOnly(LocatedChange.Kind.UPDATE);
            assertThat(out.get(0).fileId()).isEqualTo(c.fileId());
            assertThat(out.get(1).fileId())
                    .as("the in-memory checkpoint's insert over the keyed base")
                    .isEqualTo(reinsertedFile);
            assertThat(out.get(2).position()).isEqualTo(RowAddress.of(0, 5));
            h.snapshot(3, 3);
            commit(c.fileId(), 100, RowAddress.of(0, 7));
            commit(reinsertedFile, 7);
            upserts(h, 4, 5L);
            assertThat(h.numKeyedStateEntries())
                    .as("checkpoint 2 committed, so 1 is: the keyed map is cleared")
                    .isZero();
            migrating = h.snapshot(4, 4);
        }
        try (var h = harness(KeyMapMode.IN_MEMORY, 1, 0)) {
            h.initializeState(migrating);
            h.open();
            List<LocatedChange> out = upserts(h, 5, 100L, 7L, 5L);
            assertThat(out).extracting(LocatedChange::kind).containsOnly(LocatedChange.Kind.UPDATE);
            assertThat(out.get(0).position()).isEqualTo(RowAddress.of(fragmentOf(c.fileId()), 0));
            assertThat(out.get(1).position()).isEqualTo(RowAddress.of(fragmentOf(reinsertedFile), 0));
            assertThat(out).extracting(LocatedChange::fileId).containsOnly(0L);
            assertThat(h.numKeyedStateEntries()).isZero();
        }
    }

    /**
     * While the keyed map is the base, a checkpoint of deletes only stays in the delta even once
     * its rows show deleted: a restore loads the base, which still holds the deleted key, and only
     * the delta says it is gone (an upsert of it then inserts a row instead of being dropped as an
     * update of a row deleted elsewhere).
     */
    @Test
    void aDeleteOnlyCheckpointOverTheKeyedBaseIsKeptUntilTheBaseIsDropped() throws Exception {
        Checkpoint c = insertAndDeleteInKeyedState();
        OperatorSubtaskState later;
        try (var h = harness(KeyMapMode.IN_MEMORY, 1, 0)) {
            h.initializeState(c.state());
            h.open();
            h.processElement(row(RowKind.DELETE, 5), 2);
            h.prepareSnapshotPreBarrier(2);
            assertThat(h.extractOutputValues())
                    .extracting(LocatedChange::kind)
                    .containsExactly(LocatedChange.Kind.DELETE);
            h.snapshot(2, 2);
            commit(c.fileId()); // checkpoint 1
            try (BufferAllocator a = new RootAllocator();
                    ObjectStore store = new LocalObjectStore(Path.of(uri));
                    Dataset ds = Dataset.open(store, a)) {
                ds.deleteRows(new long[] {RowAddress.of(0, 5)}).close(); // checkpoint 2
            }
            h.prepareSnapshotPreBarrier(3);
            later = h.snapshot(3, 3);
            assertThat(h.numKeyedStateEntries())
                    .as("no new file proves the base's checkpoint")
                    .isEqualTo(20);
        }
        try (var h = harness(KeyMapMode.IN_MEMORY, 1, 0)) {
            h.initializeState(later);
            h.open();
            List<LocatedChange> out = upserts(h, 4, 5L, 100L);
            assertThat(out.get(0).kind()).as("deleted in checkpoint 2").isEqualTo(LocatedChange.Kind.INSERT);
            assertThat(out.get(1).kind()).isEqualTo(LocatedChange.Kind.UPDATE);
            assertThat(out.get(1).position()).isEqualTo(RowAddress.of(fragmentOf(c.fileId()), 0));
        }
    }

    /** The keyed-state checkpoint's commit landed before the restore: its rows are found where it put them. */
    @Test
    void keyedStateWithACommittedCheckpointMigrates() throws Exception {
        Checkpoint c = insertAndDeleteInKeyedState();
        commit(c.fileId(), 100, RowAddress.of(0, 7));
        try (var h = harness(KeyMapMode.IN_MEMORY, 1, 0)) {
            h.initializeState(c.state());
            h.open();
            List<LocatedChange> out = upserts(h, 2, 100L, 7L, 5L);
            assertThat(out.get(0).kind()).isEqualTo(LocatedChange.Kind.UPDATE);
            assertThat(out.get(0).fileId()).isZero();
            assertThat(out.get(0).position()).isEqualTo(RowAddress.of(fragmentOf(c.fileId()), 0));
            assertThat(out.get(1).kind()).isEqualTo(LocatedChange.Kind.INSERT);
            assertThat(out.get(2).position()).isEqualTo(RowAddress.of(0, 5));
        }
    }

    /**
     * A rescale while subtasks are at different points of the migration: subtask 0 saw its later
     * checkpoint committed and cleared its keyed entries, subtask 1 had nothing to prove it with
     * and kept them. The evidence holds for both, so after the restore no subtask keeps a keyed
     * base (one built from subtask 1's entries alone would miss subtask 0's keys).
     */
    @Test
    void aSubtaskThatSawTheMigrationCommittedEndsItForAllAfterARestore() throws Exception {
        OperatorSubtaskState[] keyed = new OperatorSubtaskState[2];
        for (int s = 0; s < 2; s++) {
            try (var h = harness(KeyMapMode.KEYED_STATE, 2, s)) {
                h.open();
                keyed[s] = h.snapshot(1, 1);
            }
        }
        OperatorSubtaskState[] migrating = new OperatorSubtaskState[2];
        long insertOf = 200;
        while (subtaskOf(insertOf, 2) != 0) {
            insertOf++;
        }
        for (int s = 0; s < 2; s++) {
            try (var h = harness(KeyMapMode.IN_MEMORY, 2, s)) {
                h.initializeState(keyed[s]);
                h.open();
                assertThat(h.numKeyedStateEntries()).isPositive();
                if (s == 0) {
                    h.processElement(row(RowKind.INSERT, insertOf), 2);
                    h.prepareSnapshotPreBarrier(2);
                    long file = h.extractOutputValues().get(0).fileId();
                    h.snapshot(2, 2);
                    commit(file, insertOf);
                }
                h.prepareSnapshotPreBarrier(3);
                migrating[s] = h.snapshot(3, 3);
                if (s == 0) {
                    assertThat(h.numKeyedStateEntries())
                            .as("proven by its insert")
                            .isZero();
                } else {
                    assertThat(h.numKeyedStateEntries())
                            .as("nothing to prove it with")
                            .isPositive();
                }
            }
        }
        OperatorSubtaskState merged = AbstractStreamOperatorTestHarness.repackageState(migrating);
        int found = 0;
        for (int s = 0; s < 3; s++) {
            try (var h = harness(KeyMapMode.IN_MEMORY, 3, s)) {
                h.initializeState(
                        AbstractStreamOperatorTestHarness.repartitionOperatorState(merged, MAX_PARALLELISM, 2, 3, s));
                h.open();
                assertThat(h.numKeyedStateEntries()).isZero();
                List<Long> mine = new ArrayList<>();
                for (long id = 0; id < 20; id++) {
                    if (subtaskOf(id, 3) == s) {
                        mine.add(id);
                    }
                }
                if (subtaskOf(insertOf, 3) == s) {
                    mine.add(insertOf);
                }
                List<LocatedChange> out =
                        upserts(h, 4, mine.stream().mapToLong(Long::longValue).toArray());
                assertThat(out).extracting(LocatedChange::kind).containsOnly(LocatedChange.Kind.UPDATE);
                found += out.size();
            }
        }
        assertThat(found).isEqualTo(21);
    }

    /** The in-memory map that would not fit its budget stops the job before it is built, naming keyed state. */
    @Test
    void aKeyMapOverItsMemoryBudgetStopsTheJobNamingKeyedState() throws Exception {
        try (var h = harness(resolver(KeyMapMode.IN_MEMORY).keyMapMaxMemory(100), 1, 0)) {
            assertThatThrownBy(h::open)
                    .hasStackTraceContaining("more than its budget of 100 bytes ('sink.key-map.max-memory')")
                    .hasStackTraceContaining("use 'sink.key-map' = 'keyed-state'")
                    .hasStackTraceContaining("RocksDB")
                    .satisfies(ChangelogKeyResolverInMemoryTest::stopsTheJob);
        }
        try (var h = harness(resolver(KeyMapMode.IN_MEMORY).keyMapMaxMemory(1 << 20), 1, 0)) {
            h.open();
            assertThat(upserts(h, 1, 5L).get(0).position()).isEqualTo(RowAddress.of(0, 5));
        }
        try (var h = harness(resolver(KeyMapMode.KEYED_STATE).keyMapMaxMemory(100), 1, 0)) {
            h.open(); // keyed state: no heap map, no budget
            assertThat(h.numKeyedStateEntries()).isEqualTo(20);
        }
    }

    @Test
    void inMemoryStateIsRefusedByKeyedState() throws Exception {
        Checkpoint c = insertAndDelete();
        try (var h = harness(KeyMapMode.KEYED_STATE, 1, 0)) {
            h.initializeState(c.state());
            assertThatThrownBy(h::open)
                    .hasStackTraceContaining("written with 'sink.key-map' = 'in-memory'")
                    .hasStackTraceContaining("restore with 'sink.key-map' = 'in-memory'")
                    .satisfies(ChangelogKeyResolverInMemoryTest::stopsTheJob);
        }
    }

    /** A failure no restart cures (every restart restores the same state): Flink does not restart the job. */
    static void stopsTheJob(Throwable failure) {
        assertThat(ExceptionUtils.findThrowable(failure, SinkStoppedException.class))
                .hasValueSatisfying(stopped -> {
                    assertThat(stopped.getMessage()).contains("the job is stopped, not restarted");
                    assertThat(ThrowableClassifier.getThrowableType(stopped))
                            .isEqualTo(ThrowableType.NonRecoverableError);
                });
    }

    private static int subtaskOf(long id, int parallelism) {
        PrimaryKeySelector keys = new PrimaryKeySelector(ROW, KEY);
        try {
            return KeyGroupRangeAssignment.assignKeyToParallelOperator(
                    keys.getKey(row(RowKind.INSERT, id)), MAX_PARALLELISM, parallelism);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private KeyedOneInputStreamOperatorTestHarness<RowData, RowData, LocatedChange> harness(
            KeyMapMode mode, int parallelism, int subtask) throws Exception {
        return harness(resolver(mode), parallelism, subtask);
    }

    private ChangelogKeyResolver resolver(KeyMapMode mode) {
        return new ChangelogKeyResolver(
                TableLocation.of(uri), ROW, KEY, ColumnSet.firstColumns(4), false, 100, false, mode);
    }

    private KeyedOneInputStreamOperatorTestHarness<RowData, RowData, LocatedChange> harness(
            ChangelogKeyResolver resolver, int parallelism, int subtask) throws Exception {
        PrimaryKeySelector keys = new PrimaryKeySelector(ROW, KEY);
        var h = new KeyedOneInputStreamOperatorTestHarness<>(
                resolver, keys, InternalTypeInfo.of(keys.keyType()), MAX_PARALLELISM, parallelism, subtask);
        h.setup(new LocatedChangeTypeInfo(ROW)
                .createSerializer(h.getExecutionConfig().getSerializerConfig()));
        return h;
    }

    private static RowData row(RowKind kind, long id) {
        return GenericRowData.ofKind(kind, id, StringData.fromString("n" + id), 99, 1.0);
    }

    /** Upserts {@code ids} (in order), passes a barrier, and returns the changes, one per id. */
    private static List<LocatedChange> upserts(
            KeyedOneInputStreamOperatorTestHarness<RowData, RowData, LocatedChange> h, long checkpoint, long... ids)
            throws Exception {
        h.getOutput().clear();
        for (long id : ids) {
            h.processElement(row(RowKind.UPDATE_AFTER, id), checkpoint);
        }
        h.prepareSnapshotPreBarrier(checkpoint);
        List<LocatedChange> out = h.extractOutputValues();
        assertThat(out).hasSize(ids.length);
        return out;
    }

    /** Commits checkpoint 1 as the sink would: id 100 in its data file, id 7's row deleted. */
    private void commit(long fileId) throws Exception {
        commit(fileId, 100, RowAddress.of(0, 7));
    }

    /** Commits a checkpoint as the sink would: {@code id} at offset 0 of data file {@code fileId}, then the deletes. */
    private void commit(long fileId, long id, long... deletedAddresses) throws Exception {
        try (BufferAllocator allocator = new RootAllocator();
                ObjectStore store = new LocalObjectStore(Path.of(uri))) {
            List<Fragment> written;
            try (Dataset ds = Dataset.open(store, allocator);
                    FragmentWriter w = new FragmentWriter(
                            store,
                            ds.schema(),
                            FileVersion.parse(ds.manifest().dataFormat().version()),
                            1000,
                            allocator,
                            FileWriterOptions.defaults(),
                            () -> PendingFiles.fileName(fileId, "test"));
                    VectorSchemaRoot batch = VectorSchemaRoot.create(UsersTable.SCHEMA, allocator)) {
                batch.allocateNew();
                ((BigIntVector) batch.getVector("id")).setSafe(0, id);
                batch.setRowCount(1);
                w.write(batch);
                written = w.finish();
            }
            Manifest read = ManifestIO.read(store, VersionResolver.latest(store));
            TableCommitter.commit(
                    store, Transaction.of(read.version(), new Operation.Append(written)), CommitOptions.defaults());
            if (deletedAddresses.length > 0) {
                try (Dataset ds = Dataset.open(store, allocator)) {
                    ds.deleteRows(deletedAddresses).close();
                }
            }
        }
    }

    private long fragmentOf(long fileId) throws Exception {
        try (ObjectStore store = new LocalObjectStore(Path.of(uri))) {
            return PendingFiles.index(ManifestIO.read(store, VersionResolver.latest(store)))
                    .get(fileId)
                    .id();
        }
    }
}
