package dev.lanceflink.compactor.core;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.file.writer.FileWriterOptions;
import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.rowid.FragmentRowIds;
import dev.lanceflink.rowid.RowIdSequenceCodec;
import dev.lanceflink.rowid.RowVersionSequenceCodec;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.IndexEntry;
import dev.lanceflink.table.SequenceSource;
import dev.lanceflink.txn.CommitOptions;
import dev.lanceflink.txn.Operation;
import dev.lanceflink.txn.TableCommitter;
import dev.lanceflink.txn.Transaction;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.LongStream;
import lance.table.IndexMetadata;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.roaringbitmap.RoaringBitmap;

/** Mode {@code fragments}: deletion materialization and small-fragment merges, committed as a Rewrite. */
class FragmentsCompactionTest {
    /** Every fragment of the test tables (10 rows) is small; groups aim at 25 live rows. */
    private static final CompactionPolicy TARGET_25 =
            CompactionPolicy.defaults().withFragmentRules(0.1, 25, 25);

    @TempDir
    Path dir;

    private BufferAllocator allocator;
    private ObjectStore store;

    @BeforeEach
    void setUp() {
        allocator = new RootAllocator();
        store = new LocalObjectStore(dir);
    }

    @AfterEach
    void tearDown() throws Exception {
        store.close();
        allocator.close(); // fails the test on leaked Arrow buffers
    }

    private CompactionRun run(CompactionPolicy policy) {
        return new CompactionRun(store, dir.toString(), CompactionMode.FRAGMENTS, policy, CommitOptions.defaults(), 3);
    }

    private TaskExecutor local() {
        return new LocalTaskExecutor(store, allocator, FileWriterOptions.defaults(), 2);
    }

    /**
     * Six fragments of 10 rows (version 1); overlays on fragments 0 and 2 (version 2); two rows
     * deleted in fragments 1 and 4 each (version 3), one of them overlaid: 56 live rows.
     */
    private Dataset smallFragments(boolean stableRowIds) throws Exception {
        Dataset ds = OverlayTables.create(store, allocator, 6, 10, stableRowIds);
        ds = OverlayTables.update(ds, new long[] {0, 2}, new int[] {1, 4}, 7000);
        ds = ds.deleteRows(new long[] {1L << 32 | 3, 1L << 32 | 4, 4L << 32, 4L << 32 | 9});
        ds = OverlayTables.update(ds, new long[] {1}, new int[] {5}, 8000);
        return ds;
    }

