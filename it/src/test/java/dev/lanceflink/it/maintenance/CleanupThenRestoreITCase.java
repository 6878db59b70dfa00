package dev.lanceflink.it.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanceflink.committer.core.CommitMarker;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.VersionInfo;
import dev.lanceflink.flink.sink.LanceSinkBuilder;
import dev.lanceflink.flink.sink.LanceSinkMode;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.io.ObjectStores;
import dev.lanceflink.maintenance.CleanupCandidate;
import dev.lanceflink.maintenance.CleanupPlan;
import dev.lanceflink.maintenance.CleanupPolicy;
import dev.lanceflink.maintenance.CleanupReason;
import dev.lanceflink.maintenance.CleanupResult;
import dev.lanceflink.maintenance.RemovedVersion;
import dev.lanceflink.maintenance.RetainedVersion;
import dev.lanceflink.maintenance.TableCleanup;
import dev.lanceflink.s3.S3ProxyExtension;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.ManifestIO;
import dev.lanceflink.table.ManifestLocation;
import dev.lanceflink.table.VersionResolver;
import dev.lanceflink.testkit.flink.MiniClusters;
import dev.lanceflink.testkit.users.UsersChangelog;
import dev.lanceflink.testkit.users.UsersChangelog.Mix;
import dev.lanceflink.testkit.users.UsersTable;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue #7: "{@code cleanup} deletes what is unreferenced and nothing else; the sink still
 * restores exactly once afterwards."
 *
 * <p>The upsert sink streams part of a changelog and stops with a savepoint; the compactor then
 * merges and folds overlays, so the latest version is a compaction commit and the sink's last
 * commit is an older version. Cleanup with the most aggressive policy (keep 1 version, none by
 * age, no grace for unreferenced files) but the sink's commit user as marker must keep exactly
 * the latest version and the sink's newest marked version, and delete every other manifest and
 * every data, deletion and transaction file that those two versions do not reference (computed
 * here from the manifests, independently of the cleanup code), including a planted orphan file.
 * A new job restored from the savepoint then finishes the changelog: the table equals the model
 * with no key twice, and no sink commit appears twice.
 */
class CleanupThenRestoreITCase {
    @RegisterExtension
    static final S3ProxyExtension S3 = new S3ProxyExtension();

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = MiniClusters.oneTaskManager(4);

