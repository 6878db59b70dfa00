package dev.lanceflink.maintenance;

import static dev.lanceflink.maintenance.CleanupTestTables.NOW;
import static dev.lanceflink.maintenance.CleanupTestTables.files;
import static dev.lanceflink.maintenance.CleanupTestTables.gone;
import static dev.lanceflink.maintenance.CleanupTestTables.keepLast;
import static dev.lanceflink.maintenance.CleanupTestTables.manifestPath;
import static dev.lanceflink.maintenance.CleanupTestTables.scanAll;
import static dev.lanceflink.maintenance.CleanupTestTables.transactionPath;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.VersionNotFoundException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What cleanup keeps and deletes on ordinary tables: versions, data, deletion, overlay, index files. */
class TableCleanupTest {
    @TempDir
    Path dir;

    private BufferAllocator allocator;
    private LocalObjectStore store;

    @BeforeEach
    void setUp() {
        allocator = new RootAllocator();
        store = new LocalObjectStore(dir);
    }

    @AfterEach
    void tearDown() {
        allocator.close();
    }

    @Test
    void deletesUnreferencedFilesAndNothingElse() throws Exception {
        Dataset v1 = CleanupTestTables.create(store, allocator, 30, 10); // fragments 0..2
        Dataset v2 = CleanupTestTables.append(v1, 30, 40, Map.of()); // fragment 3
        Dataset v3 = v2.delete("id < 5"); // deletion file on fragment 0
        Dataset v4 = v3.delete("id = 35"); // deletion file on fragment 3
        // Debris: an aborted write long ago, one that may still be in flight, an orphan index and
        // deletion file, and files cleanup must never touch.
        CleanupTestTables.writeFile(store, "data/orphan-old.lance", "old");
        CleanupTestTables.writeFile(store, "data/orphan-young.lance", "young");
        CleanupTestTables.setModified(store, "data/orphan-young.lance", NOW.minus(Duration.ofHours(1)));
        CleanupTestTables.writeFile(store, "_deletions/7-1-99.arrow", "del");
        CleanupTestTables.writeFile(store, "_indices/0b7c5d3e-0000-4000-8000-000000000001/index.idx", "idx");
        CleanupTestTables.writeFile(store, "_transactions/0-orphan.txn", "txn");
        CleanupTestTables.writeFile(store, "data/readme.txt", "not lance");
        CleanupTestTables.writeFile(store, "notes/keep.lance", "elsewhere");
        Map<Long, List<String>> rowsBefore = scanAll(v4, 3, 4);

        CleanupPlan plan = TableCleanup.plan(store, keepLast(2));

        assertThat(plan.latestVersion()).isEqualTo(4);
        assertThat(plan.versionsToRemove()).extracting(RemovedVersion::version).containsExactly(1L, 2L);
        assertThat(plan.versionsToRemove())
                .extracting(RemovedVersion::manifestPath)
                .containsExactly(manifestPath(store, 1), manifestPath(store, 2));
        assertThat(plan.retainedVersions()).extracting(RetainedVersion::version).containsExactly(3L, 4L);
        assertThat(plan.retainedVersions().get(1).reasons()).containsExactly("latest");
        assertThat(plan.retainedVersions().get(0).reasons()).containsExactly("last-2");
        Map<String, CleanupReason> expected = new HashMap<>();
        expected.put(transactionPath(store, 1), CleanupReason.ONLY_REMOVED_VERSIONS);
        expected.put(transactionPath(store, 2), CleanupReason.ONLY_REMOVED_VERSIONS);
        expected.put("data/orphan-old.lance", CleanupReason.UNREFERENCED_PAST_GRACE);
        expected.put("_deletions/7-1-99.arrow", CleanupReason.UNREFERENCED_PAST_GRACE);
        expected.put("_indices/0b7c5d3e-0000-4000-8000-000000000001/index.idx", CleanupReason.UNREFERENCED_PAST_GRACE);
        expected.put("_transactions/0-orphan.txn", CleanupReason.UNREFERENCED_PAST_GRACE);
        assertThat(reasons(plan)).isEqualTo(expected);

        Set<String> planned = new TreeSet<>(expected.keySet());
        planned.add(manifestPath(store, 1));
        planned.add(manifestPath(store, 2));
        Map<String, Long> before = files(store);
        CleanupResult result = TableCleanup.execute(store, plan);
        Map<String, Long> after = files(store);

        assertThat(gone(before, after)).isEqualTo(planned);
        assertThat(result.versionsRemoved()).isEqualTo(2);
        assertThat(result.filesDeleted(CleanupFileKind.MANIFEST)).isEqualTo(2);
        assertThat(result.filesDeleted(CleanupFileKind.TRANSACTION)).isEqualTo(3);
        assertThat(result.filesDeleted(CleanupFileKind.DATA)).isEqualTo(1);
        assertThat(result.filesDeleted(CleanupFileKind.DELETION)).isEqualTo(1);
        assertThat(result.filesDeleted(CleanupFileKind.INDEX)).isEqualTo(1);
        assertThat(result.bytesDeleted())
                .isEqualTo(planned.stream().mapToLong(before::get).sum());
        assertThat(result.bytesDeleted()).isEqualTo(plan.bytesToDelete());
        assertThat(result.keptForNewerVersions()).isEmpty();
        assertThat(result.failedDeletes()).isEmpty();
        assertThat(after).containsKeys("data/orphan-young.lance", "data/readme.txt", "notes/keep.lance");

        assertThat(scanAll(v4, 3, 4)).isEqualTo(rowsBefore);
        assertThatThrownBy(() -> v4.checkoutVersion(1)).isInstanceOf(VersionNotFoundException.class);
        assertThatThrownBy(() -> v4.checkoutVersion(2)).isInstanceOf(VersionNotFoundException.class);

        // Next round keeps only the latest: version 3 goes, but its deletion file of fragment 0 is
        // still version 4's, so only its transaction file is left to delete.
        Manifest m4 = v4.manifest();
        CleanupPlan second = TableCleanup.plan(store, keepLast(1));
        assertThat(second.versionsToRemove())
                .extracting(RemovedVersion::version)
                .containsExactly(3L);
        assertThat(reasons(second)).containsOnlyKeys(transactionPath(store, 3));
        TableCleanup.execute(store, second);
        assertThat(scanAll(v4, 4)).isEqualTo(Map.of(4L, rowsBefore.get(4L)));
        for (Fragment f : m4.fragments()) {
            if (f.deletionFile() != null) {
                assertThat(store.exists(f.deletionFile().rootRelativePath(f.id())))
                        .isTrue();
            }
        }
    }

