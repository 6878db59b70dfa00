package dev.lanceflink.file;

import dev.lanceflink.io.RangeReader;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.memory.ArrowBuf;

/**
 * Copies large byte ranges of one data file into Arrow memory with several threads. A wide
 * fixed-width column (an embedding) is read as one long run of bytes per batch, and that copy is
 * the whole cost of decoding it; split into pieces read concurrently (range readers are safe for
 * concurrent reads), it uses every core, as the Lance SDK's readers do.
 *
 * <p>The helper threads are created on the first large copy and stopped by {@link #close()} (the
 * owning {@link LanceFileReader} closes it), so no thread outlives its reader: nothing pins a
 * Flink user-code class loader after a job stops. The number of helper threads is
 * {@code min(3, cores - 1)} unless the system property {@value #THREADS_PROPERTY} sets it (0 turns
 * the parallel copy off); the calling thread always copies a share itself.
 */
final class ParallelRangeCopier implements AutoCloseable {
    static final String THREADS_PROPERTY = "lanceflink.read.copyThreads";
    /** Bytes per read: below half the smallest G1 region (1 MiB), so no read buffer is humongous. */
    static final int PIECE = 256 * 1024;
    /** Ranges below this are copied by the calling thread alone (handing off would cost more). */
    static final long PARALLEL_THRESHOLD = 1 << 20;

    private static final AtomicInteger THREAD_IDS = new AtomicInteger();

    private final RangeReader reader;
    private final String path;
    private final int helpers;
    private ExecutorService pool;

    ParallelRangeCopier(RangeReader reader, String path) {
        this.reader = reader;
        this.path = path;
        int cores = Runtime.getRuntime().availableProcessors();
        this.helpers = Math.max(0, Integer.getInteger(THREADS_PROPERTY, Math.min(3, cores - 1)));
    }

    /** Copies {@code [fileOffset, fileOffset+length)} of the file into {@code dst} at {@code dstOffset}. */
    void copy(long fileOffset, long length, ArrowBuf dst, long dstOffset, String what) throws IOException {
        long pieces = (length + PIECE - 1) / PIECE;
        int tasks = (int) Math.min(helpers + 1L, pieces);
        if (length < PARALLEL_THRESHOLD || tasks <= 1) {
            copyPieces(fileOffset, length, dst, dstOffset, what);
            return;
        }
        // Contiguous shares of whole pieces; the caller copies the last share while helpers copy the rest.
        long share = (pieces + tasks - 1) / tasks * PIECE;
        List<Future<?>> futures = new ArrayList<>(tasks - 1);
        Throwable failure = null;
        try {
            ExecutorService executor = pool();
            long at = 0;
            for (int t = 0; t < tasks - 1 && at < length; t++) {
                long from = at;
                long len = Math.min(share, length - from);
                futures.add(executor.submit(() -> {
                    copyPieces(fileOffset + from, len, dst, dstOffset + from, what);
                    return null;
                }));
                at += len;
            }
            if (at < length) {
                copyPieces(fileOffset + at, length - at, dst, dstOffset + at, what);
            }
        } catch (IOException | RuntimeException | Error e) {
            failure = e;
        }
        failure = awaitAll(futures, failure);
        if (failure instanceof IOException e) {
            throw e;
        } else if (failure instanceof RuntimeException e) {
            throw e;
        } else if (failure instanceof Error e) {
            throw e;
        } else if (failure != null) {
            throw new IOException("copy of " + what + " from " + path + " failed: " + failure, failure);
        }
    }

    /**
     * Waits for every helper, even after a failure or an interrupt: they write into the caller's
     * buffer, which must not be released while they run. Returns the first failure (the caller's,
     * if any, with the others suppressed).
     */
    private Throwable awaitAll(List<Future<?>> futures, Throwable first) {
        Throwable failure = first;
        boolean interrupted = false;
        for (Future<?> f : futures) {
            while (true) {
                try {
                    f.get();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    Throwable c = e.getCause() == null ? e : e.getCause();
                    if (failure == null) {
                        failure = c;
                    } else if (failure != c) {
                        failure.addSuppressed(c);
                    }
                    break;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
            if (failure == null) {
                failure = new InterruptedIOException("interrupted while reading " + path);
            }
        }
        return failure;
    }

    private void copyPieces(long fileOffset, long length, ArrowBuf dst, long dstOffset, String what)
            throws IOException {
        long done = 0;
        while (done < length) {
            int piece = (int) Math.min(PIECE, length - done);
            ByteBuffer b = LanceFileMetadata.readFully(reader, fileOffset + done, piece, path, what);
            dst.setBytes(dstOffset + done, b);
            done += piece;
        }
    }

    private synchronized ExecutorService pool() {
        if (pool == null) {
            pool = Executors.newFixedThreadPool(helpers, r -> {
                Thread t = new Thread(r, "lance-read-copy-" + THREAD_IDS.incrementAndGet());
                t.setDaemon(true);
                return t;
            });
        }
        return pool;
    }

    @Override
    public synchronized void close() {
        if (pool != null) {
            pool.shutdownNow();
            pool = null;
        }
    }
}
