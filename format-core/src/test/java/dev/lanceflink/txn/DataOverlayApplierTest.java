package dev.lanceflink.txn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.rowid.RowIdSequenceCodec;
import dev.lanceflink.rowid.RowVersionSequenceCodec;
import dev.lanceflink.table.DataFile;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.OverlayCoverage;
import dev.lanceflink.table.RowIdMeta;
import dev.lanceflink.table.SequenceSource;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.roaringbitmap.RoaringBitmap;

/** Row-lineage refresh of a DataOverlay commit on one fragment, without a table around it. */
class DataOverlayApplierTest {
    private static final DataFile BASE = new DataFile("b.lance", new int[] {0, 1}, new int[] {0, 1}, 2, 1, 100);

    private static DataOverlayFile overlay(RoaringBitmap a, RoaringBitmap b) {
        return new DataOverlayFile(
                new DataFile("o.lance", new int[] {0, 1}, new int[] {0, 1}, 2, 1, 9),
                OverlayCoverage.PerField.of(List.of(a, b)),
                0);
    }

    private static Fragment fragment(SequenceSource lastUpdated) {
        SequenceSource ids = new SequenceSource.Inline(RowIdSequenceCodec.encodeRange(100, 106));
        SequenceSource created = new SequenceSource.Inline(RowVersionSequenceCodec.encodeSingleRun(6, 2));
        return Fragment.of(4, List.of(BASE), 6).withRowIdMeta(new RowIdMeta(ids, lastUpdated, created));
    }

    @Test
    void coveredOffsetsOfAllOverlaysAndFieldsGetTheNewVersion() throws Exception {
        Fragment f = fragment(new SequenceSource.Inline(RowVersionSequenceCodec.encode(new long[] {2, 2, 5, 5, 2, 2})));
        Fragment out = DataOverlayApplier.refreshLastUpdated(
                f,
                List.of(
                        overlay(RoaringBitmap.bitmapOf(0), RoaringBitmap.bitmapOf(3)),
                        overlay(RoaringBitmap.bitmapOf(), RoaringBitmap.bitmapOf(5))),
                9);
        byte[] bytes = ((SequenceSource.Inline) out.rowIdMeta().lastUpdatedAtVersions()).bytes();
        assertThat(RowVersionSequenceCodec.decode(bytes, 6, "f")).containsExactly(9, 2, 5, 9, 2, 9);
        assertThat(out.rowIdMeta().rowIds()).isEqualTo(f.rowIdMeta().rowIds());
        assertThat(out.rowIdMeta().createdAtVersions()).isEqualTo(f.rowIdMeta().createdAtVersions());
        assertThat(out.files()).isEqualTo(f.files());
        assertThat(out.overlays()).isEmpty(); // the applier appends the stamped overlays itself
    }

    @Test
    void fragmentsWithoutAnInlineSequenceAreReturnedAsTheyAre() {
        DataOverlayFile o = overlay(RoaringBitmap.bitmapOf(1), RoaringBitmap.bitmapOf());
        Fragment plain = Fragment.of(4, List.of(BASE), 6);
        assertThat(DataOverlayApplier.refreshLastUpdated(plain, List.of(o), 9)).isSameAs(plain);
        Fragment external = fragment(new SequenceSource.External("_rowids/4.bin", 16, 20));
        assertThat(DataOverlayApplier.refreshLastUpdated(external, List.of(o), 9))
                .isSameAs(external);
    }

    @Test
    void coverageBeyondThePhysicalRowsIsRejectedWithTheOffset() {
        Fragment f = fragment(new SequenceSource.Inline(RowVersionSequenceCodec.encodeSingleRun(6, 2)));
        assertThatThrownBy(() -> DataOverlayApplier.refreshLastUpdated(
                        f, List.of(overlay(RoaringBitmap.bitmapOf(6), RoaringBitmap.bitmapOf())), 9))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Overlay o.lance covers physical offset 6 but fragment 4 has 6 physical rows");
    }

    @Test
    void aSequenceNotCoveringEveryRowIsReportedAsCorrupt() {
        Fragment f = fragment(new SequenceSource.Inline(RowVersionSequenceCodec.encodeSingleRun(5, 2)));
        assertThatThrownBy(() -> DataOverlayApplier.refreshLastUpdated(
                        f, List.of(overlay(RoaringBitmap.bitmapOf(1), RoaringBitmap.bitmapOf())), 9))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Fragment 4 last_updated_at_version sequence")
                .hasMessageContaining("does not cover row position 5");
    }
}