    @ParameterizedTest(name = "stable row ids: {0}")
    @ValueSource(booleans = {false, true})
    void smallNeighboursWithOverlaysAndDeletionsBecomeTargetSizedFragmentsWithTheSameValues(boolean stableRowIds)
            throws Exception {
        try (Dataset ds = smallFragments(stableRowIds)) {
            List<String> before = OverlayTables.scanByKey(ds);
            assertThat(before)
                    .hasSize(56)
                    .contains("1|7001|null", "15|8005|null")
                    .doesNotContain("13|130|s13");

            CompactionSummary summary = run(TARGET_25).execute(local(), TaskExecutor.ProgressListener.NONE);

            // 10+8+10 = 28 >= 25 and the rest (28) can still form a group: two groups, one new fragment each.
            assertThat(summary.plan().tasks())
                    .extracting(t -> t.group().fragmentIds())
                    .containsExactly(List.of(0L, 1L, 2L), List.of(3L, 4L, 5L));
            assertThat(summary.status()).isEqualTo(CompactionSummary.COMMITTED);
            assertThat(summary.committedVersions()).containsExactly(5L); // one Rewrite for the whole run
            assertThat(summary.fragmentsCompacted()).isEqualTo(6);
            assertThat(summary.written().newFragments()).isEqualTo(2);
            assertThat(summary.written().rowsWritten()).isEqualTo(56);
            assertThat(summary.overlaysBefore()).isEqualTo(3);
            assertThat(summary.overlaysAfter()).isZero();
            try (Dataset after = ds.checkoutLatest()) {
                assertThat(after.version()).isEqualTo(5);
                assertThat(after.fragments()).extracting(Fragment::id).containsExactly(6L, 7L);
                assertThat(after.fragments()).extracting(Fragment::physicalRows).containsExactly(28L, 28L);
                assertThat(after.fragments()).allSatisfy(f -> {
                    assertThat(f.overlays()).isEmpty();
                    assertThat(f.deletionFile()).isNull();
                });
                assertThat(OverlayTables.scanByKey(after)).isEqualTo(before);
                assertThat(OverlayTables.scan(after)).isEqualTo(before); // insertion order kept
                assertThat(after.transaction().orElseThrow().operation()).isInstanceOf(Operation.Rewrite.class);
                assertThat(after.transaction().orElseThrow().properties())
                        .containsEntry(CompactionCommitter.MODE_PROPERTY, "fragments")
                        .containsEntry(CompactionCommitter.READ_VERSION_PROPERTY, "4");
                if (stableRowIds) {
                    List<Long> ids = new ArrayList<>();
                    for (Fragment f : after.fragments()) {
                        for (long id : RowIdSequenceCodec.decode(
                                ((SequenceSource.Inline) f.rowIdMeta().rowIds()).bytes(), "test")) {
                            ids.add(id);
                        }
                    }
                    List<Long> expected =
                            new ArrayList<>(LongStream.range(0, 60).boxed().toList());
                    expected.removeAll(List.of(13L, 14L, 40L, 49L));
                    assertThat(ids).isEqualTo(expected);
                    assertThat(after.manifest().nextRowId()).isEqualTo(60);
                } else {
                    assertThat(after.fragments())
                            .allSatisfy(f -> assertThat(f.rowIdMeta().isEmpty()).isTrue());
                }
            }
            CompactionSummary again = run(TARGET_25).execute(local(), TaskExecutor.ProgressListener.NONE);
            assertThat(again.status()).isEqualTo(CompactionSummary.NOTHING_TO_DO);
        }
    }

    @Test
    void aFragmentAboveTheDeletedRatioIsRewrittenAloneAndOneBelowIsNot() throws Exception {
        Dataset created = OverlayTables.create(store, allocator, 2, 20);
        // fragment 0: 3 of 20 deleted (0.15); fragment 1: 1 of 20 (0.05). Neither is small (20 >= 10).
        try (Dataset ds = created.deleteRows(new long[] {1, 2, 3, 1L << 32 | 7})) {
            created.close();
            CompactionPolicy policy = CompactionPolicy.defaults().withFragmentRules(0.1, 10, 10);
            assertThat(run(policy.withFragmentRules(0.2, 10, 10)).plan().isEmpty())
                    .isTrue();
            CompactionPlan plan = run(policy).plan();
            assertThat(plan.tasks()).singleElement().satisfies(t -> {
                assertThat(t.group().fragmentIds()).containsExactly(0L);
                assertThat(t.group().deletedRows()).isEqualTo(3);
                assertThat(t.trigger()).isEqualTo("materialize deletions of [0] (deleted ratio > 0.1)");
            });
            List<String> before = OverlayTables.scanByKey(ds);
            run(policy).execute(local(), TaskExecutor.ProgressListener.NONE);
            try (Dataset after = ds.checkoutLatest()) {
                assertThat(after.fragments()).extracting(Fragment::id).containsExactly(1L, 2L);
                assertThat(after.fragments().get(1).physicalRows()).isEqualTo(17);
                assertThat(after.fragments().get(1).deletionFile()).isNull();
                assertThat(after.fragments().get(0)).isEqualTo(ds.fragments().get(1)); // untouched
                assertThat(OverlayTables.scanByKey(after)).isEqualTo(before);
            }
        }
    }

