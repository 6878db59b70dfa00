package dev.lanceflink.maintenance;

import static dev.lanceflink.maintenance.CleanupTestTables.NOW;
import static dev.lanceflink.maintenance.CleanupTestTables.USER_KEY;
import static dev.lanceflink.maintenance.CleanupTestTables.files;
import static dev.lanceflink.maintenance.CleanupTestTables.keepLast;
import static dev.lanceflink.maintenance.CleanupTestTables.manifestPath;
import static dev.lanceflink.maintenance.CleanupTestTables.scanAll;
import static dev.lanceflink.maintenance.CleanupTestTables.transactionPath;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.file.FileVersion;
import dev.lanceflink.file.writer.FileWriterOptions;
import dev.lanceflink.io.ForwardingObjectStore;
import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.io.RangeReader;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.txn.CommitOptions;
import dev.lanceflink.txn.Operation;
import dev.lanceflink.txn.TableCommitter;
import dev.lanceflink.txn.Transaction;
import dev.lanceflink.write.FragmentWriter;
import java.io.IOException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What cleanup must never delete: writer markers, tags, files of versions committed after
 * planning; and where it must stop instead of guessing.
 */
class TableCleanupSafetyTest {
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

    private static CleanupPolicy markers(Set<String> released) {
        return new CleanupPolicy(Duration.ofDays(1), 1, Duration.ofDays(1), NOW, USER_KEY, released);
    }

    /** v1 create, v2 sink A, v3 sink B, v4 sink A, v5 delete, v6 plain append. */
    private Dataset twoSinks() throws IOException {
        Dataset v1 = CleanupTestTables.create(store, allocator, 10, 10);
        Dataset v2 = CleanupTestTables.append(v1, 10, 20, Map.of(USER_KEY, "A", "flink.checkpoint-id", "1"));
        Dataset v3 = CleanupTestTables.append(v2, 20, 30, Map.of(USER_KEY, "B", "flink.checkpoint-id", "1"));
        Dataset v4 = CleanupTestTables.append(v3, 30, 40, Map.of(USER_KEY, "A", "flink.checkpoint-id", "2"));
        Dataset v5 = v4.delete("id = 3");
        Dataset v6 = CleanupTestTables.append(v5, 40, 50, Map.of());
        assertThat(v6.version()).isEqualTo(6);
        return v6;
    }

    @Test
    void newestCommitOfEveryWriterMarkerIsKept() throws Exception {
        Dataset v6 = twoSinks();
        Map<Long, List<String>> rows = scanAll(v6, 3, 4, 6);

        CleanupPlan plan = TableCleanup.plan(store, markers(Set.of()));

        assertThat(plan.versionsToRemove()).extracting(RemovedVersion::version).containsExactly(1L, 2L, 5L);
        assertThat(plan.retainedVersions()).extracting(RetainedVersion::version).containsExactly(3L, 4L, 6L);
        assertThat(plan.retainedVersions().get(0).reasons()).containsExactly("marker flink.commit-user=B");
        assertThat(plan.retainedVersions().get(1).reasons()).containsExactly("marker flink.commit-user=A");
        assertThat(plan.markerVersions()).containsExactly(Map.entry("A", 4L), Map.entry("B", 3L));
        TableCleanup.execute(store, plan);

        assertThat(scanAll(v6, 3, 4, 6)).isEqualTo(rows);
        // A restoring writer still finds its last commit.
        assertThat(v6.findCommittedVersion(USER_KEY, "A", 0)).contains(4L);
        assertThat(v6.findCommittedVersion(USER_KEY, "B", 0)).contains(3L);
        assertThat(store.exists(transactionPath(store, 4))).isTrue();
    }

    @Test
    void releasedMarkerNoLongerKeepsItsVersion() throws Exception {
        Dataset v6 = twoSinks();

        CleanupPlan plan = TableCleanup.plan(store, markers(Set.of("B")));

        assertThat(plan.versionsToRemove()).extracting(RemovedVersion::version).containsExactly(1L, 2L, 3L, 5L);
        assertThat(plan.markerVersions()).containsExactly(Map.entry("A", 4L));
        TableCleanup.execute(store, plan);
        assertThat(v6.findCommittedVersion(USER_KEY, "B", 0)).isEmpty();
        assertThat(CleanupTestTables.scan(v6, 6)).hasSize(49).doesNotContain("3|n3");
    }

