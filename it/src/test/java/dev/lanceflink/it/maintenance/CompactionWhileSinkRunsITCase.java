package dev.lanceflink.it.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.VersionInfo;
import dev.lanceflink.flink.sink.LanceSinkBuilder;
import dev.lanceflink.flink.sink.LanceSinkMode;
import dev.lanceflink.s3.S3ProxyExtension;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.testkit.flink.JobEnvironments;
import dev.lanceflink.testkit.flink.MiniClusters;
import dev.lanceflink.testkit.users.UsersChangelog;
import dev.lanceflink.testkit.users.UsersChangelog.Mix;
import dev.lanceflink.testkit.users.UsersTable;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue #7: the compaction job runs concurrently with the streaming upsert sink on the same table.
 *
 * <p>The sink (MiniCluster, parallelism 2, a checkpoint every 300 ms) streams a seeded changelog
 * whose updates become overlays; meanwhile another thread runs the compaction CLI in a loop,
 * alternating {@code overlay-merge} and {@code overlay-fold} with low triggers. The last quarter of
 * the changelog trickles until both modes have committed at least once (a slow store such as S3
 * would otherwise let the stream end first), so compaction commits land between sink commits on
 * every store.
 *
 * <p>Both commit to the same table, so they conflict all the time: the sink's overlay and deletion commits must rebase
 * over compaction commits (or retry), and the compactor must drop and re-plan fragments the sink
 * changed under it. The job runs without restarts, so a conflict the sink cannot resolve fails the
 * test with the sink's own error. In the end the table equals the reference model cell by cell,
 * every compaction run succeeded, the table's history holds exactly the versions both sides
 * reported, and every sink commit appears exactly once.
 */
class CompactionWhileSinkRunsITCase {
    @RegisterExtension
    static final S3ProxyExtension S3 = new S3ProxyExtension();

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = MiniClusters.oneTaskManager(4);

