package dev.lanceflink.overlay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.compact.OverlayCompactor;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.file.writer.FileWriterOptions;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.io.StoreBackedSuite;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.IndexEntry;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.txn.CommitConflictException;
import dev.lanceflink.txn.CommitOptions;
import dev.lanceflink.update.OverlayUpdate;
import java.util.List;
import java.util.Map;
import lance.table.IndexMetadata;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Concurrent overlay commits, folds and merges racing other commits, and index exclusion sets,
 * against a real store. Runs locally as {@link OverlayConcurrencyAndIndexTest} and on S3 as
 * s3-store's {@code S3OverlayConcurrencyAndIndexTest}.
 */
public abstract class OverlayConcurrencyAndIndexSuite extends StoreBackedSuite {
    private final BufferAllocator allocator = new RootAllocator();

    @AfterEach
    void close() {
        allocator.close();
    }

    private StagedWrite stage(ObjectStore store, Manifest m, long[] rows, Long... a) throws Exception {
        try (VectorSchemaRoot r = SmallTable.root(SmallTable.longs(allocator, "a", a))) {
            return OverlayUpdate.stage(
                    store, m, rows, r, OverlayUpdate.Mode.OVERLAY, allocator, FileWriterOptions.defaults());
        }
    }

    @Test
    void concurrentOverlayCommitsAreStampedWithTheVersionTheyLandIn() throws Exception {
        ObjectStore store = newStore();
        try (Dataset v1 = SmallTable.create(store, allocator, 5)) {
            StagedWrite first = stage(store, v1.manifest(), new long[] {1, 2}, 11L, 21L);
            StagedWrite second = stage(store, v1.manifest(), new long[] {2, 3}, 22L, 32L);
            OverlayCommits.commit(store, 1, first, Map.of(), CommitOptions.defaults());
            // Read at version 1, lands as version 3 after a rebase: stamped 3, appended after 2, wins on offset 2.
            Manifest m3 = OverlayCommits.commit(store, 1, second, Map.of(), CommitOptions.defaults());
            assertThat(m3.version()).isEqualTo(3);
            assertThat(m3.fragment(0).orElseThrow().overlays())
                    .extracting(DataOverlayFile::committedVersion)
                    .containsExactly(2L, 3L);
            try (Dataset latest = v1.checkoutLatest()) {
                assertThat(OverlayTestSupport.column(latest, "a")).containsExactly(0L, 11L, 22L, 32L, 40L);
            }
        }
    }

    @Test
    void aFoldNeverLosesAnOverlayCommittedWhileItWasWritten() throws Exception {
        ObjectStore store = newStore();
        try (Dataset v1 = SmallTable.create(store, allocator, 5)) {
            OverlayCommits.commit(
                    store, 1, stage(store, v1.manifest(), new long[] {1}, 11L), Map.of(), CommitOptions.defaults());
            try (Dataset v2 = v1.checkoutLatest()) {
                StagedWrite fold =
                        OverlayCompactor.fold(store, v2.manifest(), 0, allocator, FileWriterOptions.defaults());
                OverlayCommits.commit(
                        store,
                        2,
                        stage(store, v2.manifest(), new long[] {2}, 22L),
                        Map.of(),
                        CommitOptions.defaults()); // lands as version 3, after the fold read version 2
                assertThatThrownBy(() -> OverlayCompactor.commit(
                                store, v2.manifest(), 0, fold, Map.of(), CommitOptions.defaults()))
                        .isInstanceOfSatisfying(
                                CommitConflictException.class,
                                e -> assertThat(e.isRetryable()).isTrue())
                        .hasMessageContaining("plan the compaction again on version 3");
                try (Dataset v3 = v1.checkoutLatest()) {
                    assertThat(v3.version()).isEqualTo(3);
                    assertThat(OverlayTestSupport.column(v3, "a")).containsExactly(0L, 11L, 22L, 30L, 40L);
                    // Re-planned on version 3 it goes through, and keeps both updates.
                    StagedWrite again =
                            OverlayCompactor.fold(store, v3.manifest(), 0, allocator, FileWriterOptions.defaults());
                    OverlayCompactor.commit(store, v3.manifest(), 0, again, Map.of(), CommitOptions.defaults());
                }
                try (Dataset v4 = v1.checkoutLatest()) {
                    assertThat(v4.version()).isEqualTo(4);
                    assertThat(OverlayTestSupport.column(v4, "a")).containsExactly(0L, 11L, 22L, 30L, 40L);
                }
            }
        }
    }