    @Test
    void taggedVersionsAreKept() throws Exception {
        Dataset v1 = CleanupTestTables.create(store, allocator, 10, 10);
        Dataset v3 = v1.delete("id < 4").delete("id < 8");
        Map<Long, List<String>> rows = scanAll(v3, 2, 3);
        CleanupTestTables.writeFile(
                store, "_refs/tags/release.json", "{\"branch\":null,\"version\":2,\"manifestSize\":512}");

        CleanupPlan plan = TableCleanup.plan(store, keepLast(1));

        assertThat(plan.versionsToRemove()).extracting(RemovedVersion::version).containsExactly(1L);
        assertThat(plan.retainedVersions().get(0)).isEqualTo(new RetainedVersion(2, List.of("tag release")));
        TableCleanup.execute(store, plan);
        assertThat(scanAll(v3, 2, 3)).isEqualTo(rows);
        String delV2 = v3.checkoutVersion(2)
                .manifest()
                .fragment(0)
                .orElseThrow()
                .deletionFile()
                .rootRelativePath(0);
        assertThat(store.exists(delV2)).isTrue();
    }

    @Test
    void tagCreatedAfterPlanningOnARemovedVersionStopsExecution() throws Exception {
        Dataset v1 = CleanupTestTables.create(store, allocator, 10, 10);
        CleanupTestTables.append(v1, 10, 20, Map.of());
        CleanupPlan plan = TableCleanup.plan(store, keepLast(1));
        CleanupTestTables.writeFile(store, "_refs/tags/late.json", "{\"version\":1,\"manifestSize\":1}");
        Map<String, Long> before = files(store);

        assertThatThrownBy(() -> TableCleanup.execute(store, plan))
                .isInstanceOf(CleanupAbortedException.class)
                .hasMessageContaining("Tag 'late'")
                .hasMessageContaining("version 1")
                .hasMessageContaining("Nothing was deleted");
        assertThat(files(store)).isEqualTo(before);
    }

    @Test
    void aReadInterruptedByAStoppingThreadIsNotCalledADamagedManifest() throws Exception {
        Dataset v1 = CleanupTestTables.create(store, allocator, 10, 10);
        CleanupTestTables.append(v1, 10, 20, Map.of());
        ObjectStore interrupted = new ForwardingObjectStore(store) {
            @Override
            public RangeReader openReader(String path, long knownSize) throws IOException {
                if (path.startsWith("_versions/")) {
                    throw new ClosedByInterruptException(); // as a cancelled job's cleanup thread sees it
                }
                return super.openReader(path, knownSize);
            }
        };
        Map<String, Long> before = files(store);

        assertThatThrownBy(() -> TableCleanup.plan(interrupted, keepLast(1)))
                .isInstanceOf(CleanupAbortedException.class)
                .hasMessageContaining("interrupted while reading manifest")
                .hasMessageNotContaining("Repair or restore");
        assertThat(files(store)).isEqualTo(before);
    }

    @Test
    void unreadableTagOrABranchStopsPlanning() throws Exception {
        CleanupTestTables.create(store, allocator, 10, 10);
        CleanupTestTables.writeFile(store, "_refs/tags/bad.json", "{\"version\":");
        assertThatThrownBy(() -> TableCleanup.plan(store, keepLast(1)))
                .isInstanceOf(CleanupAbortedException.class)
                .hasMessageContaining("_refs/tags/bad.json")
                .hasMessageContaining("not valid JSON");
        CleanupTestTables.writeFile(store, "_refs/tags/bad.json", "{\"name\":\"x\"}");
        assertThatThrownBy(() -> TableCleanup.plan(store, keepLast(1)))
                .isInstanceOf(CleanupAbortedException.class)
                .hasMessageContaining("no positive \"version\"");
        Files.delete(dir.resolve("_refs/tags/bad.json"));
        CleanupTestTables.writeFile(store, "_refs/branches/dev.json", "{\"parentVersion\":1}");
        assertThatThrownBy(() -> TableCleanup.plan(store, keepLast(1)))
                .isInstanceOf(CleanupAbortedException.class)
                .hasMessageContaining("has branch dev")
                .hasMessageContaining("deletes nothing");
    }

