package dev.lanceflink.txn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import dev.lanceflink.rowid.RowIdSequenceCodec;
import dev.lanceflink.schema.LanceSchema;
import dev.lanceflink.table.DataFile;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.DataStorageFormat;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.IndexEntry;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.OverlayCoverage;
import dev.lanceflink.table.RowIdMeta;
import dev.lanceflink.table.SequenceSource;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import lance.table.IndexMetadata;
import org.junit.jupiter.api.Test;
import org.roaringbitmap.RoaringBitmap;

/**
 * Index coverage after a Rewrite, as Lance's manifest builder computes it: with stable row ids the
 * new fragments inherit their group's coverage (minus indices the materialized overlays made
 * stale); with row addresses the bitmaps are left alone.
 */
class RewriteApplierTest {
    private static final Instant NOW = Instant.parse("2026-01-02T03:04:05Z");

    private static ManifestBuilder.Options opts(boolean stableRowIds) {
        return new ManifestBuilder.Options(NOW, "x.txn", true, DataStorageFormat.lance("2.1"), stableRowIds);
    }

    private static Manifest commit(Manifest current, Operation op) throws Exception {
        return ManifestBuilder.build(current, Transaction.of(current.version(), op), opts(false));
    }

    /** Version 1: fragments 0, 1, 2 of 5 rows (row ids 0..14 when stable). */
    private static Manifest threeFragments(boolean stableRowIds, LanceSchema schema) throws Exception {
        Transaction t = Transaction.of(
                0,
                new Operation.Overwrite(
                        List.of(
                                TxnFixtures.fragment("a", 5),
                                TxnFixtures.fragment("b", 5),
                                TxnFixtures.fragment("c", 5)),
                        schema));
        Manifest v1 = ManifestBuilder.build(null, t, opts(stableRowIds));
        assertThat(v1.usesStableRowIds()).isEqualTo(stableRowIds);
        return v1;
    }

    private static IndexEntry index(int n, String name, int field, long datasetVersion, int... fragments) {
        IndexMetadata.Builder b = IndexMetadata.newBuilder()
                .setUuid(lance.table.UUID.newBuilder().setUuid(ByteString.copyFrom(new byte[] {
                    (byte) n, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
                })))
                .addFields(field)
                .setName(name)
                .setDatasetVersion(datasetVersion);
        if (fragments != null) {
            RoaringBitmap bm = RoaringBitmap.bitmapOf(fragments);
            ByteBuffer buf = ByteBuffer.allocate(bm.serializedSizeInBytes());
            bm.serialize(buf);
            b.setFragmentBitmap(ByteString.copyFrom(buf.array()));
        }
        return new IndexEntry(b.build());
    }

    /** An overlay on {@code field} (2.1 file) covering offsets 1 and 3. */
    private static DataOverlayFile overlay(String name, int field) {
        return new DataOverlayFile(
                new DataFile(name + ".lance", new int[] {field}, new int[] {0}, 2, 1, 9),
                OverlayCoverage.Dense.of(RoaringBitmap.bitmapOf(1, 3)),
                0);
    }

    /** Rewrites fragments 0 and 1 into one new fragment (id assigned at commit: 3). */
    private static Operation.Rewrite rewriteZeroAndOne(Manifest m) {
        Fragment merged = TxnFixtures.fragment("ab", 10);
        if (m.usesStableRowIds()) {
            merged = merged.withRowIdMeta(
                    new RowIdMeta(new SequenceSource.Inline(RowIdSequenceCodec.encodeRange(0, 10)), null, null));
        }
        return new Operation.Rewrite(List.of(new Operation.RewriteGroup(
                List.of(m.fragment(0).orElseThrow(), m.fragment(1).orElseThrow()), List.of(merged))));
    }

    private static List<Integer> covered(Manifest m, String name) throws Exception {
        IndexEntry e = m.indices().stream()
                .filter(i -> i.name().equals(name))
                .findFirst()
                .orElseThrow();
        RoaringBitmap b = IndexBitmaps.read(e);
        if (b == null) {
            return null;
        }
        List<Integer> out = new ArrayList<>();
        b.forEach((int i) -> out.add(i));
        return out;
    }

    /**
     * Version 2: indices k (field 0, built at v1, fragments 0-2), v_old (field 1, v1, 0-2), v_new
     * (field 1, v3, 0-2), v_two (field 1, v1, only 2), all (field 0, no bitmap). Version 3: an
     * overlay on field 1 of fragment 0. Version 4: the rewrite of fragments 0 and 1.
     */
    private static Manifest[] history(boolean stableRowIds) throws Exception {
        Manifest v1 = threeFragments(stableRowIds, TxnFixtures.schema());
        Manifest v2 = commit(
                v1,
                new Operation.CreateIndex(
                        List.of(
                                index(1, "k", 0, 1, 0, 1, 2),
                                index(2, "v_old", 1, 1, 0, 1, 2),
                                index(3, "v_new", 1, 3, 0, 1, 2),
                                index(4, "v_two", 1, 1, 2),
                                index(5, "all", 0, 1, (int[]) null)),
                        List.of()));
        Manifest v3 =
                commit(v2, new Operation.DataOverlay(List.of(new Operation.OverlayGroup(0, List.of(overlay("o", 1))))));
        assertThat(v3.fragment(0).orElseThrow().overlays().get(0).committedVersion())
                .isEqualTo(3);
        Manifest v4 = commit(v3, rewriteZeroAndOne(v3));
        assertThat(v4.fragments()).extracting(Fragment::id).containsExactly(2L, 3L);
        return new Manifest[] {v1, v2, v3, v4};
    }

