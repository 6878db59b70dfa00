package dev.lanceflink.it.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.VersionInfo;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.io.PublicationFaultStore;
import dev.lanceflink.s3.S3ProxyExtension;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Deterministic companion of {@link FaultInjectedTableRunTest}: every operation kind fails after
 * its commit landed ({@link PublicationFaultStore}); the retrying caller must find its commit
 * by operation id and not apply the change a second time, and the table must stay readable
 * (the failed call must not delete files the landed version references). Also shows that the
 * library leaves the "did it land?" question to the caller: the call throws although the version
 * exists.
 */
class CallerRetryAfterLandedCommitTest {
    @RegisterExtension
    static final S3ProxyExtension S3 = new S3ProxyExtension();

    @TempDir
    Path localRoot;

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void retriesFindTheLandedCommitAndDoNotApplyItTwice(StoreKind kind) throws Exception {
        TableLocation table = TableLocation.fresh(kind, S3.server(), localRoot, "landed");
        try (BufferAllocator allocator = new RootAllocator();
                ObjectStore clean = table.openStore()) {
            try (VectorSchemaRoot first = TestRows.batch(allocator, TestRows.range(0, 20))) {
                Dataset.write(clean, allocator, List.of(first), TestRows.SCHEMA, WriteParams.of(WriteMode.CREATE));
            }
            PublicationFaultStore store = new PublicationFaultStore(clean);
            store.faults().reportLostResponsesAsUnknown();

            // The library reports the failure even though version 2 now exists.
            loseNextCommitResponse(store);
            try (Dataset v1 = Dataset.open(store, allocator);
                    VectorSchemaRoot batch = TestRows.batch(allocator, TestRows.range(20, 25))) {
                assertThatThrownBy(() -> v1.append(List.of(batch), WriteParams.of(WriteMode.APPEND)))
                        .isInstanceOf(IOException.class)
                        .hasMessageContaining("injected: the store is unreachable");
            }
            TreeMap<Long, Long> model = TestRows.initial(TestRows.range(0, 25));

            RetryingTableDriver driver = new RetryingTableDriver(store, allocator, 5, 1000, 2);
            loseNextCommitResponse(store);
            assertThat(driver.append("append-1", TestRows.range(25, 30))).isEqualTo(3);
            model.putAll(TestRows.initial(TestRows.range(25, 30)));
            loseNextCommitResponse(store);
            assertThat(driver.deleteWhere("delete-1", "id < 4")).isEqualTo(4);
            model.headMap(4L).clear();
            loseNextCommitResponse(store);
            assertThat(driver.update("update-1", new long[] {7, 26}, new long[] {-7, -26}))
                    .isEqualTo(5);
            model.put(7L, -7L);
            model.put(26L, -26L);
            loseNextCommitResponse(store);
            assertThat(driver.deleteIds("delete-2", new long[] {10, 11})).isEqualTo(6);
            model.remove(10L);
            model.remove(11L);
            loseNextCommitResponse(store);
            long[] ids = model.keySet().stream().mapToLong(Long::longValue).toArray();
            long[] vals = model.values().stream().mapToLong(Long::longValue).toArray();
            assertThat(driver.overwrite("overwrite-1", ids, vals)).isEqualTo(7);

            assertThat(driver.landedButFailed()).isEqualTo(5);
            try (Dataset latest = Dataset.open(clean, allocator)) {
                assertThat(latest.version()).isEqualTo(7);
                assertThat(TestRows.contents(latest)).isEqualTo(model);
                assertThat(latest.versions())
                        .extracting(v -> v.properties().get(RetryingTableDriver.OP_ID))
                        .containsExactly(null, null, "append-1", "delete-1", "update-1", null, "overwrite-1");
                assertThat(latest.versions())
                        .extracting(VersionInfo::operation)
                        .containsExactly(
                                "Overwrite", "Append", "Append", "Delete", "DataOverlay", "Delete", "Overwrite");
            }
        }
    }

    /**
     * The next manifest publication is applied, its response lost (outcome unknown), and the
     * committer's check of that manifest fails too: the committer cannot tell that it landed.
     */
    private static void loseNextCommitResponse(PublicationFaultStore store) {
        store.loseNextResponses(1);
        store.failReadBacksAfterLostResponse(1);
    }
}
