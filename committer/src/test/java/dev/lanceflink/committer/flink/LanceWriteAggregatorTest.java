package dev.lanceflink.committer.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.committer.core.CheckpointCommit;
import dev.lanceflink.committer.core.CheckpointCommitter;
import dev.lanceflink.committer.core.CommitSettings;
import dev.lanceflink.committer.core.RestoreCheck;
import dev.lanceflink.committer.core.TableLocation;
import dev.lanceflink.committer.core.TestTable;
import dev.lanceflink.committer.core.WrittenChanges;
import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.txn.CommitOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.throwable.ThrowableClassifier;
import org.apache.flink.runtime.throwable.ThrowableType;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.CommittableSummary;
import org.apache.flink.streaming.api.connector.sink2.CommittableWithLineage;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The pre-commit aggregator in Flink's operator test harness, one scenario per test. */
class LanceWriteAggregatorTest {
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

    private OneInputStreamOperatorTestHarness<CommittableMessage<WrittenChanges>, CommittableMessage<CheckpointCommit>>
            harness(CommitSettings settings) throws Exception {
        return new OneInputStreamOperatorTestHarness<>(new LanceWriteAggregator(table, settings));
    }

    private WrittenChanges written(long... ids) throws Exception {
        List<Fragment> fragments = TestTable.fragments(store, allocator, ids);
        return WrittenChanges.ofFragments(fragments, ids.length, 10);
    }

    private static CommittableWithLineage<WrittenChanges> fromWriter(WrittenChanges w, long checkpoint, int subtask) {
        return new CommittableWithLineage<>(w, checkpoint, subtask);
    }

    private static CheckpointCommit onlyCommit(List<CommittableMessage<CheckpointCommit>> out) {
        assertThat(out).hasSize(2);
        assertThat(out.get(0)).isInstanceOf(CommittableSummary.class);
        CommittableSummary<CheckpointCommit> summary = (CommittableSummary<CheckpointCommit>) out.get(0);
        assertThat(summary.getSubtaskId()).isZero();
        assertThat(summary.getNumberOfSubtasks()).isEqualTo(1);
        assertThat(summary.getNumberOfCommittables()).isEqualTo(1);
        return ((CommittableWithLineage<CheckpointCommit>) out.get(1)).getCommittable();
    }

    @Test
    void allWritersOfACheckpointBecomeOneCommitEmittedBeforeTheBarrier() throws Exception {
        try (var h = harness(CommitSettings.defaults())) {
            h.open();
            h.processElement(new CommittableSummary<>(0, 2, 1, 1, 0), 0);
            h.processElement(fromWriter(written(10, 11), 1, 0), 0);
            h.processElement(fromWriter(written(12), 1, 1), 0);
            assertThat(h.extractOutputValues()).isEmpty();

            h.prepareSnapshotPreBarrier(1);

            CheckpointCommit commit = onlyCommit(h.extractOutputValues());
            assertThat(commit.checkpointId()).isEqualTo(1);
            assertThat(commit.fragments()).hasSize(2);
            assertThat(commit.rows()).isEqualTo(3);
            assertThat(commit.bytes()).isEqualTo(20);
            assertThat(commit.baseVersion()).isEqualTo(1);
            assertThat(commit.commitUser()).isNotBlank();
        }
    }

    @Test
    void resultsArrivingAfterTheirBarrierTravelWithTheNextCheckpointNeverReusingALabel() throws Exception {
        try (var h = harness(CommitSettings.defaults())) {
            h.open();
            h.processElement(fromWriter(written(10), 1, 0), 0);
            h.prepareSnapshotPreBarrier(1);
            h.processElement(fromWriter(written(11), 1, 1), 0); // late: overtaken by barrier 1
            h.processElement(fromWriter(written(12), 2, 0), 0);
            h.prepareSnapshotPreBarrier(2);

            List<CommittableMessage<CheckpointCommit>> out = h.extractOutputValues();
            assertThat(out).hasSize(4);
            CheckpointCommit first = ((CommittableWithLineage<CheckpointCommit>) out.get(1)).getCommittable();
            CheckpointCommit second = ((CommittableWithLineage<CheckpointCommit>) out.get(3)).getCommittable();
            assertThat(first.checkpointId()).isEqualTo(1);
            assertThat(first.rows()).isEqualTo(1);
            assertThat(second.checkpointId()).isEqualTo(2);
            assertThat(second.rows()).isEqualTo(2);
        }
    }

    @Test
    void checkpointWithoutRowsEmitsNothing() throws Exception {
        try (var h = harness(CommitSettings.defaults())) {
            h.open();
            h.processElement(new CommittableSummary<>(0, 1, 1, 0, 0), 0);
            h.prepareSnapshotPreBarrier(1);
            assertThat(h.extractOutputValues()).isEmpty();
        }
    }

    @Test
    void endOfBoundedInputEmitsWhatIsGathered() throws Exception {
        try (var h = harness(CommitSettings.defaults())) {
            h.open();
            h.processElement(fromWriter(written(10), 1, 0), 0);
            h.endInput();
            assertThat(onlyCommit(h.extractOutputValues()).rows()).isEqualTo(1);
        }
    }

