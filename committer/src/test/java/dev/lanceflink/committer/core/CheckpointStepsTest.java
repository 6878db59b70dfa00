package dev.lanceflink.committer.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.compact.FragmentRewriter;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.VersionInfo;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.file.FileVersion;
import dev.lanceflink.file.writer.FileWriterOptions;
import dev.lanceflink.overlay.OverlayWriter;
import dev.lanceflink.overlay.StagedWrite;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.FeatureFlags;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.ManifestIO;
import dev.lanceflink.table.ManifestNamingScheme;
import dev.lanceflink.table.VersionResolver;
import dev.lanceflink.txn.CommitOptions;
import dev.lanceflink.txn.TableCommitter;
import dev.lanceflink.txn.Transaction;
import dev.lanceflink.write.FragmentWriter;
import java.io.IOException;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;
import org.roaringbitmap.RoaringBitmap;

/**
 * A checkpoint with appends, deletions and overlays commits as one version; targets of rows
 * appended by an earlier checkpoint are resolved by file id, targets in the checkpoint's own new
 * fragments are applied to them; a restore of a checkpoint that an earlier sink committed step by
 * step resumes after the last step that landed; versions removed by cleanup do not hide the sink's
 * newest marker.
 */
class CheckpointStepsTest extends FaultyTableFixture {
    private static final String USER = "user-s";
    private static final long FILE = 0x1234_5678_9abc_def0L;

    private CheckpointCommitter committer() {
        return committer(3);
    }

    /** Rows 10, 11, 12 in a data file named after {@link #FILE}, as the upsert writer names them. */
    private List<Fragment> pendingFragment() throws IOException {
        try (Dataset ds = Dataset.open(store, allocator);
                FragmentWriter w = new FragmentWriter(
                        store,
                        ds.schema(),
                        FileVersion.parse(ds.manifest().dataFormat().version()),
                        1000,
                        allocator,
                        FileWriterOptions.defaults(),
                        () -> PendingFiles.fileName(FILE, "test"));
                VectorSchemaRoot batch = TestTable.batch(allocator, 10, 11, 12)) {
            w.write(batch);
            return w.finish();
        }
    }

    private DataOverlayFile overlay(boolean pending, long offset, long value) throws IOException {
        try (Dataset ds = Dataset.open(store, allocator)) {
            Manifest m = ds.manifest();
            int[] fields = {m.schema().fields().get(0).id()};
            try (OverlayWriter w = pending
                            ? OverlayWriter.createForUncommittedFragment(
                                    store, m, 3, fields, allocator, FileWriterOptions.defaults())
                            : OverlayWriter.create(store, m, 0, fields, allocator);
                    VectorSchemaRoot values = TestTable.batch(allocator, value)) {
                w.write(new long[] {offset}, values);
                return w.finish().orElseThrow();
            }
        }
    }

    private CheckpointCommit second() throws IOException {
        RoaringBitmap offsets = RoaringBitmap.bitmapOf(0);
        return new CheckpointCommit(
                USER,
                "job",
                8,
                2,
                List.of(),
                List.of(
                        new TargetedOverlay(RowTarget.committed(0), overlay(false, 1, 200)),
                        new TargetedOverlay(RowTarget.pending(FILE), overlay(true, 2, 300))),
                List.of(new TargetedDeletion(RowTarget.pending(FILE), offsets)),
                0,
                2,
                0);
    }

    /** Commits {@code step} of {@code cp} alone, with its step marker, as sinks before issue #15 did. */
    private void commitLegacyStep(CheckpointCommit cp, CommitStep step) throws IOException {
        Manifest latest = ManifestIO.read(store, VersionResolver.latest(store));
        CheckpointOperation.Built built = CheckpointOperation.build(
                cp, EnumSet.of(step), latest, store, new ReplacedContentCheck(store), new MovedRows(store), 0);
        TableCommitter.commit(
                store,
                Transaction.of(
                        latest.version(),
                        built.operation().orElseThrow(),
                        cp.marker(step).toProperties()),
                CommitOptions.defaults());
    }

