package dev.lanceflink.flink.sink.upsert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.committer.core.MovedRows;
import dev.lanceflink.committer.core.PendingFiles;
import dev.lanceflink.committer.core.RewriteLog;
import dev.lanceflink.committer.core.TableLocation;
import dev.lanceflink.compact.FragmentRewriter;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.file.FileVersion;
import dev.lanceflink.file.writer.FileWriterOptions;
import dev.lanceflink.flink.types.LanceTypeMapping;
import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.overlay.StagedWrite;
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
import dev.lanceflink.txn.TableHistory;
import dev.lanceflink.txn.Transaction;
import dev.lanceflink.write.FragmentWriter;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.flink.api.common.TaskInfoImpl;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The delta log against a real table: a segment's changes are replayed over a scan when the scan's
 * version does not hold them and left to the scan when it does; segments are dropped by the
 * evidence the latest version shows (a new data file, also after a compaction moved it; all rows
 * of a delete-only segment deleted, by anyone), a newer proof drops older segments, a foreign
 * delete does not; a restore keeps each key's entries in exactly one subtask after a rescale;
 * other format versions are refused; an Overwrite clears the log.
 */
class UncommittedKeyChangesTest {
    private static final int MAX_PARALLELISM = 128;
    private static final RowDataSerializer KEYS = new RowDataSerializer(RowType.of(new BigIntType(false)));
    private static final long F1 = 0x1111_0000_0000_0001L;
    private static final long F2 = 0x2222_0000_0000_0002L;
    private static final long F3 = 0x3333_0000_0000_0003L;

    @TempDir
    Path dir;

    private String uri;
    private BufferAllocator allocator;
    private ObjectStore store;
    private TableHistory history;
    private MovedRows movedRows;
    private RewriteLog rewrites;

    @BeforeEach
    void createTable() throws IOException {
        uri = dir.resolve("t.lance").toString();
        UsersTable.create(uri, Mix.SINK_TESTS.initialRows(20), 10); // ids 0-9 in fragment 0, 10-19 in 1
        allocator = new RootAllocator();
        store = new LocalObjectStore(Path.of(uri));
        history = new TableHistory(store);
        movedRows = new MovedRows(history);
        rewrites = new RewriteLog(latest().version());
    }

    @AfterEach
    void close() throws Exception {
        store.close();
        allocator.close();
    }

    private static BinaryRowData key(long id) {
        return KEYS.toBinaryRow(GenericRowData.of(id)).copy();
    }

    /** Row address of an initial row. */
    private static long address(long id) {
        return RowAddress.of(id / 10, id % 10);
    }

    private Manifest latest() throws IOException {
        return ManifestIO.read(store, VersionResolver.latest(store));
    }

    private DeletedRowCheck deletions(Manifest m) {
        return DeletedRowCheck.of(store, m, movedRows);
    }

    private int prune(UncommittedKeyChanges log) throws IOException {
        Manifest m = latest();
        rewrites.learn(history, m.version());
        return log.prune(m, rewrites, deletions(m));
    }

