package dev.lanceflink.txn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.rowid.RowIdSequenceCodec;
import dev.lanceflink.table.DataFile;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.DataStorageFormat;
import dev.lanceflink.table.DeletionFile;
import dev.lanceflink.table.DeletionFileType;
import dev.lanceflink.table.FeatureFlags;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.ManifestIO;
import dev.lanceflink.table.OverlayCoverage;
import dev.lanceflink.table.SequenceSource;
import dev.lanceflink.table.WriterVersion;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.roaringbitmap.RoaringBitmap;

class ManifestBuilderTest {
    private static final Instant NOW = Instant.parse("2026-01-02T03:04:05Z");

    private static ManifestBuilder.Options opts(String txnFile) {
        return new ManifestBuilder.Options(NOW, txnFile, true, DataStorageFormat.lance("2.1"), false);
    }

    private static Manifest create(Fragment... fragments) throws Exception {
        Transaction t = Transaction.of(0, new Operation.Overwrite(List.of(fragments), TxnFixtures.schema()));
        return ManifestBuilder.build(null, t, opts(t.fileName()));
    }

    @Test
    void createAssignsIdsFromZeroAndStampsEverything() throws Exception {
        Transaction t = new Transaction(
                0,
                "11111111-2222-3333-4444-555555555555",
                "first",
                Map.of(),
                new Operation.Overwrite(
                        List.of(TxnFixtures.fragment("a", 5), TxnFixtures.fragment("b", 6)), TxnFixtures.schema()));
        Manifest m = ManifestBuilder.build(null, t, opts(t.fileName()));
        assertThat(m.version()).isEqualTo(1);
        assertThat(m.fragments()).extracting(Fragment::id).containsExactly(0L, 1L);
        assertThat(m.maxFragmentId()).isEqualTo(OptionalLong.of(1));
        assertThat(m.writerVersion()).isEqualTo(WriterVersion.thisLibrary());
        assertThat(m.timestamp()).isEqualTo(NOW);
        assertThat(m.tag()).isEqualTo("first");
        assertThat(m.transactionFile()).isEqualTo("0-11111111-2222-3333-4444-555555555555.txn");
        assertThat(m.dataFormat()).isEqualTo(DataStorageFormat.lance("2.1"));
        assertThat(m.readerFeatureFlags()).isZero();
        assertThat(m.writerFeatureFlags()).isZero();
        assertThat(m.schema()).isEqualTo(TxnFixtures.schema());
        assertThat(TransactionCodec.decode(m.inlineTransaction().orElseThrow(), "inline"))
                .isEqualTo(t);
        // the serialized manifest parses back to the same content
        Manifest back = ManifestIO.parse(ManifestIO.serialize(m), "mem");
        assertThat(back.fragments()).isEqualTo(m.fragments());
    }

    @Test
    void appendContinuesAfterMaxFragmentId() throws Exception {
        Manifest v1 = create(TxnFixtures.fragment("a", 5));
        Manifest v2 =
                ManifestBuilder.build(v1, Transaction.of(1, new Operation.ReserveFragments(3)), opts("" + "x.txn"));
        assertThat(v2.maxFragmentId()).isEqualTo(OptionalLong.of(3));
        Manifest v3 = ManifestBuilder.build(
                v2,
                Transaction.of(
                        2, new Operation.Append(List.of(TxnFixtures.fragment("b", 1), TxnFixtures.fragment("c", 2)))),
                opts("y.txn"));
        assertThat(v3.version()).isEqualTo(3);
        assertThat(v3.fragments()).extracting(Fragment::id).containsExactly(0L, 4L, 5L);
        assertThat(v3.maxFragmentId()).isEqualTo(OptionalLong.of(5));
        assertThat(v3.countLiveRows()).isEqualTo(8);
    }

    @Test
    void overwriteContinuesIdsAfterTheHighWaterMarkAsLanceDoes() throws Exception {
        // pylance 14: fragments 0, 1, then an overwrite writes fragments 2, 3 (ids never reused).
        Manifest v1 = create(TxnFixtures.fragment("a", 5), TxnFixtures.fragment("b", 5), TxnFixtures.fragment("c", 5));
        Manifest v2 = ManifestBuilder.build(
                v1,
                Transaction.of(
                        1,
                        new Operation.Overwrite(
                                List.of(TxnFixtures.fragment("n", 1), TxnFixtures.fragment("m", 1)),
                                        TxnFixtures.schema(),
                                Map.of("k", "v"), List.of())),
                opts("o.txn"));
        assertThat(v2.fragments()).extracting(Fragment::id).containsExactly(3L, 4L);
        assertThat(v2.maxFragmentId()).isEqualTo(OptionalLong.of(4));
        assertThat(v2.config()).containsExactly(Map.entry("k", "v"));
        assertThat(v2.writerFeatureFlags()).isEqualTo(FeatureFlags.TABLE_CONFIG);
        Manifest v3 = ManifestBuilder.build(
                v2, Transaction.of(2, new Operation.Append(List.of(TxnFixtures.fragment("x", 1)))), opts("x.txn"));
        assertThat(v3.fragments()).extracting(Fragment::id).containsExactly(3L, 4L, 5L);
    }