    @Test
    void deletionsAndOverlaysOfRowsAppendedEarlierCommitAsOneVersion() throws IOException {
        CheckpointCommit first = new CheckpointCommit(USER, "job", 7, 1, pendingFragment(), 3, 0);
        assertThat(committer().commit(first).version()).isEqualTo(2);

        CommitOutcome outcome = committer().commit(second());

        assertThat(outcome).isEqualTo(new CommitOutcome(8, CommitOutcome.Kind.COMMITTED, 3, 1, 0));
        assertThat(TestTable.ids(store, allocator)).containsExactly(1L, 200L, 11L, 300L);
        try (Dataset ds = Dataset.open(store, allocator)) {
            List<VersionInfo> versions = ds.versions();
            assertThat(versions).extracting(VersionInfo::operation).containsExactly("Overwrite", "Append", "Update");
            assertThat(versions.get(1).properties()).containsEntry(CommitMarker.STEP_KEY, "3");
            assertThat(versions.get(2).properties())
                    .containsEntry(CommitMarker.STEP_KEY, "3")
                    .containsEntry(CommitMarker.CHECKPOINT_ID_KEY, "8");
            Fragment appended = ds.manifest().fragment(1).orElseThrow();
            assertThat(appended.overlays())
                    .extracting(DataOverlayFile::committedVersion)
                    .containsExactly(3L);
            assertThat(appended.deletionFile()).isNotNull();
            assertThat(ds.manifest().fragment(0).orElseThrow().overlays())
                    .extracting(DataOverlayFile::committedVersion)
                    .containsExactly(3L);
        }
        assertThat(committer().commit(second()).kind()).isEqualTo(CommitOutcome.Kind.ALREADY_COMMITTED);
    }

    @Test
    void newRowsDeletionsAndOverlaysOfOneCheckpointLandTogetherOrNotAtAll() throws IOException {
        committer().commit(new CheckpointCommit(USER, "job", 7, 1, pendingFragment(), 3, 0)); // rows 10, 11, 12
        CheckpointCommit cp = new CheckpointCommit(
                USER,
                "job",
                8,
                2,
                TestTable.fragments(store, allocator, 40, 41),
                List.of(new TargetedOverlay(RowTarget.committed(0), overlay(false, 1, 200))),
                List.of(new TargetedDeletion(RowTarget.pending(FILE), RoaringBitmap.bitmapOf(0, 2))),
                2,
                1,
                0);
        store.failNextPublications(1);
        CheckpointCommitter oneAttempt = new CheckpointCommitter(store, CommitOptions.defaults(), 1, Duration.ZERO);

        assertThatThrownBy(() -> oneAttempt.commit(cp))
                .isInstanceOf(CheckpointCommitException.class)
                .hasMessageContaining("Checkpoint 8 (2 rows in 1 new fragments, 1 overlay files");
        assertThat(TestTable.ids(store, allocator)).containsExactly(1L, 2L, 10L, 11L, 12L); // nothing of it

        assertThat(committer().commit(cp).kind()).isEqualTo(CommitOutcome.Kind.COMMITTED);
        assertThat(TestTable.ids(store, allocator)).containsExactly(1L, 200L, 11L, 40L, 41L);
        try (Dataset ds = Dataset.open(store, allocator)) {
            assertThat(ds.versions())
                    .extracting(VersionInfo::operation)
                    .containsExactly("Overwrite", "Append", "Update");
        }
    }

    /**
     * A compaction (another writer's Rewrite) moved the rows between the checkpoint that appended
     * them and the one that updates and deletes them: the changes follow the rows to their new
     * addresses, for a committed fragment and for a file the sink appended, through two
     * compactions in a row.
     */
    @Test
    void changesFollowRowsThatCompactionsMoved() throws IOException {
        committer().commit(new CheckpointCommit(USER, "job", 7, 1, pendingFragment(), 3, 0)); // fragment 1
        CheckpointCommit cp = second(); // aimed at fragment 0 offset 1 and at the file's offsets 0 and 2
        compact(List.of(0L, 1L), 2); // rows 1, 2, 10, 11, 12 in new fragments of about 2 rows
        try (Dataset ds = Dataset.open(store, allocator)) {
            assertThat(ds.manifest().fragments()).hasSizeGreaterThan(1);
            compact(ds.manifest().fragments().stream().map(Fragment::id).toList(), 1000); // all in one fragment
        }

        CommitOutcome outcome = committer().commit(cp);

        assertThat(outcome.kind()).isEqualTo(CommitOutcome.Kind.COMMITTED);
        assertThat(TestTable.ids(store, allocator)).containsExactly(1L, 200L, 11L, 300L);
        try (Dataset ds = Dataset.open(store, allocator)) {
            assertThat(ds.manifest().fragments()).singleElement().satisfies(f -> {
                assertThat(f.physicalRows()).isEqualTo(5);
                // both relocated overlays' cells in one overlay, stamped with the commit
                assertThat(f.overlays()).hasSize(1);
                assertThat(f.deletionFile()).isNotNull();
            });
        }
    }

