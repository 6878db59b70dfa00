package dev.lanceflink.committer.core;

import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.io.PublicationFaultStore;
import dev.lanceflink.txn.CommitOptions;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the checkpoint committer tests start from: a {@link TestTable} at version 1 (fragment 0:
 * rows 1, 2) on a local store whose manifest publications the test can make fail
 * ({@link PublicationFaultStore}), and a committer on that store.
 */
abstract class FaultyTableFixture {
    @TempDir
    Path dir;

    RootAllocator allocator;
    PublicationFaultStore store;

    @BeforeEach
    void createTable() throws IOException {
        allocator = new RootAllocator();
        store = new PublicationFaultStore(new LocalObjectStore(dir));
        TestTable.create(store, allocator, 1, 2);
    }

    @AfterEach
    void close() {
        allocator.close();
    }

    /** A committer that tries each commit {@code attempts} times, without backoff. */
    CheckpointCommitter committer(int attempts) {
        return new CheckpointCommitter(store, CommitOptions.defaults(), attempts, Duration.ZERO);
    }
}
