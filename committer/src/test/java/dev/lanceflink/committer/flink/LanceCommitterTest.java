package dev.lanceflink.committer.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.committer.core.CheckpointCommit;
import dev.lanceflink.committer.core.CommitMarker;
import dev.lanceflink.committer.core.CommitSettings;
import dev.lanceflink.committer.core.RowTarget;
import dev.lanceflink.committer.core.TableLocation;
import dev.lanceflink.committer.core.TargetedDeletion;
import dev.lanceflink.committer.core.TestTable;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.VersionInfo;
import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.table.FeatureFlags;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.api.connector.sink2.Committer.CommitRequest;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.runtime.throwable.ThrowableClassifier;
import org.apache.flink.runtime.throwable.ThrowableType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.roaringbitmap.RoaringBitmap;

class LanceCommitterTest {
    @TempDir
    Path dir;

    private RootAllocator allocator;
    private LocalObjectStore store;
    private TableLocation table;

    @BeforeEach
    void createTable() throws Exception {
        allocator = new RootAllocator();
        store = new LocalObjectStore(dir);
        table = TableLocation.of(dir.toString());
        TestTable.create(store, allocator, 1);
    }

    @AfterEach
    void close() {
        allocator.close();
    }

    private CheckpointCommit checkpoint(long id, long... ids) throws Exception {
        return new CheckpointCommit(
                "user-a", "job-1", id, 1, TestTable.fragments(store, allocator, ids), ids.length, 0);
    }

    private LanceCommitter committer(int subtask) throws Exception {
        return new LanceCommitter(table, CommitSettings.defaults(), subtask, new UnregisteredMetricsGroup());
    }

    @Test
    void checkpointsAreCommittedInCheckpointOrderOneVersionEach() throws Exception {
        FakeRequest three = new FakeRequest(checkpoint(3, 30));
        FakeRequest two = new FakeRequest(checkpoint(2, 20, 21));
        try (LanceCommitter committer = committer(0)) {
            committer.commit(List.of(three, two));
        }

        try (Dataset ds = Dataset.open(store, allocator)) {
            List<VersionInfo> versions = ds.versions();
            assertThat(versions)
                    .extracting(v -> v.properties().get(CommitMarker.CHECKPOINT_ID_KEY))
                    .containsExactly(null, "2", "3");
            // Each transaction only inline: no second copy in _transactions/ (writer flag 32).
            assertThat(ds.manifest().transactionFile()).isEmpty();
            assertThat(ds.manifest().inlineTransaction()).isPresent();
            assertThat(ds.manifest().writerFeatureFlags() & FeatureFlags.DISABLE_TRANSACTION_FILE)
                    .isEqualTo(FeatureFlags.DISABLE_TRANSACTION_FILE);
        }
        assertThat(three.events).isEmpty();
        assertThat(two.events).isEmpty();
    }

    /**
     * A target the table has no fragment for any more (the sink's key map is stale): every restart
     * from the same state would fail the same way, so the job must stop rather than restart forever.
     */
    @Test
    void aFailureNoRestartCanCureStopsTheJob() throws Exception {
        CheckpointCommit stale = new CheckpointCommit(
                "user-a",
                "job-1",
                4,
                1,
                List.of(),
                List.of(),
                List.of(new TargetedDeletion(RowTarget.pending(0x77), RoaringBitmap.bitmapOf(0))),
                0,
                0,
                0);
        try (LanceCommitter committer = committer(0)) {
            assertThatThrownBy(() -> committer.commit(List.of(new FakeRequest(stale))))
                    .isInstanceOf(SinkStoppedException.class)
                    .hasMessageContaining("no fragment of the table holds that file any more")
                    .hasMessageContaining("the job is stopped, not restarted")
                    .satisfies(e -> assertThat(ThrowableClassifier.getThrowableType(e))
                            .isEqualTo(ThrowableType.NonRecoverableError));
        }
    }

    @Test
    void replayedCommittableIsSignalledAsAlreadyCommitted() throws Exception {
        CheckpointCommit cp = checkpoint(2, 20);
        try (LanceCommitter committer = committer(0)) {
            committer.commit(List.of(new FakeRequest(cp)));
        }
        FakeRequest replay = new FakeRequest(cp);
        try (LanceCommitter restored = committer(0)) {
            restored.commit(List.of(replay));
        }

        assertThat(replay.events).containsExactly("alreadyCommitted");
        assertThat(TestTable.ids(store, allocator)).containsExactly(1L, 20L);
    }

    @Test
    void committableOnANonZeroSubtaskFailsFast() throws Exception {
        try (LanceCommitter committer = committer(1)) {
            assertThatThrownBy(() -> committer.commit(List.of(new FakeRequest(checkpoint(2, 20)))))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("Lance committer subtask 1 received 1 committables")
                    .hasMessageContaining("only subtask 0 may commit");
        }
        assertThat(TestTable.ids(store, allocator)).containsExactly(1L);
    }

    /** Records what the committer signalled. */
    private static final class FakeRequest implements CommitRequest<CheckpointCommit> {
        private final CheckpointCommit committable;
        final List<String> events = new ArrayList<>();

        FakeRequest(CheckpointCommit committable) {
            this.committable = committable;
        }

        @Override
        public CheckpointCommit getCommittable() {
            return committable;
        }

        @Override
        public int getNumberOfRetries() {
            return 0;
        }

        @Override
        public void signalFailedWithKnownReason(Throwable t) {
            events.add("failedKnown");
        }

        @Override
        public void signalFailedWithUnknownReason(Throwable t) {
            events.add("failedUnknown");
        }

        @Override
        public void retryLater() {
            events.add("retryLater");
        }

        @Override
        public void updateAndRetryLater(CheckpointCommit c) {
            events.add("updateAndRetryLater");
        }

        @Override
        public void signalAlreadyCommitted() {
            events.add("alreadyCommitted");
        }
    }
}
