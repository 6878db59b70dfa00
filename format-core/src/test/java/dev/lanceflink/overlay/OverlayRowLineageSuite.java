package dev.lanceflink.overlay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.file.writer.FileWriterOptions;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.io.StoreBackedSuite;
import dev.lanceflink.rowid.RowIdSequenceCodec;
import dev.lanceflink.rowid.RowVersionSequenceCodec;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.RowIdMeta;
import dev.lanceflink.table.SequenceSource;
import dev.lanceflink.txn.CommitOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import lance.table.RowDatasetVersionRun;
import lance.table.RowDatasetVersionSequence;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Row lineage of DataOverlay commits: on a table with stable row ids, the rows an overlay covers
 * (for any of its fields) get the commit's version as {@code last_updated_at_version}; all other
 * rows, the created-at versions and the row ids stay as they were. Tables without stable row ids
 * carry no sequences and get none.
 *
 * <p>Runs locally as {@link OverlayRowLineageTest} and on S3 as s3-store's {@code S3OverlayRowLineageTest}.
 */
public abstract class OverlayRowLineageSuite extends StoreBackedSuite {

    private final BufferAllocator allocator = new RootAllocator();
    /** The table of the test, set by {@link #create}. */
    private ObjectStore store;

    @AfterEach
    void closeAllocator() {
        allocator.close();
    }

    private Dataset create(boolean stableRowIds) throws Exception {
        store = newStore();
        try (VectorSchemaRoot r = SmallTable.rows(allocator, 0, 10)) {
            Dataset.write(
                    store,
                    allocator,
                    List.of(r),
                    SmallTable.SCHEMA,
                    WriteParams.of(WriteMode.CREATE).withStableRowIds(stableRowIds));
        }
        try (Dataset v1 = Dataset.open(store, allocator);
                VectorSchemaRoot more = SmallTable.rows(allocator, 10, 5)) {
            return v1.append(List.of(more), WriteParams.of(WriteMode.APPEND)); // version 2, fragment 1
        }
    }

    /** One sparse overlay of fragment 0: field a at offsets 2 and 5, field s at offsets 5 and 7. */
    private Manifest commitSparseOverlay(Dataset ds) throws Exception {
        List<DataOverlayFile> written = new ArrayList<>();
        List<String> paths = new ArrayList<>();
        try (OverlayWriter w = OverlayWriter.create(
                store, ds.manifest(), 0, new int[] {1, 2}, allocator, FileWriterOptions.defaults())) {
            try (BigIntVector a = SmallTable.longs(allocator, "a", 111L, 222L)) {
                w.writeField(1, new long[] {2, 5}, a);
            }
            try (VarCharVector s = SmallTable.strings(allocator, "s", "x5", "x7")) {
                w.writeField(2, new long[] {5, 7}, s);
            }
            w.finish().ifPresent(written::add);
            w.writtenPath().ifPresent(paths::add);
        }
        StagedWrite staged = new StagedWrite(OverlayCommits.operation(Map.of(0L, written)), paths);
        return OverlayCommits.commit(store, ds.version(), staged, Map.of(), CommitOptions.defaults());
    }

    private static byte[] inline(SequenceSource s) {
        assertThat(s).isInstanceOf(SequenceSource.Inline.class);
        return ((SequenceSource.Inline) s).bytes();
    }