    @Test
    void overwriteGivesEveryFragmentAFreshIdWhateverIdItCarries() throws Exception {
        // pylance 14 commits an Overwrite of fragments carrying ids 7 and 0 as fragments 2, 3.
        Manifest v1 = create(TxnFixtures.fragment("a", 5), TxnFixtures.fragment("b", 5));
        Manifest v2 = ManifestBuilder.build(
                v1,
                Transaction.of(
                        1,
                        new Operation.Overwrite(
                                List.of(TxnFixtures.fragment("n", 1).withId(7), TxnFixtures.fragment("m", 1)),
                                TxnFixtures.schema())),
                opts("o.txn"));
        assertThat(v2.fragments()).extracting(Fragment::id).containsExactly(2L, 3L);
        assertThat(v2.maxFragmentId()).isEqualTo(OptionalLong.of(3));
    }

    @Test
    void overwriteToNoFragmentsKeepsTheHighWaterMarkForTheNextAppend() throws Exception {
        Manifest v1 = create(TxnFixtures.fragment("a", 5), TxnFixtures.fragment("b", 5));
        Manifest v2 = ManifestBuilder.build(
                v1, Transaction.of(1, new Operation.Overwrite(List.of(), TxnFixtures.schema())), opts("o.txn"));
        assertThat(v2.fragments()).isEmpty();
        assertThat(v2.maxFragmentId()).isEqualTo(OptionalLong.of(1));
        Manifest v3 = ManifestBuilder.build(
                v2, Transaction.of(2, new Operation.Append(List.of(TxnFixtures.fragment("x", 1)))), opts("x.txn"));
        assertThat(v3.fragments()).extracting(Fragment::id).containsExactly(2L);
    }

