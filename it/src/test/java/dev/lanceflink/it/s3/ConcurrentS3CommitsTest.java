package dev.lanceflink.it.s3;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.VersionInfo;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.s3.S3ProxyExtension;
import dev.lanceflink.txn.CommitConflictException;
import dev.lanceflink.txn.CommitOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several writers committing to one S3 table at once: 8 threads in this JVM, then 2 separate OS
 * processes. The only coordination is S3's conditional PUT of the next manifest; every commit
 * must land exactly once (checked by version count, by the operation ids recorded in the
 * transactions and by the contents) or fail with a {@link CommitConflictException} that says
 * what to do, after which the writer re-reads and redoes its change.
 */
class ConcurrentS3CommitsTest {
    @RegisterExtension
    static final S3ProxyExtension S3 = new S3ProxyExtension();

    private static final int THREADS = 8;
    private static final int OPS_PER_THREAD = 6;

    @TempDir
    Path tmp;

    /**
     * Every thread owns the ids {@code t*100 .. t*100+99} of the first (shared) fragments and
     * appends its own rows; odd operations delete some of its rows in the shared fragments, so
     * concurrent deletes hit the same fragments and need rebasing or a retry.
     */
    @Test
    void eightThreadsAppendAndDeleteConcurrentlyAndEveryCommitLandsOnce() throws Exception {
        TableLocation table = TableLocation.fresh(StoreKind.S3, S3.server(), tmp, "threads");
        TreeMap<Long, Long> expected = TestRows.initial(TestRows.range(0, THREADS * 100));
        try (BufferAllocator allocator = new RootAllocator();
                VectorSchemaRoot first = TestRows.batch(allocator, TestRows.range(0, THREADS * 100));
                Dataset v1 = Dataset.write(
                        table.uri(),
                        table.storageOptions(),
                        List.of(first),
                        TestRows.SCHEMA,
                        WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(400))) {
            assertThat(v1.fragments()).hasSize(2);
        }
        for (int t = 0; t < THREADS; t++) {
            for (int i = 0; i < OPS_PER_THREAD; i++) {
                if (i % 2 == 0) {
                    expected.putAll(TestRows.initial(appendIds(t, i)));
                } else {
                    expected.subMap(deleteFrom(t, i), deleteFrom(t, i) + 5).clear();
                }
            }
        }

        List<String> conflicts = Collections.synchronizedList(new ArrayList<>());
        Map<String, Long> committed = new ConcurrentHashMap<>();
        CyclicBarrier start = new CyclicBarrier(THREADS);
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int thread = t;
                futures.add(pool.submit(() -> {
                    try (BufferAllocator allocator = new RootAllocator();
                            var store = table.openStore()) {
                        start.await(30, TimeUnit.SECONDS);
                        for (int i = 0; i < OPS_PER_THREAD; i++) {
                            String opId = "t" + thread + "-op" + i;
                            for (int attempt = 1; ; attempt++) {
                                try (Dataset latest = Dataset.open(store, allocator)) {
                                    long version = i % 2 == 0
                                            ? append(latest, allocator, appendIds(thread, i), opId)
                                            : latest.delete(
                                                            "id >= " + deleteFrom(thread, i) + " AND id < "
                                                                    + (deleteFrom(thread, i) + 5),
                                                            Map.of(RetryingTableDriver.OP_ID, opId),
                                                            commitOptions())
                                                    .version();
                                    committed.put(opId, version);
                                    break;
                                } catch (CommitConflictException e) {
                                    conflicts.add(opId + " attempt " + attempt + ": " + e.getMessage());
                                    assertThat(e.getMessage())
                                            .contains("transaction")
                                            .contains(table.uri());
                                    assertThat(attempt)
                                            .as("attempts of %s", opId)
                                            .isLessThan(20);
                                }
                            }
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get(150, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }

        try (Dataset latest = Dataset.open(table.uri(), table.storageOptions())) {
            int commits = THREADS * OPS_PER_THREAD;
            assertThat(committed).hasSize(commits);
            assertThat(latest.version())
                    .as("one version per commit; conflicts: %s", conflicts)
                    .isEqualTo(1 + commits);
            assertThat(committed.values()).doesNotHaveDuplicates();
            List<VersionInfo> versions = latest.versions();
            List<String> opIds = versions.stream()
                    .skip(1)
                    .map(v -> v.properties().get(RetryingTableDriver.OP_ID))
                    .toList();
            assertThat(opIds).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(committed.keySet());
            for (VersionInfo v : versions.subList(1, versions.size())) {
                assertThat(committed.get(v.properties().get(RetryingTableDriver.OP_ID)))
                        .as("version recorded by the writer of %s", v.properties())
                        .isEqualTo(v.version());
            }
            assertThat(TestRows.contents(latest)).isEqualTo(expected);
            System.out.printf("8 threads: %d commits, %d conflicts retried%n", commits, conflicts.size());
        }
    }

    /** Two JVMs ({@link S3CommitWorker}) append to the same S3 table at the same time. */
    @Test
    void twoProcessesAppendToOneTableAndEveryCommitLandsOnce() throws Exception {
        TableLocation table = TableLocation.fresh(StoreKind.S3, S3.server(), tmp, "processes");
        int appendsPerProcess = 10;
        try (BufferAllocator allocator = new RootAllocator();
                VectorSchemaRoot first = TestRows.batch(allocator, TestRows.range(0, 10));
                Dataset v1 = Dataset.write(
                        table.uri(),
                        table.storageOptions(),
                        List.of(first),
                        TestRows.SCHEMA,
                        WriteParams.of(WriteMode.CREATE))) {
            assertThat(v1.version()).isEqualTo(1);
        }
        List<Process> processes = new ArrayList<>();
        List<Path> logs = new ArrayList<>();
        for (int w = 1; w <= 2; w++) {
            Path log = tmp.resolve("worker-" + w + ".log");
            logs.add(log);
            processes.add(S3CommitWorker.command(table, w, appendsPerProcess)
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile())
                    .start());
        }
        for (int w = 0; w < 2; w++) {
            Process p = processes.get(w);
            boolean finished = p.waitFor(150, TimeUnit.SECONDS);
            if (!finished) {
                processes.forEach(Process::destroyForcibly);
            }
            String out = Files.readString(logs.get(w), StandardCharsets.UTF_8);
            assertThat(finished)
                    .as("worker %d finished in time; output:%n%s", w + 1, out)
                    .isTrue();
            assertThat(p.exitValue())
                    .as("worker %d exit status; output:%n%s", w + 1, out)
                    .isZero();
            assertThat(out).contains(S3CommitWorker.DONE + " " + appendsPerProcess);
        }

        TreeMap<Long, Long> expected = TestRows.initial(TestRows.range(0, 10));
        for (int w = 1; w <= 2; w++) {
            for (int i = 0; i < appendsPerProcess; i++) {
                expected.putAll(TestRows.initial(S3CommitWorker.ids(w, i)));
            }
        }
        try (Dataset latest = Dataset.open(table.uri(), table.storageOptions())) {
            assertThat(latest.version()).isEqualTo(1 + 2L * appendsPerProcess);
            assertThat(latest.versions().stream()
                            .skip(1)
                            .map(v -> v.properties().get(RetryingTableDriver.OP_ID)))
                    .doesNotHaveDuplicates()
                    .hasSize(2 * appendsPerProcess)
                    .allMatch(id -> id.startsWith("w"));
            assertThat(TestRows.contents(latest)).isEqualTo(expected);
        }
    }

    private static long append(Dataset latest, BufferAllocator allocator, long[] ids, String opId) throws Exception {
        try (VectorSchemaRoot batch = TestRows.batch(allocator, ids)) {
            return latest.append(
                            List.of(batch),
                            WriteParams.of(WriteMode.APPEND)
                                    .withTransactionProperties(Map.of(RetryingTableDriver.OP_ID, opId))
                                    .withCommitOptions(commitOptions()))
                    .version();
        }
    }

    private static CommitOptions commitOptions() {
        return CommitOptions.defaults().withMaxAttempts(40).withBackoff(Duration.ofMillis(20), Duration.ofMillis(500));
    }

    /** Ids that thread {@code t} appends in its operation {@code i}: 10 rows above the shared ones. */
    static long[] appendIds(int t, int i) {
        long base = 1_000_000L * (t + 1) + 10L * i;
        return TestRows.range(base, base + 10);
    }

    /** First of the 5 shared-fragment ids that thread {@code t} deletes in operation {@code i}. */
    static long deleteFrom(int t, int i) {
        return t * 100L + i * 10L;
    }
}