    @ParameterizedTest(name = "stable row ids: {0}")
    @ValueSource(booleans = {false, true})
    void onlyNeighboursWithTheSameIndexCoverageAreMergedAndTheIndexFollowsLance(boolean stableRowIds) throws Exception {
        Dataset created = OverlayTables.create(store, allocator, 5, 10, stableRowIds);
        // Index "k_idx" covers fragments 0, 1 and 3: bins [0, 1], [2], [3], [4]; lone small fragments stay.
        TableCommitter.commit(
                store,
                Transaction.of(1, new Operation.CreateIndex(List.of(index("k_idx", 0, 0, 1, 3)), List.of()), Map.of()),
                CommitOptions.defaults());
        created.close();
        CompactionPolicy policy = CompactionPolicy.defaults().withFragmentRules(0.1, 100, 100);
        try (Dataset ds = Dataset.open(store, allocator)) {
            List<String> before = OverlayTables.scanByKey(ds);
            CompactionPlan plan = run(policy).plan();
            assertThat(plan.tasks()).extracting(t -> t.group().fragmentIds()).containsExactly(List.of(0L, 1L));

            // Without the index every fragment joins one group.
            try (Dataset unindexed = ds.checkoutVersion(1)) {
                assertThat(FragmentCompactionPlanner.plan("t", unindexed.manifest(), policy, null)
                                .tasks())
                        .extracting(t -> t.group().fragmentIds())
                        .containsExactly(List.of(0L, 1L, 2L, 3L, 4L));
            }

            run(policy).execute(local(), TaskExecutor.ProgressListener.NONE);
            try (Dataset after = ds.checkoutLatest()) {
                assertThat(after.fragments()).extracting(Fragment::id).containsExactly(2L, 3L, 4L, 5L);
                IndexEntry idx = after.manifest().indices().get(0);
                if (stableRowIds) {
                    // The index addresses rows by stable id: the new fragment 5 takes over 0 and 1.
                    assertThat(covered(idx)).containsExactly(3, 5);
                } else {
                    // Row addresses changed and the index is not remapped: the bitmap is left as it
                    // was (0 and 1 no longer exist), so of the live fragments only 3 is covered.
                    assertThat(covered(idx)).containsExactly(0, 1, 3);
                    assertThat(idx.coversFragment(5)).isFalse();
                }
                assertThat(OverlayTables.scanByKey(after)).isEqualTo(before);
            }
        }
    }

    /**
     * A sink overlays a row of fragment 4 between the compaction's tasks and its commit. By default
     * the rewrite carries the overlay to its new fragment and lands in the same round; with
     * {@link CompactionRun#replanningConcurrentChanges()} the group of fragment 4 goes stale and is
     * planned again on the newer version. Either way the table equals the table the sink left,
     * cell by cell, and no staged file of a lost attempt is left.
     */
    @ParameterizedTest(name = "carry: {0}")
    @ValueSource(booleans = {true, false})
    void aConcurrentOverlayOnARewrittenFragmentIsCarriedOrReplannedAndNothingIsLost(boolean carry) throws Exception {
        try (Dataset ds = smallFragments(false)) {
            TaskExecutor local = local();
            // The "streaming sink": after the first round's tasks ran, it commits an overlay to fragment 4.
            SinkBetweenTasksAndCommit racing = new SinkBetweenTasksAndCommit(local, ds, latest -> {
                OverlayTables.update(latest, new long[] {4}, new int[] {2}, 9000)
                        .close();
            });
            Set<String> dataBefore = listData();
            CompactionRun run = carry ? run(TARGET_25) : run(TARGET_25).replanningConcurrentChanges();
            CompactionSummary summary = run.execute(racing, TaskExecutor.ProgressListener.NONE);
            List<String> model; // version 5 is the sink's overlay
            try (Dataset sinkLeftIt = ds.checkoutVersion(5)) {
                model = OverlayTables.scanByKey(sinkLeftIt);
            }

            assertThat(summary.uncompactedFragments()).isEmpty();
            assertThat(summary.fragmentsCompacted()).isEqualTo(6);
            try (Dataset after = ds.checkoutLatest()) {
                assertThat(after.fragments()).extracting(Fragment::id).containsExactly(6L, 7L);
                List<String> rows = OverlayTables.scanByKey(after);
                assertThat(rows).isEqualTo(model);
                assertThat(rows).hasSize(56).contains("42|9002|u9000", "15|8005|null", "1|7001|null");
                Set<String> added = listData();
                added.removeAll(dataBefore);
                if (carry) {
                    assertThat(racing.rounds()).isEqualTo(1);
                    assertThat(summary.replannedFragments()).isEmpty();
                    // both groups commit together right after the sink's overlay
                    assertThat(summary.committedVersions()).containsExactly(6L);
                    assertThat(summary.carriedOverlays()).isEqualTo(1);
                    assertThat(summary.carriedDeletions()).isZero();
                    // The new fragment of [3, 4, 5] holds the sink's overlay, relocated; [0, 1, 2]'s
                    // fragments did not change and its new fragment has none.
                    assertThat(OverlayTables.overlayCounts(after)).containsExactly(0, 1);
                    // the two new data files, the sink's overlay and its relocated copy
                    assertThat(added).hasSize(4);
                } else {
                    assertThat(racing.rounds()).isEqualTo(2);
                    assertThat(summary.replannedFragments()).containsExactly(3L, 4L, 5L);
                    // group [0, 1, 2] commits at 6, the re-planned [3, 4, 5] at 7
                    assertThat(summary.committedVersions()).containsExactly(6L, 7L);
                    assertThat(OverlayTables.overlayCounts(after)).containsExactly(0, 0);
                    // The first round's staged files of the stale group were deleted: exactly the two
                    // live new files and the sink's overlay were added.
                    assertThat(added).hasSize(3);
                }
            }
        }
    }