    @Test
    void filesOnlyRemovedVersionsReferenceGoRegardlessOfAge() throws Exception {
        Dataset v1 = CleanupTestTables.create(store, allocator, 20, 10);
        List<String> oldData = new ArrayList<>();
        v1.fragments().forEach(f -> f.files().forEach(d -> oldData.add("data/" + d.path())));
        Dataset v2;
        try (VectorSchemaRoot r = CleanupTestTables.rows(allocator, 100, 105)) {
            v2 = Dataset.open(store, allocator);
            dev.lanceflink.dataset.Dataset.write(
                    store,
                    allocator,
                    List.of(r),
                    CleanupTestTables.SCHEMA,
                    dev.lanceflink.dataset.WriteParams.of(dev.lanceflink.dataset.WriteMode.OVERWRITE));
        }
        Dataset latest = v2.checkoutLatest();
        List<String> rows = CleanupTestTables.scan(latest, 2);
        // The grace period is longer than the table's age: only files a removed manifest proves
        // to be committed history may go.
        CleanupPolicy policy = new CleanupPolicy(Duration.ZERO, 1, Duration.ofDays(365), NOW, null, Set.of());

        CleanupPlan plan = TableCleanup.plan(store, policy);

        Set<String> expected = new TreeSet<>(oldData);
        expected.add(transactionPath(store, 1));
        assertThat(reasons(plan).keySet()).isEqualTo(expected);
        assertThat(reasons(plan).values()).containsOnly(CleanupReason.ONLY_REMOVED_VERSIONS);
        TableCleanup.execute(store, plan);
        for (String p : oldData) {
            assertThat(store.exists(p)).as(p).isFalse();
        }
        assertThat(CleanupTestTables.scan(latest, 2)).isEqualTo(rows).hasSize(5);
    }

