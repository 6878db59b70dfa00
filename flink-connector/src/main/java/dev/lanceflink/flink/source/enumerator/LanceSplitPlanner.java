package dev.lanceflink.flink.source.enumerator;

import dev.lanceflink.flink.source.split.LanceSplit;
import dev.lanceflink.table.Fragment;
import java.util.ArrayList;
import java.util.List;

/**
 * Cuts the fragments of one table version into splits of at most {@code maxRowsPerSplit}
 * physical rows, so a table with few large fragments still reads in parallel. Fragments whose
 * rows are all deleted are skipped.
 */
public final class LanceSplitPlanner {
    private LanceSplitPlanner() {}

    public static List<LanceSplit> plan(long tableVersion, List<Fragment> fragments, long maxRowsPerSplit) {
        if (maxRowsPerSplit < 1) {
            throw new IllegalArgumentException("maxRowsPerSplit must be positive, got " + maxRowsPerSplit);
        }
        List<LanceSplit> out = new ArrayList<>();
        for (Fragment f : fragments) {
            if (f.liveRows() == 0) {
                continue;
            }
            for (long start = 0; start < f.physicalRows(); start += maxRowsPerSplit) {
                out.add(LanceSplit.of(
                        tableVersion, f.id(), start, Math.min(f.physicalRows(), start + maxRowsPerSplit)));
            }
        }
        return out;
    }
}