    /** An overlay of fragment {@code fragment}: {@code id := value} at {@code offset}. */
    private DataOverlayFile overlayOn(long fragment, long offset, long value) throws IOException {
        try (Dataset ds = Dataset.open(store, allocator)) {
            Manifest m = ds.manifest();
            int[] fields = {m.schema().fields().get(0).id()};
            try (OverlayWriter w = OverlayWriter.create(store, m, fragment, fields, allocator);
                    VectorSchemaRoot values = TestTable.batch(allocator, value)) {
                w.write(new long[] {dev.lanceflink.table.RowAddress.of(fragment, offset)}, values);
                return w.finish().orElseThrow();
            }
        }
    }

    /**
     * A compaction merged fragments that the checkpoint's writers overlaid, each of them with
     * overlays of two writers: the commit adds one overlay to the new fragment, not one per moved
     * overlay, with every cell's newest value (issue #15: the overlay bound held per commit); an
     * overlay of a fragment that did not move stays as it was written.
     */
    @Test
    void overlaysOfSeveralFragmentsMovedIntoOneFragmentLandAsOneOverlay() throws IOException {
        try (Dataset ds = Dataset.open(store, allocator)) {
            Dataset at = ds;
            for (long first : new long[] {10, 20, 30, 40}) { // fragments 1..4
                try (VectorSchemaRoot rows = TestTable.batch(allocator, first, first + 1)) {
                    Dataset next = at.append(List.of(rows), WriteParams.of(WriteMode.APPEND));
                    if (at != ds) {
                        at.close();
                    }
                    at = next;
                }
            }
            at.close();
        }
        List<TargetedOverlay> overlays = new java.util.ArrayList<>();
        overlays.add(new TargetedOverlay(RowTarget.committed(0), overlayOn(0, 1, 200))); // does not move
        for (long f = 1; f <= 4; f++) {
            overlays.add(new TargetedOverlay(RowTarget.committed(f), overlayOn(f, 0, f * 1000))); // writer A
            overlays.add(new TargetedOverlay(RowTarget.committed(f), overlayOn(f, 1, f * 1000 + 1))); // writer B
        }
        // A later result of writer A for a cell it set before (a late checkpoint merged in): newest wins.
        overlays.add(new TargetedOverlay(RowTarget.committed(2), overlayOn(2, 0, 2222)));
        CheckpointCommit cp = new CheckpointCommit(USER, "job", 8, 1, List.of(), overlays, List.of(), 0, 10, 0);
        compact(List.of(1L, 2L, 3L, 4L), 1000); // their 8 rows in one new fragment

        assertThat(committer().commit(cp).kind()).isEqualTo(CommitOutcome.Kind.COMMITTED);

        assertThat(TestTable.ids(store, allocator))
                .containsExactly(1L, 200L, 1000L, 1001L, 2222L, 2001L, 3000L, 3001L, 4000L, 4001L);
        try (Dataset ds = Dataset.open(store, allocator)) {
            assertThat(ds.manifest().fragments()).hasSize(2);
            assertThat(ds.manifest().fragment(0).orElseThrow().overlays()).hasSize(1);
            Fragment compacted = ds.manifest().fragments().get(1);
            assertThat(compacted.physicalRows()).isEqualTo(8);
            assertThat(compacted.overlays()).hasSize(1);
            assertThat(compacted.overlays().get(0).coverage().union())
                    .isEqualTo(RoaringBitmap.bitmapOf(0, 1, 2, 3, 4, 5, 6, 7));
        }
    }

    private void compact(List<Long> fragments, long targetRows) throws IOException {
        Manifest latest = ManifestIO.read(store, VersionResolver.latest(store));
        StagedWrite rewrite =
                FragmentRewriter.rewrite(store, latest, fragments, targetRows, allocator, FileWriterOptions.defaults());
        TableCommitter.commit(
                store, Transaction.of(latest.version(), rewrite.operation(), Map.of()), CommitOptions.defaults());
    }

    @Test
    void aRestoreOfAStepByStepCommitResumesAfterTheLastStepThatLanded() throws IOException {
        committer().commit(new CheckpointCommit(USER, "job", 7, 1, pendingFragment(), 3, 0));
        CheckpointCommit cp = second();
        // A sink before issue #15 that died right after the delete step landed.
        commitLegacyStep(cp, CommitStep.DELETE);
        assertThat(TestTable.ids(store, allocator)).containsExactly(1L, 2L, 11L, 12L);

        CommitOutcome resumed = committer().commit(cp); // the restored committer skips the delete
        assertThat(resumed.kind()).isEqualTo(CommitOutcome.Kind.COMMITTED);
        assertThat(TestTable.ids(store, allocator)).containsExactly(1L, 200L, 11L, 300L);
        assertThat(committer().commit(cp).kind()).isEqualTo(CommitOutcome.Kind.ALREADY_COMMITTED);
        try (Dataset ds = Dataset.open(store, allocator)) {
            List<VersionInfo> versions = ds.versions();
            assertThat(versions)
                    .extracting(VersionInfo::operation)
                    .containsExactly("Overwrite", "Append", "Delete", "DataOverlay");
            assertThat(versions.get(2).properties()).containsEntry(CommitMarker.STEP_KEY, "1");
            assertThat(versions.get(3).properties()).containsEntry(CommitMarker.STEP_KEY, "3");
        }
    }

