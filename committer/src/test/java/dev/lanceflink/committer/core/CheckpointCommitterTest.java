package dev.lanceflink.committer.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.ManifestNamingScheme;
import dev.lanceflink.txn.CommitOptions;
import dev.lanceflink.txn.CommitOutcomeUnknownException;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;
import org.roaringbitmap.RoaringBitmap;

class CheckpointCommitterTest extends FaultyTableFixture {
    private static final String USER = "user-a";

    private CheckpointCommit checkpoint(String user, long checkpointId, long baseVersion, long... ids)
            throws IOException {
        List<Fragment> fragments = TestTable.fragments(store, allocator, ids);
        return new CheckpointCommit(user, "job-1", checkpointId, baseVersion, fragments, ids.length, 0);
    }

    @Test
    void commitsACheckpointAsOneVersionCarryingItsMarker() throws IOException {
        CommitOutcome outcome = committer(3).commit(checkpoint(USER, 7, 1, 10, 11, 12));

        assertThat(outcome).isEqualTo(new CommitOutcome(7, CommitOutcome.Kind.COMMITTED, 2, 1, 0));
        assertThat(TestTable.ids(store, allocator)).containsExactly(1L, 2L, 10L, 11L, 12L);
        try (Dataset ds = Dataset.open(store, allocator)) {
            assertThat(ds.transaction().orElseThrow().properties())
                    .containsEntry(CommitMarker.COMMIT_USER_KEY, USER)
                    .containsEntry(CommitMarker.CHECKPOINT_ID_KEY, "7")
                    .containsEntry(CommitMarker.STEP_KEY, "3")
                    .containsEntry(CommitMarker.JOB_ID_KEY, "job-1");
        }
    }

    @Test
    void replayedCheckpointAfterRestoreIsFoundAndSkipped() throws IOException {
        CheckpointCommit cp = checkpoint(USER, 7, 1, 10);
        committer(3).commit(cp);

        CommitOutcome replay = committer(3).commit(cp);

        assertThat(replay).isEqualTo(new CommitOutcome(7, CommitOutcome.Kind.ALREADY_COMMITTED, 2, 0, 0));
        assertThat(TestTable.ids(store, allocator)).containsExactly(1L, 2L, 10L);
    }

    @Test
    void lostCommitResponseIsResolvedByReadingTheManifestBack() throws IOException {
        store.loseNextResponses(1);

        CommitOutcome outcome = committer(3).commit(checkpoint(USER, 7, 1, 10, 11));

        assertThat(outcome).isEqualTo(new CommitOutcome(7, CommitOutcome.Kind.COMMITTED, 2, 1, 0));
        assertThat(store.publications()).as("the creation and one commit").isEqualTo(2);
        assertThat(TestTable.ids(store, allocator)).containsExactly(1L, 2L, 10L, 11L);
        try (Dataset ds = Dataset.open(store, allocator)) {
            assertThat(store.exists("_transactions/" + ds.manifest().transactionFile()))
                    .as("the landed version keeps its transaction file")
                    .isTrue();
        }
    }

    @Test
    void commitThatLandedBeforeTheCommitterFailedIsFoundByTheRetry() throws IOException {
        CheckpointCommit cp = checkpoint(USER, 7, 1, 10, 11);
        store.loseNextResponses(1);
        store.failReadBacksAfterLostResponse(2); // both read-backs fail: the outcome stays unknown
        assertThatThrownBy(() -> committer(1).commit(cp))
                .isInstanceOf(CheckpointCommitException.class)
                .hasMessageContaining("could not be committed");

        CommitOutcome retry = committer(3).commit(cp);

        assertThat(retry).isEqualTo(new CommitOutcome(7, CommitOutcome.Kind.ALREADY_COMMITTED, 2, 0, 0));
        assertThat(TestTable.ids(store, allocator)).containsExactly(1L, 2L, 10L, 11L);
    }

    @Test
    void givingUpWhileAPublicationIsStillInFlightKeepsWhatItReferences() throws IOException {
        // Deleting row 1 (fragment 0, offset 0): each build writes a deletion file.
        CheckpointCommit cp = new CheckpointCommit(
                USER,
                "job-1",
                7,
                1,
                List.of(),
                List.of(),
                List.of(new TargetedDeletion(RowTarget.committed(0), RoaringBitmap.bitmapOf(0))),
                0,
                0,
                0);
        store.holdNextPublications(2); // neither publication is applied before the committer stops
        CheckpointCommitter givesUpAfterTwoRaces = new CheckpointCommitter(
                store,
                CommitOptions.defaults().withMaxAttempts(2).withBackoff(Duration.ZERO, Duration.ZERO),
                1,
                Duration.ZERO);

        assertThatThrownBy(() -> givesUpAfterTwoRaces.commit(cp))
                .isInstanceOf(CheckpointCommitException.class)
                .hasMessageContaining("could not be committed")
                .cause()
                .as("not a conflict: the last publication may still land")
                .isInstanceOf(CommitOutcomeUnknownException.class)
                .hasMessageContaining("may still be published as version 2");

        assertThat(store.landHeld()).as("the request in flight lands after all").isTrue();
        assertThat(TestTable.ids(store, allocator))
                .as("the version that landed reads: its deletion file was kept")
                .containsExactly(2L);
        assertThat(committer(3).commit(cp).kind()).isEqualTo(CommitOutcome.Kind.ALREADY_COMMITTED);
    }