    @Test
    void corruptManifestStopsPlanningAndNamesIt() throws Exception {
        Dataset v1 = CleanupTestTables.create(store, allocator, 10, 10);
        CleanupTestTables.append(CleanupTestTables.append(v1, 10, 20, Map.of()), 20, 30, Map.of());
        String m2 = manifestPath(store, 2);
        byte[] bytes = Files.readAllBytes(dir.resolve(m2));
        Files.write(dir.resolve(m2), java.util.Arrays.copyOf(bytes, bytes.length - 5)); // trailer cut
        CleanupTestTables.writeFile(store, "data/orphan.lance", "x");
        Map<String, Long> before = files(store);

        assertThatThrownBy(() -> TableCleanup.plan(store, keepLast(1)))
                .isInstanceOf(CleanupAbortedException.class)
                .hasMessageContaining(m2)
                .hasMessageContaining("version 2")
                .hasMessageContaining("nothing was deleted");
        assertThat(files(store)).isEqualTo(before);
    }

    @Test
    void unknownFeatureFlagStopsPlanning() throws Exception {
        Dataset v1 = CleanupTestTables.create(store, allocator, 10, 10);
        CleanupTestTables.append(v1, 10, 20, Map.of());
        rewriteManifest(
                1,
                m -> m.toBuilder()
                        .writerFeatureFlags(m.writerFeatureFlags() | 256)
                        .build());

        assertThatThrownBy(() -> TableCleanup.plan(store, keepLast(1)))
                .isInstanceOf(CleanupAbortedException.class)
                .hasMessageContaining(manifestPath(store, 1))
                .hasMessageContaining("256")
                .hasMessageContaining("nothing was deleted");
    }

    @Test
    void versionWithoutTimestampIsAgedByItsManifestFile() throws Exception {
        Dataset v1 = CleanupTestTables.create(store, allocator, 10, 10);
        Dataset v3 = CleanupTestTables.append(CleanupTestTables.append(v1, 10, 20, Map.of()), 20, 30, Map.of());
        rewriteManifest(1, m -> m.toBuilder().timestamp(null).build());
        rewriteManifest(2, m -> m.toBuilder().timestamp(null).build());
        // Version 2's manifest file looks recent to the cleanup clock, version 1's does not.
        CleanupTestTables.setModified(store, manifestPath(store, 2), NOW.minus(Duration.ofHours(1)));

        CleanupPlan plan = TableCleanup.plan(store, keepLast(1));

        assertThat(plan.versionsToRemove()).extracting(RemovedVersion::version).containsExactly(1L);
        assertThat(plan.versionsToRemove().get(0).timestamp()).isNull();
        assertThat(plan.retainedVersions().get(0).version()).isEqualTo(2);
        assertThat(plan.retainedVersions().get(0).reasons())
                .singleElement()
                .asString()
                .startsWith("newer-than");
        assertThat(v3.version()).isEqualTo(3);
    }

    private void rewriteManifest(long version, java.util.function.UnaryOperator<dev.lanceflink.table.Manifest> change)
            throws IOException {
        String path = manifestPath(store, version);
        dev.lanceflink.table.Manifest m = dev.lanceflink.table.ManifestIO.read(
                store, dev.lanceflink.table.VersionResolver.version(store, version));
        Files.write(dir.resolve(path), dev.lanceflink.table.ManifestIO.serialize(change.apply(m)));
    }

