package dev.lanceflink.txn;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.lanceflink.table.DataStorageFormat;
import dev.lanceflink.table.DeletionFile;
import dev.lanceflink.table.DeletionFileType;
import dev.lanceflink.table.FeatureFlags;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.IndexEntry;
import dev.lanceflink.table.Manifest;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.List;
import lance.table.IndexMetadata;
import org.junit.jupiter.api.Test;
import org.roaringbitmap.RoaringBitmap;

/**
 * {@link Operation.Update#movedRows}: rows deleted from their fragments and written again into
 * new ones, committed as Lance's merge-insert commits them. Indices keep covering the old
 * fragments (the moved rows are hidden by deletion vectors, not modified in place), the manifest
 * needs no reader feature beyond deletion files, and the transaction records the REWRITE_ROWS
 * mode with no modified fields.
 */
class MovedRowsUpdateTest {
    private static final ManifestBuilder.Options OPTS =
            new ManifestBuilder.Options(Instant.EPOCH, "t.txn", true, DataStorageFormat.lance("2.1"), false);

    @Test
    void movedRowsKeepIndexCoverageOfTheOldFragmentsAndNeedNoOverlayFeature() throws Exception {
        Manifest v1 = ManifestBuilder.build(
                null,
                Transaction.of(
                        0,
                        new Operation.Overwrite(
                                List.of(TxnFixtures.fragment("a", 5), TxnFixtures.fragment("b", 5)),
                                TxnFixtures.schema())),
                OPTS);
        Manifest v2 = ManifestBuilder.build(
                v1, Transaction.of(1, new Operation.CreateIndex(List.of(index("name_idx", 1, 0, 1)), List.of())), OPTS);
        Fragment withDeletions =
                v2.fragment(0).orElseThrow().withDeletionFile(new DeletionFile(DeletionFileType.ARROW_ARRAY, 2, 7, 2));
        Operation.Update moved = Operation.Update.movedRows(
                List.of(1L), List.of(withDeletions), List.of(TxnFixtures.fragment("moved", 7)), new int[] {0, 1});

        Manifest v3 = ManifestBuilder.build(v2, Transaction.of(2, moved), OPTS);

        assertThat(v3.fragments()).extracting(Fragment::id).containsExactly(0L, 2L);
        assertThat(v3.fragment(0).orElseThrow().deletionFile()).isEqualTo(withDeletions.deletionFile());
        assertThat(v3.fragment(2).orElseThrow().physicalRows()).isEqualTo(7);
        assertThat(v3.indices())
                .singleElement()
                .satisfies(i -> assertThat(i.coversFragment(0)).isTrue());
        assertThat(v3.readerFeatureFlags() & FeatureFlags.UNSTABLE_DATA_OVERLAY_FILES)
                .isZero();

        Transaction back = TransactionCodec.decode(TransactionCodec.encode(Transaction.of(2, moved)), "mem");
        Operation.Update decoded = (Operation.Update) back.operation();
        assertThat(decoded.mode()).isEqualTo(Operation.UpdateMode.REWRITE_ROWS);
        assertThat(decoded.fieldsModified()).isEmpty();
        assertThat(decoded.fieldsForPreservingFragBitmap()).containsExactly(0, 1);
        assertThat(decoded.movesRows()).isTrue();
    }

    private static IndexEntry index(String name, int field, int... fragments) {
        RoaringBitmap bm = RoaringBitmap.bitmapOf(fragments);
        ByteBuffer buf = ByteBuffer.allocate(bm.serializedSizeInBytes());
        bm.serialize(buf);
        return new IndexEntry(IndexMetadata.newBuilder()
                .setUuid(lance.table.UUID.newBuilder().setUuid(ByteString.copyFrom(new byte[16])))
                .addFields(field)
                .setName(name)
                .setDatasetVersion(1)
                .setFragmentBitmap(ByteString.copyFrom(buf.array()))
                .build());
    }
}
