package dev.lanceflink.it.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanceflink.compactor.core.CompactionMode;
import dev.lanceflink.compactor.core.CompactionPolicy;
import dev.lanceflink.compactor.core.CompactionRun;
import dev.lanceflink.compactor.core.CompactionSummary;
import dev.lanceflink.compactor.core.LocalTaskExecutor;
import dev.lanceflink.compactor.core.TaskExecutor;
import dev.lanceflink.compactor.core.TaskResult;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.file.writer.FileWriterOptions;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.io.ObjectStores;
import dev.lanceflink.testkit.users.UsersChangelog.Mix;
import dev.lanceflink.testkit.users.UsersTable;
import dev.lanceflink.txn.CommitOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The interleaving behind a duplicate key that {@link CompactionWhileSinkRunsITCase} hit, made
 * deterministic: the upsert sink commits a {@code Delete} on a fragment after the compactor planned
 * and ran its overlay task on that fragment, but before the compactor commits. The compactor's
 * commit must keep the newer deletion vector (its own check lets concurrent deletes pass, since
 * they do not touch files or overlays); if it writes back the fragment as planned, the deleted row
 * comes back, and when the sink later re-inserts that key the table holds the key twice.
 */
class CompactionKeepsConcurrentDeletesTest {
    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"overlay-merge", "overlay-fold"})
    void aDeleteCommittedBetweenTheCompactorsTasksAndItsCommitStaysDeleted(String mode) throws Exception {
        String uri = dir.resolve("users.lance").toString();
        TreeMap<Long, UsersTable.Row> expected = Mix.MAINTENANCE_TESTS.initialRows(10);
        UsersTable.create(uri, Map.of(), expected, 100);
        try (Dataset v1 = Dataset.open(uri, Map.of());
                Dataset v2 = updateAge(v1, 41);
                Dataset v3 = updateAge(v2, 42)) {
            assertThat(v3.fragments())
                    .singleElement()
                    .satisfies(f -> assertThat(f.overlays()).hasSize(2));
        }
        for (long id = 0; id < 3; id++) {
            UsersTable.Row r = expected.get(id);
            expected.put(id, new UsersTable.Row(r.name(), 42, r.score()));
        }
        expected.remove(5L);

        CompactionSummary summary;
        try (ObjectStore store = ObjectStores.open(uri, Map.of());
                BufferAllocator allocator = new RootAllocator()) {
            TaskExecutor local = new LocalTaskExecutor(store, allocator, FileWriterOptions.defaults(), 1);
            TaskExecutor thenDelete = (plan, progress) -> {
                List<TaskResult> staged = local.execute(plan, progress);
                try (Dataset ds = Dataset.open(uri, Map.of());
                        Dataset deleted = ds.deleteRows(new long[] {5})) {
                    assertThat(deleted.version()).isEqualTo(4);
                }
                return staged;
            };
            summary = new CompactionRun(
                            store,
                            uri,
                            CompactionMode.parse(mode),
                            CompactionPolicy.defaults().withMinOverlays(2).withMinOverlayBytesRatio(0),
                            CommitOptions.defaults(),
                            3)
                    .execute(thenDelete, TaskExecutor.ProgressListener.NONE);
        }
        assertThat(summary.committedVersions())
                .as("the compaction commits right after the delete")
                .containsExactly(5L);
        assertThat(summary.replannedFragments()).isEmpty();
        UsersTable.assertLatestEquals(uri, Map.of(), expected);
    }

    /** Sets age of rows 0..2 (fragment 0) to {@code age}: one overlay commit. */
    private static Dataset updateAge(Dataset ds, int age) throws Exception {
        IntVector values = new IntVector("age", ds.allocator());
        values.allocateNew(3);
        for (int i = 0; i < 3; i++) {
            values.set(i, age);
        }
        values.setValueCount(3);
        try (VectorSchemaRoot root = new VectorSchemaRoot(new ArrayList<>(List.of(values)))) {
            root.setRowCount(3);
            return ds.update(new long[] {0, 1, 2}, root);
        }
    }
}
