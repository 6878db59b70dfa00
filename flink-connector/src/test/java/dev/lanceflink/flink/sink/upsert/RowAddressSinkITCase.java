package dev.lanceflink.flink.sink.upsert;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.flink.sink.LanceSinkBuilder;
import dev.lanceflink.flink.sink.LanceSinkMode;
import dev.lanceflink.read.ScanOptions;
import dev.lanceflink.read.Scanner;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.OverlayCoverage;
import dev.lanceflink.testkit.flink.MiniClusters;
import dev.lanceflink.testkit.users.UsersTable;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.roaringbitmap.RoaringBitmap;

/**
 * Rows carrying their row address (what SQL UPDATE/DELETE send) become one overlay per fragment
 * holding only the written columns, and deletion vectors: the worked {@code users} example.
 */
class RowAddressSinkITCase {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = MiniClusters.oneTaskManager(2);

    @TempDir
    Path dir;

    @Test
    void updateOfTwoAgesIsOneDenseOverlayAndADeleteIsADeletionVector() throws Exception {
        String uri = dir.resolve("users.lance").toString();
        TreeMap<Long, UsersTable.Row> users = new TreeMap<>();
        users.put(1L, new UsersTable.Row("alice", 30, null));
        users.put(2L, new UsersTable.Row("bob", 25, null));
        users.put(3L, new UsersTable.Row("carol", 40, null));
        users.put(4L, new UsersTable.Row("dave", 22, null));
        UsersTable.create(uri, users, 4);
        Map<Long, Long> address = UsersTable.rowAddresses(uri);

        // UPDATE users SET age = age + 1 WHERE id IN (2, 4)
        List<RowData> changes = new ArrayList<>();
        changes.add(GenericRowData.ofKind(RowKind.UPDATE_AFTER, 2L, null, 26, null, address.get(2L)));
        changes.add(GenericRowData.ofKind(RowKind.UPDATE_AFTER, 4L, null, 23, null, address.get(4L)));
        run(uri, changes, "age");

        try (Dataset ds = Dataset.open(uri, Map.of())) {
            Manifest m = ds.manifest();
            assertThat(m.fragments()).hasSize(1);
            Fragment f = m.fragments().get(0);
            assertThat(f.deletionFile()).isNull();
            assertThat(f.overlays()).hasSize(1);
            DataOverlayFile o = f.overlays().get(0);
            assertThat(o.committedVersion()).isEqualTo(ds.version());
            assertThat(o.dataFile().fields())
                    .containsExactly(m.schema().fields().get(2).id());
            assertThat(o.coverage()).isInstanceOf(OverlayCoverage.Dense.class);
            assertThat(o.coverage().union()).isEqualTo(RoaringBitmap.bitmapOf(1, 3));
        }
        assertThat(ages(uri)).containsExactly(30, 26, 40, 23);

        // DELETE FROM users WHERE id = 3
        run(uri, List.of(GenericRowData.ofKind(RowKind.DELETE, 3L, null, null, null, address.get(3L))), "age");
        try (Dataset ds = Dataset.open(uri, Map.of())) {
            Fragment f = ds.manifest().fragments().get(0);
            assertThat(f.deletionFile()).isNotNull();
            assertThat(f.overlays()).hasSize(1);
            assertThat(ds.manifest().fragments()).hasSize(1);
        }
        assertThat(ages(uri)).containsExactly(30, 26, 23);
    }

    private static void run(String uri, List<RowData> rows, String... columns) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setRuntimeMode(RuntimeExecutionMode.BATCH);
        env.setParallelism(2);
        LanceSinkBuilder.forTable(uri)
                .mode(LanceSinkMode.ROW_ADDRESS)
                .writtenColumns(columns)
                .uidSuffix("ra")
                .sinkTo(env.fromData(rows).returns(RowData.class));
        env.execute("row-address changes");
    }

    private static List<Integer> ages(String uri) throws Exception {
        List<Integer> out = new ArrayList<>();
        try (Dataset ds = Dataset.open(uri, Map.of());
                Scanner s = ds.scan(ScanOptions.all().withColumns(List.of("age")))) {
            while (s.hasNext()) {
                try (VectorSchemaRoot b = s.next()) {
                    IntVector age = (IntVector) b.getVector("age");
                    for (int i = 0; i < b.getRowCount(); i++) {
                        out.add(age.get(i));
                    }
                }
            }
        }
        return out;
    }
}