    private static final int INITIAL_KEYS = 1_500;
    private static final String SINK_UID = "cleanup-restore-it";

    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"local", "s3"})
    void cleanupKeepsTheSinksLastCommitAndTheRestoredSinkFinishesExactlyOnce(String storeKind) throws Exception {
        Map<String, String> storage = storeKind.equals("s3") ? S3.server().storageOptions() : Map.of();
        String uri = storeKind.equals("s3")
                ? "s3://" + S3.server().createBucket("cleanup-" + System.nanoTime()) + "/tables/users.lance"
                : dir.resolve("users.lance").toString();
        TreeMap<Long, UsersTable.Row> initial = Mix.MAINTENANCE_TESTS.initialRows(INITIAL_KEYS);
        UsersTable.create(uri, storage, initial, 300);
        UsersChangelog log = new UsersChangelog(initial, Mix.MAINTENANCE_TESTS).generate(77, 20_000, 2_500, false);
        ChangeEmitter.CHANGES = log.changes;

        // 1. Part of the changelog, then stop-with-savepoint.
        StreamExecutionEnvironment first = environment(2, null);
        pipeline(first, uri, storage, 4);
        JobClient job = first.executeAsync("upsert before cleanup (" + storeKind + ")");
        waitForSinkOverlayCommits(uri, storage, 4);
        String savepoint = job.stopWithSavepoint(
                        false, dir.resolve("savepoints").toUri().toString(), SavepointFormatType.CANONICAL)
                .get(2, TimeUnit.MINUTES);
        VersionsByWriter beforeCompaction = VersionsByWriter.read(uri, storage);
        String commitUser = beforeCompaction.assertSinkCommitsExactlyOnce();
        long sinkVersion = beforeCompaction
                .sinkCommits()
                .get(beforeCompaction.sinkCommits().size() - 1)
                .version();
        assertThat(beforeCompaction.all().get(beforeCompaction.all().size() - 1).version())
                .as("the savepoint's commit is the table's latest version")
                .isEqualTo(sinkVersion);

        // 2. Compaction makes the sink's last commit an older version and leaves overlay files
        //    that only old versions reference.
        CompactorLoop compactor = new CompactorLoop(uri, storage);
        CompactorLoop.Run merge = compactor.runOnce("overlay-merge");
        CompactorLoop.Run fold = compactor.runOnce("overlay-fold");
        assertThat(List.of(merge, fold))
                .allSatisfy(r -> assertThat(r.exitCode())
                        .as("%s: %s", r.mode(), r.stderr())
                        .isZero());
        assertThat(merge.committedVersions() + fold.committedVersions())
                .as("compaction versions")
                .isPositive();

        try (ObjectStore store = ObjectStores.open(uri, storage)) {
            // 3. An orphan: a data file of a write that never committed.
            String orphan = "data/" + UUID.randomUUID() + ".lance";
            try (OutputStream out = store.create(orphan)) {
                out.write("never committed".getBytes(StandardCharsets.UTF_8));
            }
            Thread.sleep(20);
            Set<String> filesBefore = TableFiles.managedFiles(store);
            List<ManifestLocation> versionsBefore = VersionResolver.list(store);
            long latest = versionsBefore.get(versionsBefore.size() - 1).version();
            assertThat(latest)
                    .as("latest version is a compaction commit after the sink's")
                    .isGreaterThan(sinkVersion);
            Set<String> keptFiles = new TreeSet<>();
            for (long v : List.of(sinkVersion, latest)) {
                keptFiles.addAll(TableFiles.referencedFiles(ManifestIO.read(store, VersionResolver.version(store, v))));
            }
            assertThat(filesBefore)
                    .as("files the kept versions reference exist")
                    .containsAll(keptFiles);
            Set<String> garbage = new TreeSet<>(filesBefore);
            garbage.removeAll(keptFiles);

            // 4. Plan: exactly the latest version and the sink's newest marked version stay.
            CleanupPolicy policy = new CleanupPolicy(
                    Duration.ZERO, 1, Duration.ZERO, Instant.now(), CommitMarker.COMMIT_USER_KEY, Set.of());
            CleanupPlan plan = TableCleanup.plan(store, policy);
            assertThat(plan.retainedVersions())
                    .extracting(RetainedVersion::version)
                    .containsExactly(sinkVersion, latest);
            assertThat(plan.retainedVersions().get(0).reasons())
                    .containsExactly("marker " + CommitMarker.COMMIT_USER_KEY + "=" + commitUser);
            assertThat(plan.retainedVersions().get(1).reasons()).containsExactly("latest");
            assertThat(plan.markerVersions()).containsExactly(Map.entry(commitUser, sinkVersion));
            Set<Long> removedExpected = new TreeSet<>();
            versionsBefore.forEach(l -> removedExpected.add(l.version()));
            removedExpected.removeAll(Set.of(sinkVersion, latest));
            assertThat(plan.versionsToRemove())
                    .extracting(RemovedVersion::version)
                    .containsExactlyElementsOf(removedExpected);
            assertThat(plan.filesToDelete())
                    .extracting(CleanupCandidate::path)
                    .containsExactlyInAnyOrderElementsOf(garbage);
            // Files of removed versions are committed history; anything else is unreferenced
            // (the planted orphan, and files the stopped job wrote after its savepoint).
            Set<String> removedVersionsFiles = new TreeSet<>();
            for (long v : removedExpected) {
                removedVersionsFiles.addAll(
                        TableFiles.referencedFiles(ManifestIO.read(store, VersionResolver.version(store, v))));
            }
            assertThat(plan.filesToDelete())
                    .allSatisfy(c -> assertThat(c.reason())
                            .as(c.path())
                            .isEqualTo(
                                    removedVersionsFiles.contains(c.path())
                                            ? CleanupReason.ONLY_REMOVED_VERSIONS
                                            : CleanupReason.UNREFERENCED_PAST_GRACE));
            assertThat(plan.filesToDelete())
                    .filteredOn(c -> c.reason() == CleanupReason.UNREFERENCED_PAST_GRACE)
                    .extracting(CleanupCandidate::path)
                    .contains(orphan);
            assertThat(garbage)
                    .as("overlay and transaction files only removed versions reference")
                    .hasSizeGreaterThan(1);

            // 5. Execute: nothing else is deleted, the kept versions stay readable.
            CleanupResult result = TableCleanup.execute(store, plan);
            assertThat(result.failedDeletes()).isEmpty();
            assertThat(result.keptForNewerVersions()).isEmpty();
            assertThat(result.versionsRemoved()).isEqualTo(removedExpected.size());
            assertThat(TableFiles.managedFiles(store)).as("files after cleanup").isEqualTo(keptFiles);
            assertThat(VersionResolver.list(store))
                    .extracting(ManifestLocation::version)
                    .containsExactly(sinkVersion, latest);
            for (long v : List.of(sinkVersion, latest)) {
                try (Dataset ds = Dataset.open(uri, storage);
                        Dataset at = ds.checkoutVersion(v)) {
                    assertThat(UsersTable.read(at)).as("rows of version %s", v).isNotEmpty();
                }
            }
        }

        // 6. Restore into a new job (another parallelism) and finish the changelog.
        StreamExecutionEnvironment second = environment(3, savepoint);
        pipeline(second, uri, storage, 50);
        second.execute("upsert restored after cleanup (" + storeKind + ")");

        UsersTable.assertLatestEquals(uri, storage, log.model);
        VersionsByWriter after = VersionsByWriter.read(uri, storage);
        assertThat(after.assertSinkCommitsExactlyOnce())
                .as("the restored sink's commit user")
                .isEqualTo(commitUser);
        assertThat(after.sinkCommits())
                .as("sink commits after the restore")
                .anySatisfy(v -> assertThat(v.version()).isGreaterThan(sinkVersion + 1));
        Set<String> checkpointsAfter = new HashSet<>();
        for (VersionInfo v : after.sinkCommits()) {
            checkpointsAfter.add(v.properties().get(CommitMarker.CHECKPOINT_ID_KEY));
        }
        assertThat(checkpointsAfter).as("checkpoints committed").hasSizeGreaterThan(1);
        try (Dataset ds = Dataset.open(uri, storage)) {
            long physical = ds.manifest().fragments().stream()
                    .mapToLong(Fragment::physicalRows)
                    .sum();
            assertThat(physical)
                    .as("physical rows: no row appended twice")
                    .isLessThanOrEqualTo(INITIAL_KEYS + log.inserts);
        }
    }

    private static StreamExecutionEnvironment environment(int parallelism, String savepoint) {
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        if (savepoint != null) {
            conf.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(parallelism);
        env.enableCheckpointing(300);
        return env;
    }

    private static void pipeline(
            StreamExecutionEnvironment env, String uri, Map<String, String> storage, int perMilli) {
        LanceSinkBuilder.forTable(uri)
                .storageOptions(storage)
                .mode(LanceSinkMode.UPSERT)
                .primaryKey("id")
                .rowsPerFile(1_000)
                .batchRows(256)
                .uidSuffix(SINK_UID)
                .sinkTo(env.fromSequence(0, ChangeEmitter.CHANGES.size() - 1)
                        .setParallelism(1)
                        .uid("changes")
                        .map(new ChangeEmitter(perMilli))
                        .setParallelism(1)
                        .uid("emit")
                        .returns(RowData.class));
    }

    private static void waitForSinkOverlayCommits(String uri, Map<String, String> storage, int count) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        while (VersionsByWriter.sinkOverlayCommits(uri, storage) < count) {
            assertThat(System.nanoTime())
                    .as("waiting for %s overlay commits of the sink on %s", count, uri)
                    .isLessThan(deadline);
            Thread.sleep(100);
        }
    }
}
