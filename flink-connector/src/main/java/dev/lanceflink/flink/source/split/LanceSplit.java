package dev.lanceflink.flink.source.split;

import java.io.Serializable;
import org.apache.flink.api.connector.source.SourceSplit;

/**
 * A range of physical row offsets {@code [start, end)} of one fragment of one pinned table
 * version, plus the reader's progress in it: the physical offset to resume at and how many rows
 * it already emitted (so a pushed-down limit survives a restore). Immutable; the reader's
 * mutable progress is {@link LanceSplitState}.
 */
public record LanceSplit(long tableVersion, long fragmentId, long start, long end, long nextOffset, long rowsEmitted)
        implements SourceSplit, Serializable {

    public LanceSplit {
        if (start < 0 || end < start || nextOffset < start || nextOffset > end || rowsEmitted < 0) {
            throw new IllegalArgumentException("Inconsistent split of fragment " + fragmentId + " at version "
                    + tableVersion + ": range [" + start + ", " + end + "), next offset " + nextOffset
                    + ", rows emitted " + rowsEmitted);
        }
    }

    /** A split not read yet. */
    public static LanceSplit of(long tableVersion, long fragmentId, long start, long end) {
        return new LanceSplit(tableVersion, fragmentId, start, end, start, 0);
    }

    @Override
    public String splitId() {
        return "v" + tableVersion + "-f" + fragmentId + "-" + start + "-" + end;
    }

    public LanceSplit withProgress(long newNextOffset, long newRowsEmitted) {
        return new LanceSplit(tableVersion, fragmentId, start, end, newNextOffset, newRowsEmitted);
    }
}
