package dev.lanceflink.it.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.VersionInfo;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.read.ScanOptions;
import dev.lanceflink.read.Scanner;
import dev.lanceflink.s3.S3ProxyExtension;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.VersionNotFoundException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The table API end to end with the same assertions on the local file system and on S3
 * (S3Proxy): create, append in several fragments, delete by filter and by row address,
 * overwrite, version listing, checkout by version and by timestamp, take, and scans with filter,
 * limit and projection. A difference between the stores is a bug in one of them.
 */
class TableOperationsOnBothStoresTest {
    @RegisterExtension
    static final S3ProxyExtension S3 = new S3ProxyExtension();

    /** 100 rows per file: ids 0..299 land in fragments 0, 1, 2 at offsets id % 100. */
    private static final WriteParams CREATE = WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(100);

    private static final WriteParams APPEND = WriteParams.of(WriteMode.APPEND).withMaxRowsPerFile(100);

    @TempDir
    Path localRoot;

    private BufferAllocator allocator;

    @BeforeEach
    void allocate() {
        allocator = new RootAllocator();
    }

    @AfterEach
    void release() {
        allocator.close();
    }

    private TableLocation fresh(StoreKind kind, String name) {
        return TableLocation.fresh(kind, S3.server(), localRoot, name);
    }

    private Dataset create(TableLocation table, long[] ids) throws Exception {
        try (VectorSchemaRoot batch = TestRows.batch(allocator, ids)) {
            return Dataset.write(table.uri(), table.storageOptions(), List.of(batch), TestRows.SCHEMA, CREATE);
        }
    }

    private static Dataset append(Dataset ds, BufferAllocator allocator, long[] ids) throws Exception {
        try (VectorSchemaRoot batch = TestRows.batch(allocator, ids)) {
            return ds.append(List.of(batch), APPEND);
        }
    }

