package dev.lanceflink.update;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.compact.OverlayCompactor;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.file.writer.FileWriterOptions;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.io.StoreBackedSuite;
import dev.lanceflink.overlay.OverlayCommits;
import dev.lanceflink.overlay.OverlayTestSupport;
import dev.lanceflink.overlay.OverlayWriter;
import dev.lanceflink.overlay.SmallTable;
import dev.lanceflink.overlay.StagedWrite;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.txn.CommitOptions;
import dev.lanceflink.txn.Operation;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Row updates through data overlay files (covered nulls, newer overlays winning, deletions,
 * file format 2.0 tables, ...) committed to a real store. Runs locally as
 * {@link OverlayUpdateTest} and on S3 as s3-store's {@code S3OverlayUpdateTest}.
 */
public abstract class OverlayUpdateSuite extends StoreBackedSuite {
    private final BufferAllocator allocator = new RootAllocator();
    private ObjectStore store;
    private Dataset ds;

    @BeforeEach
    void setUp() throws Exception {
        store = newStore();
        ds = SmallTable.create(store, allocator, 6);
    }

    @AfterEach
    void tearDown() throws Exception {
        ds.close();
        allocator.close();
    }

    private Dataset update(Dataset on, long[] addresses, Long... a) throws Exception {
        try (VectorSchemaRoot r = SmallTable.root(SmallTable.longs(allocator, "a", a))) {
            return on.update(addresses, r);
        }
    }

    @Test
    void coveredNullSetsNullAndNewerOverlayWins() throws Exception {
        Dataset v2 = update(ds, new long[] {1, 4}, null, 400L);
        Dataset v3 = update(v2, new long[] {4, 5}, 4000L, 5000L);
        assertThat(OverlayTestSupport.column(v3, "a")).containsExactly(0L, null, 20L, 30L, 4000L, 5000L);
        assertThat(OverlayTestSupport.column(v3.checkoutVersion(2), "a"))
                .containsExactly(0L, null, 20L, 30L, 400L, 50L);
        assertThat(OverlayTestSupport.column(v3.checkoutVersion(1), "a")).containsExactly(0L, 10L, 20L, 30L, 40L, 50L);
        assertThat(OverlayTestSupport.column(v3, "s")).containsExactly("s0", "s1", "s2", "s3", "s4", "s5");
        // Filters see current values; deletions win over overlays.
        Dataset v4 = v3.deleteRows(new long[] {5});
        assertThat(OverlayTestSupport.column(v4, "a")).containsExactly(0L, null, 20L, 30L, 4000L);
        try (var s = v4.scan(
                dev.lanceflink.read.ScanOptions.all().withColumns(List.of("k")).withFilter("a > 1000"))) {
            try (VectorSchemaRoot b = s.next()) {
                assertThat(b.getRowCount()).isEqualTo(1);
                assertThat(b.getVector("k").getObject(0)).isEqualTo(4);
            }
        }
    }

    @Test
    void overlaysOnAFileFormat20Table() throws Exception {
        ObjectStore store20 = openStore(newLocation("v20"));
        try (VectorSchemaRoot r = SmallTable.rows(allocator, 0, 5)) {
            Dataset.write(
                    store20,
                    allocator,
                    List.of(r),
                    SmallTable.SCHEMA,
                    dev.lanceflink.dataset.WriteParams.of(dev.lanceflink.dataset.WriteMode.CREATE)
                            .withFileVersion(dev.lanceflink.file.FileVersion.V2_0));
        }
        try (Dataset t = Dataset.open(store20, allocator);
                VectorSchemaRoot r = SmallTable.root(
                        SmallTable.strings(allocator, "s", "two", null), SmallTable.longs(allocator, "a", 2L, 4L))) {
            Dataset t2 = t.update(new long[] {2, 4}, r);
            DataOverlayFile o =
                    t2.manifest().fragment(0).orElseThrow().overlays().get(0);
            assertThat(o.dataFile().fileMajorVersion() * 10 + o.dataFile().fileMinorVersion())
                    .isIn(20, 3);
            assertThat(OverlayTestSupport.column(t2, "s")).containsExactly("s0", "s1", "two", "s3", null);
            assertThat(OverlayTestSupport.column(t2, "a")).containsExactly(0L, 10L, 2L, 30L, 4L);
        }
    }

    @Test
    void invalidUpdatesCommitNothing() throws Exception {
        Dataset v2 = ds.deleteRows(new long[] {2});
        assertThatThrownBy(() -> update(v2, new long[] {2}, 1L)).hasMessageContaining("deleted row");
        assertThatThrownBy(() -> update(v2, new long[] {1, 1}, 1L, 2L)).hasMessageContaining("occurs twice");
        assertThatThrownBy(() -> update(v2, new long[] {6}, 1L)).hasMessageContaining("past the end of fragment 0");
        assertThatThrownBy(() -> update(v2, new long[] {1L << 32}, 1L)).hasMessageContaining("names fragment 1");
        assertThatThrownBy(() -> update(v2, new long[] {1, 3}, 1L)).hasMessageContaining("2 row addresses but 1 rows");
        try (VectorSchemaRoot r = SmallTable.root(SmallTable.longs(allocator, "nope", 1L))) {
            assertThatThrownBy(() -> v2.update(new long[] {1}, r))
                    .hasMessageContaining("'nope' is not a top-level column");
        }
        assertThat(v2.checkoutLatest().version()).isEqualTo(2);
        assertThat(v2.checkoutLatest().manifest().hasOverlays()).isFalse();
    }

