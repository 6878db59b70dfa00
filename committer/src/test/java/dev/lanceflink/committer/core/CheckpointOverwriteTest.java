package dev.lanceflink.committer.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.table.FeatureFlags;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.txn.CommitOptions;
import dev.lanceflink.txn.Operation;
import dev.lanceflink.txn.TableCommitter;
import dev.lanceflink.txn.Transaction;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;

/** A checkpoint that overwrites the table's content ({@code INSERT OVERWRITE}), committed exactly once. */
class CheckpointOverwriteTest extends FaultyTableFixture {
    private static final String USER = "user-a";

    private CheckpointCommit overwrite(long checkpointId, long baseVersion, long... ids) throws IOException {
        List<Fragment> fragments = ids.length == 0 ? List.of() : TestTable.fragments(store, allocator, ids);
        return CheckpointCommit.overwriting(USER, "job-1", checkpointId, baseVersion, fragments, ids.length, 0);
    }

    private Manifest latest() throws IOException {
        try (Dataset ds = Dataset.open(store, allocator)) {
            return ds.manifest();
        }
    }

    private void appendByAnotherWriter(long id) throws IOException {
        try (Dataset ds = Dataset.open(store, allocator);
                VectorSchemaRoot other = TestTable.batch(allocator, id)) {
            ds.append(List.of(other), WriteParams.of(WriteMode.APPEND));
        }
    }

    @Test
    void overwriteReplacesEveryRowAsOneVersionCarryingTheMarker() throws IOException {
        appendByAnotherWriter(3); // version 2: two fragments before the overwrite
        CommitOutcome outcome = committer(3).commit(overwrite(7, 2, 10, 11, 12));

        assertThat(outcome).isEqualTo(new CommitOutcome(7, CommitOutcome.Kind.COMMITTED, 3, 1, 0));
        assertThat(TestTable.ids(store, allocator)).containsExactly(10L, 11L, 12L);
        Manifest m = latest();
        assertThat(m.fragments())
                .extracting(Fragment::id)
                .as("ids continue after the old ones, never reused")
                .containsExactly(2L);
        try (Dataset ds = Dataset.open(store, allocator)) {
            Transaction txn = ds.transaction().orElseThrow();
            assertThat(txn.operation()).isInstanceOf(Operation.Overwrite.class);
            assertThat(txn.properties())
                    .containsEntry(CommitMarker.COMMIT_USER_KEY, USER)
                    .containsEntry(CommitMarker.CHECKPOINT_ID_KEY, "7")
                    .containsEntry(CommitMarker.STEP_KEY, "3");
            assertThat(ds.checkoutVersion(2).countRows())
                    .as("time travel still reads the old rows")
                    .isEqualTo(3);
        }
    }

    @Test
    void overwriteWithoutRowsEmptiesTheTable() throws IOException {
        CheckpointCommit empty = overwrite(7, 1);
        assertThat(empty.isEmpty()).isFalse();
        assertThat(empty.isEmpty(CommitStep.APPEND)).isFalse();

        CommitOutcome outcome = committer(3).commit(empty);

        assertThat(outcome).isEqualTo(new CommitOutcome(7, CommitOutcome.Kind.COMMITTED, 2, 1, 0));
        assertThat(latest().fragments()).isEmpty();
        assertThat(TestTable.ids(store, allocator)).isEmpty();
    }

    @Test
    void keepsSchemaFieldIdsMetadataAndTableConfig() throws IOException {
        Manifest before = latest();
        TableCommitter.commit(
                store,
                Transaction.of(
                        before.version(),
                        Operation.UpdateConfig.of(
                                Map.of("lance.compaction.max_overlays_per_fragment", "4"),
                                Set.of(),
                                Map.of("owner", "etl"),
                                Set.of())),
                CommitOptions.defaults());
        Manifest configured = latest();

        committer(3).commit(overwrite(7, configured.version(), 10));

        Manifest after = latest();
        assertThat(after.schema().toProto()).isEqualTo(configured.schema().toProto());
        assertThat(after.schemaMetadata())
                .containsOnlyKeys(configured.schemaMetadata().keySet());
        assertThat(after.config()).containsEntry("lance.compaction.max_overlays_per_fragment", "4");
        assertThat(after.tableMetadata()).containsEntry("owner", "etl");
    }