    @Test
    void aRestoreOfAStepByStepCommitWhoseStepsAllLandedCommitsNothing() throws IOException {
        committer().commit(new CheckpointCommit(USER, "job", 7, 1, pendingFragment(), 3, 0));
        CheckpointCommit cp = second();
        commitLegacyStep(cp, CommitStep.DELETE);
        commitLegacyStep(cp, CommitStep.OVERLAY);

        CommitOutcome outcome = committer().commit(cp);

        assertThat(outcome).isEqualTo(new CommitOutcome(8, CommitOutcome.Kind.ALREADY_COMMITTED, 4, 0, 0));
        assertThat(TestTable.ids(store, allocator)).containsExactly(1L, 200L, 11L, 300L);
    }

    @Test
    void versionsRemovedByCleanupDoNotHideTheNewestMarker() throws IOException {
        CheckpointCommit seven =
                new CheckpointCommit(USER, "job", 7, 1, TestTable.fragments(store, allocator, 5), 1, 0);
        committer().commit(seven); // version 2
        try (Dataset ds = Dataset.open(store, allocator);
                VectorSchemaRoot other = TestTable.batch(allocator, 99)) {
            ds.append(List.of(other), WriteParams.of(WriteMode.APPEND)); // version 3, another writer
        }
        store.delete(ManifestNamingScheme.V2.path(3)); // cleanup removed it; version 2 (our marker) stays

        assertThat(committer().commit(seven).kind()).isEqualTo(CommitOutcome.Kind.ALREADY_COMMITTED);
        CheckpointCommit eight =
                new CheckpointCommit(USER, "job", 8, 1, TestTable.fragments(store, allocator, 6), 1, 0);
        assertThat(committer().commit(eight).kind()).isEqualTo(CommitOutcome.Kind.COMMITTED);
        assertThat(TestTable.ids(store, allocator)).contains(5L, 6L).doesNotHaveDuplicates();
    }

    @Test
    void aRewriteRowsCheckpointCommitsOneRowMovingUpdateExactlyOnce() throws IOException {
        // Row 2 (fragment 0, offset 1) rewritten as 20, with a new row 10 in the same new fragment.
        List<Fragment> rewritten = TestTable.fragments(store, allocator, 20, 10);
        CheckpointCommit cp = CheckpointCommit.rewritingRows(
                USER,
                "job",
                7,
                1,
                rewritten,
                List.of(new TargetedDeletion(RowTarget.committed(0), RoaringBitmap.bitmapOf(1))),
                2,
                0);

        CommitOutcome outcome = committer().commit(cp);

        assertThat(outcome).isEqualTo(new CommitOutcome(7, CommitOutcome.Kind.COMMITTED, 2, 1, 0));
        assertThat(TestTable.ids(store, allocator)).containsExactly(1L, 20L, 10L);
        assertThat(committer().commit(cp).kind()).isEqualTo(CommitOutcome.Kind.ALREADY_COMMITTED);
        try (Dataset ds = Dataset.open(store, allocator)) {
            List<VersionInfo> versions = ds.versions();
            assertThat(versions).extracting(VersionInfo::operation).containsExactly("Overwrite", "Update");
            assertThat(versions.get(1).properties()).containsEntry(CommitMarker.STEP_KEY, "3");
            Manifest m = ds.manifest();
            assertThat(m.fragment(0).orElseThrow().deletionFile()).isNotNull();
            assertThat(m.fragments()).allSatisfy(f -> assertThat(f.overlays()).isEmpty());
            assertThat(m.readerFeatureFlags() & FeatureFlags.UNSTABLE_DATA_OVERLAY_FILES)
                    .isZero();
        }
    }

