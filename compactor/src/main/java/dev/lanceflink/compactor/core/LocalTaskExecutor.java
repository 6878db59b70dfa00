package dev.lanceflink.compactor.core;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.file.writer.FileWriterOptions;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.ManifestIO;
import dev.lanceflink.table.VersionResolver;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionService;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;

/** Runs the tasks on a fixed pool of threads in this process (used without Flink and for re-planned fragments). */
public final class LocalTaskExecutor implements TaskExecutor {
    private final ObjectStore store;
    private final BufferAllocator allocator;
    private final FileWriterOptions fileOptions;
    private final int parallelism;

    public LocalTaskExecutor(
            ObjectStore store, BufferAllocator allocator, FileWriterOptions fileOptions, int parallelism) {
        this.store = requireNonNull(store, "store is null");
        this.allocator = requireNonNull(allocator, "allocator is null");
        this.fileOptions = requireNonNull(fileOptions, "fileOptions is null");
        if (parallelism < 1) {
            throw new IllegalArgumentException("parallelism must be >= 1, got " + parallelism);
        }
        this.parallelism = parallelism;
    }

    @Override
    public List<TaskResult> execute(CompactionPlan plan, ProgressListener progress) throws IOException {
        if (plan.isEmpty()) {
            return List.of();
        }
        return execute(plan, ManifestIO.read(store, VersionResolver.version(store, plan.readVersion())), progress);
    }

    @Override
    public List<TaskResult> execute(CompactionPlan plan, Manifest manifest, ProgressListener progress)
            throws IOException {
        if (manifest.version() != plan.readVersion()) {
            throw new IllegalArgumentException("The plan was made on version " + plan.readVersion()
                    + " but the manifest given is version " + manifest.version());
        }
        if (plan.isEmpty()) {
            return List.of();
        }
        int threads = Math.min(parallelism, plan.tasks().size());
        ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "lance-compaction-task");
            t.setDaemon(true);
            return t;
        });
        List<TaskResult> results = new ArrayList<>();
        List<Future<TaskResult>> futures = new ArrayList<>();
        try {
            CompletionService<TaskResult> done = new ExecutorCompletionService<>(pool);
            for (CompactionTask task : plan.tasks()) {
                futures.add(done.submit(() -> {
                    try (BufferAllocator child = allocator.newChildAllocator(
                            "compaction-fragment-" + task.fragmentId(), 0, Long.MAX_VALUE)) {
                        return CompactionTaskRunner.run(store, manifest, task, child, fileOptions);
                    }
                }));
            }
            for (int i = 0; i < futures.size(); i++) {
                TaskResult r = done.take().get();
                results.add(r);
                progress.taskFinished(r, results.size(), futures.size());
            }
            return results;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            pool.shutdownNow();
            discardAll(futures);
            throw new InterruptedIOException("Interrupted while running compaction tasks of " + store.rootUri());
        } catch (ExecutionException e) {
            pool.shutdownNow();
            awaitQuietly(pool);
            discardAll(futures);
            Throwable cause = e.getCause();
            if (cause instanceof IOException io) {
                throw io;
            }
            if (cause instanceof UncheckedIOException u) {
                throw u.getCause();
            }
            if (cause instanceof RuntimeException re) {
                throw re;
            }
            throw new IOException("A compaction task of " + store.rootUri() + " failed", cause);
        } finally {
            pool.shutdownNow();
        }
    }

    /** Deletes the staged files of every task that finished; a failed run commits none of them. */
    private void discardAll(List<Future<TaskResult>> futures) {
        for (Future<TaskResult> f : futures) {
            if (!f.isDone() || f.isCancelled()) {
                continue;
            }
            try {
                f.get().staged().discard(store);
            } catch (ExecutionException | IOException | RuntimeException ignored) {
                // a failed task staged nothing; unreferenced files are removed by cleanup later
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private static void awaitQuietly(ExecutorService pool) {
        try {
            pool.awaitTermination(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