    private static long address(long fragment, long offset) {
        return fragment << 32 | offset;
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void createAndAppendSplitRowsIntoFragmentsAndReopenSeesThem(StoreKind kind) throws Exception {
        TableLocation table = fresh(kind, "create-append");
        try (Dataset v1 = create(table, TestRows.range(0, 250))) {
            assertThat(v1.version()).isEqualTo(1);
            assertThat(v1.fragments()).extracting(Fragment::id).containsExactly(0L, 1L, 2L);
            assertThat(v1.fragments()).extracting(Fragment::physicalRows).containsExactly(100L, 100L, 50L);
            Dataset v2 = append(v1, allocator, TestRows.range(250, 400));
            assertThat(v2.version()).isEqualTo(2);
            assertThat(v2.fragments()).extracting(Fragment::id).containsExactly(0L, 1L, 2L, 3L, 4L);
            assertThat(v2.countRows()).isEqualTo(400);
        }
        try (Dataset reopened = Dataset.open(table.uri(), table.storageOptions())) {
            assertThat(reopened.version()).isEqualTo(2);
            assertThat(TestRows.contents(reopened)).isEqualTo(TestRows.initial(TestRows.range(0, 400)));
            assertThat(TestRows.rowAddresses(reopened))
                    .containsEntry(0L, address(0, 0))
                    .containsEntry(249L, address(2, 49))
                    .containsEntry(250L, address(3, 0))
                    .containsEntry(399L, address(4, 49));
        }
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void deleteByFilterAndByRowAddress(StoreKind kind) throws Exception {
        TableLocation table = fresh(kind, "delete");
        try (Dataset v1 = create(table, TestRows.range(0, 300))) {
            Dataset v2 = v1.delete("id % 3 = 0");
            TreeMap<Long, Long> expected = TestRows.initial(TestRows.range(0, 300));
            expected.keySet().removeIf(id -> id % 3 == 0);
            assertThat(v2.version()).isEqualTo(2);
            assertThat(TestRows.contents(v2)).isEqualTo(expected);

            // ids 1 and 2 in fragment 0, id 205 in fragment 2: addresses fragment << 32 | offset
            Dataset v3 = v2.deleteRows(new long[] {address(0, 1), address(0, 2), address(2, 5)});
            expected.keySet().removeAll(List.of(1L, 2L, 205L));
            assertThat(v3.version()).isEqualTo(3);
            assertThat(TestRows.contents(v3)).isEqualTo(expected);

            // Deleting every remaining row of fragment 1 removes the fragment from the manifest.
            Dataset v4 = v3.delete("id >= 100 AND id < 200");
            expected.keySet().removeIf(id -> id >= 100 && id < 200);
            assertThat(v4.fragments()).extracting(Fragment::id).containsExactly(0L, 2L);
            assertThat(TestRows.contents(v4)).isEqualTo(expected);
            assertThat(v4.countRows()).isEqualTo(expected.size());

            // A filter that matches nothing commits nothing.
            Dataset same = v4.delete("id > 100000");
            assertThat(same.version()).isEqualTo(4);
            assertThat(v4.checkoutLatest().version()).isEqualTo(4);
        }
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void overwriteReplacesAllRowsAndOldVersionsStayReadable(StoreKind kind) throws Exception {
        TableLocation table = fresh(kind, "overwrite");
        try (Dataset v1 = create(table, TestRows.range(0, 150))) {
            v1.delete("id < 10");
        }
        try (VectorSchemaRoot batch = TestRows.batch(allocator, TestRows.range(1000, 1030));
                Dataset v3 = Dataset.write(
                        table.uri(),
                        table.storageOptions(),
                        List.of(batch),
                        TestRows.SCHEMA,
                        WriteParams.of(WriteMode.OVERWRITE))) {
            assertThat(v3.version()).isEqualTo(3);
            assertThat(v3.fragments()).hasSize(1);
            assertThat(TestRows.contents(v3)).isEqualTo(TestRows.initial(TestRows.range(1000, 1030)));
            TreeMap<Long, Long> v2Rows = TestRows.initial(TestRows.range(10, 150));
            assertThat(TestRows.contents(v3.checkoutVersion(2))).isEqualTo(v2Rows);
            assertThat(TestRows.contents(v3.checkoutVersion(1))).isEqualTo(TestRows.initial(TestRows.range(0, 150)));
            assertThat(v3.versions())
                    .extracting(VersionInfo::version, VersionInfo::operation, VersionInfo::numRows)
                    .containsExactly(
                            org.assertj.core.groups.Tuple.tuple(1L, "Overwrite", 150L),
                            org.assertj.core.groups.Tuple.tuple(2L, "Delete", 140L),
                            org.assertj.core.groups.Tuple.tuple(3L, "Overwrite", 30L));
        }
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void versionsCarryPropertiesAndCheckoutByVersionAndTimestamp(StoreKind kind) throws Exception {
        TableLocation table = fresh(kind, "versions");
        List<TreeMap<Long, Long>> states = new ArrayList<>();
        try (Dataset v1 = create(table, TestRows.range(0, 100))) {
            states.add(TestRows.contents(v1));
            Thread.sleep(5); // distinct commit timestamps, so "as of" has one answer per version
            Dataset v2;
            try (VectorSchemaRoot batch = TestRows.batch(allocator, TestRows.range(100, 120))) {
                v2 = v1.append(List.of(batch), APPEND.withTransactionProperties(Map.of("writer", "it-s3")));
            }
            states.add(TestRows.contents(v2));
            Thread.sleep(5);
            Dataset v3 = v2.delete("id >= 50 AND id < 60");
            states.add(TestRows.contents(v3));

            List<VersionInfo> versions = v3.versions();
            assertThat(versions).extracting(VersionInfo::version).containsExactly(1L, 2L, 3L);
            assertThat(versions).extracting(VersionInfo::numRows).containsExactly(100L, 120L, 110L);
            assertThat(versions.get(1).properties()).containsEntry("writer", "it-s3");
            assertThat(versions.get(0).timestamp()).isBefore(versions.get(1).timestamp());
            assertThat(versions.get(1).timestamp()).isBefore(versions.get(2).timestamp());

            for (int i = 0; i < 3; i++) {
                Dataset byVersion = v3.checkoutVersion(i + 1);
                assertThat(byVersion.version()).isEqualTo(i + 1);
                assertThat(TestRows.contents(byVersion)).isEqualTo(states.get(i));
                Dataset byTime = v3.checkoutAsOf(versions.get(i).timestamp());
                assertThat(byTime.version())
                        .as("as of the commit time of v%d", i + 1)
                        .isEqualTo(i + 1);
            }
            assertThat(v3.checkoutAsOf(versions.get(1).timestamp().plusNanos(1)).version())
                    .isEqualTo(2);
            assertThat(v3.checkoutAsOf(versions.get(2).timestamp().plusSeconds(3600))
                            .version())
                    .isEqualTo(3);
            assertThatThrownBy(() -> v3.checkoutAsOf(versions.get(0).timestamp().minusSeconds(1)))
                    .isInstanceOf(VersionNotFoundException.class)
                    .hasMessageContaining("no version committed at or before");
            assertThatThrownBy(() -> v3.checkoutVersion(9)).isInstanceOf(VersionNotFoundException.class);
        }
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void takeReturnsRowsInTheOrderAskedWithProjection(StoreKind kind) throws Exception {
        TableLocation table = fresh(kind, "take");
        try (Dataset v1 = create(table, TestRows.range(0, 300))) {
            Dataset v2 = v1.delete("id = 150");
            long[] asked = {address(2, 99), address(0, 0), address(1, 49), address(0, 7)};
            try (VectorSchemaRoot rows = v2.take(asked, List.of("name", "id"))) {
                assertThat(rows.getSchema().getFields())
                        .extracting(f -> f.getName())
                        .containsExactly("name", "id");
                BigIntVector id = (BigIntVector) rows.getVector("id");
                VarCharVector name = (VarCharVector) rows.getVector("name");
                assertThat(rows.getRowCount()).isEqualTo(4);
                long[] expectedIds = {299, 0, 149, 7};
                for (int r = 0; r < 4; r++) {
                    assertThat(id.get(r)).isEqualTo(expectedIds[r]);
                    assertThat(new String(name.get(r), StandardCharsets.UTF_8))
                            .isEqualTo(TestRows.name(expectedIds[r]));
                }
            }
            assertThatThrownBy(() -> v2.take(new long[] {address(1, 50)}, null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("deleted row");
            assertThatThrownBy(() -> v2.take(new long[] {address(7, 0)}, null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("fragment 7");
        }
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void scanWithFilterLimitAndProjection(StoreKind kind) throws Exception {
        TableLocation table = fresh(kind, "scan");
        try (Dataset v1 = create(table, TestRows.range(0, 300))) {
            Dataset v2 = v1.delete("id % 10 = 0");
            TreeMap<Long, Long> filtered =
                    TestRows.contents(v2, ScanOptions.all().withFilter("id >= 95 AND id < 215 AND name <> 'row-100'"));
            TreeMap<Long, Long> expected = TestRows.initial(TestRows.range(95, 215));
            expected.keySet().removeIf(id -> id % 10 == 0 || id == 100);
            assertThat(filtered).isEqualTo(expected);

            TreeMap<Long, Long> limited = TestRows.contents(
                    v2, ScanOptions.all().withFilter("id > 200").withLimit(7));
            assertThat(limited).hasSize(7);
            assertThat(limited.keySet()).allMatch(id -> id > 200 && id % 10 != 0);

            // Projection: only "val", filtered on a column that is not projected.
            long sum = 0;
            int rows = 0;
            try (Scanner s = v2.scan(ScanOptions.all()
                    .withColumns(List.of("val"))
                    .withFilter("id < 20")
                    .withBatchSize(4))) {
                assertThat(s.outputSchema().getFields())
                        .extracting(f -> f.getName())
                        .containsExactly("val");
                while (s.hasNext()) {
                    try (VectorSchemaRoot b = s.next()) {
                        assertThat(b.getRowCount()).isLessThanOrEqualTo(4);
                        assertThat(b.getSchema().getFields()).hasSize(1);
                        BigIntVector val = (BigIntVector) b.getVector("val");
                        for (int r = 0; r < b.getRowCount(); r++) {
                            sum += val.get(r);
                            rows++;
                        }
                    }
                }
            }
            assertThat(rows).isEqualTo(18); // 0..19 without 0 and 10
            assertThat(sum).isEqualTo((190 - 10) * 10L);
        }
    }
}
