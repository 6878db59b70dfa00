package dev.lanceflink.overlay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanceflink.io.TestStores;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link OverlayModelSuite} on the local file system, plus thousands of short sequences on
 * {@link MemoryObjectStore}.
 */
class OverlayModelTest extends OverlayModelSuite {
    /** Short sequences run by {@link #thousandsOfShortSequencesMatchTheModel()}; replay one with -Dlf.overlayModelSeed. */
    private static final int SEQUENCES = Integer.getInteger("lf.overlayModelSequences", 2000);

    private static final long REPLAY_SEED = Long.getLong("lf.overlayModelSeed", -1L);

    @TempDir
    Path dir;

    @Override
    protected TestStores stores() {
        return TestStores.local(dir);
    }

    /**
     * Thousands of short seeded sequences (5 to 15 operations on tables of 1 to 8 rows in one or two
     * fragments): small tables make edge cases frequent (a fragment losing its last row, overlays
     * covering every row or only deleted ones, merges of the whole overlay list). Each sequence
     * checks every version it created; a failure names the seed to replay with
     * {@code -Dlf.overlayModelSeed=<seed>}. Tables live in memory: a directory and an fsync per
     * commit would cost more than the checks.
     */
    @Test
    void thousandsOfShortSequencesMatchTheModel() throws Exception {
        Map<String, Integer> total = new TreeMap<>();
        int commits = 0;
        long first = REPLAY_SEED >= 0 ? REPLAY_SEED : 7_000_000L;
        int count = REPLAY_SEED >= 0 ? 1 : SEQUENCES;
        try (BufferAllocator root = new RootAllocator()) {
            for (long seed = first; seed < first + count; seed++) {
                Random shape = new Random(seed ^ 0x5DEECE66DL);
                int rows = 1 + shape.nextInt(8);
                int rowsPerFile = shape.nextBoolean() ? rows : Math.max(1, (rows + 1) / 2);
                int operations = 5 + shape.nextInt(11);
                try (BufferAllocator allocator = root.newChildAllocator("seed " + seed, 0, Long.MAX_VALUE)) {
                    MemoryObjectStore store = new MemoryObjectStore("memory://overlay-model-" + seed);
                    Map<String, Integer> counts = runSequence(store, allocator, seed, rows, rowsPerFile, operations, 6);
                    counts.forEach((k, v) -> total.merge(k, v, Integer::sum));
                    commits += snapshots.size();
                } catch (Throwable t) {
                    throw new AssertionError(
                            "Overlay model sequence with seed " + seed + " failed (" + rows + " rows, " + operations
                                    + " operations); replay it with -Dlf.overlayModelSeed=" + seed,
                            t);
                }
            }
        }
        System.out.println(
                "overlay model: " + count + " sequences, " + commits + " versions checked, commits " + total);
        if (REPLAY_SEED < 0) { // a replayed single sequence need not reach every kind
            assertThat(total).containsKeys("append", "delete", "dense", "sparse", "rewriteRows", "merge", "fold");
            assertThat(total.get("merge")).isGreaterThan(count / 20);
            assertThat(total.get("fold")).isGreaterThan(count / 20);
            assertThat(commits).isGreaterThan(count * 5);
        }
    }
}