    private static final int INITIAL_KEYS = 3_000;

    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"local", "s3"})
    void compactionLoopAndUpsertSinkEndWithTheModelsTable(String storeKind) throws Exception {
        Map<String, String> storage = storeKind.equals("s3") ? S3.server().storageOptions() : Map.of();
        String uri = storeKind.equals("s3")
                ? "s3://" + S3.server().createBucket("compaction-" + System.nanoTime()) + "/tables/users.lance"
                : dir.resolve("users.lance").toString();
        TreeMap<Long, UsersTable.Row> initial = Mix.MAINTENANCE_TESTS.initialRows(INITIAL_KEYS);
        UsersTable.create(uri, storage, initial, 500);
        UsersChangelog log = new UsersChangelog(initial, Mix.MAINTENANCE_TESTS).generate(2026, 40_000, 4_000, false);
        ChangeEmitter.CHANGES = log.changes;
        ChangeEmitter.RELEASED = false;

        StreamExecutionEnvironment env = environment();
        LanceSinkBuilder.forTable(uri)
                .storageOptions(storage)
                .mode(LanceSinkMode.UPSERT)
                .primaryKey("id")
                .rowsPerFile(1_000)
                .batchRows(256)
                .uidSuffix("compaction-it")
                .commitRetries(10)
                .commitRetryBackoff(Duration.ofMillis(20))
                .sinkTo(env.fromSequence(0, log.changes.size() - 1)
                        .setParallelism(1)
                        .uid("changes")
                        .map(new ChangeEmitter(8, log.changes.size() * 3L / 4))
                        .setParallelism(1)
                        .uid("emit")
                        .returns(RowData.class));

        List<CompactorLoop.Run> runs;
        try (CompactorLoop compactor = new CompactorLoop(uri, storage).start()) {
            JobClient job = env.executeAsync("upsert while compacting (" + storeKind + ")");
            CompletableFuture<JobExecutionResult> result = job.getJobExecutionResult();
            try {
                long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
                long releaseAnyway = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
                while (!result.isDone() && System.nanoTime() < deadline) {
                    if (!ChangeEmitter.RELEASED
                            && (compactor.bothModesCommitted() || System.nanoTime() > releaseAnyway)) {
                        ChangeEmitter.RELEASED = true;
                    }
                    Thread.sleep(100);
                }
                if (!result.isDone()) {
                    job.cancel().get(1, TimeUnit.MINUTES);
                    throw new AssertionError("The upsert sink's job on " + uri + " did not finish within 10 minutes"
                            + " (cancelled). Compactor runs so far: " + describe(compactor.stop()));
                }
                result.get();
            } catch (ExecutionException e) {
                List<CompactorLoop.Run> soFar = compactor.stop();
                throw new AssertionError(
                        "The upsert sink's job failed while the compactor ran against " + uri
                                + ". Compactor runs so far: " + describe(soFar) + ". Versions: "
                                + describeVersions(uri, storage) + ". Sink failure:\n"
                                + ExceptionUtils.stringifyException(e),
                        e);
            }
            runs = compactor.stop();
        } finally {
            ChangeEmitter.RELEASED = true;
        }
        System.out.println("Compactor runs on " + storeKind + ": " + describe(runs));

        assertThat(runs)
                .as("compactor runs that failed")
                .filteredOn(r -> r.exitCode() != 0)
                .extracting(r -> r.mode() + ": " + r.summary().path("error").asText() + "\n" + r.stderr())
                .isEmpty();
        UsersTable.assertLatestEquals(uri, storage, log.model);

        VersionsByWriter history = VersionsByWriter.read(uri, storage);
        history.assertContiguous();
        history.assertSinkCommitsExactlyOnce();
        assertThat(history.others())
                .as("versions neither the sink nor the compactor committed")
                .extracting(VersionInfo::version)
                .containsExactly(1L);
        int reported =
                runs.stream().mapToInt(CompactorLoop.Run::committedVersions).sum();
        assertThat(history.compactions())
                .as("compaction versions in the table vs. reported by the runs %s", describe(runs))
                .hasSize(reported);
        assertThat(history.compactions("overlay-merge"))
                .as("overlay merges committed while the sink ran; runs %s", describe(runs))
                .isNotEmpty()
                .allSatisfy(v -> assertThat(v.operation()).isEqualTo("Merge"));
        assertThat(history.compactions("overlay-fold"))
                .as("overlay folds committed while the sink ran; runs %s", describe(runs))
                .isNotEmpty()
                .allSatisfy(v -> assertThat(v.operation()).isEqualTo("Update"));
        assertThat(VersionsByWriter.sinkOverlayCommits(uri, storage))
                .as("overlay commits of the sink")
                .isGreaterThan(3);

        // Merges and folds rewrite overlays and base columns, never rows: only new keys add rows.
        try (Dataset ds = Dataset.open(uri, storage)) {
            long physical = ds.manifest().fragments().stream()
                    .mapToLong(Fragment::physicalRows)
                    .sum();
            assertThat(physical).as("physical rows").isLessThanOrEqualTo(INITIAL_KEYS + log.inserts);
        }
    }

    private static StreamExecutionEnvironment environment() {
        return JobEnvironments.noRestarts(2, 300);
    }

    /** Per run: mode, status, versions committed, fragments re-planned and left uncompacted. */
    private static String describe(List<CompactorLoop.Run> runs) {
        return runs.stream()
                .map(r -> r.mode() + " " + r.status() + " committed=" + r.committedVersions()
                        + " planned=" + r.summary().path("fragmentsPlanned").asInt() + " replanned="
                        + r.summary().path("replannedFragments").size() + " uncompacted="
                        + r.summary().path("uncompactedFragments").size() + " ms="
                        + r.summary().path("durationMillis").asLong())
                .collect(Collectors.joining("; ", "[", "]"));
    }

    private static String describeVersions(String uri, Map<String, String> storage) {
        try {
            return VersionsByWriter.read(uri, storage).all().stream()
                    .map(v -> v.version() + ":" + v.operation())
                    .collect(Collectors.joining(", "));
        } catch (Exception e) {
            return "(unreadable: " + e + ")";
        }
    }
}