    @Test
    void commitUserSurvivesARestoreIntoANewJob() throws Exception {
        String user;
        OperatorSubtaskState state;
        try (var h = harness(CommitSettings.defaults())) {
            h.open();
            h.processElement(fromWriter(written(10), 1, 0), 0);
            h.prepareSnapshotPreBarrier(1);
            user = onlyCommit(h.extractOutputValues()).commitUser();
            state = h.snapshot(1, 1);
        }
        try (var restored = harness(CommitSettings.defaults())) {
            restored.setRestoredCheckpointId(1);
            restored.initializeState(state);
            restored.open();
            restored.processElement(fromWriter(written(11), 2, 0), 0);
            restored.prepareSnapshotPreBarrier(2);
            assertThat(onlyCommit(restored.extractOutputValues()).commitUser()).isEqualTo(user);
        }
        try (var fresh = harness(CommitSettings.defaults())) {
            fresh.open();
            fresh.processElement(fromWriter(written(12), 1, 0), 0);
            fresh.prepareSnapshotPreBarrier(1);
            assertThat(onlyCommit(fresh.extractOutputValues()).commitUser()).isNotEqualTo(user);
        }
    }

    /** Refused for good: every restart would restore the same old state, so the job stops. */
    @Test
    void restoreFromStateOlderThanTheLastCommitIsRefused() throws Exception {
        OperatorSubtaskState checkpointOne;
        try (var h = harness(CommitSettings.defaults())) {
            h.open();
            checkpointOne = h.snapshot(1, 1);
            h.processElement(fromWriter(written(10), 2, 0), 0);
            h.prepareSnapshotPreBarrier(2);
            CheckpointCommit two = onlyCommit(h.extractOutputValues());
            new CheckpointCommitter(store, CommitOptions.defaults(), 1, Duration.ZERO).commit(two);
        }
        try (var stale = harness(CommitSettings.defaults())) {
            stale.setRestoredCheckpointId(1);
            assertThatThrownBy(() -> stale.initializeState(checkpointOne))
                    .satisfies(
                            e -> assertThat(ExceptionUtils.findThrowable(e, RestoreCheck.StaleRestoreException.class))
                                    .hasValueSatisfying(s -> assertThat(s.getMessage())
                                            .contains("restored from checkpoint 1, but version 2")
                                            .contains("already holds its commit of checkpoint 2")))
                    .satisfies(e -> assertThat(ExceptionUtils.findThrowable(e, SinkStoppedException.class))
                            .hasValueSatisfying(stopped -> {
                                assertThat(stopped.getMessage())
                                        .contains("Restore from the newest checkpoint or savepoint instead")
                                        .contains("the job is stopped, not restarted");
                                assertThat(ThrowableClassifier.getThrowableType(stopped))
                                        .isEqualTo(ThrowableType.NonRecoverableError);
                            }));
        }
        try (var allowed = harness(CommitSettings.defaults().withAllowRestoreFromOlderState(true))) {
            allowed.setRestoredCheckpointId(1);
            allowed.initializeState(checkpointOne);
            allowed.open();
        }
    }

    private OneInputStreamOperatorTestHarness<CommittableMessage<WrittenChanges>, CommittableMessage<CheckpointCommit>>
            overwriteHarness() throws Exception {
        return new OneInputStreamOperatorTestHarness<>(
                new LanceWriteAggregator(table, CommitSettings.defaults(), true));
    }

    @Test
    void overwriteEmitsEverythingAtTheEndOfInputAsOneOverwrite() throws Exception {
        try (var h = overwriteHarness()) {
            h.open();
            h.processElement(fromWriter(written(10, 11), Long.MAX_VALUE, 0), 0);
            h.processElement(new CommittableSummary<>(1, 3, Long.MAX_VALUE, 0, 0), 0); // a writer without rows
            h.processElement(fromWriter(written(12), Long.MAX_VALUE, 2), 0);
            h.endInput();

            CheckpointCommit commit = onlyCommit(h.extractOutputValues());
            assertThat(commit.overwrite()).isTrue();
            assertThat(commit.fragments()).hasSize(2);
            assertThat(commit.rows()).isEqualTo(3);
        }
    }

    @Test
    void overwriteWithoutAnyRowStillEmitsACommitThatEmptiesTheTable() throws Exception {
        try (var h = overwriteHarness()) {
            h.open();
            h.processElement(new CommittableSummary<>(0, 2, Long.MAX_VALUE, 0, 0), 0);
            h.processElement(new CommittableSummary<>(1, 2, Long.MAX_VALUE, 0, 0), 0);
            h.endInput();

            CheckpointCommit commit = onlyCommit(h.extractOutputValues());
            assertThat(commit.overwrite()).isTrue();
            assertThat(commit.fragments()).isEmpty();
            assertThat(commit.isEmpty()).isFalse();
            new CheckpointCommitter(store, CommitOptions.defaults(), 1, Duration.ZERO).commit(commit);
            assertThat(TestTable.ids(store, allocator)).isEmpty();
        }
    }

    @Test
    void checkpointBeforeTheEndOfInputFailsAnOverwrite() throws Exception {
        try (var h = overwriteHarness()) {
            h.open();
            h.processElement(fromWriter(written(10), 1, 0), 0);

            assertThatThrownBy(() -> h.prepareSnapshotPreBarrier(1))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("got checkpoint 1 before the end of its input")
                    .hasMessageContaining("Run the job in BATCH execution mode");
            assertThat(h.extractOutputValues()).isEmpty();
        }
    }

    @Test
    void checkpointAfterTheEndOfInputDoesNotEmitTheOverwriteAgain() throws Exception {
        try (var h = overwriteHarness()) {
            h.open();
            h.processElement(fromWriter(written(10), Long.MAX_VALUE, 0), 0);
            h.endInput();
            h.prepareSnapshotPreBarrier(5);

            assertThat(onlyCommit(h.extractOutputValues()).overwrite()).isTrue();
        }
    }
}
