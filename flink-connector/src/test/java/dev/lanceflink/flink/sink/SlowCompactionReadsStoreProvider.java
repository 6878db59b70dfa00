package dev.lanceflink.flink.sink;

import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.io.ObjectStoreProvider;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.Map;
import java.util.Set;

/**
 * Test store for {@code slowcompaction://<local path>} tables: a local store on which a compaction
 * task thread ({@code lance-compaction-task}) waits {@link #DELAY_MILLIS} before its first read of
 * a data file (and again after a second of reads), while every other thread reads at once. So an
 * in-job compaction surely spans a sink commit or two, whatever the machine's speed: whether it
 * carries their changes is then tested, not left to timing; and a compaction of fragments with
 * many overlay files is not slowed down per file.
 */
public final class SlowCompactionReadsStoreProvider implements ObjectStoreProvider {
    /** How long a compaction task waits before its first read. */
    public static final long DELAY_MILLIS = 400;

    /** When the thread last waited (System.nanoTime), 0 if never. */
    private static final ThreadLocal<long[]> LAST_DELAY = ThreadLocal.withInitial(() -> new long[1]);

    @Override
    public Set<String> schemes() {
        return Set.of("slowcompaction");
    }

    @Override
    public ObjectStore open(String uri, Map<String, String> storageOptions) {
        return CompactionTaskAccess.local(uri, "slowcompaction", false, SlowCompactionReadsStoreProvider::delay);
    }

    private static void delay(String path) throws IOException {
        long[] last = LAST_DELAY.get();
        long now = System.nanoTime();
        if (last[0] == 0 || now - last[0] > 1_000_000_000L) {
            last[0] = now;
            try {
                Thread.sleep(DELAY_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while delaying the read of " + path);
            }
        }
    }
}