    @Test
    void overlayCommitRefreshesLastUpdatedAtOfCoveredRowsOnly() throws Exception {
        try (Dataset v2 = create(true)) {
            RowIdMeta before0 = v2.manifest().fragment(0).orElseThrow().rowIdMeta();
            RowIdMeta before1 = v2.manifest().fragment(1).orElseThrow().rowIdMeta();
            Manifest v3 = commitSparseOverlay(v2);
            assertThat(v3.version()).isEqualTo(3);

            Fragment f0 = v3.fragment(0).orElseThrow();
            byte[] updated = inline(f0.rowIdMeta().lastUpdatedAtVersions());
            assertThat(RowVersionSequenceCodec.decode(updated, 10, "fragment 0"))
                    .containsExactly(1, 1, 3, 1, 1, 3, 1, 3, 1, 1);
            // Runs of equal versions over contiguous position ranges, in position order.
            List<RowDatasetVersionRun> runs =
                    RowDatasetVersionSequence.parseFrom(updated).getRunsList();
            assertThat(runs)
                    .extracting(
                            r -> r.getSpan().getRange().getStart(),
                            r -> r.getSpan().getRange().getEnd(),
                            RowDatasetVersionRun::getVersion)
                    .containsExactly(
                            org.assertj.core.groups.Tuple.tuple(0L, 2L, 1L),
                            org.assertj.core.groups.Tuple.tuple(2L, 3L, 3L),
                            org.assertj.core.groups.Tuple.tuple(3L, 5L, 1L),
                            org.assertj.core.groups.Tuple.tuple(5L, 6L, 3L),
                            org.assertj.core.groups.Tuple.tuple(6L, 7L, 1L),
                            org.assertj.core.groups.Tuple.tuple(7L, 8L, 3L),
                            org.assertj.core.groups.Tuple.tuple(8L, 10L, 1L));
            assertThat(RowVersionSequenceCodec.decode(inline(f0.rowIdMeta().createdAtVersions()), 10, "fragment 0"))
                    .containsOnly(1L)
                    .hasSize(10);
            assertThat(f0.rowIdMeta().rowIds()).isEqualTo(before0.rowIds());
            assertThat(RowIdSequenceCodec.decode(inline(f0.rowIdMeta().rowIds()), "fragment 0"))
                    .containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
            // The other fragment is not touched at all.
            assertThat(v3.fragment(1).orElseThrow().rowIdMeta()).isEqualTo(before1);
            assertThat(RowVersionSequenceCodec.decode(inline(before1.lastUpdatedAtVersions()), 5, "fragment 1"))
                    .containsOnly(2L)
                    .hasSize(5);

            // A dense overlay by UPDATE at version 4 refreshes its rows on top of the sparse one's.
            try (Dataset d3 = v2.checkoutVersion(3);
                    VectorSchemaRoot values = SmallTable.root(SmallTable.longs(allocator, "a", 7L, 8L));
                    Dataset v4 = d3.update(new long[] {0, 5}, values)) {
                assertThat(v4.version()).isEqualTo(4);
                assertThat(RowVersionSequenceCodec.decode(
                                inline(v4.manifest()
                                        .fragment(0)
                                        .orElseThrow()
                                        .rowIdMeta()
                                        .lastUpdatedAtVersions()),
                                10,
                                "f0"))
                        .containsExactly(4, 1, 3, 1, 1, 4, 1, 3, 1, 1);
                assertThat(v4.manifest().fragment(1).orElseThrow().rowIdMeta()).isEqualTo(before1);
                assertThat(OverlayTestSupport.column(v4, "a"))
                        .containsExactly(7L, 10L, 111L, 30L, 40L, 8L, 60L, 70L, 80L, 90L, 100L, 110L, 120L, 130L, 140L);
            }
        }
    }

    @Test
    void tableWithoutStableRowIdsGetsNoSequences() throws Exception {
        try (Dataset v2 = create(false)) {
            assertThat(v2.manifest().usesStableRowIds()).isFalse();
            assertThat(v2.manifest().fragments())
                    .allSatisfy(f -> assertThat(f.rowIdMeta()).isEqualTo(RowIdMeta.NONE));
            Manifest v3 = commitSparseOverlay(v2);
            assertThat(v3.fragments()).allSatisfy(f -> assertThat(f.rowIdMeta()).isEqualTo(RowIdMeta.NONE));
            assertThat(v3.fragment(0).orElseThrow().overlays()).hasSize(1);
        }
    }
}
