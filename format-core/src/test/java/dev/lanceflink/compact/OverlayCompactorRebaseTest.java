package dev.lanceflink.compact;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.file.writer.FileWriterOptions;
import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.overlay.OverlayTestSupport;
import dev.lanceflink.overlay.SmallTable;
import dev.lanceflink.overlay.StagedWrite;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.txn.CommitConflictException;
import dev.lanceflink.txn.CommitOptions;
import dev.lanceflink.txn.Operation;
import dev.lanceflink.txn.Transaction;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link OverlayCompactor#commit} and {@link OverlayCompactor#rebase}: a compaction is carried over
 * concurrent deletions and newer overlays of its fragment and over nothing else.
 */
class OverlayCompactorRebaseTest {
    @TempDir
    Path dir;

    private final BufferAllocator allocator = new RootAllocator();
    private ObjectStore store;
    /** Version 3 of a one-fragment table of 8 rows, with overlays on a at versions 2 ({1, 2, 3}) and 3 ({2, 4}). */
    private Dataset v3;

    @BeforeEach
    void setUp() throws Exception {
        store = new LocalObjectStore(dir);
        try (Dataset v1 = SmallTable.create(store, allocator, 8);
                Dataset v2 = updateA(v1, new long[] {1, 2, 3}, 11L, 21L, 31L)) {
            v3 = updateA(v2, new long[] {2, 4}, 22L, 42L);
        }
    }

    @AfterEach
    void tearDown() throws Exception {
        v3.close();
        store.close();
        allocator.close();
    }

    private Dataset updateA(Dataset on, long[] addresses, Long... a) throws Exception {
        try (VectorSchemaRoot r = SmallTable.root(SmallTable.longs(allocator, "a", a))) {
            return on.update(addresses, r);
        }
    }

    private Dataset updateK(Dataset on, long address, int k) throws Exception {
        IntVector v = new IntVector("k", allocator);
        v.allocateNew(1);
        v.set(0, k);
        v.setValueCount(1);
        try (VectorSchemaRoot r = SmallTable.root(v)) {
            return on.update(new long[] {address}, r);
        }
    }

    @Test
    void aMergeKeepsTheConcurrentDeletionAndStaysBelowTheNewerOverlay() throws Exception {
        StagedWrite merge = OverlayCompactor.mergeOverlays(
                store, v3.manifest(), 0, new int[] {0, 1}, allocator, FileWriterOptions.defaults());
        Map<Long, List<Object>> expected;
        Fragment sink;
        // The sink: delete row 2 (overlaid by both merged overlays), then set a of row 4 again.
        try (Dataset v4 = v3.deleteRows(new long[] {2});
                Dataset v5 = updateA(v4, new long[] {4, 5}, 43L, 53L)) {
            expected = OverlayTestSupport.rows(v5, List.of("k", "a"));
            sink = v5.manifest().fragment(0).orElseThrow();
        }
        Manifest m6 = OverlayCompactor.commit(store, v3.manifest(), 0, merge, Map.of(), CommitOptions.defaults());

        assertThat(m6.version()).isEqualTo(6);
        Fragment f = m6.fragment(0).orElseThrow();
        assertThat(f.overlays()).extracting(DataOverlayFile::committedVersion).containsExactly(3L, 5L);
        assertThat(f.overlays().get(1)).isEqualTo(sink.overlays().get(2));
        assertThat(f.deletionFile()).isEqualTo(sink.deletionFile());
        try (Dataset v6 = v3.checkoutVersion(6)) {
            Map<Long, List<Object>> rows = OverlayTestSupport.rows(v6, List.of("k", "a"));
            assertThat(rows).isEqualTo(expected).doesNotContainKey(2L);
            assertThat(rows.get(4L)).containsExactly(4, 43L);
            assertThat(rows.get(3L)).containsExactly(3, 31L);
            assertThat(v6.transaction().orElseThrow().properties())
                    .containsEntry(Transaction.COMPACTION_MODE_PROPERTY, "overlay-merge");
        }
    }

