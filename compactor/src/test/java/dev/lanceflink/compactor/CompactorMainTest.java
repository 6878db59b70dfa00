package dev.lanceflink.compactor;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lanceflink.compactor.core.MaintenanceLease;
import dev.lanceflink.compactor.core.OverlayTables;
import dev.lanceflink.compactor.core.SinkBetweenTasksAndCommit;
import dev.lanceflink.compactor.core.TaskExecutor;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.rowid.FragmentRowIds;
import dev.lanceflink.table.Fragment;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The CLI end to end with the threads engine, dry runs and usage errors: no Flink job (those are {@link CompactorMainITCase}). */
class CompactorMainTest extends CompactorRuns {
    @TempDir
    Path dir;

    @Test
    void aRunTakesTheMaintenanceLeaseAndChangesNothingWhileAnotherMaintainerHoldsIt() throws Exception {
        try (BufferAllocator allocator = new RootAllocator();
                ObjectStore store = new LocalObjectStore(dir)) {
            Dataset ds = OverlayTables.create(store, allocator, 2, 20);
            ds = OverlayTables.update(ds, new long[] {0, 1}, new int[] {0, 5}, 7000);
            ds = OverlayTables.update(ds, new long[] {0, 1}, new int[] {0, 5}, 8000);
            try (Dataset before = ds) {
                MaintenanceLease sink = new MaintenanceLease(
                        store, "flink sink orders of job 1", Duration.ofHours(1), Clock.systemUTC());
                assertThat(sink.acquire().acquired()).isTrue();

                assertThat(run(dir.toString(), "--mode", "overlay-merge", "--engine", "threads"))
                        .isEqualTo(1);
                JsonNode s = summary();
                assertThat(s.get("status").asText()).isEqualTo("lease-held");
                assertThat(s.get("error").asText()).contains("held by flink sink orders of job 1 until");
                out.reset();
                assertThat(run(dir.toString(), "--mode", "cleanup", "--older-than", "0"))
                        .isEqualTo(1);
                assertThat(summary().get("status").asText()).isEqualTo("lease-held");
                try (Dataset after = before.checkoutLatest()) {
                    assertThat(after.version()).isEqualTo(before.version());
                    assertThat(after.versions()).hasSize((int) before.version());
                }
                out.reset();
                assertThat(run(dir.toString(), "--mode", "overlay-merge", "--dry-run"))
                        .as("a dry run needs no lease")
                        .isZero();

                sink.release();
                out.reset();
                assertThat(run(dir.toString(), "--mode", "overlay-merge", "--engine", "threads"))
                        .as(err.toString(StandardCharsets.UTF_8))
                        .isZero();
                assertThat(summary().get("status").asText()).isEqualTo("committed");
                // The run released the lease again: the sink takes it at once.
                MaintenanceLease.Holder last = sink.current().orElseThrow();
                assertThat(last.released()).isTrue();
                assertThat(last.owner()).startsWith("lance-flink compact --mode overlay-merge");
                assertThat(sink.acquire().acquired()).isTrue();
            }
        }
    }

    @Test
    void threadsEngineFoldsWithoutFlink() throws Exception {
        try (BufferAllocator allocator = new RootAllocator();
                ObjectStore store = new LocalObjectStore(dir)) {
            Dataset ds = OverlayTables.create(store, allocator, 2, 20);
            ds = OverlayTables.update(ds, new long[] {0, 1}, new int[] {0, 5}, 7000);
            try (Dataset before = ds) {
                List<String> rows = OverlayTables.scan(before);
                assertThat(run(dir.toString(), "--mode", "overlay-fold", "--min-overlays", "1", "--engine", "threads"))
                        .isZero();
                assertThat(summary().get("committedVersions").toString()).isEqualTo("[3]");
                try (Dataset after = before.checkoutLatest()) {
                    assertThat(OverlayTables.scan(after)).isEqualTo(rows);
                    assertThat(OverlayTables.overlayCounts(after)).containsExactly(0, 0);
                }
            }
        }
    }

