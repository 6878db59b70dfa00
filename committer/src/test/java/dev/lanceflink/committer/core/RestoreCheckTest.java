package dev.lanceflink.committer.core;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.txn.CommitOptions;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RestoreCheckTest {
    @TempDir
    Path dir;

    private RootAllocator allocator;
    private LocalObjectStore store;

    @BeforeEach
    void commitCheckpointFive() throws IOException {
        allocator = new RootAllocator();
        store = new LocalObjectStore(dir);
        TestTable.create(store, allocator, 1);
        CheckpointCommit cp =
                new CheckpointCommit("user-a", "job-1", 5, 1, TestTable.fragments(store, allocator, 10), 1, 0);
        new CheckpointCommitter(store, CommitOptions.defaults(), 1, Duration.ZERO).commit(cp);
    }

    @AfterEach
    void close() {
        allocator.close();
    }

    @Test
    void restoreFromOlderCheckpointThanTheLastCommitIsRefusedWithGuidance() {
        assertThatThrownBy(() -> RestoreCheck.check(store, "user-a", 4, CommitSettings.defaults()))
                .isInstanceOf(RestoreCheck.StaleRestoreException.class)
                .hasMessageContaining("restored from checkpoint 4, but version 2 of")
                .hasMessageContaining("already holds its commit of checkpoint 5 (commit user user-a, job job-1)")
                .hasMessageContaining("allowRestoreFromOlderState(true)");
    }

    @Test
    void restoreFromTheCommittedCheckpointOrLaterIsAccepted() {
        assertThatCode(() -> RestoreCheck.check(store, "user-a", 5, CommitSettings.defaults()))
                .doesNotThrowAnyException();
        assertThatCode(() -> RestoreCheck.check(store, "user-a", 9, CommitSettings.defaults()))
                .doesNotThrowAnyException();
    }

    @Test
    void olderRestoreIsAcceptedWhenAllowed() {
        assertThatCode(() -> RestoreCheck.check(
                        store, "user-a", 4, CommitSettings.defaults().withAllowRestoreFromOlderState(true)))
                .doesNotThrowAnyException();
    }

    @Test
    void commitsOfAnotherSinkInstanceDoNotCount() {
        assertThatCode(() -> RestoreCheck.check(store, "user-b", 1, CommitSettings.defaults()))
                .doesNotThrowAnyException();
    }
}