    @Test
    void aMergeIsRetargetedOverConcurrentChangesOfOtherFragments() throws Exception {
        ObjectStore store = newStore();
        try (Dataset v1 = SmallTable.create(store, allocator, 5)) {
            OverlayCommits.commit(
                    store,
                    1,
                    stage(store, v1.manifest(), new long[] {1, 2}, 11L, 21L),
                    Map.of(),
                    CommitOptions.defaults());
            OverlayCommits.commit(
                    store,
                    2,
                    stage(store, v1.manifest(), new long[] {2, 3}, 22L, 32L),
                    Map.of(),
                    CommitOptions.defaults());
            try (Dataset v3 = v1.checkoutLatest()) {
                StagedWrite merge = OverlayCompactor.mergeOverlays(
                        store, v3.manifest(), 0, new int[] {0, 1}, allocator, FileWriterOptions.defaults());
                try (VectorSchemaRoot more = SmallTable.rows(allocator, 5, 2)) {
                    v3.append(List.of(more), WriteParams.of(WriteMode.APPEND)); // version 4, another fragment
                }
                Manifest m5 =
                        OverlayCompactor.commit(store, v3.manifest(), 0, merge, Map.of(), CommitOptions.defaults());
                assertThat(m5.version()).isEqualTo(5);
                assertThat(m5.fragments()).hasSize(2);
                assertThat(m5.fragment(0).orElseThrow().overlays())
                        .singleElement()
                        .extracting(DataOverlayFile::committedVersion)
                        .isEqualTo(3L);
                try (Dataset v5 = v1.checkoutLatest()) {
                    assertThat(OverlayTestSupport.column(v5, "a")).containsExactly(0L, 11L, 22L, 32L, 40L, 50L, 60L);
                }
            }
        }
    }

    @Test
    void exclusionSetsAreFieldAwareVersionGatedAndFollowTheFragmentBitmap() throws Exception {
        ObjectStore store = newStore();
        try (Dataset v1 = SmallTable.create(store, allocator, 5)) {
            Dataset v2;
            try (VectorSchemaRoot more = SmallTable.rows(allocator, 5, 5)) {
                v2 = v1.append(List.of(more), WriteParams.of(WriteMode.APPEND));
            }
            long f1 = 1L << 32;
            try (VectorSchemaRoot r = SmallTable.root(SmallTable.longs(allocator, "a", 1L, 2L, 3L))) {
                v2 = v2.update(new long[] {0, f1 | 3, f1 | 4}, r); // version 3
            }
            try (VectorSchemaRoot r = SmallTable.root(SmallTable.strings(allocator, "s", "x"))) {
                v2 = v2.update(new long[] {f1 | 1}, r); // version 4
            }
            Manifest m = v2.manifest();
            IndexEntry noBitmapOnA = index(1, 2, null);
            assertThat(OverlayExclusions.excludedRows(m, noBitmapOnA)).containsOnlyKeys(0L, 1L);
            assertThat(OverlayExclusions.excludedRows(m, noBitmapOnA).get(1L).toArray())
                    .containsExactly(3, 4);
            assertThat(OverlayExclusions.excludedFragments(m, index(1, 2, new int[] {1})))
                    .containsExactly(1L);
            assertThat(OverlayExclusions.excludedRows(m, index(1, 3, null))).isEmpty(); // built after the overlay
            assertThat(OverlayExclusions.excludedRows(m, index(2, 3, null))
                            .get(1L)
                            .toArray())
                    .containsExactly(1);
            assertThat(OverlayExclusions.excludedRows(m, index(0, 1, null))).isEmpty(); // unrelated field
            v2.close();
        }
    }

    private static IndexEntry index(int field, long datasetVersion, int[] fragments) throws Exception {
        IndexMetadata.Builder b = IndexMetadata.newBuilder()
                .setUuid(lance.table.UUID.newBuilder().setUuid(com.google.protobuf.ByteString.copyFrom(new byte[16])))
                .addFields(field)
                .setName("idx")
                .setDatasetVersion(datasetVersion);
        if (fragments != null) {
            org.roaringbitmap.RoaringBitmap bm = org.roaringbitmap.RoaringBitmap.bitmapOf(fragments);
            java.nio.ByteBuffer buf = java.nio.ByteBuffer.allocate(bm.serializedSizeInBytes());
            bm.serialize(buf);
            b.setFragmentBitmap(com.google.protobuf.ByteString.copyFrom(buf.array()));
        }
        return new IndexEntry(b.build());
    }
}