    @Test
    void overwriteOfATableWithDeletionsAndOverlaysClearsTheirFeatureFlags() throws IOException {
        try (Dataset ds = Dataset.open(store, allocator);
                VectorSchemaRoot values = TestTable.batch(allocator, 20)) {
            ds.update(new long[] {0L}, values).deleteRows(new long[] {1L}).close();
        }
        Manifest before = latest();
        assertThat(before.readerFeatureFlags() & FeatureFlags.UNSTABLE_DATA_OVERLAY_FILES)
                .isNotZero();
        assertThat(before.readerFeatureFlags() & FeatureFlags.DELETION_FILES).isNotZero();

        committer(3).commit(overwrite(7, before.version(), 30, 31));

        Manifest after = latest();
        assertThat(TestTable.ids(store, allocator)).containsExactly(30L, 31L);
        assertThat(after.readerFeatureFlags()
                        & (FeatureFlags.UNSTABLE_DATA_OVERLAY_FILES | FeatureFlags.DELETION_FILES))
                .isZero();
        assertThat(after.writerFeatureFlags()
                        & (FeatureFlags.UNSTABLE_DATA_OVERLAY_FILES | FeatureFlags.DELETION_FILES))
                .isZero();
    }

    @Test
    void replayAfterALaterAppendDoesNotOverwriteAgain() throws IOException {
        CheckpointCommit cp = overwrite(7, 1, 10, 11);
        committer(3).commit(cp);
        appendByAnotherWriter(99);

        CommitOutcome replay = committer(3).commit(cp);

        assertThat(replay).isEqualTo(new CommitOutcome(7, CommitOutcome.Kind.ALREADY_COMMITTED, 2, 0, 0));
        assertThat(TestTable.ids(store, allocator)).containsExactlyInAnyOrder(10L, 11L, 99L);
    }

    @Test
    void emptyOverwriteIsReplayedOnlyOnce() throws IOException {
        CheckpointCommit cp = overwrite(7, 1);
        committer(3).commit(cp);
        appendByAnotherWriter(99);

        CommitOutcome replay = committer(3).commit(cp);

        assertThat(replay.kind()).isEqualTo(CommitOutcome.Kind.ALREADY_COMMITTED);
        assertThat(TestTable.ids(store, allocator)).containsExactly(99L);
    }

    @Test
    void lostResponseIsResolvedWithoutASecondOverwrite() throws IOException {
        store.loseNextResponses(1);

        CommitOutcome outcome = committer(3).commit(overwrite(7, 1, 10));

        assertThat(outcome).isEqualTo(new CommitOutcome(7, CommitOutcome.Kind.COMMITTED, 2, 1, 0));
        assertThat(store.publications()).as("the creation and one overwrite").isEqualTo(2);
        assertThat(TestTable.ids(store, allocator)).containsExactly(10L);
    }

    @Test
    void overwriteThatLandedBeforeTheCommitterFailedIsFoundByTheRetry() throws IOException {
        CheckpointCommit cp = overwrite(7, 1, 10, 11);
        store.loseNextResponses(1);
        store.failReadBacksAfterLostResponse(2);
        assertThatThrownBy(() -> committer(1).commit(cp))
                .isInstanceOf(CheckpointCommitException.class)
                .hasMessageContaining(
                        "Checkpoint 7 (overwrite of the table's content with 2 rows in 1" + " new fragments)");
        appendByAnotherWriter(99); // a later writer, before the restarted committer retries

        CommitOutcome retry = committer(3).commit(cp);

        assertThat(retry).isEqualTo(new CommitOutcome(7, CommitOutcome.Kind.ALREADY_COMMITTED, 2, 0, 0));
        assertThat(TestTable.ids(store, allocator)).containsExactlyInAnyOrder(10L, 11L, 99L);
    }

    @Test
    void appendOfAnotherWriterBeforeTheOverwriteIsReplacedToo() throws IOException {
        CheckpointCommit cp = overwrite(7, 1, 10);
        appendByAnotherWriter(99); // committed after the overwrite's rows were written, before its commit

        CommitOutcome outcome = committer(3).commit(cp);

        assertThat(outcome.version()).isEqualTo(3);
        assertThat(TestTable.ids(store, allocator)).containsExactly(10L);
    }

    @Test
    void overwriteCarryingOverlaysOrDeletionsIsRefused() {
        assertThatThrownBy(() -> new CheckpointCommit(
                        USER,
                        "job-1",
                        7,
                        1,
                        List.of(),
                        List.of(),
                        List.of(new TargetedDeletion(
                                RowTarget.committed(0), org.roaringbitmap.RoaringBitmap.bitmapOf(1))),
                        0,
                        0,
                        0,
                        true))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(
                        "An overwrite of checkpoint 7 carries 0 overlay files and deletions in 1" + " fragments")
                .hasMessageContaining("only the append mode can overwrite");
    }
    // ---- a keyed sink's deletions after another writer's overwrite ---------------------------

