package dev.lanceflink.committer.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnknownFieldSet;
import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.table.FeatureFlags;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.ManifestIO;
import dev.lanceflink.table.ManifestNamingScheme;
import dev.lanceflink.table.VersionResolver;
import dev.lanceflink.txn.CommitOptions;
import dev.lanceflink.txn.TableHistory;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.roaringbitmap.RoaringBitmap;

/**
 * The sink's checks of the history meet a version whose operation only a newer Lance knows
 * (Transaction field 116): they refuse the step naming that version, never treat it as harmless.
 */
class NewerLanceHistoryTest {
    private static final String USER = "user-a";

    @TempDir
    Path dir;

    private RootAllocator allocator;
    private LocalObjectStore store;

    @BeforeEach
    void createTable() throws IOException {
        allocator = new RootAllocator();
        store = new LocalObjectStore(dir);
        TestTable.create(store, allocator, 1, 2); // version 1, fragment 0
    }

    @AfterEach
    void close() {
        allocator.close();
    }

    /** Publishes the next version as a newer Lance would: {@code content} of the latest manifest, operation 116. */
    private long publishNewerLanceVersion(UnaryOperator<Manifest.Builder> content) throws IOException {
        Manifest latest = ManifestIO.read(store, VersionResolver.latest(store));
        UnknownFieldSet operation = UnknownFieldSet.newBuilder()
                .addField(
                        116,
                        UnknownFieldSet.Field.newBuilder()
                                .addLengthDelimited(ByteString.copyFrom(new byte[] {0x08, 0x01}))
                                .build())
                .build();
        byte[] txn = lance.table.Transaction.newBuilder()
                .setReadVersion(latest.version())
                .setUuid("00000000-0000-4000-8000-000000000116")
                .setUnknownFields(operation)
                .build()
                .toByteArray();
        long version = latest.version() + 1;
        Manifest next = content.apply(latest.toBuilder()
                        .version(version)
                        .transactionFile("")
                        .writerFeatureFlags(latest.writerFeatureFlags() | FeatureFlags.DISABLE_TRANSACTION_FILE)
                        .inlineTransaction(txn))
                .build();
        assertThat(store.putIfAbsent(ManifestNamingScheme.V2.path(version), ManifestIO.serialize(next)))
                .isTrue();
        return version;
    }

    private static CheckpointCommit deleteFirstRowOfFragmentZero(long checkpointId, long baseVersion) {
        return new CheckpointCommit(
                USER,
                "job-1",
                checkpointId,
                baseVersion,
                List.of(),
                List.of(),
                List.of(new TargetedDeletion(RowTarget.committed(0), RoaringBitmap.bitmapOf(0))),
                0,
                0,
                0);
    }

    @Test
    void aStatementPinnedBeforeTheVersionIsNotCommitted() throws IOException {
        publishNewerLanceVersion(b -> b); // version 2: same rows, unknown operation
        CheckpointCommitter pinned = new CheckpointCommitter(store, CommitOptions.defaults(), 3, Duration.ZERO, 1);

        assertThatThrownBy(() -> pinned.commit(deleteFirstRowOfFragmentZero(1, 1)))
                .isInstanceOf(CheckpointCommitException.class)
                .hasMessageContaining(
                        "version 2 of " + store.rootUri() + " was written by a newer Lance (operation" + " field 116")
                .hasMessageContaining("upgrade lance-flink");
        assertThat(TestTable.ids(store, allocator)).containsExactly(1L, 2L);
    }

    @Test
    void rowsLocatedBeforeTheVersionAreNotDeleted() throws IOException {
        CheckpointCommitter committer = new CheckpointCommitter(store, CommitOptions.defaults(), 3, Duration.ZERO);
        committer.commit(new CheckpointCommit(USER, "job-1", 7, 1, TestTable.fragments(store, allocator, 10), 1, 0));
        long newer = publishNewerLanceVersion(b -> b); // version 3: it may have replaced the content
        CheckpointCommit eight = deleteFirstRowOfFragmentZero(8, newer); // gathered after it, located before it

        assertThatThrownBy(() -> committer.commit(eight))
                .isInstanceOf(CheckpointCommitException.class)
                .hasMessageContaining("The deletions of checkpoint 8")
                .hasMessageContaining("version 3 of " + store.rootUri() + " was written by a newer Lance")
                .hasMessageContaining(
                        "whether it replaced the table's content after this sink located them cannot" + " be told");
        assertThat(TestTable.ids(store, allocator)).containsExactly(1L, 2L, 10L);
    }

    @Test
    void aVersionBeforeTheSinkLocatedItsRowsDoesNotStopIt() throws IOException {
        long newer = publishNewerLanceVersion(b -> b); // version 2, before this sink located anything
        CheckpointCommitter committer = new CheckpointCommitter(store, CommitOptions.defaults(), 3, Duration.ZERO);

        CommitOutcome outcome = committer.commit(deleteFirstRowOfFragmentZero(7, newer));

        assertThat(outcome.kind()).isEqualTo(CommitOutcome.Kind.COMMITTED);
        assertThat(TestTable.ids(store, allocator)).containsExactly(2L);
    }

    @Test
    void aFragmentRemovedByTheVersionIsNotCalledDeletedOrMoved() throws IOException {
        long newer = publishNewerLanceVersion(b -> b.fragments(List.of())); // version 2 removes fragment 0
        Manifest latest = ManifestIO.read(store, VersionResolver.latest(store));

        assertThatThrownBy(() -> FragmentRemoval.find(new TableHistory(store), 0, latest))
                .isInstanceOf(CheckpointCommitException.class)
                .hasMessageContaining("Fragment 0 is gone: version " + newer + " of " + store.rootUri()
                        + " was written by a newer Lance")
                .hasMessageContaining("whether it deleted the fragment's rows or moved them cannot be told");
    }
}
