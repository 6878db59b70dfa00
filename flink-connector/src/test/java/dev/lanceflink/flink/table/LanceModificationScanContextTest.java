package dev.lanceflink.flink.table;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanceflink.schema.LanceSchema;
import dev.lanceflink.table.DataStorageFormat;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.TableSnapshot;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.flink.table.connector.RowLevelModificationScanContext;
import org.apache.flink.table.connector.source.abilities.SupportsRowLevelModificationScan.RowLevelModificationType;
import org.junit.jupiter.api.Test;

/** What a scan of an UPDATE or row-level DELETE tells the sink about the version it read. */
class LanceModificationScanContextTest {
    private static final String USERS = "/data/users.lance";
    private static final String ITEMS = "s3://bucket/items.lance";

    private static LanceDynamicTableSource source(String uri, long version, boolean timeTravel) {
        return new LanceDynamicTableSource(
                new LanceTableConfig(uri, Map.of(), version, 1024, 1000, timeTravel), List.of("id"));
    }

    @Test
    void theFirstScanPinsItsVersionAndLaterScansAddTheirTables() {
        RowLevelModificationScanContext first =
                source(USERS, 7, false).applyRowLevelModificationScan(RowLevelModificationType.UPDATE, null);
        RowLevelModificationScanContext second =
                source(ITEMS, 3, false).applyRowLevelModificationScan(RowLevelModificationType.UPDATE, first);

        assertThat(first).isEqualTo(new LanceModificationScanContext(Map.of(USERS, 7L)));
        assertThat(((LanceModificationScanContext) second).readVersion(USERS)).isEqualTo(OptionalLong.of(7));
        assertThat(((LanceModificationScanContext) second).readVersion(ITEMS)).isEqualTo(OptionalLong.of(3));
        assertThat(((LanceModificationScanContext) second).readVersion("/other"))
                .isEmpty();
    }

    @Test
    void twoScansOfOneTableAtDifferentVersionsKeepTheOlder() {
        RowLevelModificationScanContext newer =
                source(USERS, 9, false).applyRowLevelModificationScan(RowLevelModificationType.DELETE, null);
        RowLevelModificationScanContext both =
                source(USERS, 8, false).applyRowLevelModificationScan(RowLevelModificationType.DELETE, newer);
        RowLevelModificationScanContext again =
                source(USERS, 9, false).applyRowLevelModificationScan(RowLevelModificationType.DELETE, both);

        assertThat(((LanceModificationScanContext) again).readVersion(USERS)).isEqualTo(OptionalLong.of(8));
    }

    @Test
    void aTimeTravelScanAddsNothing() {
        RowLevelModificationScanContext pinned = new LanceModificationScanContext(Map.of(USERS, 5L));
        LanceDynamicTableSource oldVersion = source(USERS, 2, true);

        assertThat(oldVersion.applyRowLevelModificationScan(RowLevelModificationType.UPDATE, null))
                .isNull();
        assertThat(oldVersion.applyRowLevelModificationScan(RowLevelModificationType.UPDATE, pinned))
                .isSameAs(pinned);
    }

    @Test
    void anotherConnectorsContextIsPassedOnUnchanged() {
        RowLevelModificationScanContext foreign = new RowLevelModificationScanContext() {};
        assertThat(source(USERS, 4, false).applyRowLevelModificationScan(RowLevelModificationType.UPDATE, foreign))
                .isSameAs(foreign);
    }

    @Test
    void theContextIsSerializable() throws Exception {
        LanceModificationScanContext c = new LanceModificationScanContext(Map.of(USERS, 5L, ITEMS, 1L));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(c);
        }
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            assertThat(in.readObject()).isEqualTo(c);
        }
    }

    private static Manifest manifest(long version) {
        return Manifest.builder()
                .version(version)
                .schema(LanceSchema.fromArrow(SqlTestSupport.USERS, 0))
                .dataFormat(DataStorageFormat.lance("2.1"))
                .build();
    }

    private static LanceDynamicTableSource pinnedSource(String uri, long version) {
        return new LanceDynamicTableSource(
                new LanceTableConfig(uri, Map.of(), version, 1024, 1000, false), List.of("id"), manifest(version));
    }

    @Test
    void aPinnedScanCarriesTheSnapshotOfItsVersion() {
        RowLevelModificationScanContext c =
                pinnedSource(USERS, 7).applyRowLevelModificationScan(RowLevelModificationType.UPDATE, null);

        LanceModificationScanContext context = (LanceModificationScanContext) c;
        assertThat(context.readVersion(USERS)).isEqualTo(OptionalLong.of(7));
        assertThat(context.snapshot(USERS)).contains(TableSnapshot.of(manifest(7)));
        assertThat(context.snapshot(ITEMS)).isEmpty();
    }

    @Test
    void twoPinnedScansOfOneTableKeepTheOlderVersionsSnapshot() {
        RowLevelModificationScanContext newer =
                pinnedSource(USERS, 9).applyRowLevelModificationScan(RowLevelModificationType.UPDATE, null);
        RowLevelModificationScanContext both =
                pinnedSource(USERS, 8).applyRowLevelModificationScan(RowLevelModificationType.UPDATE, newer);
        RowLevelModificationScanContext again =
                pinnedSource(USERS, 9).applyRowLevelModificationScan(RowLevelModificationType.UPDATE, both);

        LanceModificationScanContext context = (LanceModificationScanContext) again;
        assertThat(context.readVersion(USERS)).isEqualTo(OptionalLong.of(8));
        assertThat(context.snapshot(USERS).map(TableSnapshot::version)).contains(8L);
    }

    @Test
    void anOlderScanWithoutASnapshotDropsTheNewerOne() {
        RowLevelModificationScanContext newer =
                pinnedSource(USERS, 9).applyRowLevelModificationScan(RowLevelModificationType.UPDATE, null);
        RowLevelModificationScanContext older =
                source(USERS, 8, false).applyRowLevelModificationScan(RowLevelModificationType.UPDATE, newer);

        LanceModificationScanContext context = (LanceModificationScanContext) older;
        assertThat(context.readVersion(USERS)).isEqualTo(OptionalLong.of(8));
        assertThat(context.snapshot(USERS)).as("no snapshot of version 8").isEmpty();
    }

    @Test
    void theContextWithSnapshotsIsSerializable() throws Exception {
        LanceModificationScanContext c = (LanceModificationScanContext)
                pinnedSource(USERS, 5).applyRowLevelModificationScan(RowLevelModificationType.DELETE, null);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(c);
        }
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            assertThat(in.readObject()).isEqualTo(c);
        }
    }
}