    @Test
    void anExplicitFoldWithoutTriggersFoldsEveryOverlayAndTheSummarySaysWhatItFound() throws Exception {
        try (BufferAllocator allocator = new RootAllocator();
                ObjectStore store = new LocalObjectStore(dir)) {
            Dataset ds = OverlayTables.create(store, allocator, 2, 20);
            ds = OverlayTables.update(ds, new long[] {1}, new int[] {3}, 99);
            try (Dataset before = ds) {
                List<String> rows = OverlayTables.scan(before);
                // One overlay: below every default trigger, yet asked for by name.
                assertThat(run(dir.toString(), "--mode", "overlay-merge", "--engine", "threads"))
                        .isZero();
                JsonNode merge = summary();
                assertThat(merge.get("status").asText()).isEqualTo("nothing-to-do");
                assertThat(merge.get("overlaysFound").asInt()).isEqualTo(1);
                assertThat(merge.at("/skipped/0/fragmentId").asLong()).isEqualTo(1);
                assertThat(merge.at("/skipped/0/reason").asText()).isEqualTo("one overlay: nothing to merge");
                out.reset();
                assertThat(run(dir.toString(), "--mode", "overlay-fold", "--engine", "threads"))
                        .isZero();
                JsonNode fold = summary();
                assertThat(fold.get("status").asText()).isEqualTo("committed");
                assertThat(fold.get("overlaysFound").asInt()).isEqualTo(1);
                assertThat(fold.get("overlaysBefore").asInt()).isEqualTo(1);
                assertThat(fold.get("overlaysAfter").asInt()).isZero();
                try (Dataset after = before.checkoutLatest()) {
                    assertThat(OverlayTables.scan(after)).isEqualTo(rows);
                    assertThat(OverlayTables.overlayCounts(after)).containsExactly(0, 0);
                }
                out.reset();
                // Triggers named: the defaults of the others apply, and the fragment is skipped with the reason.
                ds = OverlayTables.update(before.checkoutLatest(), new long[] {0}, new int[] {2}, 7);
                ds.close();
                assertThat(run(
                                dir.toString(),
                                "--mode",
                                "overlay-fold",
                                "--min-overlays",
                                "5",
                                "--min-overlay-bytes-ratio",
                                "0",
                                "--engine",
                                "threads"))
                        .isZero();
                JsonNode skipped = summary();
                assertThat(skipped.get("status").asText()).isEqualTo("nothing-to-do");
                assertThat(skipped.at("/skipped/0/reason").asText()).startsWith("no trigger fired: 1 overlays");
            }
        }
    }

    @Test
    void usageErrorsPrintOneJsonErrorLineOnStdout() throws Exception {
        assertThat(run(dir.toString(), "--mode", "bogus")).isEqualTo(2);
        JsonNode error = summary();
        assertThat(error.get("error").asText()).startsWith("Unknown compaction mode 'bogus'");
    }

    @Test
    void dryRunPrintsThePlanJson() throws Exception {
        try (BufferAllocator allocator = new RootAllocator();
                ObjectStore store = new LocalObjectStore(dir)) {
            Dataset ds = OverlayTables.create(store, allocator, 1, 10);
            ds = OverlayTables.update(ds, new long[] {0}, new int[] {1}, 1);
            ds = OverlayTables.update(ds, new long[] {0}, new int[] {2}, 2);
            ds.close();
            assertThat(run(dir.toString(), "--mode", "overlay-merge", "--min-overlays", "2", "--dry-run"))
                    .isZero();
            JsonNode s = summary();
            assertThat(s.get("status").asText()).isEqualTo("dry-run");
            assertThat(s.at("/plan/tasks/0/fragmentId").asLong()).isZero();
            assertThat(s.at("/plan/tasks/0/positions").toString()).isEqualTo("[0,1]");
            assertThat(s.at("/plan/overlaysAfter").asInt()).isEqualTo(1);
        }
    }