    @Test
    void aFoldKeepsANewerOverlayOnAnotherFieldButIsRefusedWhenOneSetsAFoldedField() throws Exception {
        StagedWrite fold = OverlayCompactor.fold(store, v3.manifest(), 0, allocator, FileWriterOptions.defaults());
        Fragment planned = v3.manifest().fragment(0).orElseThrow();
        try (Dataset v4 = updateK(v3, 6, 600)) {
            Fragment onK = v4.manifest().fragment(0).orElseThrow();
            Fragment rebased =
                    OverlayCompactor.rebase(fold.operation(), planned, onK).orElseThrow();
            assertThat(rebased.overlays()).containsExactly(onK.overlays().get(2));
            try (Dataset v5 = updateA(v4, new long[] {7}, 77L)) {
                assertThat(OverlayCompactor.rebase(
                                fold.operation(),
                                planned,
                                v5.manifest().fragment(0).orElseThrow()))
                        .isEmpty();
            }
        }
        List<String> staged = fold.writtenPaths();
        assertThatThrownBy(() ->
                        OverlayCompactor.commit(store, v3.manifest(), 0, fold, Map.of(), CommitOptions.defaults()))
                .isInstanceOfSatisfying(
                        CommitConflictException.class,
                        e -> assertThat(e.isRetryable()).isTrue())
                .hasMessageContaining("Fragment 0 (or the schema) changed between version 3, on which this overlay"
                        + " compaction was planned, and version 5")
                .hasMessageContaining("a newer overlay sets a folded field); plan the compaction again on version 5");
        assertThat(staged)
                .allSatisfy(p -> assertThat(Files.exists(dir.resolve(p))).isFalse());
    }

    @Test
    void aFoldCommitsOverANewerOverlayOnAnotherField() throws Exception {
        StagedWrite fold = OverlayCompactor.fold(store, v3.manifest(), 0, allocator, FileWriterOptions.defaults());
        Map<Long, List<Object>> expected;
        try (Dataset v4 = v3.deleteRows(new long[] {1});
                Dataset v5 = updateK(v4, 6, 600)) {
            expected = OverlayTestSupport.rows(v5, List.of("k", "a", "s"));
        }
        Manifest m6 = OverlayCompactor.commit(store, v3.manifest(), 0, fold, Map.of(), CommitOptions.defaults());
        Fragment f = m6.fragment(0).orElseThrow();
        assertThat(f.overlays()).singleElement().satisfies(o -> {
            assertThat(o.committedVersion()).isEqualTo(5L);
            assertThat(o.dataFile().fields()).containsExactly(0);
        });
        assertThat(Arrays.stream(f.files().get(0).fields()).boxed().toList()).containsExactly(0, -2, 2);
        try (Dataset v6 = v3.checkoutVersion(6)) {
            Map<Long, List<Object>> rows = OverlayTestSupport.rows(v6, List.of("k", "a", "s"));
            assertThat(rows).isEqualTo(expected).doesNotContainKey(1L);
            assertThat(rows.get(6L)).containsExactly(600, 60L, "s6");
            assertThat(rows.get(2L)).containsExactly(2, 22L, "s2");
        }
    }

    @Test
    void rebaseRefusesAReplacedOverlayAMissingFragmentAndChangedDataFiles() throws Exception {
        StagedWrite merge = OverlayCompactor.mergeOverlays(
                store, v3.manifest(), 0, new int[] {0, 1}, allocator, FileWriterOptions.defaults());
        Fragment planned = v3.manifest().fragment(0).orElseThrow();
        Operation op = merge.operation();
        assertThat(OverlayCompactor.rebase(op, planned, null)).isEmpty();
        assertThat(OverlayCompactor.rebase(
                        op, planned, planned.withOverlays(planned.overlays().subList(1, 2))))
                .isEmpty();
        assertThat(OverlayCompactor.rebase(
                        op,
                        planned,
                        planned.withFiles(List.of(planned.files().get(0).withTombstoned(f -> f == 1)))))
                .isEmpty();
        assertThat(OverlayCompactor.rebase(op, planned, planned).orElseThrow().overlays())
                .extracting(DataOverlayFile::committedVersion)
                .containsExactly(3L);
        assertThatThrownBy(() -> OverlayCompactor.rebase(new Operation.Append(List.of()), planned, planned))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("A staged Append is not an overlay compaction");
        merge.discard(store);
    }
}