    @Test
    void overlayAndDeletionFilesOfRetainedVersionsAreKept() throws Exception {
        Dataset v1 = CleanupTestTables.create(store, allocator, 20, 10); // fragments 0 and 1
        Dataset v2;
        try (VectorSchemaRoot r = CleanupTestTables.names(allocator, "a0", "a1")) {
            v2 = v1.update(new long[] {0, 1}, r);
        }
        Dataset v3 = v2.deleteRows(new long[] {5});
        Dataset v4;
        try (VectorSchemaRoot r = CleanupTestTables.names(allocator, "b2", "b11")) {
            v4 = v3.update(new long[] {2, (1L << 32) | 1}, r);
        }
        Dataset v5 = v4.deleteRows(new long[] {6});
        assertThat(v5.version()).isEqualTo(5);
        Map<Long, List<String>> rowsBefore = scanAll(v5, 4, 5);
        assertThat(rowsBefore.get(5L))
                .contains("0|a0", "1|a1", "2|b2", "11|b11")
                .doesNotContain("5|n5", "6|n6");
        Set<String> overlayFiles = new TreeSet<>();
        for (Fragment f : v5.fragments()) {
            for (DataOverlayFile o : f.overlays()) {
                overlayFiles.add("data/" + o.dataFile().path());
            }
        }
        assertThat(overlayFiles).hasSize(3); // v2 on fragment 0, v4 on fragments 0 and 1
        String delV3 = v3.manifest().fragment(0).orElseThrow().deletionFile().rootRelativePath(0);
        String delV5 = v5.manifest().fragment(0).orElseThrow().deletionFile().rootRelativePath(0);
        assertThat(delV3).isNotEqualTo(delV5);

        CleanupPlan plan = TableCleanup.plan(store, keepLast(2));
        assertThat(plan.versionsToRemove()).extracting(RemovedVersion::version).containsExactly(1L, 2L, 3L);
        assertThat(reasons(plan).keySet())
                .containsExactlyInAnyOrder(
                        transactionPath(store, 1), transactionPath(store, 2), transactionPath(store, 3));
        TableCleanup.execute(store, plan);
        for (String p : overlayFiles) {
            assertThat(store.exists(p)).as(p).isTrue();
        }
        assertThat(store.exists(delV3)).isTrue(); // version 4 still uses it
        assertThat(store.exists(delV5)).isTrue();
        assertThat(scanAll(v5, 4, 5)).isEqualTo(rowsBefore);

        CleanupPlan last = TableCleanup.plan(store, keepLast(1));
        assertThat(reasons(last)).containsOnlyKeys(transactionPath(store, 4), delV3);
        assertThat(reasons(last).get(delV3)).isEqualTo(CleanupReason.ONLY_REMOVED_VERSIONS);
        TableCleanup.execute(store, last);
        assertThat(store.exists(delV3)).isFalse();
        for (String p : overlayFiles) {
            assertThat(store.exists(p)).as(p).isTrue();
        }
        assertThat(scanAll(v5, 5)).isEqualTo(Map.of(5L, rowsBefore.get(5L)));
    }