    @Test
    void missingTransactionStopsPlanningWhenMarkersAreKept() throws Exception {
        Dataset v1 = CleanupTestTables.create(store, allocator, 10, 10);
        CommitOptions d = CommitOptions.defaults();
        CommitOptions fileOnly = new CommitOptions(
                d.maxAttempts(),
                d.initialBackoff(),
                d.maxBackoff(),
                true,
                false,
                d.namingScheme(),
                d.dataFormat(),
                d.stableRowIds(),
                d.writeVersionHint(),
                d.commitHandler(),
                d.clock());
        try (VectorSchemaRoot r = CleanupTestTables.rows(allocator, 10, 20)) {
            v1.append(
                    List.of(r),
                    dev.lanceflink.dataset.WriteParams.of(dev.lanceflink.dataset.WriteMode.APPEND)
                            .withTransactionProperties(Map.of(USER_KEY, "A"))
                            .withCommitOptions(fileOnly));
        }
        CleanupTestTables.append(v1.checkoutLatest(), 20, 30, Map.of());
        String txn2 = transactionPath(store, 2);
        Files.delete(dir.resolve(txn2));

        assertThatThrownBy(() -> TableCleanup.plan(store, markers(Set.of())))
                .isInstanceOf(CleanupAbortedException.class)
                .hasMessageContaining("transaction of version 2")
                .hasMessageContaining(txn2)
                .hasMessageContaining(USER_KEY);
        // Without marker retention the transaction is not needed to decide.
        assertThat(TableCleanup.plan(store, keepLast(1)).versionsToRemove()).hasSize(2);
    }

    @Test
    void filesOfACommitThatLandsAfterPlanningAreKept() throws Exception {
        Dataset v1 = CleanupTestTables.create(store, allocator, 10, 10);
        // A checkpoint wrote its files long ago but has not committed yet.
        List<Fragment> pending;
        try (FragmentWriter w = new FragmentWriter(
                        store,
                        v1.schema(),
                        FileVersion.DEFAULT_FOR_NEW_TABLES,
                        100,
                        allocator,
                        FileWriterOptions.defaults());
                VectorSchemaRoot r = CleanupTestTables.rows(allocator, 10, 15)) {
            w.write(r);
            pending = w.finish();
        }
        String pendingFile = "data/" + pending.get(0).files().get(0).path();
        CleanupPlan plan = TableCleanup.plan(store, keepLast(1));
        assertThat(TableCleanupTest.reasons(plan)).containsEntry(pendingFile, CleanupReason.UNREFERENCED_PAST_GRACE);

        TableCommitter.commit(store, Transaction.of(1, new Operation.Append(pending)), CommitOptions.defaults());
        CleanupResult result = TableCleanup.execute(store, plan);

        assertThat(result.keptForNewerVersions()).containsExactly(pendingFile);
        assertThat(result.latestVersionAtExecution()).isEqualTo(2);
        assertThat(store.exists(pendingFile)).isTrue();
        assertThat(CleanupTestTables.scan(v1, 2)).hasSize(15).contains("14|n14");
    }

    @Test
    void failedManifestDeleteStopsBeforeAnyOtherFile() throws Exception {
        Dataset v1 = CleanupTestTables.create(store, allocator, 10, 10);
        Dataset v3 = CleanupTestTables.append(CleanupTestTables.append(v1, 10, 20, Map.of()), 20, 30, Map.of());
        CleanupPlan plan = TableCleanup.plan(store, keepLast(1));
        String m2 = manifestPath(store, 2);
        Map<String, Long> before = files(store);

        assertThatThrownBy(() -> TableCleanup.execute(new FailingDeletes(store, m2), plan))
                .isInstanceOf(CleanupAbortedException.class)
                .hasMessageContaining(m2)
                .hasMessageContaining("1 of 2 old versions were removed and no other file was deleted");

        Map<String, Long> after = files(store);
        assertThat(CleanupTestTables.gone(before, after))
                .containsExactly(plan.versionsToRemove().get(0).manifestPath());
        assertThat(CleanupTestTables.scan(v3, 2)).hasSize(20); // the version that stayed is whole
        // The next run finishes the job.
        CleanupResult again = TableCleanup.execute(store, TableCleanup.plan(store, keepLast(1)));
        assertThat(again.versionsRemoved()).isEqualTo(1);
        assertThat(CleanupTestTables.scan(v3, 3)).hasSize(30);
    }