    @Test
    void deleteSetsFlagOneAndRemovesFragments() throws Exception {
        Manifest v1 = create(TxnFixtures.fragment("a", 5), TxnFixtures.fragment("b", 5));
        DeletionFile df = new DeletionFile(DeletionFileType.ARROW_ARRAY, 1, 77, 2);
        Manifest v2 = ManifestBuilder.build(
                v1,
                Transaction.of(
                        1, new Operation.Delete(List.of(v1.fragments().get(0).withDeletionFile(df)), List.of(1L), "x")),
                opts("d.txn"));
        assertThat(v2.fragments()).hasSize(1);
        assertThat(v2.fragments().get(0).deletionFile()).isEqualTo(df);
        assertThat(v2.readerFeatureFlags()).isEqualTo(FeatureFlags.DELETION_FILES);
        assertThat(v2.maxFragmentId()).isEqualTo(OptionalLong.of(1)); // never decreases
        assertThat(v2.countLiveRows()).isEqualTo(3);
        assertThatThrownBy(() -> ManifestBuilder.build(
                        v2, Transaction.of(2, new Operation.Delete(List.of(), List.of(9L), "")), opts("e.txn")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Delete refers to fragment 9, which does not exist in version 2");
    }

    @Test
    void dataOverlayIsStampedWithNewVersionAndSetsFlag64() throws Exception {
        Manifest v1 = create(TxnFixtures.fragment("a", 5));
        DataOverlayFile ov = new DataOverlayFile(
                new DataFile("o.lance", new int[] {1}, new int[] {0}, 2, 1, 9),
                OverlayCoverage.Dense.of(RoaringBitmap.bitmapOf(0, 3)),
                0);
        Transaction t = Transaction.of(
                1,
                new Operation.DataOverlay(List.of(
                        new Operation.OverlayGroup(0, List.of(ov)), new Operation.OverlayGroup(0, List.of(ov)))));
        Manifest v2 = ManifestBuilder.build(v1, t, opts("o.txn"));
        assertThat(v2.fragments().get(0).overlays())
                .extracting(DataOverlayFile::committedVersion)
                .containsExactly(2L, 2L);
        assertThat(v2.readerFeatureFlags() & FeatureFlags.UNSTABLE_DATA_OVERLAY_FILES)
                .isNotZero();
        assertThat(v2.writerFeatureFlags() & FeatureFlags.UNSTABLE_DATA_OVERLAY_FILES)
                .isNotZero();
        // the transaction keeps committed_version 0
        Transaction inline = TransactionCodec.decode(v2.inlineTransaction().orElseThrow(), "inline");
        assertThat(((Operation.DataOverlay) inline.operation())
                        .groups()
                        .get(0)
                        .overlays()
                        .get(0)
                        .committedVersion())
                .isZero();
        // a later delete keeps the overlays (taken from the current manifest, not the transaction)
        DeletionFile df = new DeletionFile(DeletionFileType.ARROW_ARRAY, 1, 5, 1);
        Manifest v3 = ManifestBuilder.build(
                v2,
                Transaction.of(
                        1, new Operation.Delete(List.of(v1.fragments().get(0).withDeletionFile(df)), List.of(), "")),
                opts("p.txn"));
        assertThat(v3.fragments().get(0).overlays()).hasSize(2);
        assertThat(v3.readerFeatureFlags())
                .isEqualTo(FeatureFlags.DELETION_FILES | FeatureFlags.UNSTABLE_DATA_OVERLAY_FILES);
    }

    @Test
    void updateRewriteColumnsTombstonesOverlaySlotsAndDropsDeadFiles() throws Exception {
        Manifest v1 = create(TxnFixtures.fragment("a", 5));
        DataOverlayFile ov = new DataOverlayFile(
                new DataFile("o.lance", new int[] {0, 1}, new int[] {0, 1}, 2, 1, 9),
                OverlayCoverage.Dense.of(RoaringBitmap.bitmapOf(1)),
                0);
        Manifest v2 = ManifestBuilder.build(
                v1,
                Transaction.of(1, new Operation.DataOverlay(List.of(new Operation.OverlayGroup(0, List.of(ov))))),
                opts("o.txn"));
        Fragment base = v2.fragments().get(0);
        DataFile rewritten = base.files().get(0).withTombstoned(f -> f == 1);
        DataFile newCol = new DataFile("n.lance", new int[] {1}, new int[] {0}, 2, 1, 3);
        Fragment updated = base.withFiles(List.of(rewritten, newCol));
        Manifest v3 = ManifestBuilder.build(
                v2,
                Transaction.of(
                        2,
                        new Operation.Update(
                                List.of(),
                                List.of(updated),
                                List.of(),
                                new int[] {1},
                                new int[0],
                                Operation.UpdateMode.REWRITE_COLUMNS,
                                false,
                                false,
                                new byte[0])),
                opts("u.txn"));
        Fragment f = v3.fragments().get(0);
        assertThat(f.files()).extracting(DataFile::path).containsExactly("a.lance", "n.lance");
        assertThat(f.overlays().get(0).dataFile().fields()).containsExactly(0, -2);

        DataFile dead = base.files().get(0).withTombstoned(x -> true);
        Manifest v4 = ManifestBuilder.build(
                v3,
                Transaction.of(
                        3,
                        new Operation.Update(
                                List.of(),
                                List.of(f.withFiles(List.of(dead, newCol))),
                                List.of(),
                                new int[] {0},
                                new int[0],
                                Operation.UpdateMode.REWRITE_COLUMNS,
                                false,
                                false,
                                new byte[0])),
                opts("w.txn"));
        assertThat(v4.fragments().get(0).files()).extracting(DataFile::path).containsExactly("n.lance");
    }

    @Test
    void rewriteReplacesGroups() throws Exception {
        Manifest v1 = create(TxnFixtures.fragment("a", 5), TxnFixtures.fragment("b", 5), TxnFixtures.fragment("c", 5));
        Manifest v2 = ManifestBuilder.build(
                v1,
                Transaction.of(
                        1,
                        new Operation.Rewrite(List.of(new Operation.RewriteGroup(
                                List.of(v1.fragments().get(0), v1.fragments().get(1)),
                                List.of(TxnFixtures.fragment("ab", 10)))))),
                opts("r.txn"));
        assertThat(v2.fragments()).extracting(Fragment::id).containsExactly(2L, 3L);
        assertThat(v2.fragments().get(1).files().get(0).path()).isEqualTo("ab.lance");
        assertThat(v2.countLiveRows()).isEqualTo(15);
    }

    @Test
    void stableRowIdsAreAssignedOnAppendAndKeptOnDelete() throws Exception {
        Transaction t =
                Transaction.of(0, new Operation.Overwrite(List.of(TxnFixtures.fragment("a", 3)), TxnFixtures.schema()));
        Manifest v1 = ManifestBuilder.build(
                null, t, new ManifestBuilder.Options(NOW, "t.txn", true, DataStorageFormat.lance("2.1"), true));
        assertThat(v1.usesStableRowIds()).isTrue();
        assertThat(v1.nextRowId()).isEqualTo(3);
        Manifest v2 = ManifestBuilder.build(
                v1, Transaction.of(1, new Operation.Append(List.of(TxnFixtures.fragment("b", 4)))), opts("a.txn"));
        assertThat(v2.nextRowId()).isEqualTo(7);
        assertThat(v2.readerFeatureFlags()).isEqualTo(FeatureFlags.STABLE_ROW_IDS);
        byte[] ids = ((SequenceSource.Inline) v2.fragments().get(1).rowIdMeta().rowIds()).bytes();
        assertThat(RowIdSequenceCodec.decode(ids, "f")).containsExactly(3, 4, 5, 6);
        DeletionFile df = new DeletionFile(DeletionFileType.ARROW_ARRAY, 2, 1, 1);
        Manifest v3 = ManifestBuilder.build(
                v2,
                Transaction.of(
                        2, new Operation.Delete(List.of(v2.fragments().get(1).withDeletionFile(df)), List.of(), "")),
                opts("d.txn"));
        assertThat(v3.fragments().get(1).rowIdMeta())
                .isEqualTo(v2.fragments().get(1).rowIdMeta());
        assertThat(v3.nextRowId()).isEqualTo(7);
    }

    /**
     * A Merge that brings new fragments (a sink checkpoint whose commit also merges a fragment's
     * overlays) gives them row ids, or moves {@code next_row_id} past those they carry (taken
     * from the manifest the plainer operation would have made), so that no id is handed out twice.
     */
    @Test
    void aMergeWithNewFragmentsKeepsStableRowIdsUnique() throws Exception {
        Transaction t =
                Transaction.of(0, new Operation.Overwrite(List.of(TxnFixtures.fragment("a", 3)), TxnFixtures.schema()));
        Manifest v1 = ManifestBuilder.build(
                null, t, new ManifestBuilder.Options(NOW, "t.txn", true, DataStorageFormat.lance("2.1"), true));
        // Without row ids (a new fragment names its id: id 0 is fragment 0 in a Merge): assigned as an Append would.
        Manifest v2 = ManifestBuilder.build(
                v1,
                Transaction.of(
                        1,
                        new Operation.Merge(
                                List.of(
                                        v1.fragments().get(0),
                                        TxnFixtures.fragment("b", 4).withId(5)),
                                TxnFixtures.schema())),
                opts("m.txn"));
        assertThat(v2.nextRowId()).isEqualTo(7);
        byte[] ids = ((SequenceSource.Inline) v2.fragments().get(1).rowIdMeta().rowIds()).bytes();
        assertThat(RowIdSequenceCodec.decode(ids, "f")).containsExactly(3, 4, 5, 6);
        // With row ids from a previewed Append: kept, and next_row_id moves past them.
        Manifest preview = ManifestBuilder.build(
                v2, Transaction.of(2, new Operation.Append(List.of(TxnFixtures.fragment("c", 2)))), opts("p.txn"));
        Manifest v3 = ManifestBuilder.build(
                v2, Transaction.of(2, new Operation.Merge(preview.fragments(), preview.schema())), opts("m2.txn"));
        assertThat(v3.fragments()).isEqualTo(preview.fragments());
        assertThat(v3.nextRowId()).isEqualTo(9);
    }

    @Test
    void rejectsMixedDataFileVersionsAndUnsupportedOps() throws Exception {
        Manifest v1 = create(TxnFixtures.fragment("a", 5));
        Fragment v22 = Fragment.of(0, List.of(new DataFile("x.lance", new int[] {0, 1}, new int[] {0, 1}, 2, 2, 5)), 5);
        assertThatThrownBy(() ->
                        ManifestBuilder.build(v1, Transaction.of(1, new Operation.Append(List.of(v22))), opts("x.txn")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("data file x.lance is format 2.2 but the table's data format is 2.1");
        assertThatThrownBy(() -> ManifestBuilder.build(v1, Transaction.of(1, new Operation.Restore(1)), opts("r.txn")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Committing a Restore operation is not supported");
        assertThatThrownBy(() -> ManifestBuilder.build(
                        null, Transaction.of(0, new Operation.Append(List.of(v22))), opts("a.txn")))
                .hasMessageContaining("only an Overwrite can create it");
    }

    @Test
    void overlayOrderIsChecked() {
        DataOverlayFile newer = new DataOverlayFile(
                new DataFile("n.lance", new int[] {1}, new int[] {0}, 2, 1, 1),
                OverlayCoverage.Dense.of(RoaringBitmap.bitmapOf(1)),
                9);
        Fragment bad = TxnFixtures.fragment("a", 5).withOverlays(List.of(newer, newer.withCommittedVersion(3)));
        assertThatThrownBy(() -> create(bad))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("overlay files must be stored newest-last, but committed_version 9 precedes 3");
    }
}