    @Test
    void versionsNewerThanTheRetentionAreKept() throws Exception {
        Dataset v1 = CleanupTestTables.create(store, allocator, 10, 10);
        Dataset v3 = CleanupTestTables.append(CleanupTestTables.append(v1, 10, 20, Map.of()), 20, 30, Map.of());
        Instant t2 = v3.checkoutVersion(2).manifest().timestamp();
        // Keep what was committed from version 2 on: the cutoff sits just before its timestamp.
        CleanupPolicy policy =
                new CleanupPolicy(Duration.between(t2.minusMillis(1), NOW), 1, Duration.ofDays(1), NOW, null, Set.of());

        CleanupPlan plan = TableCleanup.plan(store, policy);

        assertThat(plan.versionsToRemove()).extracting(RemovedVersion::version).containsExactly(1L);
        assertThat(plan.retainedVersions()).extracting(RetainedVersion::version).containsExactly(2L, 3L);
        assertThat(plan.retainedVersions().get(0).reasons())
                .singleElement()
                .asString()
                .startsWith("newer-than ");
        assertThat(plan.retainedVersions().get(1).reasons()).contains("latest");
    }

    @Test
    void indexDirectoriesOfRetainedVersionsAreKept() throws Exception {
        Dataset v1 = CleanupTestTables.create(store, allocator, 10, 10);
        java.util.UUID uuid = java.util.UUID.fromString("5a1d7f60-1111-4222-8333-444455556666");
        CleanupTestTables.writeFile(store, "_indices/" + uuid + "/index.idx", "index");
        CleanupTestTables.writeFile(store, "_indices/" + uuid + "/part/aux.idx", "aux");
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(16)
                .putLong(uuid.getMostSignificantBits())
                .putLong(uuid.getLeastSignificantBits());
        lance.table.IndexMetadata meta = lance.table.IndexMetadata.newBuilder()
                .setUuid(lance.table.UUID.newBuilder().setUuid(com.google.protobuf.ByteString.copyFrom(b.array())))
                .addFields(0)
                .setName("id_idx")
                .setDatasetVersion(1)
                .build();
        dev.lanceflink.txn.TableCommitter.commit(
                store,
                dev.lanceflink.txn.Transaction.of(
                        1,
                        new dev.lanceflink.txn.Operation.CreateIndex(
                                List.of(new dev.lanceflink.table.IndexEntry(meta)), List.of())),
                dev.lanceflink.txn.CommitOptions.defaults());
        CleanupTestTables.writeFile(store, "_indices/9e1d7f60-1111-4222-8333-444455556666/index.idx", "orphan");

        CleanupPlan plan = TableCleanup.plan(store, keepLast(1));

        assertThat(reasons(plan).keySet())
                .containsExactlyInAnyOrder(
                        transactionPath(store, 1), "_indices/9e1d7f60-1111-4222-8333-444455556666/index.idx");
        TableCleanup.execute(store, plan);
        assertThat(store.exists("_indices/" + uuid + "/index.idx")).isTrue();
        assertThat(store.exists("_indices/" + uuid + "/part/aux.idx")).isTrue();
        assertThat(v1.checkoutLatest().manifest().indices()).hasSize(1);
    }

    @Test
    void worksOnV1ManifestNames() throws Exception {
        dev.lanceflink.txn.CommitOptions v1Names = dev.lanceflink.txn.CommitOptions.defaults()
                .withNewTable(
                        dev.lanceflink.table.ManifestNamingScheme.V1,
                        dev.lanceflink.table.DataStorageFormat.lance("2.1"),
                        false);
        try (VectorSchemaRoot r = CleanupTestTables.rows(allocator, 0, 10)) {
            Dataset.write(
                    store,
                    allocator,
                    List.of(r),
                    CleanupTestTables.SCHEMA,
                    dev.lanceflink.dataset.WriteParams.of(dev.lanceflink.dataset.WriteMode.CREATE)
                            .withCommitOptions(v1Names));
        }
        Dataset v3 = CleanupTestTables.append(
                CleanupTestTables.append(Dataset.open(store, allocator), 10, 20, Map.of()), 20, 30, Map.of());
        assertThat(store.exists("_versions/3.manifest")).isTrue();

        CleanupPlan plan = TableCleanup.plan(store, keepLast(2));

        assertThat(plan.versionsToRemove())
                .extracting(RemovedVersion::manifestPath)
                .containsExactly("_versions/1.manifest");
        TableCleanup.execute(store, plan);
        assertThat(store.exists("_versions/1.manifest")).isFalse();
        assertThat(store.exists("_versions/2.manifest")).isTrue();
        assertThat(CleanupTestTables.scan(v3, 3)).hasSize(30);
    }