    @Test
    void rewriteRowsModeLeavesNoOverlays() throws Exception {
        try (VectorSchemaRoot r = SmallTable.root(SmallTable.longs(allocator, "a", 111L, 333L))) {
            Dataset v2 = ds.update(
                    new long[] {3, 1}, r, OverlayUpdate.Mode.REWRITE_ROWS, Map.of(), CommitOptions.defaults());
            assertThat(v2.manifest().hasOverlays()).isFalse();
            assertThat(v2.manifest().readerFeatureFlags() & 64).isZero();
            assertThat(v2.manifest().fragments()).hasSize(2);
            Map<Long, List<Object>> rows = OverlayTestSupport.rows(v2, List.of("k", "a"));
            assertThat(rows.values())
                    .containsExactlyInAnyOrder(
                            List.of(0, 0L),
                            List.of(1, 333L),
                            List.of(2, 20L),
                            List.of(3, 111L),
                            List.of(4, 40L),
                            List.of(5, 50L));
            assertThat(rows).doesNotContainKeys(1L, 3L); // moved to the new fragment
        }
    }

    @Test
    void mergeOverlaysRefusesNonContiguousRunsAndKeepsValues() throws Exception {
        // Work on fragment 1 (a second fragment) so the fragment id survives the Merge commit.
        Dataset v2;
        try (VectorSchemaRoot more = SmallTable.rows(allocator, 6, 6)) {
            v2 = ds.append(
                    List.of(more), dev.lanceflink.dataset.WriteParams.of(dev.lanceflink.dataset.WriteMode.APPEND));
        }
        long f = 1L << 32;
        Dataset v3 = update(v2, new long[] {f | 0, f | 1}, 1L, 2L);
        Dataset v4 = update(v3, new long[] {f | 1, f | 2}, 20L, 30L);
        Dataset v5 = update(v4, new long[] {f | 2, f | 3}, 300L, 400L);
        assertThatThrownBy(() -> OverlayCompactor.mergeOverlays(
                        store, v5.manifest(), 1, new int[] {0, 2}, allocator, FileWriterOptions.defaults()))
                .hasMessageContaining("not contiguous in committed_version: overlay 1"
                        + " (committed_version 4) lies between committed_version 3 and 5");
        StagedWrite merge = OverlayCompactor.mergeOverlays(
                store, v5.manifest(), 1, new int[] {0, 1}, allocator, FileWriterOptions.defaults());
        assertThat(merge.operation()).isInstanceOf(Operation.Merge.class);
        Dataset v6 = v5.checkoutVersion(
                OverlayCompactor.commit(store, v5.manifest(), 1, merge, Map.of(), CommitOptions.defaults())
                        .version());
        Fragment frag = v6.manifest().fragment(1).orElseThrow();
        assertThat(frag.overlays())
                .extracting(DataOverlayFile::committedVersion)
                .containsExactly(4L, 5L);
        assertThat(frag.overlays().get(0).coverage().bitmap(0).toArray()).containsExactly(0, 1, 2);
        assertThat(frag.files())
                .isEqualTo(v5.manifest().fragment(1).orElseThrow().files()); // base untouched
        // Same values at the same row addresses (a Merge commit must keep every fragment id).
        Map<Long, List<Object>> rows = OverlayTestSupport.rows(v6, List.of("k", "a"));
        assertThat(rows).isEqualTo(OverlayTestSupport.rows(v5, List.of("k", "a")));
        assertThat(rows.get(f | 0)).containsExactly(6, 1L);
        assertThat(rows.get(f | 1)).containsExactly(7, 20L);
        assertThat(rows.get(f | 2)).containsExactly(8, 300L);
        assertThat(rows.get(f | 3)).containsExactly(9, 400L);
    }

    @Test
    void commitsGroupOverlaysOfSeveralWritersInOneVersion() throws Exception {
        Dataset v2;
        try (VectorSchemaRoot more = SmallTable.rows(allocator, 6, 3)) {
            v2 = ds.append(
                    List.of(more), dev.lanceflink.dataset.WriteParams.of(dev.lanceflink.dataset.WriteMode.APPEND));
        }
        DataOverlayFile o0;
        DataOverlayFile o1;
        try (OverlayWriter w0 = OverlayWriter.create(store, v2.manifest(), 0, new int[] {2}, allocator);
                OverlayWriter w1 = OverlayWriter.create(store, v2.manifest(), 1, new int[] {2}, allocator);
                var s0 = SmallTable.strings(allocator, "s", "zero");
                var s1 = SmallTable.strings(allocator, "s", "one")) {
            w0.writeField(2, new long[] {0}, s0);
            w1.writeField(2, new long[] {1L << 32 | 2}, s1);
            o0 = w0.finish().orElseThrow();
            o1 = w1.finish().orElseThrow();
        }
        Operation.DataOverlay op =
                OverlayCommits.operation(OverlayCommits.group(List.of(Map.entry(1L, o1), Map.entry(0L, o0))));
        assertThat(op.groups()).extracting(Operation.OverlayGroup::fragmentId).containsExactly(1L, 0L);
        assertThatThrownBy(() -> OverlayCommits.operation(Map.of(0L, List.of(o0.withCommittedVersion(9)))))
                .hasMessageContaining("already carries committed_version 9");
        var m = OverlayCommits.commit(store, 2, new StagedWrite(op, List.of()), Map.of(), CommitOptions.defaults());
        assertThat(m.fragments())
                .allSatisfy(fr -> assertThat(fr.overlays())
                        .singleElement()
                        .extracting(DataOverlayFile::committedVersion)
                        .isEqualTo(3L));
        try (Dataset v3 = v2.checkoutVersion(3)) {
            assertThat(Arrays.asList(OverlayTestSupport.column(v3, "s").toArray()))
                    .containsExactly("zero", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "one");
        }
    }
}