    /**
     * Many files are deleted several at a time; a file whose delete fails is reported and stays,
     * the others go, and the counts are those of the files deleted.
     */
    @Test
    void manyFilesAreDeletedAndAFailedDeleteIsReportedWithoutStoppingTheOthers() throws Exception {
        Dataset v1 = CleanupTestTables.create(store, allocator, 10, 10);
        CleanupTestTables.append(v1, 10, 20, Map.of());
        int orphans = 3 * TableCleanup.PARALLEL_DELETES_FROM;
        for (int i = 0; i < orphans; i++) {
            CleanupTestTables.writeFile(store, "data/orphan-" + i + ".lance", "old " + i);
        }
        CleanupPlan plan = TableCleanup.plan(store, keepLast(1));
        assertThat(plan.filesToDelete().size()).isGreaterThan(orphans);
        String denied = "data/orphan-7.lance";

        CleanupResult result = TableCleanup.execute(new FailingDeletes(store, denied), plan);

        assertThat(result.failedDeletes())
                .singleElement()
                .satisfies(f -> assertThat(f.path()).isEqualTo(denied));
        assertThat(store.exists(denied)).isTrue();
        for (CleanupCandidate c : plan.filesToDelete()) {
            assertThat(store.exists(c.path())).as(c.path()).isEqualTo(c.path().equals(denied));
        }
        assertThat(result.filesDeleted(CleanupFileKind.DATA)).isEqualTo(orphans - 1);
        assertThat(CleanupTestTables.scan(v1, 2)).hasSize(20);
    }

    /**
     * A compaction that carried a deletion committed after it read its fragment names, in its
     * transaction, the deletion file it read, which only older versions reference: cleanup keeps
     * it while the compaction's version is kept, so the row moves can still be derived.
     */
    @Test
    void theDeletionFilesAKeptRewriteReadAreKept() throws Exception {
        Dataset v1 = CleanupTestTables.create(store, allocator, 10, 10);
        Dataset v2 = v1.delete("id = 1"); // deletion file A of fragment 0
        dev.lanceflink.overlay.StagedWrite rewrite = dev.lanceflink.compact.FragmentRewriter.rewrite(
                store, v2.manifest(), List.of(0L), 100, allocator, FileWriterOptions.defaults());
        Dataset v3 = v2.delete("id = 2"); // file B: the rewrite read A
        Operation.Rewrite rebased = dev.lanceflink.compact.RewriteRebase.rebase(
                        store, v3.manifest(), (Operation.Rewrite) rewrite.operation(), allocator)
                .orElseThrow()
                .operation();
        TableCommitter.commit(store, Transaction.of(3, rebased, Map.of()), CommitOptions.defaults());
        String fileA = v2.manifest().fragments().get(0).deletionFile().rootRelativePath(0);

        CleanupResult result = TableCleanup.execute(store, TableCleanup.plan(store, keepLast(1)));

        assertThat(result.versionsRemoved()).isEqualTo(3);
        assertThat(store.exists(fileA)).isTrue();
        try (Dataset v4 = v1.checkoutLatest()) {
            assertThat(dev.lanceflink.txn.RewriteMoves.of(store, v4.manifest(), rebased)
                            .newAddress(0, 3))
                    .hasValue(dev.lanceflink.table.RowAddress.of(
                            v4.manifest().fragments().get(0).id(), 2));
            assertThat(CleanupTestTables.scan(v4, 4)).hasSize(8);
        }
    }

    @Test
    void planForAnotherTableIsRefused() throws Exception {
        CleanupTestTables.create(store, allocator, 10, 10);
        CleanupPlan plan = TableCleanup.plan(store, keepLast(1));
        LocalObjectStore other = new LocalObjectStore(dir.resolve("other"));
        assertThatThrownBy(() -> TableCleanup.execute(other, plan))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("is for table " + store.rootUri());
    }

    /** Delegates to a store but fails deletes of one path. */
    private static final class FailingDeletes extends ForwardingObjectStore {
        private final String failing;

        FailingDeletes(ObjectStore delegate, String failing) {
            super(delegate);
            this.failing = failing;
        }

        @Override
        public void delete(String path) throws IOException {
            if (path.equals(failing)) {
                throw new IOException("injected: access denied for " + path);
            }
            delegate().delete(path);
        }
    }
}
