package dev.lanceflink.committer.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.compact.FragmentRewriter;
import dev.lanceflink.compact.OverlayCompactor;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.file.FileVersion;
import dev.lanceflink.file.writer.FileWriterOptions;
import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.overlay.OverlayCommits;
import dev.lanceflink.overlay.OverlayWriter;
import dev.lanceflink.overlay.StagedWrite;
import dev.lanceflink.read.ScanOptions;
import dev.lanceflink.read.Scanner;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.ManifestNamingScheme;
import dev.lanceflink.txn.CommitHandler;
import dev.lanceflink.txn.CommitOptions;
import dev.lanceflink.txn.Operation;
import dev.lanceflink.txn.TableCommitter;
import dev.lanceflink.txn.Transaction;
import dev.lanceflink.txn.TransactionStore;
import dev.lanceflink.update.OverlayUpdate;
import dev.lanceflink.write.FragmentWriter;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.roaringbitmap.RoaringBitmap;

/**
 * A row-level statement read version 1 of {@code (id, age)} = (1,10) (2,20) (3,30) (4,40), one
 * fragment; other writers commit in between; the statement's commit must fail exactly when their
 * change makes its changes wrong, and leave their change in place.
 */
class ConcurrentChangeCheckTest {
    private static final Schema SCHEMA = new Schema(List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
            new Field("age", FieldType.nullable(new ArrowType.Int(32, true)), null)));
    private static final Schema AGE = new Schema(List.of(SCHEMA.getFields().get(1)));
    private static final String USER = "statement-user";
    private static final int ID_FIELD = 0;
    private static final int AGE_FIELD = 1;

    @TempDir
    Path dir;

    private RootAllocator allocator;
    private LocalObjectStore store;

    @BeforeEach
    void createTable() throws IOException {
        allocator = new RootAllocator();
        store = new LocalObjectStore(dir);
        try (VectorSchemaRoot rows = rows(new long[] {1, 2, 3, 4}, 10, 20, 30, 40)) {
            Dataset.write(store, allocator, List.of(rows), SCHEMA, WriteParams.of(WriteMode.CREATE));
        }
    }

    @AfterEach
    void close() {
        allocator.close();
    }

    // ---- helpers ------------------------------------------------------------------------------

    private VectorSchemaRoot rows(long[] ids, int... ages) {
        VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
        BigIntVector id = (BigIntVector) root.getVector(0);
        IntVector age = (IntVector) root.getVector(1);
        id.allocateNew(ids.length);
        age.allocateNew(ids.length);
        for (int i = 0; i < ids.length; i++) {
            id.set(i, ids[i]);
            age.set(i, ages[i]);
        }
        root.setRowCount(ids.length);
        return root;
    }

    private VectorSchemaRoot ages(int... ages) {
        VectorSchemaRoot root = VectorSchemaRoot.create(AGE, allocator);
        IntVector age = (IntVector) root.getVector(0);
        age.allocateNew(ages.length);
        for (int i = 0; i < ages.length; i++) {
            age.set(i, ages[i]);
        }
        root.setRowCount(ages.length);
        return root;
    }

    private Dataset open() throws IOException {
        return Dataset.open(store, allocator);
    }

    /** Another writer overlays {@code age} of fragment 0 at {@code offsets}. */
    private void theirOverlay(long[] offsets, int... ages) throws IOException {
        try (Dataset ds = open();
                VectorSchemaRoot values = ages(ages)) {
            ds.update(offsets, values).close();
        }
    }

    /** The statement's overlay of {@code age} of fragment 0, written against version 1 and not committed. */
    private DataOverlayFile ourOverlay(long[] offsets, int... ages) throws IOException {
        try (Dataset ds = open();
                Dataset v1 = ds.checkoutVersion(1);
                OverlayWriter w = OverlayWriter.create(store, v1.manifest(), 0, new int[] {AGE_FIELD}, allocator);
                VectorSchemaRoot values = ages(ages)) {
            w.write(offsets, values);
            return w.finish().orElseThrow();
        }
    }

    private static CheckpointCommit updateStatement(long checkpoint, long baseVersion, DataOverlayFile overlay) {
        return new CheckpointCommit(
                USER,
                "job",
                checkpoint,
                baseVersion,
                List.of(),
                List.of(new TargetedOverlay(RowTarget.committed(0), overlay)),
                List.of(),
                0,
                1,
                0);
    }

    private static CheckpointCommit deleteStatement(long baseVersion, int... offsets) {
        return new CheckpointCommit(
                USER,
                "job",
                1,
                baseVersion,
                List.of(),
                List.of(),
                List.of(new TargetedDeletion(RowTarget.committed(0), RoaringBitmap.bitmapOf(offsets))),
                0,
                0,
                0);
    }

    private CheckpointCommitter pinnedAt(long readVersion) {
        return new CheckpointCommitter(store, CommitOptions.defaults(), 3, Duration.ZERO, readVersion);
    }

    private long latestVersion() throws IOException {
        try (Dataset ds = open()) {
            return ds.version();
        }
    }

    /** (id, age) of every live row in scan order, as "id=age". */
    private List<String> table() throws IOException {
        List<String> out = new ArrayList<>();
        try (Dataset ds = open();
                Scanner s = ds.scan(ScanOptions.all())) {
            while (s.hasNext()) {
                try (VectorSchemaRoot b = s.next()) {
                    BigIntVector id = (BigIntVector) b.getVector("id");
                    IntVector age = (IntVector) b.getVector("age");
                    for (int i = 0; i < b.getRowCount(); i++) {
                        out.add(id.get(i) + "=" + age.get(i));
                    }
                }
            }
        }
        return out;
    }

    // ---- overlays -----------------------------------------------------------------------------

    @Test
    void aConcurrentOverlayOfTheSameCellFailsTheStepAndKeepsTheirValue() throws IOException {
        DataOverlayFile ours = ourOverlay(new long[] {1}, 21); // SET age = age + 1 WHERE id = 2, read 20
        theirOverlay(new long[] {1, 2}, 21, 31); // version 2: the same increment, committed first

        assertThatThrownBy(() -> pinnedAt(1).commit(updateStatement(1, 1, ours)))
                .isInstanceOf(CheckpointCommitException.class)
                .hasMessageContaining("The changes of checkpoint 1")
                .hasMessageContaining("the statement read version 1, and version 2 (DataOverlay, committed by another"
                        + " writer) overlaid field 'age' (id 1) of fragment 0 at 1 of the rows this statement updates"
                        + " (first offset 1)")
                .hasMessageContaining("rerun the statement");
        assertThat(latestVersion()).isEqualTo(2);
        assertThat(table()).containsExactly("1=10", "2=21", "3=31", "4=40");
    }

    @Test
    void overlaysOfOtherCellsAndAppendsDoNotConflict() throws IOException {
        DataOverlayFile ours = ourOverlay(new long[] {1}, 21);
        theirOverlay(new long[] {0, 2}, 11, 31); // other rows of the same field: version 2
        try (Dataset ds = open();
                VectorSchemaRoot more = rows(new long[] {5}, 50)) {
            ds.append(List.of(more), WriteParams.of(WriteMode.APPEND)).close(); // version 3
        }
        // Another writer overlays the id field of the very row this statement updates: other cells.
        try (Dataset ds = open();
                Dataset v3 = ds.checkoutVersion(3);
                OverlayWriter w = OverlayWriter.create(store, v3.manifest(), 0, new int[] {ID_FIELD}, allocator);
                VectorSchemaRoot ids = rows(new long[] {22}, 0)) {
            VectorSchemaRoot idOnly = VectorSchemaRoot.of(ids.getVector("id"));
            w.write(new long[] {1}, idOnly);
            DataOverlayFile idOverlay = w.finish().orElseThrow();
            TableCommitter.commit(
                    store,
                    Transaction.of(
                            3, new Operation.DataOverlay(List.of(new Operation.OverlayGroup(0, List.of(idOverlay))))),
                    CommitOptions.defaults()); // v4
        }

        CommitOutcome outcome = pinnedAt(1).commit(updateStatement(1, 1, ours));

        assertThat(outcome.kind()).isEqualTo(CommitOutcome.Kind.COMMITTED);
        assertThat(outcome.version()).isEqualTo(5);
        assertThat(table()).containsExactly("1=11", "22=21", "3=31", "4=40", "5=50");
        // Built on version 4, but the transaction records the version the statement read.
        assertThat(TransactionStore.readForVersion(store, 5).readVersion()).isEqualTo(1);
    }

    @Test
    void aConcurrentDeletionOfOverlaidRowsWins() throws IOException {
        DataOverlayFile ours = ourOverlay(new long[] {1, 2}, 21, 31);
        try (Dataset ds = open()) {
            ds.delete("id = 2").close(); // version 2
        }

        assertThat(pinnedAt(1).commit(updateStatement(1, 1, ours)).kind()).isEqualTo(CommitOutcome.Kind.COMMITTED);
        assertThat(table()).containsExactly("1=10", "3=31", "4=40");
    }

    @Test
    void theSinksOwnEarlierCommitsAreNotConflicts() throws IOException {
        // Checkpoint 1 of the same sink overlaid the cell already (version 2); checkpoint 2 overlays it again.
        pinnedAt(1).commit(updateStatement(1, 1, ourOverlay(new long[] {1}, 21)));
        CommitOutcome second = pinnedAt(1).commit(updateStatement(2, 2, ourOverlay(new long[] {1}, 22)));
        assertThat(second.version()).isEqualTo(3);

        // One checkpoint with a deletion and an overlay: one version holds both.
        CheckpointCommit both = new CheckpointCommit(
                USER,
                "job",
                3,
                3,
                List.of(),
                List.of(new TargetedOverlay(RowTarget.committed(0), ourOverlay(new long[] {2}, 32))),
                List.of(new TargetedDeletion(RowTarget.committed(0), RoaringBitmap.bitmapOf(0))),
                0,
                1,
                0);
        assertThat(pinnedAt(1).commit(both).version()).isEqualTo(4);
        assertThat(table()).containsExactly("2=22", "3=32", "4=40");
    }

    @Test
    void aCompactionFailsOverlaysAndDeletionsOfItsFragments() throws IOException {
        DataOverlayFile ours = ourOverlay(new long[] {1}, 21);
        try (Dataset ds = open()) {
            StagedWrite rewrite = FragmentRewriter.rewrite(
                    store, ds.manifest(), List.of(0L), 1000, allocator, FileWriterOptions.defaults());
            OverlayCommits.commit(store, ds.version(), rewrite, Map.of(), CommitOptions.defaults()); // version 2
        }

        assertThatThrownBy(() -> pinnedAt(1).commit(updateStatement(1, 1, ours)))
                .isInstanceOf(CheckpointCommitException.class)
                .hasMessageContaining("version 2 (Rewrite, committed by another writer) rewrote (compacted) fragment(s)"
                        + " [0], moving the rows the statement read to new addresses");
        assertThatThrownBy(() -> pinnedAt(1).commit(deleteStatement(1, 1)))
                .isInstanceOf(CheckpointCommitException.class)
                .hasMessageContaining("The changes of checkpoint 1")
                .hasMessageContaining("rewrote (compacted) fragment(s) [0]")
                .hasMessageContaining("delete the wrong rows or miss moved ones");
        assertThat(latestVersion()).isEqualTo(2);
        assertThat(table()).containsExactly("1=10", "2=20", "3=30", "4=40");
    }

    @Test
    void overlayCompactionsKeepValuesAndAddressesSoTheyDoNotConflict() throws IOException {
        theirOverlay(new long[] {0}, 11); // version 2
        theirOverlay(new long[] {2}, 31); // version 3
        DataOverlayFile ours;
        try (Dataset ds = open();
                OverlayWriter w = OverlayWriter.create(store, ds.manifest(), 0, new int[] {AGE_FIELD}, allocator);
                VectorSchemaRoot values = ages(21)) {
            w.write(new long[] {1}, values); // the statement reads version 3: SET age = 21 WHERE id = 2
            ours = w.finish().orElseThrow();
        }
        try (Dataset ds = open()) { // version 4: overlay-merge compaction (a Merge)
            StagedWrite merge = OverlayCompactor.mergeOverlays(
                    store, ds.manifest(), 0, new int[] {0, 1}, allocator, FileWriterOptions.defaults());
            OverlayCompactor.commit(store, ds.manifest(), 0, merge, Map.of(), CommitOptions.defaults());
        }
        try (Dataset ds = open()) { // version 5: overlay-fold compaction (an Update rewriting columns)
            StagedWrite fold = OverlayCompactor.fold(store, ds.manifest(), 0, allocator, FileWriterOptions.defaults());
            OverlayCompactor.commit(store, ds.manifest(), 0, fold, Map.of(), CommitOptions.defaults());
        }

        CommitOutcome outcome = pinnedAt(3).commit(updateStatement(1, 3, ours));

        assertThat(outcome.kind()).isEqualTo(CommitOutcome.Kind.COMMITTED);
        assertThat(outcome.version()).isEqualTo(6);
        assertThat(table()).containsExactly("1=11", "2=21", "3=31", "4=40");
    }

    @Test
    void aRowMovingUpdateOfTheFragmentConflicts() throws IOException {
        DataOverlayFile ours = ourOverlay(new long[] {3}, 41);
        try (Dataset ds = open();
                VectorSchemaRoot values = ages(99)) {
            ds.update(new long[] {0}, values, OverlayUpdate.Mode.REWRITE_ROWS, Map.of(), CommitOptions.defaults())
                    .close(); // version 2: Update that moves row id 1
        }
        assertThatThrownBy(() -> pinnedAt(1).commit(updateStatement(1, 1, ours)))
                .isInstanceOf(CheckpointCommitException.class)
                .hasMessageContaining(
                        "version 2 (Update, committed by another writer) updated rows of fragment(s) [0]");
    }

    @Test
    void anOverwriteConflictsWithEveryRowLevelStep() throws IOException {
        try (VectorSchemaRoot other = rows(new long[] {7}, 70)) {
            Dataset.write(store, allocator, List.of(other), SCHEMA, WriteParams.of(WriteMode.OVERWRITE)); // v2
        }
        assertThatThrownBy(() -> pinnedAt(1).commit(deleteStatement(1, 0)))
                .isInstanceOf(CheckpointCommitException.class)
                .hasMessageContaining(
                        "version 2 (Overwrite, committed by another writer) replaced the table's whole" + " content");
        assertThat(table()).containsExactly("7=70");
    }

    // ---- deletions ----------------------------------------------------------------------------

    @Test
    void concurrentDeletionsOfTheSameRowsMerge() throws IOException {
        try (Dataset ds = open()) {
            ds.delete("id >= 2 AND id <= 3").close(); // version 2: offsets 1 and 2
        }
        assertThat(pinnedAt(1).commit(deleteStatement(1, 1, 3)).kind()).isEqualTo(CommitOutcome.Kind.COMMITTED);
        assertThat(table()).containsExactly("1=10");
    }

    @Test
    void aConcurrentOverlayDoesNotFailADeletion() throws IOException {
        theirOverlay(new long[] {1}, 99); // version 2
        assertThat(pinnedAt(1).commit(deleteStatement(1, 1)).version()).isEqualTo(3);
        assertThat(table()).containsExactly("1=10", "3=30", "4=40");
    }

    // ---- rewrite rows -------------------------------------------------------------------------

    /**
     * The statement's rewrite of row {@code offset} of fragment 0 as (id, age), read at version 1:
     * the new row in a new fragment (not committed) and the deletion of the old one.
     */
    private CheckpointCommit ourRewrite(int offset, long id, int age) throws IOException {
        try (Dataset ds = open();
                Dataset v1 = ds.checkoutVersion(1);
                FragmentWriter w = new FragmentWriter(
                        store,
                        v1.schema(),
                        FileVersion.parse(v1.manifest().dataFormat().version()),
                        1000,
                        allocator,
                        FileWriterOptions.defaults());
                VectorSchemaRoot row = rows(new long[] {id}, age)) {
            w.write(row);
            return CheckpointCommit.rewritingRows(
                    USER,
                    "job",
                    1,
                    1,
                    w.finish(),
                    List.of(new TargetedDeletion(RowTarget.committed(0), RoaringBitmap.bitmapOf(offset))),
                    1,
                    0);
        }
    }

    @Test
    void aConcurrentOverlayOfARewrittenRowFailsTheRewriteAndCommitsNothing() throws IOException {
        CheckpointCommit ours = ourRewrite(1, 2, 21); // SET age = 21 WHERE id = 2, read (2, 20)
        theirOverlay(new long[] {1}, 25); // version 2: a change the rewritten row would drop

        assertThatThrownBy(() -> pinnedAt(1).commit(ours))
                .isInstanceOf(CheckpointCommitException.class)
                .hasMessageContaining("The changes of checkpoint 1 (rewrite rows")
                .hasMessageContaining("version 2 (DataOverlay, committed by another writer) overlaid 1 of the rows of"
                        + " fragment 0 this statement rewrites (first offset 1)")
                .hasMessageContaining("lose the other writer's change of the rows it rewrites");
        assertThat(latestVersion()).isEqualTo(2);
        assertThat(table()).containsExactly("1=10", "2=25", "3=30", "4=40");
    }

    @Test
    void aConcurrentDeletionOfARewrittenRowFailsTheRewrite() throws IOException {
        CheckpointCommit ours = ourRewrite(1, 2, 21);
        try (Dataset ds = open()) {
            ds.delete("id = 2").close(); // version 2
        }

        assertThatThrownBy(() -> pinnedAt(1).commit(ours))
                .isInstanceOf(CheckpointCommitException.class)
                .hasMessageContaining("version 2 (Delete, committed by another writer) deleted row 1 of fragment 0,"
                        + " which this statement rewrites");
        assertThat(table()).containsExactly("1=10", "3=30", "4=40");
    }

    @Test
    void aRewriteCommitsAsOneRowMovingUpdateBesideOtherRowsDeletionsAndAppends() throws IOException {
        CheckpointCommit ours = ourRewrite(1, 2, 21);
        try (Dataset ds = open()) {
            ds.delete("id = 4").close(); // version 2
        }
        try (Dataset ds = open();
                VectorSchemaRoot more = rows(new long[] {5}, 50)) {
            ds.append(List.of(more), WriteParams.of(WriteMode.APPEND)).close(); // version 3
        }
        theirOverlay(new long[] {2}, 31); // version 4: another row

        CommitOutcome outcome = pinnedAt(1).commit(ours);

        assertThat(outcome.version()).isEqualTo(5);
        assertThat(table()).containsExactly("1=10", "3=31", "5=50", "2=21");
        try (Dataset ds = open()) {
            assertThat(ds.versions().get(4).operation()).isEqualTo("Update");
        }
    }

    // ---- history that cannot be checked -------------------------------------------------------

    @Test
    void aVersionRemovedByCleanupIsAConflict() throws IOException {
        try (Dataset ds = open();
                VectorSchemaRoot a = rows(new long[] {5}, 50);
                VectorSchemaRoot b = rows(new long[] {6}, 60)) {
            try (Dataset v2 = ds.append(List.of(a), WriteParams.of(WriteMode.APPEND))) {
                v2.append(List.of(b), WriteParams.of(WriteMode.APPEND)).close(); // version 3
            }
        }
        store.delete(ManifestNamingScheme.V2.path(2));

        // The changes were gathered at version 3: only the check walks back to the read version.
        assertThatThrownBy(() -> pinnedAt(1).commit(deleteStatement(3, 0)))
                .isInstanceOf(CheckpointCommitException.class)
                .hasMessageContaining("the statement read version 1, and version 2 no longer exists (removed by a"
                        + " version cleanup)")
                .hasMessageContaining("rerun the statement");
        assertThat(latestVersion()).isEqualTo(3);
    }

    @Test
    void anUnpinnedCommitterDoesNotCheck() throws IOException {
        DataOverlayFile ours = ourOverlay(new long[] {1}, 21);
        theirOverlay(new long[] {1}, 25);
        CheckpointCommitter unpinned = new CheckpointCommitter(store, CommitOptions.defaults(), 3, Duration.ZERO);
        assertThat(unpinned.commit(updateStatement(1, 1, ours)).version()).isEqualTo(3);
        assertThat(table()).containsExactly("1=10", "2=21", "3=30", "4=40"); // the later overlay wins
    }

    // ---- the commit publishes only the version after the checked one --------------------------

    @Test
    void aCommitLosesInsteadOfRebasingOntoAnUncheckedVersion() throws IOException {
        DataOverlayFile ours = ourOverlay(new long[] {1}, 21);
        // Version 2 lands after the loop checked version 1 and built the commit on it: the
        // publication of version 2 is lost, and the next attempt checks version 2 too.
        boolean[] raced = {false};
        CommitHandler racing = (s, path, bytes) -> {
            if (!raced[0]) {
                raced[0] = true;
                theirOverlay(new long[] {1}, 25);
            }
            return CommitHandler.PUT_IF_ABSENT.publish(s, path, bytes);
        };
        CheckpointCommitter committer =
                new CheckpointCommitter(store, CommitOptions.defaults().withCommitHandler(racing), 3, Duration.ZERO, 1);

        assertThatThrownBy(() -> committer.commit(updateStatement(1, 1, ours)))
                .isInstanceOf(CheckpointCommitException.class)
                .hasMessageContaining("version 2 (DataOverlay, committed by another writer) overlaid field 'age'");
        assertThat(raced[0]).isTrue();
        assertThat(latestVersion()).isEqualTo(2);
        assertThat(table()).containsExactly("1=10", "2=25", "3=30", "4=40");
    }
}