    /**
     * Issue #15: a streaming sink overlays and deletes rows of the fragments being compacted
     * between the compaction's read and its commit (here several commits: overlays of rows the
     * compaction already read overlaid, of new rows, a newer overlay of the same cells, deletions of
     * overlaid and plain rows). With the carry the rewrite lands in one version, without a
     * re-plan, and the table equals, cell by cell, the table before it with the sink's changes;
     * each new fragment gets at most one overlay and the deleted rows stay deleted.
     */
    @ParameterizedTest(name = "stable row ids: {0}")
    @ValueSource(booleans = {false, true})
    void aRewriteCarriesTheSinksConcurrentOverlaysAndDeletionsToItsNewFragments(boolean stableRowIds) throws Exception {
        try (Dataset ds = smallFragments(stableRowIds)) {
            TaskExecutor local = local();
            SinkBetweenTasksAndCommit racing = new SinkBetweenTasksAndCommit(local, ds, latest -> {
                Dataset d = OverlayTables.update(latest, new long[] {0, 4}, new int[] {1, 2}, 9000);
                d = OverlayTables.update(d, new long[] {4, 5}, new int[] {2, 7}, 9500);
                d = d.deleteRows(new long[] {0L << 32 | 6, 2L << 32 | 4, 5L << 32 | 7, 3L << 32});
                d = OverlayTables.update(d, new long[] {1, 3}, new int[] {8}, 9900);
                d.close();
            });
            Set<String> dataBefore = listData();
            CompactionSummary summary =
                    run(TARGET_25).carryingConcurrentChanges().execute(racing, TaskExecutor.ProgressListener.NONE);
            List<String> model; // the table the compaction read, with the sink's changes: version 8
            Map<Integer, String> modelLineage = null;
            try (Dataset sinkLeftIt = ds.checkoutVersion(8)) {
                model = OverlayTables.scanByKey(sinkLeftIt);
                if (stableRowIds) {
                    modelLineage = lineageByKey(sinkLeftIt);
                }
            }

            // With stable row ids too: the sink's overlay commits also set the covered rows'
            // last-updated-at versions, which the rewrite carries with the rows.
            assertThat(racing.rounds()).isEqualTo(1);
            assertThat(summary.replannedFragments()).isEmpty();
            assertThat(summary.uncompactedFragments()).isEmpty();
            // versions 5..8 are the sink's; both groups commit together at 9
            assertThat(summary.committedVersions()).containsExactly(9L);
            assertThat(summary.fragmentsCompacted()).isEqualTo(6);
            // the sink's 4 deleted rows and its 6 overlays (two per overlay commit)
            assertThat(summary.carriedDeletions()).isEqualTo(4);
            assertThat(summary.carriedOverlays()).isEqualTo(6);
            try (Dataset after = ds.checkoutLatest()) {
                assertThat(after.version()).isEqualTo(9);
                assertThat(after.fragments()).extracting(Fragment::id).containsExactly(6L, 7L);
                assertThat(after.fragments())
                        .allSatisfy(f -> assertThat(f.overlays()).hasSize(1));
                assertThat(after.fragments())
                        .allSatisfy(f -> assertThat(f.deletionFile()).isNotNull());
                List<String> rows = OverlayTables.scanByKey(after);
                assertThat(rows).isEqualTo(model);
                assertThat(rows)
                        .hasSize(52)
                        .contains("1|9001|null", "2|9002|u9000", "42|9502|u9500", "18|9908|u9900", "38|9908|u9900")
                        .noneMatch(r -> r.startsWith("6|")
                                || r.startsWith("24|")
                                || r.startsWith("57|")
                                || r.startsWith("30|"));
                // The rewrite's new data files, the sink's overlays (one per fragment and commit) and one
                // relocated overlay per new fragment: nothing a lost attempt wrote is left.
                Set<String> added = listData();
                added.removeAll(dataBefore);
                assertThat(added).hasSize(2 + 6 + 2);
                if (stableRowIds) {
                    Map<Integer, String> lineage = lineageByKey(after);
                    assertThat(lineage).isEqualTo(modelLineage).hasSize(52);
                    // Row k was appended with id k and keeps it; the last-updated-at version is the
                    // last commit that overlaid the row: the sink's (5: k 1; 6: k 42, also updated
                    // at 5; 8: k 18 and 38), the table's before the compaction (2: k 4, 4: k 15), or
                    // its creation (1).
                    assertThat(lineage)
                            .allSatisfy((k, v) -> assertThat(v).startsWith(k + "@"))
                            .containsEntry(1, "1@5")
                            .containsEntry(42, "42@6")
                            .containsEntry(18, "18@8")
                            .containsEntry(38, "38@8")
                            .containsEntry(4, "4@2")
                            .containsEntry(15, "15@4")
                            .containsEntry(3, "3@1");
                    assertThat(after.manifest().nextRowId()).isEqualTo(60);
                }
            }
        }
    }