    @Test
    void withStableRowIdsTheNewFragmentsTakeOverTheCoverageOfTheRewrittenOnes() throws Exception {
        Manifest[] h = history(true);
        Manifest v4 = h[3];
        assertThat(covered(v4, "k")).containsExactly(2, 3);
        // The overlay (v3) materialized by the rewrite is newer than v_old (v1): nothing would
        // exclude its rows any more, so the new fragment leaves that index.
        assertThat(covered(v4, "v_old")).containsExactly(2);
        // v_new was built at v3 and already holds the overlay's values.
        assertThat(covered(v4, "v_new")).containsExactly(2, 3);
        // Not covering the group: untouched, byte for byte.
        assertThat(v4.indices().get(3)).isEqualTo(h[2].indices().get(3));
        assertThat(covered(v4, "all")).isNull();
        assertThat(v4.indices()).hasSize(5);
    }

    @Test
    void withRowAddressesTheBitmapsAreLeftAsTheyAre() throws Exception {
        Manifest[] h = history(false);
        // Lance leaves indices it does not remap alone: the old ids stay named (they no longer exist
        // and readers intersect them away); the new fragment 3 is not covered.
        assertThat(h[3].indices()).isEqualTo(h[2].indices());
        assertThat(covered(h[3], "k")).containsExactly(0, 1, 2);
        assertThat(h[3].indices().get(0).coversFragment(3)).isFalse();
    }

    @Test
    void withStableRowIdsAGroupHalfCoveredByAnIndexIsRefused() throws Exception {
        Manifest v1 = threeFragments(true, TxnFixtures.schema());
        Manifest v2 = commit(v1, new Operation.CreateIndex(List.of(index(1, "half", 0, 1, 0)), List.of()));
        assertThatThrownBy(() -> commit(v2, rewriteZeroAndOne(v2)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Rewrite group of fragments [0, 1] mixes fragments index 'half'")
                .hasMessageContaining("covers [0] with fragments it does not cover [1]")
                .hasMessageContaining("Plan the compaction groups by index coverage");
    }

    @Test
    void anOverlayOnALeafMakesAnIndexOnItsStructStaleAndTombstonedSlotsDoNot() throws Exception {
        LanceSchema nested = LanceSchema.fromProto(
                List.of(
                        lance.file.Field.newBuilder()
                                .setName("s")
                                .setId(0)
                                .setParentId(-1)
                                .setLogicalType("struct")
                                .setType(lance.file.Field.Type.PARENT)
                                .build(),
                        lance.file.Field.newBuilder()
                                .setName("x")
                                .setId(1)
                                .setParentId(0)
                                .setLogicalType("int64")
                                .setNullable(true)
                                .build()),
                Map.of());
        Manifest v1 = threeFragments(true, nested);
        Manifest v2 = commit(
                v1,
                new Operation.CreateIndex(
                        List.of(index(1, "on_struct", 0, 1, 0, 1, 2), index(2, "on_leaf", 1, 1, 0, 1, 2)), List.of()));
        DataOverlayFile leaf = overlay("leaf", 1);
        DataOverlayFile dead = new DataOverlayFile(leaf.dataFile().withTombstoned(f -> true), leaf.coverage(), 0);
        Manifest staleLeaf =
                commit(v2, new Operation.DataOverlay(List.of(new Operation.OverlayGroup(1, List.of(leaf)))));
        Manifest after = commit(staleLeaf, rewriteZeroAndOne(staleLeaf));
        assertThat(covered(after, "on_struct")).containsExactly(2);
        assertThat(covered(after, "on_leaf")).containsExactly(2);

        // Fragment 0 has an overlay whose only slot is a tombstone (e.g. dropped by a later column
        // rewrite of x): it supplies nothing, so the indices keep covering the new fragment.
        Manifest tombstoned =
                commit(v2, new Operation.DataOverlay(List.of(new Operation.OverlayGroup(0, List.of(dead)))));
        Manifest kept = commit(tombstoned, rewriteZeroAndOne(tombstoned));
        assertThat(covered(kept, "on_struct")).containsExactly(2, 3);
        assertThat(covered(kept, "on_leaf")).containsExactly(2, 3);
    }
}