    /**
     * Late results merged into a rewrite-rows checkpoint: it deletes a row of its own new
     * fragment. The new fragment gets its id before the commit, so that its deletion file can be
     * named after it, and everything lands in one version.
     */
    @Test
    void aRewriteOfARowInTheCheckpointsOwnNewFragmentLandsInTheSameVersion() throws IOException {
        CheckpointCommit cp = CheckpointCommit.rewritingRows(
                USER,
                "job",
                7,
                1,
                pendingFragment(),
                List.of(
                        new TargetedDeletion(RowTarget.committed(0), RoaringBitmap.bitmapOf(0)),
                        new TargetedDeletion(RowTarget.pending(FILE), RoaringBitmap.bitmapOf(0))),
                3,
                0);

        assertThat(committer().commit(cp).kind()).isEqualTo(CommitOutcome.Kind.COMMITTED);

        assertThat(TestTable.ids(store, allocator)).containsExactly(2L, 11L, 12L);
        try (Dataset ds = Dataset.open(store, allocator)) {
            assertThat(ds.versions()).extracting(VersionInfo::operation).containsExactly("Overwrite", "Update");
            Fragment added = ds.manifest().fragment(1).orElseThrow();
            assertThat(added.deletionFile()).isNotNull();
            assertThat(added.deletionFile().rootRelativePath(1)).startsWith("_deletions/1-");
        }
        assertThat(committer().commit(cp).kind()).isEqualTo(CommitOutcome.Kind.ALREADY_COMMITTED);
    }

    /**
     * The new fragment's id is chosen before the commit; another writer appending first takes it.
     * The commit must not renumber the fragment (its deletion file is named after the id) nor
     * duplicate the id: it loses the attempt and builds the change again.
     */
    @Test
    void aNewFragmentWhoseChosenIdIsTakenMeanwhileIsBuiltAgain() throws IOException {
        CheckpointCommit cp = CheckpointCommit.rewritingRows(
                USER,
                "job",
                7,
                1,
                pendingFragment(),
                List.of(new TargetedDeletion(RowTarget.pending(FILE), RoaringBitmap.bitmapOf(1))),
                3,
                0);
        store.beforeNextPublication(() -> {
            try (Dataset ds = Dataset.open(store, allocator);
                    VectorSchemaRoot other = TestTable.batch(allocator, 99)) {
                ds.append(List.of(other), WriteParams.of(WriteMode.APPEND)); // takes fragment id 1
            }
        });

        CommitOutcome outcome = committer().commit(cp);

        assertThat(outcome.kind()).isEqualTo(CommitOutcome.Kind.COMMITTED);
        assertThat(outcome.conflicts()).isEqualTo(1);
        assertThat(TestTable.ids(store, allocator)).containsExactly(1L, 2L, 99L, 10L, 12L);
        try (Dataset ds = Dataset.open(store, allocator)) {
            assertThat(ds.manifest().fragments()).extracting(Fragment::id).containsExactly(0L, 1L, 2L);
            assertThat(ds.manifest().fragment(2).orElseThrow().deletionFile().rootRelativePath(2))
                    .startsWith("_deletions/2-");
        }
    }

    /** Late results merged into a checkpoint: an overlay of a row of its own new fragment. */
    @Test
    void anOverlayOfARowInTheCheckpointsOwnNewFragmentLandsInTheSameVersion() throws IOException {
        CheckpointCommit cp = new CheckpointCommit(
                USER,
                "job",
                7,
                1,
                pendingFragment(),
                List.of(new TargetedOverlay(RowTarget.pending(FILE), overlay(true, 2, 300))),
                List.of(),
                3,
                1,
                0);

        assertThat(committer().commit(cp).kind()).isEqualTo(CommitOutcome.Kind.COMMITTED);

        assertThat(TestTable.ids(store, allocator)).containsExactly(1L, 2L, 10L, 11L, 300L);
        try (Dataset ds = Dataset.open(store, allocator)) {
            assertThat(ds.versions()).extracting(VersionInfo::operation).containsExactly("Overwrite", "Update");
            assertThat(ds.manifest().fragment(1).orElseThrow().overlays())
                    .extracting(DataOverlayFile::committedVersion)
                    .containsExactly(2L);
        }
    }

    @Test
    void aPendingTargetThatNoFragmentHoldsAnyMoreFailsWithGuidance() throws IOException {
        CheckpointCommit cp = new CheckpointCommit(
                USER,
                "job",
                9,
                1,
                List.of(),
                List.of(),
                List.of(new TargetedDeletion(RowTarget.pending(FILE), RoaringBitmap.bitmapOf(0))),
                0,
                0,
                0);
        assertThatThrownBy(() -> committer().commit(cp))
                .isInstanceOf(CheckpointCommitException.class)
                .hasMessageContaining("no fragment of the table holds that file any more")
                .hasMessageContaining("start it without state");
    }
}