    /**
     * Every live row's stable row id ({@code _rowid}) and last-updated-at version as "id@version",
     * by key k: what a rewrite must keep for each row, wherever it moves the row.
     */
    private Map<Integer, String> lineageByKey(Dataset ds) throws Exception {
        Map<Long, long[]> ids = new HashMap<>();
        Map<Long, long[]> updated = new HashMap<>();
        for (Fragment f : ds.fragments()) {
            ids.put(f.id(), FragmentRowIds.load(store, f));
            updated.put(
                    f.id(),
                    RowVersionSequenceCodec.decode(
                            ((SequenceSource.Inline) f.rowIdMeta().lastUpdatedAtVersions()).bytes(),
                            f.physicalRows(),
                            "test"));
        }
        Map<Integer, String> out = new TreeMap<>();
        OverlayTables.addressesByKey(ds).forEach((k, a) -> {
            long fragment = a >>> 32;
            int offset = (int) (long) a;
            out.put(k, ids.get(fragment)[offset] + "@" + updated.get(fragment)[offset]);
        });
        return out;
    }

    @Test
    void aConcurrentAppendIsKeptAndNeedsNoReplan() throws Exception {
        try (Dataset ds = smallFragments(false)) {
            TaskExecutor local = local();
            TaskExecutor racing = (plan, progress) -> {
                List<TaskResult> results = local.execute(plan, progress);
                try (Dataset latest = ds.checkoutLatest();
                        VectorSchemaRoot more = VectorSchemaRoot.create(OverlayTables.SCHEMA, allocator)) {
                    more.allocateNew();
                    ((org.apache.arrow.vector.IntVector) more.getVector("k")).setSafe(0, 1000);
                    more.setRowCount(1);
                    latest.append(List.of(more), WriteParams.of(WriteMode.APPEND))
                            .close();
                } catch (Exception e) {
                    throw new IOException(e);
                }
                return results;
            };
            CompactionSummary summary = run(TARGET_25).execute(racing, TaskExecutor.ProgressListener.NONE);
            assertThat(summary.replannedFragments()).isEmpty();
            assertThat(summary.committedVersions()).containsExactly(6L);
            try (Dataset after = ds.checkoutLatest()) {
                assertThat(after.fragments()).extracting(Fragment::id).containsExactly(6L, 7L, 8L);
                assertThat(OverlayTables.scanByKey(after)).hasSize(57).endsWith("1000|null|null");
            }
        }
    }