    @Test
    void failuresBeforePublishingAreRetried() throws IOException {
        store.failNextPublications(2);

        CommitOutcome outcome = committer(3).commit(checkpoint(USER, 7, 1, 10));

        assertThat(outcome).isEqualTo(new CommitOutcome(7, CommitOutcome.Kind.COMMITTED, 2, 3, 0));
        assertThat(TestTable.ids(store, allocator)).containsExactly(1L, 2L, 10L);
    }

    @Test
    void exhaustedAttemptsFailNamingTheCheckpointAndCommitNothing() throws IOException {
        store.failNextPublications(100);

        assertThatThrownBy(() -> committer(3).commit(checkpoint(USER, 7, 1, 10)))
                .isInstanceOf(CheckpointCommitException.class)
                .hasMessageContaining("Checkpoint 7 (1 rows in 1 new fragments")
                .hasMessageContaining("could not be committed")
                .hasMessageContaining("in 3 attempts")
                .hasMessageContaining("connection refused");
        assertThat(TestTable.ids(store, allocator)).containsExactly(1L, 2L);
    }

    @Test
    void appendOfAnotherWriterBetweenPrepareAndCommitIsRebasedOnto() throws IOException {
        CheckpointCommit cp = checkpoint(USER, 7, 1, 10);
        try (Dataset ds = Dataset.open(store, allocator);
                VectorSchemaRoot other = TestTable.batch(allocator, 99)) {
            ds.append(List.of(other), WriteParams.of(WriteMode.APPEND));
        }

        CommitOutcome outcome = committer(3).commit(cp);

        assertThat(outcome.version()).isEqualTo(3);
        assertThat(TestTable.ids(store, allocator)).containsExactlyInAnyOrder(1L, 2L, 99L, 10L);
    }

    @Test
    void sameCheckpointOfAnotherCommitUserIsNotMistakenForOurs() throws IOException {
        committer(3).commit(checkpoint("user-b", 7, 1, 20));

        CommitOutcome outcome = committer(3).commit(checkpoint(USER, 7, 1, 10));

        assertThat(outcome.kind()).isEqualTo(CommitOutcome.Kind.COMMITTED);
        assertThat(TestTable.ids(store, allocator)).containsExactlyInAnyOrder(1L, 2L, 20L, 10L);
    }

    @Test
    void checkpointWithoutRowsCommitsNothing() throws IOException {
        CommitOutcome outcome = committer(3).commit(new CheckpointCommit(USER, "job-1", 7, 1, List.of(), 0, 0));

        assertThat(outcome).isEqualTo(CommitOutcome.nothingToCommit(7));
        try (Dataset ds = Dataset.open(store, allocator)) {
            assertThat(ds.version()).isEqualTo(1);
        }
    }

    @Test
    void versionRemovedInsideTheWalkMakesTheOutcomeUnknowableAndFails() throws IOException {
        CheckpointCommit cp = checkpoint(USER, 7, 1, 10);
        try (Dataset ds = Dataset.open(store, allocator);
                VectorSchemaRoot other = TestTable.batch(allocator, 99)) {
            ds.append(List.of(other), WriteParams.of(WriteMode.APPEND))
                    .append(List.of(other), WriteParams.of(WriteMode.APPEND));
        }
        store.delete(ManifestNamingScheme.V2.path(2)); // as version cleanup would

        assertThatThrownBy(() -> committer(3).commit(cp))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Cannot tell whether checkpoint 7 (commit user user-a) was already committed")
                .hasMessageContaining("version 2")
                .hasMessageContaining("no longer exists");
        assertThat(TestTable.ids(store, allocator)).containsExactlyInAnyOrder(1L, 2L, 99L, 99L);
    }

    @Test
    void markerRoundTripsThroughTransactionProperties() {
        CommitMarker marker = new CommitMarker(USER, 42, 1, "job-9");

        assertThat(CommitMarker.fromProperties(marker.toProperties(), "test")).contains(marker);
        assertThat(CommitMarker.fromProperties(Map.of("other", "x"), "test")).isEmpty();
        assertThatThrownBy(() -> CommitMarker.fromProperties(
                        Map.of(CommitMarker.COMMIT_USER_KEY, USER, CommitMarker.CHECKPOINT_ID_KEY, "seven"),
                        "version 3 of t"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("The transaction of version 3 of t has a malformed Flink commit marker");
    }
}
