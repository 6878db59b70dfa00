package dev.lanceflink.flink.sink;

import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.io.ObjectStoreProvider;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Test store for {@code brokenmaintenance://<local path>} tables: a local store on which the
 * in-job maintenance's compaction tasks (threads {@code lance-compaction-task}) fail or hang when
 * they read or write a data file, as {@link #mode} says, while every other thread (the sink's
 * writers, key resolver and committer, the maintenance thread's planning and commits) works as
 * usual. Static, because Flink opens stores inside its tasks; tests {@link #reset} it.
 */
public final class BrokenMaintenanceStoreProvider implements ObjectStoreProvider {
    /** What a compaction task's data file access does. */
    public enum Mode {
        /** Fails with an IOException. */
        FAIL,
        /** Waits until {@link #release()}, then works. */
        HANG,
        /** Works. */
        WORK
    }

    private static volatile Mode mode = Mode.WORK;
    /** Data file accesses of compaction tasks that failed. */
    public static final AtomicInteger FAILED = new AtomicInteger();
    /** Whether a compaction task waits for {@link #release()} now. */
    public static final AtomicBoolean HANGING = new AtomicBoolean();

    private static volatile CountDownLatch released = new CountDownLatch(1);

    /** Compaction tasks' data file accesses from now on do as {@code next} says; counts start over. */
    public static void reset(Mode next) {
        released.countDown();
        released = new CountDownLatch(1);
        FAILED.set(0);
        HANGING.set(false);
        mode = next;
    }

    /** Compaction tasks' data file accesses from now on do as {@code next} says. */
    public static void switchTo(Mode next) {
        mode = next;
    }

    /** Lets the hanging compaction tasks go on; from now on their accesses work. */
    public static void release() {
        mode = Mode.WORK;
        released.countDown();
    }

    @Override
    public Set<String> schemes() {
        return Set.of("brokenmaintenance");
    }

    @Override
    public ObjectStore open(String uri, Map<String, String> storageOptions) {
        return CompactionTaskAccess.local(uri, "brokenmaintenance", true, BrokenMaintenanceStoreProvider::broken);
    }

    private static void broken(String path) throws IOException {
        switch (mode) {
            case FAIL -> {
                FAILED.incrementAndGet();
                throw new IOException("injected: the store fails the compaction's access to " + path);
            }
            case HANG -> {
                HANGING.set(true);
                try {
                    released.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new InterruptedIOException("interrupted while hanging on " + path);
                } finally {
                    HANGING.set(false);
                }
            }
            case WORK -> {}
        }
    }
}
