package dev.lanceflink.compactor.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.file.writer.FileWriterOptions;
import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.txn.CommitConflictException;
import dev.lanceflink.txn.CommitOptions;
import dev.lanceflink.txn.Operation;
import dev.lanceflink.txn.TableCommitter;
import dev.lanceflink.txn.Transaction;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CompactionRunTest {
    private static final CompactionPolicy TWO_OVERLAYS =
            CompactionPolicy.defaults().withMinOverlays(2).withMinOverlayBytesRatio(0);

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

    /** Two fragments of 50 rows; three UPDATE commits (versions 2..4) touching both, a fourth only fragment 1. */
    private Dataset tableWithOverlays() throws Exception {
        Dataset ds = OverlayTables.create(store, allocator, 2, 50);
        ds = OverlayTables.update(ds, new long[] {0, 1}, new int[] {1, 2, 3}, 1000);
        ds = OverlayTables.update(ds, new long[] {0, 1}, new int[] {2, 7}, 2000);
        ds = OverlayTables.update(ds, new long[] {0, 1}, new int[] {3, 40}, 3000);
        ds = OverlayTables.update(ds, new long[] {1}, new int[] {0, 49}, 4000);
        assertThat(OverlayTables.overlayCounts(ds)).containsExactly(3, 4);
        return ds;
    }

    private CompactionRun run(CompactionMode mode, CompactionPolicy policy) {
        return new CompactionRun(store, dir.toString(), mode, policy, CommitOptions.defaults(), 3);
    }

    private TaskExecutor local() {
        return new LocalTaskExecutor(store, allocator, FileWriterOptions.defaults(), 2);
    }

    @Test
    void mergeKeepsValuesAndLeavesOneOverlayPerFragmentStampedWithTheRunsLargestVersion() throws Exception {
        try (Dataset ds = tableWithOverlays()) {
            List<String> before = OverlayTables.scan(ds);
            CompactionSummary summary = run(CompactionMode.OVERLAY_MERGE, TWO_OVERLAYS)
                    .execute(local(), TaskExecutor.ProgressListener.NONE);

            assertThat(summary.status()).isEqualTo(CompactionSummary.COMMITTED);
            assertThat(summary.committedVersions()).containsExactly(6L); // one commit for the whole run
            assertThat(summary.fragmentsCompacted()).isEqualTo(2);
            assertThat(summary.overlaysBefore()).isEqualTo(7);
            assertThat(summary.overlaysAfter()).isEqualTo(2);
            try (Dataset after = ds.checkoutLatest()) {
                assertThat(after.version()).isEqualTo(6);
                assertThat(OverlayTables.scan(after)).isEqualTo(before);
                assertThat(OverlayTables.overlayCounts(after)).containsExactly(1, 1);
                assertThat(after.fragments().get(0).overlays().get(0).committedVersion())
                        .isEqualTo(4);
                assertThat(after.fragments().get(1).overlays().get(0).committedVersion())
                        .isEqualTo(5);
                // base files untouched
                for (int i = 0; i < 2; i++) {
                    assertThat(after.fragments().get(i).files())
                            .isEqualTo(ds.fragments().get(i).files());
                }
                assertThat(after.transaction().orElseThrow().properties())
                        .containsEntry(CompactionCommitter.MODE_PROPERTY, "overlay-merge")
                        .containsEntry(CompactionCommitter.READ_VERSION_PROPERTY, "5");
            }
        }
    }

    @Test
    void foldKeepsValuesAndDropsEveryOverlay() throws Exception {
        try (Dataset ds = tableWithOverlays()) {
            List<String> before = OverlayTables.scan(ds);
            CompactionSummary summary =
                    run(CompactionMode.OVERLAY_FOLD, TWO_OVERLAYS).execute(local(), TaskExecutor.ProgressListener.NONE);

            assertThat(summary.committedVersions()).containsExactly(6L); // same folded fields: one Update
            assertThat(summary.overlaysAfter()).isZero();
            try (Dataset after = ds.checkoutLatest()) {
                assertThat(OverlayTables.scan(after)).isEqualTo(before);
                assertThat(OverlayTables.overlayCounts(after)).containsExactly(0, 0);
                for (Fragment f : after.fragments()) {
                    assertThat(f.files()).hasSize(2); // old base with a, s tombstoned + new base of a, s
                }
            }
        }
    }

    @Test
    void reRunningAfterACommitIsANoOp() throws Exception {
        try (Dataset ds = tableWithOverlays()) {
            run(CompactionMode.OVERLAY_MERGE, TWO_OVERLAYS).execute(local(), TaskExecutor.ProgressListener.NONE);
            CompactionSummary again = run(CompactionMode.OVERLAY_MERGE, TWO_OVERLAYS)
                    .execute(local(), TaskExecutor.ProgressListener.NONE);
            assertThat(again.status()).isEqualTo(CompactionSummary.NOTHING_TO_DO);
            assertThat(again.committedVersions()).isEmpty();
            try (Dataset after = ds.checkoutLatest()) {
                assertThat(after.version()).isEqualTo(6);
            }
        }
    }

    @Test
    void aNonContiguousMergeIsRefused() throws Exception {
        try (Dataset ds = tableWithOverlays()) {
            Fragment f = ds.fragments().get(1);
            List<String> paths = f.overlays().stream()
                    .map(DataOverlayFile::dataFile)
                    .map(d -> d.path())
                    .toList();
            assertThatThrownBy(() ->
                            new CompactionTask(1, CompactionMode.OVERLAY_MERGE, new int[] {0, 2}, paths, 0, 0, "test"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("[0, 2] are not one contiguous run in committed_version order");
        }
    }

    @Test
    void aTaskRunAgainstAnotherVersionIsRefused() throws Exception {
        try (Dataset ds = tableWithOverlays()) {
            CompactionPlan plan =
                    run(CompactionMode.OVERLAY_MERGE, TWO_OVERLAYS).plan();
            Dataset older = ds.checkoutVersion(4);
            try (older) {
                assertThatThrownBy(() -> CompactionTaskRunner.run(
                                store, older.manifest(), plan.tasks().get(0), allocator, FileWriterOptions.defaults()))
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("plan again on this version");
            }
        }
    }

    @Test
    void aConcurrentOverlayCommitBetweenPlanAndCommitIsReplannedAndNothingIsLost() throws Exception {
        try (Dataset ds = tableWithOverlays()) {
            TaskExecutor local = local();
            // The "streaming sink": after the first round's tasks ran, it commits a new overlay to fragment 0.
            SinkBetweenTasksAndCommit racing = new SinkBetweenTasksAndCommit(local, ds, latest -> {
                OverlayTables.update(latest, new long[] {0}, new int[] {2, 9}, 5000)
                        .close();
            });
            CompactionSummary summary =
                    run(CompactionMode.OVERLAY_FOLD, TWO_OVERLAYS).execute(racing, TaskExecutor.ProgressListener.NONE);

            assertThat(racing.rounds()).isEqualTo(2);
            assertThat(summary.replannedFragments()).containsExactly(0L);
            assertThat(summary.uncompactedFragments()).isEmpty();
            assertThat(summary.committedVersions()).containsExactly(7L, 8L); // fragment 1 first, then re-planned 0
            try (Dataset after = ds.checkoutLatest()) {
                assertThat(OverlayTables.overlayCounts(after)).containsExactly(0, 0);
                List<String> rows = OverlayTables.scan(after);
                assertThat(rows.get(2)).isEqualTo("2|5002|u5000"); // the concurrent update survived the fold
                assertThat(rows.get(9)).isEqualTo("9|5009|null");
                assertThat(rows.get(3)).isEqualTo("3|3003|null");
                assertThat(rows.get(50)).isEqualTo("50|4000|u4000");
            }
        }
    }

    @Test
    void dryRunPrintsThePlanAndCommitsNothing() throws Exception {
        try (Dataset ds = tableWithOverlays()) {
            CompactionSummary summary = run(CompactionMode.OVERLAY_MERGE, TWO_OVERLAYS.withBudget(1, Long.MAX_VALUE))
                    .dryRun();
            JsonNode json = summary.toJson();
            assertThat(json.get("status").asText()).isEqualTo("dry-run");
            JsonNode plan = json.get("plan");
            assertThat(plan.get("mode").asText()).isEqualTo("overlay-merge");
            assertThat(plan.get("readVersion").asLong()).isEqualTo(5);
            assertThat(plan.get("tasks")).hasSize(1);
            JsonNode task = plan.get("tasks").get(0);
            assertThat(task.get("fragmentId").asLong()).isEqualTo(1); // most overlays first
            assertThat(task.get("positions").toString()).isEqualTo("[0,1,2,3]");
            assertThat(task.get("overlaysAfter").asInt()).isEqualTo(1);
            assertThat(task.get("trigger").asText()).isEqualTo("overlays 4 >= 2");
            assertThat(plan.get("skipped").get(0).get("fragmentId").asLong()).isZero();
            assertThat(plan.get("skipped").get(0).get("reason").asText())
                    .isEqualTo("deferred: the run's budget of 1 fragments is used up");
            try (Dataset after = ds.checkoutLatest()) {
                assertThat(after.version()).isEqualTo(5);
            }
        }
    }

    @Test
    void fragmentsBelowTheThresholdAreNotPlannedAndSayWhy() throws Exception {
        try (Dataset ds = tableWithOverlays()) {
            CompactionPlan plan = run(CompactionMode.OVERLAY_MERGE, TWO_OVERLAYS.withMinOverlays(4))
                    .plan();
            assertThat(plan.readVersion()).isEqualTo(ds.version());
            assertThat(plan.tasks()).extracting(CompactionTask::fragmentId).containsExactly(1L);
            assertThat(plan.skipped()).singleElement().satisfies(s -> {
                assertThat(s.fragmentId()).isZero();
                assertThat(s.reason()).startsWith("no trigger fired: 3 overlays");
            });
            assertThat(plan.overlaysFound()).isEqualTo(plan.overlaysBefore() + 3);
        }
    }

    @Test
    void aConcurrentOverlayOnAnotherFragmentIsKeptByTheMerge() throws Exception {
        try (Dataset ds = tableWithOverlays()) {
            TaskExecutor local = local();
            TaskExecutor racing = (plan, progress) -> {
                List<TaskResult> results = local.execute(plan, progress);
                try (Dataset latest = ds.checkoutLatest()) {
                    OverlayTables.update(latest, new long[] {0}, new int[] {4}, 6000)
                            .close();
                } catch (Exception e) {
                    throw new java.io.IOException(e);
                }
                return results;
            };
            // Only fragment 1 (4 overlays) is planned; fragment 0 receives a fourth overlay meanwhile.
            CompactionSummary summary = run(CompactionMode.OVERLAY_MERGE, TWO_OVERLAYS.withMinOverlays(4))
                    .execute(racing, TaskExecutor.ProgressListener.NONE);

            assertThat(summary.replannedFragments()).isEmpty();
            assertThat(summary.committedVersions()).containsExactly(7L);
            try (Dataset after = ds.checkoutLatest()) {
                assertThat(OverlayTables.overlayCounts(after)).containsExactly(4, 1);
                assertThat(OverlayTables.scan(after).get(4)).isEqualTo("4|6004|u6000");
            }
        }
    }

    @Test
    void aMergeResultCarriesOnlyItsFragmentAndTheCommitKeepsEveryFragment() throws Exception {
        try (Dataset ds = tableWithOverlays()) {
            List<String> before = OverlayTables.scan(ds);
            CompactionPlan plan = run(CompactionMode.OVERLAY_MERGE, TWO_OVERLAYS.withMinOverlays(4))
                    .plan();
            List<TaskResult> results = local().execute(plan, TaskExecutor.ProgressListener.NONE);

            // The staged Merge lists the whole table; the result keeps the task's fragment only
            // (its size must not grow with the table), merged to one overlay.
            assertThat(results).singleElement().satisfies(r -> {
                Operation.Merge m = (Operation.Merge) r.staged().operation();
                assertThat(m.fragments()).extracting(Fragment::id).containsExactly(1L);
                assertThat(m.fragments().get(0).overlays()).hasSize(1);
                assertThat(r.output().bytes()).isPositive();
            });
            CommitReport report =
                    CompactionCommitter.commit(store, results, java.util.Map.of(), CommitOptions.defaults());
            assertThat(report.committedVersions()).containsExactly(6L);
            try (Dataset after = ds.checkoutLatest()) {
                assertThat(after.fragments()).extracting(Fragment::id).containsExactly(0L, 1L);
                assertThat(OverlayTables.overlayCounts(after)).containsExactly(3, 1);
                assertThat(OverlayTables.scan(after)).isEqualTo(before);
            }
        }
    }

    @Test
    void aRunPlannedOnAManifestTheCallerReadCarriesOverWhatWasCommittedSince() throws Exception {
        try (Dataset ds = tableWithOverlays()) {
            // The caller read version 5; an overlay on fragment 0 lands as version 6 before the run.
            try (Dataset latest = ds.checkoutLatest()) {
                OverlayTables.update(latest, new long[] {0}, new int[] {4}, 6000)
                        .close();
            }
            CompactionSummary summary = run(CompactionMode.OVERLAY_MERGE, TWO_OVERLAYS)
                    .execute(local(), TaskExecutor.ProgressListener.NONE, ds.manifest());

            assertThat(summary.plan().readVersion()).isEqualTo(5L);
            assertThat(summary.fragmentsCompacted()).isEqualTo(2);
            assertThat(summary.committedVersions()).containsExactly(7L);
            try (Dataset after = ds.checkoutLatest()) {
                // Fragment 0: its three overlays merged, the newer one kept after the merged one.
                assertThat(OverlayTables.overlayCounts(after)).containsExactly(2, 1);
                try (Dataset v6 = ds.checkoutVersion(6)) {
                    assertThat(OverlayTables.scan(after)).isEqualTo(OverlayTables.scan(v6));
                }
                assertThat(OverlayTables.scan(after).get(4)).isEqualTo("4|6004|u6000");
            }
        }
    }

    @Test
    void theLocalExecutorRefusesAManifestOfAnotherVersionThanThePlans() throws Exception {
        try (Dataset ds = tableWithOverlays()) {
            CompactionPlan plan =
                    run(CompactionMode.OVERLAY_MERGE, TWO_OVERLAYS).plan();
            try (Dataset older = ds.checkoutVersion(ds.version() - 1)) {
                assertThatThrownBy(() -> local().execute(plan, older.manifest(), TaskExecutor.ProgressListener.NONE))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("made on version " + ds.version());
            }
            List<TaskResult> results = local().execute(plan, ds.manifest(), TaskExecutor.ProgressListener.NONE);
            assertThat(results).hasSize(2);
            results.forEach(r -> {
                try {
                    r.staged().discard(store);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
        }
    }

    @Test
    void theBytesRatioAndVersionGapTriggersSelectFragments() throws Exception {
        try (Dataset ds = tableWithOverlays()) {
            CompactionPolicy gapOnly = new CompactionPolicy(0, 0, 3, Integer.MAX_VALUE, Long.MAX_VALUE);
            CompactionPlan byGap = run(CompactionMode.OVERLAY_FOLD, gapOnly).plan();
            // version 5: fragment 0's oldest overlay is from version 2 (gap 3), fragment 1's too
            assertThat(byGap.tasks()).extracting(CompactionTask::fragmentId).containsExactlyInAnyOrder(0L, 1L);
            assertThat(byGap.tasks().get(0).trigger())
                    .isEqualTo("oldest overlay committed at version 2, 3 >= 3" + " versions ago");
            CompactionPlan noGap = run(CompactionMode.OVERLAY_FOLD, gapOnly.withMinVersionGap(4))
                    .plan();
            assertThat(noGap.tasks()).isEmpty();

            Fragment f1 = ds.fragments().get(1);
            long overlayBytes = f1.overlays().stream()
                    .mapToLong(o -> o.dataFile().fileSizeBytes())
                    .sum();
            long baseBytes =
                    f1.files().stream().mapToLong(d -> d.fileSizeBytes()).sum();
            double ratio = (double) overlayBytes / baseBytes;
            CompactionPlan byBytes = run(
                            CompactionMode.OVERLAY_FOLD,
                            new CompactionPolicy(0, ratio, 0, Integer.MAX_VALUE, Long.MAX_VALUE))
                    .plan();
            assertThat(byBytes.tasks()).extracting(CompactionTask::fragmentId).containsExactly(1L);
            assertThat(byBytes.tasks().get(0).overlayBytes()).isEqualTo(overlayBytes);
        }
    }

    @Test
    void theByteBudgetDefersWorkButAlwaysTakesOneFragment() throws Exception {
        try (Dataset ds = tableWithOverlays()) {
            CompactionPlan plan = run(CompactionMode.OVERLAY_MERGE, TWO_OVERLAYS.withBudget(10, 1))
                    .plan();
            assertThat(plan.readVersion()).isEqualTo(ds.version());
            assertThat(plan.tasks()).extracting(CompactionTask::fragmentId).containsExactly(1L);
            assertThat(plan.skipped())
                    .containsExactly(new SkippedFragment(0, "deferred: the run's budget of 1 input bytes is used up"));
        }
    }

    @Test
    void aFailedTaskCommitsNothingAndLeavesNoStagedFiles() throws Exception {
        try (Dataset ds = tableWithOverlays()) {
            // Break fragment 0: its newest overlay file disappears, so its task fails while fragment 1's succeeds.
            String broken = ds.fragments().get(0).overlays().get(2).dataFile().rootRelativePath();
            store.delete(broken);
            List<String> dataBefore = listData();
            assertThatThrownBy(() -> run(CompactionMode.OVERLAY_MERGE, TWO_OVERLAYS)
                            .execute(local(), TaskExecutor.ProgressListener.NONE))
                    .isInstanceOf(java.io.IOException.class);
            try (Dataset after = ds.checkoutLatest()) {
                assertThat(after.version()).isEqualTo(5);
            }
            assertThat(listData()).isEqualTo(dataBefore);
        }
    }

    /**
     * The model of the table after the sink's changes: {@code rows} (k|a|s in scan order) with the
     * keys of {@code deleted} gone and {@code OverlayTables.update}'s values at {@code updated}.
     */
    private static List<String> model(List<String> rows, Set<Integer> deleted, Set<Integer> updated, long value) {
        List<String> out = new ArrayList<>();
        for (String r : rows) {
            int k = Integer.parseInt(r.substring(0, r.indexOf('|')));
            if (deleted.contains(k)) {
                continue;
            }
            int offset = k % 50;
            out.add(
                    updated.contains(k)
                            ? k + "|" + (value + offset) + "|" + (offset % 2 == 0 ? "u" + value : "null")
                            : r);
        }
        return out;
    }

    @Test
    void aMergeIsCarriedOverAConcurrentDeleteAndANewerOverlayInOneRound() throws Exception {
        try (Dataset ds = tableWithOverlays()) {
            List<String> before = OverlayTables.scan(ds);
            // Keys 2 and 40 are overlaid in fragment 0, 99 (fragment 1 offset 49) too: the merged overlay
            // holds values for them, which must not bring them back.
            SinkBetweenTasksAndCommit racing = new SinkBetweenTasksAndCommit(local(), ds, latest -> {
                try (Dataset deleted = latest.deleteRows(new long[] {2, 40, 1L << 32 | 49})) {
                    OverlayTables.update(deleted, new long[] {0, 1}, new int[] {3, 8}, 8000)
                            .close();
                }
            });
            CompactionSummary summary =
                    run(CompactionMode.OVERLAY_MERGE, TWO_OVERLAYS).execute(racing, TaskExecutor.ProgressListener.NONE);

            assertThat(racing.rounds()).as("one planning round").isEqualTo(1);
            assertThat(summary.replannedFragments()).isEmpty();
            assertThat(summary.uncompactedFragments()).isEmpty();
            assertThat(summary.committedVersions()).containsExactly(8L); // delete = 6, overlay = 7
            List<String> expected = model(before, Set.of(2, 40, 99), Set.of(3, 8, 53, 58), 8000);
            try (Dataset sinkOnly = ds.checkoutVersion(7);
                    Dataset after = ds.checkoutLatest()) {
                assertThat(OverlayTables.scan(sinkOnly)).isEqualTo(expected);
                assertThat(OverlayTables.scan(after)).isEqualTo(expected);
                assertThat(OverlayTables.overlayCounts(after)).containsExactly(2, 2);
                for (int i = 0; i < 2; i++) {
                    Fragment now = after.fragments().get(i);
                    Fragment sink = sinkOnly.fragments().get(i);
                    assertThat(now.overlays())
                            .extracting(DataOverlayFile::committedVersion)
                            .containsExactly(i == 0 ? 4L : 5L, 7L);
                    assertThat(now.overlays().get(1))
                            .isEqualTo(sink.overlays().get(sink.overlays().size() - 1));
                    assertThat(now.deletionFile()).isEqualTo(sink.deletionFile());
                    assertThat(now.files()).isEqualTo(sink.files());
                }
            }
        }
    }

    @Test
    void aFoldIsCarriedOverAConcurrentDeleteAndANewerOverlayOnAnotherField() throws Exception {
        try (Dataset ds = tableWithOverlays()) {
            List<String> before = OverlayTables.scan(ds);
            // The sink's newer overlay sets k only; the fold rewrites a and s, so the overlay stays valid.
            SinkBetweenTasksAndCommit racing = new SinkBetweenTasksAndCommit(local(), ds, latest -> {
                try (Dataset deleted = latest.deleteRows(new long[] {2});
                        IntVector k = new IntVector("k", latest.allocator())) {
                    k.allocateNew(1);
                    k.set(0, 1007);
                    k.setValueCount(1);
                    try (VectorSchemaRoot values = new VectorSchemaRoot(new ArrayList<>(List.of(k)))) {
                        values.setRowCount(1);
                        deleted.update(new long[] {7}, values).close();
                    }
                }
            });
            CompactionSummary summary =
                    run(CompactionMode.OVERLAY_FOLD, TWO_OVERLAYS).execute(racing, TaskExecutor.ProgressListener.NONE);

            assertThat(racing.rounds()).isEqualTo(1);
            assertThat(summary.replannedFragments()).isEmpty();
            assertThat(summary.committedVersions()).containsExactly(8L);
            List<String> expected = new ArrayList<>(model(before, Set.of(2), Set.of(), 0));
            expected.set(6, "1007" + expected.get(6).substring(1)); // k 7 is the 7th row once k 2 is gone
            try (Dataset sinkOnly = ds.checkoutVersion(7);
                    Dataset after = ds.checkoutLatest()) {
                assertThat(OverlayTables.scan(sinkOnly)).isEqualTo(expected);
                assertThat(OverlayTables.scan(after)).isEqualTo(expected);
                Fragment f0 = after.fragments().get(0);
                assertThat(f0.overlays())
                        .singleElement()
                        .isEqualTo(sinkOnly.fragments().get(0).overlays().get(3));
                assertThat(f0.overlays().get(0).dataFile().fields()).containsExactly(0);
                assertThat(f0.deletionFile())
                        .isEqualTo(sinkOnly.fragments().get(0).deletionFile());
                assertThat(OverlayTables.overlayCounts(after)).containsExactly(1, 0);
            }
        }
    }

    @Test
    void aSinkDeleteLosingToAnOverlayMergeIsToldItWasACompaction() throws Exception {
        try (Dataset ds = tableWithOverlays()) {
            run(CompactionMode.OVERLAY_MERGE, TWO_OVERLAYS).execute(local(), TaskExecutor.ProgressListener.NONE);
            // A delete computed on version 5, before the compaction committed version 6.
            Transaction delete = Transaction.of(5, new Operation.Delete(List.of(), List.of(0L), "k < 50"));
            assertThatThrownBy(() -> TableCommitter.commit(store, delete, CommitOptions.defaults()))
                    .isInstanceOf(CommitConflictException.class)
                    .satisfies(e -> assertThat(((CommitConflictException) e).isRetryable())
                            .isTrue())
                    .hasMessageContaining("Delete conflicts with a concurrent Merge: it was an overlay-merge compaction"
                            + " by the lance-flink compactor (planned on version 5), committed as a Merge of the"
                            + " complete fragment list; of the fragments this Delete changes, it carried fragment(s)"
                            + " [0] along. A Delete is never rebased over a Merge")
                    .hasMessageContaining(
                            "committed as version 6). Re-read the table, redo the change and commit" + " again.");
        }
    }

    private List<String> listData() throws java.io.IOException {
        try (var files = java.nio.file.Files.list(dir.resolve("data"))) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }
}
