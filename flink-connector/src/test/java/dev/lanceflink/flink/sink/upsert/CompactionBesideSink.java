package dev.lanceflink.flink.sink.upsert;

import dev.lanceflink.compact.FragmentRewriter;
import dev.lanceflink.file.writer.FileWriterOptions;
import dev.lanceflink.flink.sink.KeyMapMode;
import dev.lanceflink.flink.sink.LanceSinkBuilder;
import dev.lanceflink.flink.sink.LanceSinkMode;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.overlay.StagedWrite;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.ManifestIO;
import dev.lanceflink.table.VersionResolver;
import dev.lanceflink.testkit.flink.JobEnvironments;
import dev.lanceflink.txn.CommitConflictException;
import dev.lanceflink.txn.CommitOptions;
import dev.lanceflink.txn.TableCommitter;
import dev.lanceflink.txn.Transaction;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;

/**
 * What the ITCases share that compact a table beside a running upsert sink
 * ({@link CompactionBesideUpsertSinkITCase}, {@link CompactionThenCleanupBesideUpsertSinkITCase}):
 * the other writer's compaction of every fragment, the sink's job, and the source's wait for a
 * compaction between its phases.
 */
final class CompactionBesideSink {
    private CompactionBesideSink() {}

    /**
     * Rewrites every fragment of the latest version (1,500 rows per new fragment) and commits it.
     * Empty if the commit lost to the sink's: its files are removed, the caller plans again.
     */
    static Optional<Manifest> compactAll(ObjectStore store, BufferAllocator allocator) throws IOException {
        Manifest latest = ManifestIO.read(store, VersionResolver.latest(store));
        List<Long> ids = latest.fragments().stream().map(Fragment::id).toList();
        StagedWrite rewrite =
                FragmentRewriter.rewrite(store, latest, ids, 1_500, allocator, FileWriterOptions.defaults());
        try {
            return Optional.of(TableCommitter.commit(
                    store, Transaction.of(latest.version(), rewrite.operation(), Map.of()), CommitOptions.defaults()));
        } catch (CommitConflictException e) {
            rewrite.discard(store); // lost to the sink's commit: plan again
            return Optional.empty();
        }
    }

    /**
     * Runs the upsert sink over {@code changes} changes to completion: parallelism 2, checkpoints
     * every 150 ms, no restart strategy, the source a sequence mapped by {@code phases}.
     */
    static void runSink(String uri, int changes, MapFunction<Long, RowData> phases, String uidSuffix, String jobName)
            throws Exception {
        runSink(uri, changes, phases, uidSuffix, jobName, KeyMapMode.KEYED_STATE);
    }

    /** {@link #runSink(String, int, MapFunction, String, String)} with the key map in {@code keyMap}. */
    static void runSink(
            String uri,
            int changes,
            MapFunction<Long, RowData> phases,
            String uidSuffix,
            String jobName,
            KeyMapMode keyMap)
            throws Exception {
        StreamExecutionEnvironment env = JobEnvironments.noRestarts(2, 150);
        LanceSinkBuilder.forTable(uri)
                .mode(LanceSinkMode.UPSERT)
                .primaryKey("id")
                .rowsPerFile(500)
                .uidSuffix(uidSuffix)
                .keyMap(keyMap)
                .commitRetries(30)
                .commitRetryBackoff(Duration.ofMillis(10))
                .sinkTo(env.fromSequence(0, changes - 1)
                        .setParallelism(1)
                        .map(phases)
                        .setParallelism(1)
                        .returns(RowData.class));
        env.execute(jobName);
    }

    /**
     * Asks for compaction {@code phase} (sets {@code wanted}) and waits until it landed (until
     * {@code done} reaches it), 2 minutes at most.
     */
    static void awaitCompaction(int phase, AtomicInteger wanted, AtomicInteger done) throws InterruptedException {
        wanted.set(phase);
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (done.get() < phase) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("compaction " + phase + " did not land in 2 minutes");
            }
            Thread.sleep(20);
        }
    }
}
