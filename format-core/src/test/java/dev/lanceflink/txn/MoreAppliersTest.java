package dev.lanceflink.txn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.table.BasePath;
import dev.lanceflink.table.DataFile;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.DataStorageFormat;
import dev.lanceflink.table.FeatureFlags;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.OverlayCoverage;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.roaringbitmap.RoaringBitmap;

class MoreAppliersTest {
    private static final ManifestBuilder.Options OPTS =
            new ManifestBuilder.Options(Instant.EPOCH, "t.txn", true, DataStorageFormat.lance("2.1"), false);

    private static Manifest v1() throws Exception {
        return ManifestBuilder.build(
                null,
                Transaction.of(0, new Operation.Overwrite(List.of(TxnFixtures.fragment("a", 5)), TxnFixtures.schema())),
                OPTS);
    }

    @Test
    void updateConfigChangesConfigAndTableMetadata() throws Exception {
        Manifest v2 = ManifestBuilder.build(
                v1(),
                Transaction.of(
                        1,
                        Operation.UpdateConfig.of(
                                Map.of("lance.auto_cleanup.interval", "10"),
                                Set.of(),
                                Map.of("flink.checkpoint-id", "41"),
                                Set.of())),
                OPTS);
        assertThat(v2.config()).containsExactly(Map.entry("lance.auto_cleanup.interval", "10"));
        assertThat(v2.tableMetadata()).containsExactly(Map.entry("flink.checkpoint-id", "41"));
        assertThat(v2.writerFeatureFlags()).isEqualTo(FeatureFlags.TABLE_CONFIG);
        assertThat(v2.readerFeatureFlags()).isZero();
        Manifest v3 = ManifestBuilder.build(
                v2,
                Transaction.of(
                        2,
                        Operation.UpdateConfig.of(
                                Map.of(),
                                Set.of("lance.auto_cleanup.interval"),
                                Map.of("flink.checkpoint-id", "42"),
                                Set.of())),
                OPTS);
        assertThat(v3.config()).isEmpty();
        assertThat(v3.writerFeatureFlags()).isZero();
        assertThat(v3.tableMetadata()).containsExactly(Map.entry("flink.checkpoint-id", "42"));
    }

    @Test
    void dataReplacementSwapsTheMatchingFileAndTombstonesOverlaySlots() throws Exception {
        Manifest v1 = v1();
        DataOverlayFile ov = new DataOverlayFile(
                new DataFile("o.lance", new int[] {0, 1}, new int[] {0, 1}, 2, 1, 9),
                OverlayCoverage.Dense.of(RoaringBitmap.bitmapOf(1)),
                0);
        Manifest v2 = ManifestBuilder.build(
                v1,
                Transaction.of(1, new Operation.DataOverlay(List.of(new Operation.OverlayGroup(0, List.of(ov))))),
                OPTS);
        DataFile replacement = new DataFile("r.lance", new int[] {0, 1}, new int[] {0, 1}, 2, 1, 77);
        Manifest v3 = ManifestBuilder.build(
                v2,
                Transaction.of(
                        2, new Operation.DataReplacement(List.of(new Operation.DataReplacementGroup(0, replacement)))),
                OPTS);
        Fragment f = v3.fragments().get(0);
        assertThat(f.files()).containsExactly(replacement);
        // Every slot of the overlay was superseded: overlays.md §7.4 removes it (Lance does too).
        assertThat(f.overlays()).isEmpty();
    }

    @Test
    void dataReplacementSupersedesOnlyOverlaysCommittedUpToItsReadVersion() throws Exception {
        Manifest v2 = ManifestBuilder.build(v1(), Transaction.of(1, overlay("seen.lance", new int[] {1}, 1)), OPTS);
        Manifest v3 = ManifestBuilder.build(v2, Transaction.of(2, overlay("after.lance", new int[] {1}, 2)), OPTS);
        DataFile replacement = new DataFile("r.lance", new int[] {0, 1}, new int[] {0, 1}, 2, 1, 77);
        // The replacement's writer read version 2, then the overlay of version 3 was committed.
        Manifest v4 = ManifestBuilder.build(
                v3,
                Transaction.of(
                        2, new Operation.DataReplacement(List.of(new Operation.DataReplacementGroup(0, replacement)))),
                OPTS);
        List<DataOverlayFile> overlays = v4.fragments().get(0).overlays();
        assertThat(overlays).extracting(o -> o.dataFile().path()).containsExactly("after.lance");
        assertThat(overlays.get(0).dataFile().fields()).containsExactly(1);
        assertThat(overlays.get(0).committedVersion()).isEqualTo(3);
    }

    private static Operation overlay(String path, int[] fields, int offset) {
        int[] columns = new int[fields.length];
        for (int i = 0; i < columns.length; i++) {
            columns[i] = i;
        }
        DataOverlayFile ov = new DataOverlayFile(
                new DataFile(path, fields, columns, 2, 1, 9),
                OverlayCoverage.Dense.of(RoaringBitmap.bitmapOf(offset)),
                0);
        return new Operation.DataOverlay(List.of(new Operation.OverlayGroup(0, List.of(ov))));
    }

    @Test
    void updateBasesAssignsIdsAndRejectsDuplicates() throws Exception {
        Manifest v2 = ManifestBuilder.build(
                v1(),
                Transaction.of(
                        1,
                        new Operation.UpdateBases(List.of(
                                new BasePath(0, "hot", true, "s3://hot/t"),
                                new BasePath(0, null, false, "s3://cold/files")))),
                OPTS);
        assertThat(v2.basePaths())
                .containsExactly(
                        new BasePath(1, "hot", true, "s3://hot/t"), new BasePath(2, null, false, "s3://cold/files"));
        assertThat(v2.readerFeatureFlags()).isEqualTo(FeatureFlags.BASE_PATHS);
        assertThatThrownBy(() -> ManifestBuilder.build(
                        v2,
                        Transaction.of(
                                2, new Operation.UpdateBases(List.of(new BasePath(0, "other", true, "s3://hot/t")))),
                        OPTS))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("clashes with existing base s3://hot/t (id 1)");
    }
}