    private static CheckpointCommit deleteFirstRowOfFragmentZero(long checkpointId, long baseVersion) {
        return deleteFirstRowOf(0, checkpointId, baseVersion);
    }

    private static CheckpointCommit deleteFirstRowOf(long fragmentId, long checkpointId, long baseVersion) {
        return new CheckpointCommit(
                USER,
                "job-1",
                checkpointId,
                baseVersion,
                List.of(),
                List.of(),
                List.of(new TargetedDeletion(
                        RowTarget.committed(fragmentId), org.roaringbitmap.RoaringBitmap.bitmapOf(0))),
                0,
                0,
                0);
    }

    private void overwriteByAnotherSink(long... ids) throws IOException {
        CheckpointCommit other = CheckpointCommit.overwriting(
                "user-b", "job-2", 1, latest().version(), TestTable.fragments(store, allocator, ids), ids.length, 0);
        committer(3).commit(other);
    }

    @Test
    void deletionLocatedBeforeAnotherWritersOverwriteIsRefusedByItsHistoryNotByFragmentIds() throws IOException {
        committer(3).commit(new CheckpointCommit(USER, "job-1", 7, 1, TestTable.fragments(store, allocator, 10), 1, 0));
        // Version 3 replaces the content. Its fragment gets a new id, but the check goes by the
        // history: a Restore, or a writer numbering an overwrite from 0, would bring fragment 0 back.
        overwriteByAnotherSink(30, 31);
        CheckpointCommit eight = deleteFirstRowOfFragmentZero(8, 3); // gathered after it, located before it

        assertThatThrownBy(() -> committer(3).commit(eight))
                .isInstanceOf(CheckpointCommitException.class)
                .hasMessageContaining("The deletions of checkpoint 8")
                .hasMessageContaining("version 3 of " + store.rootUri() + " (Overwrite, committed by Flink sink user-b)"
                        + " replaced the table's content after this sink located them")
                .hasMessageContaining("start it without state");
        assertThat(TestTable.ids(store, allocator)).containsExactly(30L, 31L);
    }

    @Test
    void overwriteBetweenGatheringAndCommittingIsRefusedAlsoWithoutEarlierCommits() throws IOException {
        CheckpointCommit seven = deleteFirstRowOfFragmentZero(7, 1);
        overwriteByAnotherSink(30, 31);

        assertThatThrownBy(() -> committer(3).commit(seven))
                .isInstanceOf(CheckpointCommitException.class)
                .hasMessageContaining("version 2 of " + store.rootUri() + " (Overwrite");
        assertThat(TestTable.ids(store, allocator)).containsExactly(30L, 31L);
    }

    @Test
    void sinkStartedOnAnOverwrittenTableDeletesNormally() throws IOException {
        overwriteByAnotherSink(30, 31); // version 2, before this sink located anything
        long newFragment = latest().fragments().get(0).id(); // where the sink then finds row 30

        CommitOutcome outcome = committer(3).commit(deleteFirstRowOf(newFragment, 7, 2));

        assertThat(outcome.kind()).isEqualTo(CommitOutcome.Kind.COMMITTED);
        assertThat(TestTable.ids(store, allocator)).containsExactly(31L);
    }

    @Test
    void anOverwriteBeforeACheckpointWithDeletionsFailsAllOfIt() throws IOException {
        CheckpointCommit seven = new CheckpointCommit(
                USER,
                "job-1",
                7,
                1,
                TestTable.fragments(store, allocator, 10),
                List.of(),
                List.of(new TargetedDeletion(RowTarget.committed(0), org.roaringbitmap.RoaringBitmap.bitmapOf(0))),
                1,
                0,
                0);
        overwriteByAnotherSink(30, 31); // version 2; checkpoint 7's new row must not land without its deletion

        assertThatThrownBy(() -> committer(3).commit(seven))
                .isInstanceOf(CheckpointCommitException.class)
                .hasMessageContaining("The deletions of checkpoint 7")
                .hasMessageContaining("version 2 of " + store.rootUri() + " (Overwrite");
        assertThat(TestTable.ids(store, allocator)).containsExactlyInAnyOrder(30L, 31L);
    }
}