    /**
     * A sink deletes a row of fragment 0 between the compaction's tasks and its commit: carried (by
     * default) into the new fragment's deletion file in the same round, or, re-planning, the group
     * of fragment 0 is rewritten again without the row. Either way the row stays deleted and the
     * table equals the table the sink left.
     */
    @ParameterizedTest(name = "carry: {0}")
    @ValueSource(booleans = {true, false})
    void aConcurrentDeleteOnARewrittenFragmentIsCarriedOrReplannedAndTheRowStaysDeleted(boolean carry)
            throws Exception {
        try (Dataset ds = smallFragments(false)) {
            TaskExecutor local = local();
            SinkBetweenTasksAndCommit racing = new SinkBetweenTasksAndCommit(local, ds, latest -> {
                latest.deleteRows(new long[] {0L << 32 | 6}).close(); // k = 6
            });
            CompactionRun run = carry ? run(TARGET_25) : run(TARGET_25).replanningConcurrentChanges();
            CompactionSummary summary = run.execute(racing, TaskExecutor.ProgressListener.NONE);
            List<String> model;
            try (Dataset sinkLeftIt = ds.checkoutVersion(5)) {
                model = OverlayTables.scanByKey(sinkLeftIt);
            }
            try (Dataset after = ds.checkoutLatest()) {
                List<String> rows = OverlayTables.scanByKey(after);
                assertThat(rows).isEqualTo(model);
                assertThat(rows).hasSize(55).noneMatch(r -> r.startsWith("6|"));
                assertThat(after.fragments()).extracting(Fragment::id).containsExactly(6L, 7L);
                if (carry) {
                    assertThat(racing.rounds()).isEqualTo(1);
                    assertThat(summary.replannedFragments()).isEmpty();
                    assertThat(summary.committedVersions()).containsExactly(6L);
                    assertThat(summary.carriedDeletions()).isEqualTo(1);
                    assertThat(summary.carriedOverlays()).isZero();
                    // k = 6 is the 7th row of group [0, 1, 2]'s new fragment 6, deleted there
                    assertThat(after.fragments().get(0).deletionFile()).isNotNull();
                    assertThat(after.fragments().get(1).deletionFile()).isNull();
                    assertThat(after.fragments().get(0).physicalRows()).isEqualTo(28);
                } else {
                    assertThat(summary.replannedFragments()).containsExactly(0L, 1L, 2L);
                    assertThat(summary.committedVersions()).containsExactly(6L, 7L);
                    assertThat(after.fragments())
                            .allSatisfy(f -> assertThat(f.deletionFile()).isNull());
                }
            }
        }
    }

    @Test
    void binsAreSplitIntoGroupsOfAtLeastTheTargetLikeLance() throws Exception {
        // Lance's own planner test, scaled down: live rows 10, 40, 20, 20, 40, 30, 30, 10 with a
        // target of 50 give [10, 40], [20, 20, 40], [30, 30, 10].
        int[] sizes = {10, 40, 20, 20, 40, 30, 30, 10};
        Dataset ds = OverlayTables.create(store, allocator, 1, sizes[0]);
        int next = sizes[0];
        for (int i = 1; i < sizes.length; i++) {
            try (VectorSchemaRoot more = VectorSchemaRoot.create(OverlayTables.SCHEMA, allocator)) {
                more.allocateNew();
                for (int r = 0; r < sizes[i]; r++) {
                    ((org.apache.arrow.vector.IntVector) more.getVector("k")).setSafe(r, next++);
                }
                more.setRowCount(sizes[i]);
                Dataset appended = ds.append(List.of(more), WriteParams.of(WriteMode.APPEND));
                ds.close();
                ds = appended;
            }
        }
        try (Dataset table = ds) {
            CompactionPolicy policy = CompactionPolicy.defaults().withFragmentRules(0.1, 50, 1000);
            CompactionPlan plan = run(policy).plan();
            assertThat(plan.tasks())
                    .extracting(t -> t.group().fragmentIds())
                    .containsExactly(List.of(0L, 1L), List.of(2L, 3L, 4L), List.of(5L, 6L, 7L));
            assertThat(plan.tasks())
                    .extracting(t -> t.group().outputFragments())
                    .containsExactly(1L, 1L, 1L);
            // A byte budget below the first task still takes it, and defers everything after it.
            CompactionPlan budgeted =
                    run(policy.withBudget(Integer.MAX_VALUE, 1)).plan();
            assertThat(budgeted.tasks()).hasSize(1);
            assertThat(budgeted.skipped())
                    .hasSize(6)
                    .allSatisfy(s ->
                            assertThat(s.reason()).isEqualTo("deferred: the run's budget of 1 input bytes is used up"));
            List<String> before = OverlayTables.scan(table);
            run(policy).execute(local(), TaskExecutor.ProgressListener.NONE);
            try (Dataset after = table.checkoutLatest()) {
                assertThat(after.fragments()).extracting(Fragment::physicalRows).containsExactly(50L, 80L, 70L);
                assertThat(OverlayTables.scan(after)).isEqualTo(before);
            }
        }
    }