    @Test
    void usageErrorsExitWithTwoAndSayWhatIsWrong() {
        assertThat(run(dir.toString())).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("Missing --mode (overlay-merge, overlay-fold, fragments or cleanup)");
        err.reset();
        assertThat(run(dir.toString(), "--mode", "bogus")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("Unknown compaction mode 'bogus'; expected one of"
                        + " overlay-merge, overlay-fold, fragments, or cleanup");
        err.reset();
        assertThat(run(dir.toString(), "--mode", "overlay-fold", "--target-rows-per-fragment", "10"))
                .isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("Option(s) [--target-rows-per-fragment] apply only to --mode fragments");
        err.reset();
        assertThat(run(dir.toString(), "--mode", "overlay-merge", "--replan-concurrent-changes"))
                .isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("Option(s) [--replan-concurrent-changes] apply only to --mode fragments");
        err.reset();
        assertThat(run(dir.toString(), "--mode", "fragments", "--older-than", "7d"))
                .isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("Option(s) [--older-than] apply only to --mode cleanup");
        err.reset();
        assertThat(run(dir.toString(), "--mode", "cleanup", "--grace", "3x")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("Option --grace: '3x' is not a duration; use a whole"
                        + " number with a unit d, h, m or s (7d, 12h, 30m, 45s), 0, or an ISO-8601 duration (PT90M)");
        err.reset();
        assertThat(run(dir.toString(), "--mode", "cleanup", "--retain-versions", "0"))
                .isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--retain-versions must be >= 1");
        err.reset();
        assertThat(run(dir.toString(), "--mode", "fragments", "--target-rows-per-fragment", "0"))
                .isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("targetRowsPerFragment must be >= 1, got 0");
        err.reset();
        assertThat(run(dir.toString(), "--mode", "overlay-fold", "--max-fragments", "x"))
                .isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("Option --max-fragments expects a whole number, got 'x'");
        err.reset();
        assertThat(run(
                        dir.toString(),
                        "--mode",
                        "overlay-fold",
                        "--min-overlays",
                        "0",
                        "--min-overlay-bytes-ratio",
                        "0"))
                .isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("At least one trigger");
    }

    @Test
    void optionsOfFragmentsAndCleanupAreParsed() {
        CompactorOptions f = CompactorOptions.parse(new String[] {
            "compact", "t", "--mode", "fragments", "--min-deleted-ratio", "0.25", "--target-rows-per-fragment", "5000"
        });
        assertThat(f.modeName()).isEqualTo("fragments");
        assertThat(f.cleanup()).isNull();
        assertThat(f.policy().minDeletedRatio()).isEqualTo(0.25);
        assertThat(f.policy().targetRowsPerFragment()).isEqualTo(5000);
        assertThat(f.policy().smallFragmentRows()).isEqualTo(5000); // defaults to the target
        assertThat(f.carryConcurrentChanges()).as("carried by default").isTrue();
        assertThat(CompactorOptions.parse(new String[] {"t", "--mode", "fragments", "--replan-concurrent-changes"})
                        .carryConcurrentChanges())
                .isFalse();
        CompactorOptions c = CompactorOptions.parse(new String[] {
            "t",
            "--mode",
            "cleanup",
            "--older-than",
            "12h",
            "--retain-versions",
            "3",
            "--grace",
            "30m",
            "--release-commit-user",
            "a",
            "--release-commit-user",
            "b"
        });
        assertThat(c.mode()).isNull();
        assertThat(c.modeName()).isEqualTo("cleanup");
        assertThat(c.cleanup())
                .isEqualTo(new CleanupSettings(
                        java.time.Duration.ofHours(12),
                        3,
                        java.time.Duration.ofMinutes(30),
                        java.util.Set.of("a", "b")));
        var policy = c.cleanup().toPolicy(java.time.Instant.EPOCH);
        assertThat(policy.markerPropertyKey()).isEqualTo("flink.commit-user");
        assertThat(policy.releasedMarkerValues()).containsExactlyInAnyOrder("a", "b");
        assertThat(CompactorOptions.parse(new String[] {"t", "--mode", "cleanup"})
                        .cleanup())
                .isEqualTo(new CleanupSettings(
                        java.time.Duration.ofDays(7), 1, java.time.Duration.ofHours(1), java.util.Set.of()));
        assertThat(CleanupSettings.parseDuration("0")).isZero();
        assertThat(CleanupSettings.parseDuration("45s")).hasSeconds(45);
        assertThat(CleanupSettings.parseDuration("PT90M")).hasMinutes(90);
    }

    /**
     * Issue #15, the standalone job: {@code compact --mode fragments} beside a streaming sink that
     * overlays and deletes rows of the very fragments being rewritten, committing after the run's
     * tasks read them and before its commit (three commits: overlays, deletions, overlays). By
     * default the run carries the sink's changes to the new fragments and lands in one attempt,
     * without a re-plan; with stable row ids too, where every row also keeps its {@code _rowid}.
     * With {@code --replan-concurrent-changes} both groups go stale and are planned again. Either
     * way the table equals, cell by cell, the table the sink left.
     */
    @ParameterizedTest(name = "stable row ids: {0}, --replan-concurrent-changes: {1}")
    @CsvSource({"false, false", "true, false", "false, true"})
    void fragmentsBesideASinkChangingTheSameFragmentsLandCarryingItsChanges(boolean stableRowIds, boolean replan)
            throws Exception {
        try (BufferAllocator allocator = new RootAllocator();
                ObjectStore store = new LocalObjectStore(dir)) {
            // Six fragments of 10 rows (k = row number = stable row id), with overlays and deletions: version 4.
            Dataset ds = OverlayTables.create(store, allocator, 6, 10, stableRowIds);
            ds = OverlayTables.update(ds, new long[] {0, 2}, new int[] {1, 4}, 7000);
            ds = ds.deleteRows(new long[] {1L << 32 | 3, 1L << 32 | 4, 4L << 32, 4L << 32 | 9});
            ds = OverlayTables.update(ds, new long[] {1}, new int[] {5}, 8000);
            try (Dataset before = ds) {
                SinkBetweenTasksAndCommit[] racing = new SinkBetweenTasksAndCommit[1];
                UnaryOperator<TaskExecutor> besideSink =
                        engine -> racing[0] = new SinkBetweenTasksAndCommit(engine, before, latest -> {
                            Dataset d = OverlayTables.update(latest, new long[] {0, 4}, new int[] {1, 2}, 9000);
                            d = d.deleteRows(new long[] {0L << 32 | 6, 2L << 32 | 4, 5L << 32 | 7, 3L << 32});
                            d = OverlayTables.update(d, new long[] {1, 3}, new int[] {8}, 9900);
                            d.close();
                        });
                List<String> args = new ArrayList<>(List.of(
                        dir.toString(),
                        "--mode",
                        "fragments",
                        "--target-rows-per-fragment",
                        "25",
                        "--engine",
                        "threads"));
                if (replan) {
                    args.add("--replan-concurrent-changes");
                }
                int code = CompactorMain.run(
                        args.toArray(String[]::new),
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8),
                        besideSink);
                assertThat(code).as(err.toString(StandardCharsets.UTF_8)).isZero();
                List<String> model; // the table the run planned on, with the sink's changes: version 7
                Map<Integer, Long> modelRowIds = null;
                try (Dataset sinkLeftIt = before.checkoutVersion(7)) {
                    model = OverlayTables.scanByKey(sinkLeftIt);
                    if (stableRowIds) {
                        modelRowIds = rowIdsByKey(store, sinkLeftIt);
                    }
                }

                JsonNode s = summary();
                assertThat(s.get("status").asText()).isEqualTo("committed");
                assertThat(s.get("planVersion").asLong()).isEqualTo(4);
                assertThat(s.get("fragmentsCompacted").asInt()).isEqualTo(6);
                // both groups in one Rewrite right after the sink's commits, in either case
                assertThat(s.get("committedVersions").toString()).isEqualTo("[8]");
                assertThat(s.get("uncompactedFragments")).isEmpty();
                try (Dataset after = before.checkoutLatest()) {
                    assertThat(after.version()).isEqualTo(8);
                    assertThat(after.fragments()).extracting(Fragment::id).containsExactly(6L, 7L);
                    List<String> rows = OverlayTables.scanByKey(after);
                    assertThat(rows).isEqualTo(model);
                    assertThat(rows)
                            .hasSize(52)
                            .contains("1|9001|null", "42|9002|u9000", "18|9908|u9900", "38|9908|u9900")
                            .noneMatch(r -> r.startsWith("6|")
                                    || r.startsWith("24|")
                                    || r.startsWith("57|")
                                    || r.startsWith("30|"));
                    if (replan) {
                        assertThat(racing[0].rounds()).isEqualTo(2);
                        List<Long> replanned = new ArrayList<>();
                        s.get("replannedFragments").forEach(n -> replanned.add(n.asLong()));
                        assertThat(replanned).containsExactlyInAnyOrder(0L, 1L, 2L, 3L, 4L, 5L);
                        // planned again on version 7: the sink's changes materialized
                        assertThat(OverlayTables.overlayCounts(after)).containsExactly(0, 0);
                        assertThat(after.fragments())
                                .allSatisfy(f -> assertThat(f.deletionFile()).isNull());
                        assertThat(s.get("carriedDeletions").asLong()).isZero();
                        assertThat(s.get("carriedOverlays").asLong()).isZero();
                    } else {
                        assertThat(racing[0].rounds()).as("one attempt").isEqualTo(1);
                        assertThat(s.get("replannedFragments")).isEmpty();
                        // carried: each new fragment has the sink's overlays of its group as one
                        // relocated overlay and the sink's deletions in its deletion file
                        assertThat(OverlayTables.overlayCounts(after)).containsExactly(1, 1);
                        assertThat(after.fragments())
                                .allSatisfy(f -> assertThat(f.deletionFile()).isNotNull());
                        assertThat(after.fragments())
                                .extracting(Fragment::physicalRows)
                                .containsExactly(28L, 28L);
                        // k 6, 24, 57 and 30; the sink's overlays of fragments 0 and 4, then 1 and 3
                        assertThat(s.get("carriedDeletions").asLong()).isEqualTo(4);
                        assertThat(s.get("carriedOverlays").asLong()).isEqualTo(4);
                    }
                    if (stableRowIds) {
                        Map<Integer, Long> rowIds = rowIdsByKey(store, after);
                        assertThat(rowIds).isEqualTo(modelRowIds).hasSize(52);
                        rowIds.forEach((k, id) -> assertThat(id).isEqualTo((long) k));
                    }
                }
            }
        }
    }

    /** The stable row id ({@code _rowid}) of every live row, by key k. */
    private static Map<Integer, Long> rowIdsByKey(ObjectStore store, Dataset ds) throws Exception {
        Map<Long, long[]> ids = new HashMap<>();
        for (Fragment f : ds.fragments()) {
            ids.put(f.id(), FragmentRowIds.load(store, f));
        }
        Map<Integer, Long> out = new TreeMap<>();
        OverlayTables.addressesByKey(ds).forEach((k, a) -> out.put(k, ids.get(a >>> 32)[(int) (long) a]));
        return out;
    }

    @Test
    void fragmentsDryRunPrintsTheGroupsAndChangesNothing() throws Exception {
        try (BufferAllocator allocator = new RootAllocator();
                ObjectStore store = new LocalObjectStore(dir)) {
            OverlayTables.create(store, allocator, 4, 10).close();
            assertThat(run(dir.toString(), "--mode", "fragments", "--target-rows-per-fragment", "100", "--dry-run"))
                    .isZero();
            JsonNode s = summary();
            assertThat(s.get("status").asText()).isEqualTo("dry-run");
            assertThat(s.at("/plan/tasks/0/fragmentIds").toString()).isEqualTo("[0,1,2,3]");
            assertThat(s.at("/plan/tasks/0/trigger").asText())
                    .isEqualTo("merge small fragments [0, 1, 2, 3] (< 100 rows)");
            assertThat(s.at("/plan/fragmentsAfter").asInt()).isEqualTo(1);
            try (Dataset after = Dataset.open(store, allocator)) {
                assertThat(after.version()).isEqualTo(1);
            }
        }
    }

    @Test
    void cleanupPrintsItsPlanOnDryRunThenRemovesOldVersions() throws Exception {
        try (BufferAllocator allocator = new RootAllocator();
                ObjectStore store = new LocalObjectStore(dir)) {
            Dataset ds = OverlayTables.create(store, allocator, 2, 10);
            ds = OverlayTables.update(ds, new long[] {0}, new int[] {1}, 10);
            ds = OverlayTables.update(ds, new long[] {1}, new int[] {2}, 20);
            try (Dataset before = ds) {
                List<String> rows = OverlayTables.scan(before);
                assertThat(run(dir.toString(), "--mode", "cleanup", "--older-than", "0", "--grace", "0", "--dry-run"))
                        .as(err.toString(StandardCharsets.UTF_8))
                        .isZero();
                JsonNode plan = summary();
                assertThat(plan.get("status").asText()).isEqualTo("dry-run");
                assertThat(plan.get("mode").asText()).isEqualTo("cleanup");
                assertThat(plan.at("/plan/totals/versionsToRemove").asInt()).isEqualTo(2);
                assertThat(plan.at("/plan/policy/markerPropertyKey").asText()).isEqualTo("flink.commit-user");
                assertThat(manifests()).hasSize(3);

                out.reset();
                assertThat(run(dir.toString(), "--mode", "cleanup", "--older-than", "0", "--grace", "0"))
                        .as(err.toString(StandardCharsets.UTF_8))
                        .isZero();
                JsonNode done = summary();
                assertThat(done.get("status").asText()).isEqualTo("cleaned");
                assertThat(done.at("/result/versionsRemoved").asInt()).isEqualTo(2);
                assertThat(manifests()).hasSize(1);
                try (Dataset after = before.checkoutLatest()) {
                    assertThat(after.version()).isEqualTo(3);
                    assertThat(OverlayTables.scan(after)).isEqualTo(rows);
                }

                out.reset();
                assertThat(run(dir.toString(), "--mode", "cleanup", "--older-than", "0", "--grace", "0"))
                        .isZero();
                assertThat(summary().get("status").asText()).isEqualTo("nothing-to-do");
            }
        }
    }

    private List<String> manifests() throws java.io.IOException {
        try (var files = java.nio.file.Files.list(dir.resolve("_versions"))) {
            return files.map(p -> p.getFileName().toString())
                    .filter(n -> n.endsWith(".manifest"))
                    .toList();
        }
    }

    @Test
    void aMissingTableFailsWithJson() throws Exception {
        assertThat(run(dir.resolve("nope").toString(), "--mode", "overlay-merge", "--engine", "threads"))
                .isEqualTo(1);
        assertThat(summary().get("status").asText()).isEqualTo("failed");
    }
}