    /** Commits rows {@code ids} in a data file named after {@code fileId}, as the upsert writer names it. */
    private void appendSinkFile(long fileId, long... ids) throws IOException {
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
            for (int i = 0; i < ids.length; i++) {
                ((BigIntVector) batch.getVector("id")).setSafe(i, ids[i]);
            }
            batch.setRowCount(ids.length);
            w.write(batch);
            written = w.finish();
        }
        Manifest read = latest();
        TableCommitter.commit(
                store, Transaction.of(read.version(), new Operation.Append(written)), CommitOptions.defaults());
    }

    /** Another writer deletes the rows at {@code addresses}. */
    private void deleteRows(long... addresses) throws IOException {
        try (Dataset ds = Dataset.open(store, allocator)) {
            ds.deleteRows(addresses).close();
        }
    }

    /** The fragment holding sink file {@code fileId} in the latest version. */
    private long fragmentOf(long fileId) throws IOException {
        return PendingFiles.index(latest()).get(fileId).id();
    }

    /** The key map as a scan of the latest version finds it (the restore's bootstrap), keys 0-999. */
    private Map<Long, Long> scanThenApply(UncommittedKeyChanges log, PendingFileTable files) throws Exception {
        Manifest v = latest();
        LongKeyLocationMap map = new LongKeyLocationMap(LongKeyLocationMap.IntegralKey.BIGINT);
        RowType rowType;
        try (Dataset ds = Dataset.open(store, allocator)) {
            rowType = LanceTypeMapping.toRowType(ds.schema().toArrow());
        }
        KeyMapBootstrap.load(
                new TableLocation(uri, Map.of()),
                rowType,
                new int[] {0},
                new KeyMapBootstrap.Locations() {
                    @Override
                    public long[] get(RowData key) {
                        long l = map.get(key.getLong(0));
                        return l == KeyLocations.NONE ? null : files.unpack(l);
                    }

                    @Override
                    public void put(RowData key, long[] location) {
                        map.put(key.getLong(0), files.pack(location));
                    }
                },
                new TaskInfoImpl("resolver", MAX_PARALLELISM, 0, 1, 0),
                KeyGroupRange.of(0, MAX_PARALLELISM - 1));
        log.applyTo(map, files, v, rewrites, deletions(v));
        Map<Long, Long> out = new HashMap<>();
        map.forEach((k, l) -> out.put(k.getLong(0), l));
        return out;
    }

    /** Checkpoint 1: key 100 inserted, key 5 moved (rewrite-rows), key 7 deleted; checkpoint 2: 101 inserted, 8 deleted. */
    private static UncommittedKeyChanges twoCheckpoints() {
        UncommittedKeyChanges log = new UncommittedKeyChanges();
        log.inserted(key(100), F1, 0);
        log.moved(key(5), 0, address(5), F1, 1);
        log.deleted(key(7), 0, address(7));
        log.seal(1);
        log.inserted(key(101), F2, 0);
        log.deleted(key(8), 0, address(8));
        log.seal(2);
        return log;
    }

    @Test
    void uncommittedChangesAreReplayedOverTheScanAndCommittedOnesLeftToIt() throws Exception {
        UncommittedKeyChanges log = twoCheckpoints();
        PendingFileTable files = new PendingFileTable();

        Map<Long, Long> nothingCommitted = scanThenApply(log, files);
        assertThat(nothingCommitted.get(100L)).isEqualTo(files.pack(F1, 0));
        assertThat(nothingCommitted.get(5L)).isEqualTo(files.pack(F1, 1));
        assertThat(nothingCommitted.get(101L)).isEqualTo(files.pack(F2, 0));
        assertThat(nothingCommitted).doesNotContainKeys(7L, 8L);
        assertThat(nothingCommitted.get(6L)).isEqualTo(address(6));
        assertThat(nothingCommitted).hasSize(20 - 2 + 2);

        // Checkpoint 1 lands (its append and its deletes); then another writer inserts key 7 again.
        appendSinkFile(F1, 100, 5);
        deleteRows(address(5), address(7));
        appendSinkFile(0x7777_0000_0000_0007L, 7);
        long f1 = fragmentOf(F1);
        Map<Long, Long> firstCommitted = scanThenApply(log, files);
        assertThat(firstCommitted.get(100L)).as("committed: the scan's address").isEqualTo(RowAddress.of(f1, 0));
        assertThat(firstCommitted.get(5L)).isEqualTo(RowAddress.of(f1, 1));
        assertThat(firstCommitted.get(7L))
                .as("deleted by checkpoint 1, inserted by another writer since: kept")
                .isEqualTo(RowAddress.of(fragmentOf(0x7777_0000_0000_0007L), 0));
        assertThat(firstCommitted.get(101L)).isEqualTo(files.pack(F2, 0));
        assertThat(firstCommitted).doesNotContainKey(8L);

        // Checkpoint 2's delete lands without its append yet (as if the append were still pending):
        // the scan does not have row 8, the replay must not remove it again nor revive it.
        deleteRows(address(8));
        assertThat(scanThenApply(log, files)).doesNotContainKey(8L).containsEntry(101L, files.pack(F2, 0));

        assertThat(prune(log)).isEqualTo(1);
        assertThat(log.checkpointIds()).containsExactly(2L);
        appendSinkFile(F2, 101);
        assertThat(prune(log)).isEqualTo(1);
        assertThat(log.segments()).isZero();
    }

    @Test
    void aDeleteOnlySegmentGoesOnceAllItsRowsAreDeletedByAnyoneButProvesNothingOlder() throws Exception {
        UncommittedKeyChanges log = new UncommittedKeyChanges();
        log.inserted(key(100), F1, 0);
        log.seal(1);
        log.deleted(key(3), 0, address(3));
        log.deleted(key(4), 0, address(4));
        log.seal(2);
        assertThat(prune(log)).isZero();

        deleteRows(address(3)); // another writer
        assertThat(prune(log))
                .as("row 4 still there: checkpoint 2 not committed")
                .isZero();
        deleteRows(address(14), address(4));
        assertThat(prune(log)).isEqualTo(1);
        assertThat(log.checkpointIds())
                .as("another writer's deletes are no evidence of checkpoint 1")
                .containsExactly(1L);
    }

    @Test
    void aNewerSegmentsFileDropsItAndEveryOlderSegment() throws Exception {
        UncommittedKeyChanges log = new UncommittedKeyChanges();
        log.inserted(key(100), F1, 0);
        log.seal(1);
        log.deleted(key(3), 0, address(3));
        log.seal(2);
        log.inserted(key(101), F2, 0);
        log.seal(3);
        log.inserted(key(102), F3, 0);
        log.seal(4);

        appendSinkFile(F2, 101);
        assertThat(prune(log)).isEqualTo(3);
        assertThat(log.checkpointIds()).containsExactly(4L);
    }

    @Test
    void aFileACompactionRewroteStillProvesItsSegment() throws Exception {
        UncommittedKeyChanges log = new UncommittedKeyChanges();
        log.inserted(key(100), F1, 0);
        log.seal(1);
        log.inserted(key(101), F2, 0);
        log.seal(2);
        appendSinkFile(F2, 101);
        Manifest read = latest();
        StagedWrite rewrite = FragmentRewriter.rewrite(
                store, read, List.of(1L, fragmentOf(F2)), 1000, allocator, FileWriterOptions.defaults());
        TableCommitter.commit(
                store, Transaction.of(read.version(), rewrite.operation(), Map.of()), CommitOptions.defaults());
        assertThat(PendingFiles.index(latest())).doesNotContainKey(F2);

        assertThat(prune(log)).isEqualTo(2);
        assertThat(log.segments()).isZero();
    }

    @Test
    void aRestoreAfterRescalingKeepsEachKeysEntriesInExactlyOneSubtask() throws Exception {
        List<byte[]> state = new ArrayList<>();
        long[] oldFiles = {F1, F2};
        for (int subtask = 0; subtask < 2; subtask++) {
            KeyGroupRange range =
                    KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(MAX_PARALLELISM, 2, subtask);
            UncommittedKeyChanges log = new UncommittedKeyChanges();
            int offset = 0;
            for (long id = 1_000; id < 2_000; id++) {
                BinaryRowData k = key(id);
                if (range.contains(KeyGroupRangeAssignment.assignToKeyGroup(k, MAX_PARALLELISM))) {
                    log.inserted(k, oldFiles[subtask], offset++);
                }
            }
            log.seal(5);
            if (range.contains(KeyGroupRangeAssignment.assignToKeyGroup(key(2), MAX_PARALLELISM))) {
                log.deleted(key(2), 0, address(2));
            }
            log.seal(6);
            state.addAll(log.snapshot());
        }
        Set<Long> seen = new HashSet<>();
        List<UncommittedKeyChanges> restored = new ArrayList<>();
        long entries = 0;
        for (int subtask = 0; subtask < 3; subtask++) {
            KeyGroupRange range =
                    KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(MAX_PARALLELISM, 3, subtask);
            UncommittedKeyChanges log = UncommittedKeyChanges.restore(state, range, MAX_PARALLELISM);
            restored.add(log);
            entries += log.entries();
            PendingFileTable files = new PendingFileTable();
            LongKeyLocationMap map = new LongKeyLocationMap(LongKeyLocationMap.IntegralKey.BIGINT);
            log.applyTo(map, files, latest(), rewrites, deletions(latest()));
            map.forEach((k, l) -> {
                assertThat(range.contains(KeyGroupRangeAssignment.assignToKeyGroup(k, MAX_PARALLELISM)))
                        .isTrue();
                assertThat(seen.add(k.getLong(0)))
                        .as("key %s in one subtask", k.getLong(0))
                        .isTrue();
                assertThat(files.fileIdOf(l)).isIn(F1, F2);
            });
        }
        assertThat(seen).hasSize(1_000);
        assertThat(entries).as("1000 inserts and one delete").isEqualTo(1_001);
        assertThat(restored).extracting(UncommittedKeyChanges::segments).containsAnyOf(2);
        // Any old subtask's file proves the checkpoint, whichever keys a new subtask kept.
        appendSinkFile(F1, 3_000);
        for (UncommittedKeyChanges log : restored) {
            prune(log);
            assertThat(log.checkpointIds()).doesNotContain(5L);
        }
    }

    @Test
    void entriesOfAnotherFormatVersionOrKindAreRefused() throws Exception {
        byte[] entry = twoCheckpoints().snapshot().get(0);
        KeyGroupRange all = KeyGroupRange.of(0, MAX_PARALLELISM - 1);
        assertThat(UncommittedKeyChanges.restore(List.of(entry), all, MAX_PARALLELISM)
                        .entries())
                .isEqualTo(3);
        byte[] newer = entry.clone();
        newer[0] = 2;
        assertThatThrownBy(() -> UncommittedKeyChanges.restore(List.of(newer), all, MAX_PARALLELISM))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("format version 2")
                .hasMessageContaining("newer version of the sink");
        byte[] otherKind = entry.clone();
        otherKind[1] = 9;
        assertThatThrownBy(() -> UncommittedKeyChanges.restore(List.of(otherKind), all, MAX_PARALLELISM))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("of kind 9");
        UncommittedKeyChanges unsealed = twoCheckpoints();
        unsealed.inserted(key(1), F3, 0);
        assertThatThrownBy(unsealed::snapshot).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void anOverwriteByAnotherWriterClearsTheLog() throws Exception {
        UncommittedKeyChanges log = twoCheckpoints();
        assertThat(prune(log)).isZero();
        try (VectorSchemaRoot root = VectorSchemaRoot.create(UsersTable.SCHEMA, allocator)) {
            root.allocateNew();
            ((BigIntVector) root.getVector("id")).setSafe(0, 1);
            root.setRowCount(1);
            Dataset.write(uri, Map.of(), List.of(root), UsersTable.SCHEMA, WriteParams.of(WriteMode.OVERWRITE))
                    .close();
        }
        assertThat(prune(log)).isEqualTo(2);
        assertThat(log.entries()).isZero();
        log.inserted(key(100), F1, 0);
        log.seal(3);
        assertThat(prune(log)).as("cleared once per Overwrite").isZero();
    }
}