    @Test
    void dryRunPrintsTheGroupsAndTheBudgetDefersTheRest() throws Exception {
        try (Dataset ds = smallFragments(false)) {
            CompactionSummary summary =
                    run(TARGET_25.withBudget(3, Long.MAX_VALUE)).dryRun();
            JsonNode json = summary.toJson();
            assertThat(json.get("status").asText()).isEqualTo("dry-run");
            JsonNode plan = json.get("plan");
            assertThat(plan.get("mode").asText()).isEqualTo("fragments");
            assertThat(plan.get("readVersion").asLong()).isEqualTo(4);
            assertThat(plan.at("/policy/targetRowsPerFragment").asLong()).isEqualTo(25);
            assertThat(plan.at("/policy/minDeletedRatio").asDouble()).isEqualTo(0.1);
            assertThat(plan.get("fragmentsBefore").asLong()).isEqualTo(3);
            assertThat(plan.get("fragmentsAfter").asLong()).isEqualTo(1);
            assertThat(plan.get("tasks")).hasSize(1);
            JsonNode task = plan.get("tasks").get(0);
            assertThat(task.get("fragmentIds").toString()).isEqualTo("[0,1,2]");
            assertThat(task.get("physicalRows").asLong()).isEqualTo(30);
            assertThat(task.get("deletedRows").asLong()).isEqualTo(2);
            assertThat(task.get("liveRows").asLong()).isEqualTo(28);
            assertThat(task.get("outputFragments").asLong()).isEqualTo(1);
            assertThat(task.get("overlays").asInt()).isEqualTo(3);
            assertThat(task.get("trigger").asText())
                    .isEqualTo(
                            "materialize deletions of [1] (deleted ratio > 0.1); merge small fragments [0, 2] (< 25 rows)");
            assertThat(plan.get("skipped")).hasSize(3);
            assertThat(plan.at("/skipped/0/fragmentId").asLong()).isEqualTo(3);
            assertThat(plan.at("/skipped/0/reason").asText())
                    .isEqualTo("deferred: the run's budget of 3 fragments is used up");
            try (Dataset after = ds.checkoutLatest()) {
                assertThat(after.version()).isEqualTo(4);
            }
        }
    }

    private Set<String> listData() throws IOException {
        try (var files = Files.list(dir.resolve("data"))) {
            return new HashSet<>(files.map(p -> p.getFileName().toString()).toList());
        }
    }

    private static List<Integer> covered(IndexEntry e) throws IOException {
        RoaringBitmap b = new RoaringBitmap();
        b.deserialize(ByteBuffer.wrap(e.fragmentBitmap()));
        List<Integer> out = new ArrayList<>();
        b.forEach((int i) -> out.add(i));
        return out;
    }

    private static IndexEntry index(String name, int field, int... fragments) {
        RoaringBitmap bm = RoaringBitmap.bitmapOf(fragments);
        ByteBuffer buf = ByteBuffer.allocate(bm.serializedSizeInBytes());
        bm.serialize(buf);
        return new IndexEntry(IndexMetadata.newBuilder()
                .setUuid(lance.table.UUID.newBuilder().setUuid(com.google.protobuf.ByteString.copyFrom(new byte[16])))
                .addFields(field)
                .setName(name)
                .setDatasetVersion(1)
                .setFragmentBitmap(com.google.protobuf.ByteString.copyFrom(buf.array()))
                .build());
    }
}