    @Test
    void planAndResultPrintAsJson() throws Exception {
        Dataset v1 = CleanupTestTables.create(store, allocator, 10, 10);
        CleanupTestTables.append(v1, 10, 20, Map.of());
        CleanupPlan plan = TableCleanup.plan(store, keepLast(1));
        ObjectMapper json = new ObjectMapper();

        JsonNode p = json.readTree(plan.toJson());
        assertThat(p.get("table").asText()).isEqualTo(store.rootUri());
        assertThat(p.get("latestVersion").asLong()).isEqualTo(2);
        assertThat(p.at("/policy/retainLastVersions").asInt()).isEqualTo(1);
        assertThat(p.at("/policy/markerPropertyKey").isNull()).isTrue();
        assertThat(p.at("/versionsToRemove/0/version").asLong()).isEqualTo(1);
        assertThat(p.at("/versionsToRemove/0/manifest").asText()).isEqualTo(manifestPath(store, 1));
        assertThat(p.at("/retainedVersions/0/reasons/0").asText()).isEqualTo("latest");
        assertThat(p.at("/filesToDelete/0/path").asText()).isEqualTo(transactionPath(store, 1));
        assertThat(p.at("/filesToDelete/0/kind").asText()).isEqualTo("transaction");
        assertThat(p.at("/filesToDelete/0/reason").asText()).isEqualTo("only-removed-versions");
        assertThat(p.at("/totals/files/manifest").asInt()).isEqualTo(1);
        assertThat(p.at("/totals/bytes").asLong())
                .isEqualTo(plan.bytesToDelete())
                .isPositive();

        CleanupResult result = TableCleanup.execute(store, plan);
        JsonNode r = json.readTree(result.toJson());
        assertThat(r.get("versionsRemoved").asInt()).isEqualTo(1);
        assertThat(r.at("/filesDeleted/transaction").asInt()).isEqualTo(1);
        assertThat(r.get("totalFilesDeleted").asInt()).isEqualTo(2);
        assertThat(r.get("bytesDeleted").asLong()).isEqualTo(plan.bytesToDelete());
        assertThat(r.get("latestVersionAtExecution").asLong()).isEqualTo(2);
    }

    @Test
    void policyRejectsNonsense() {
        assertThatThrownBy(() -> new CleanupPolicy(Duration.ZERO, 0, Duration.ZERO, NOW, null, Set.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("retainLastVersions must be at least 1");
        assertThatThrownBy(() -> new CleanupPolicy(Duration.ofDays(-1), 1, Duration.ZERO, NOW, null, Set.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("retainVersionsNewerThan");
        assertThatThrownBy(() -> new CleanupPolicy(Duration.ZERO, 1, Duration.ofDays(-1), NOW, null, Set.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unreferencedGrace");
        assertThatThrownBy(() -> new CleanupPolicy(Duration.ZERO, 1, Duration.ZERO, NOW, "", Set.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("markerPropertyKey is empty");
    }

    static Map<String, CleanupReason> reasons(CleanupPlan plan) {
        Map<String, CleanupReason> out = new HashMap<>();
        plan.filesToDelete().forEach(c -> out.put(c.path(), c.reason()));
        return out;
    }
}
