package dev.lanceflink.committer.core;

import static java.util.Objects.requireNonNull;

import org.roaringbitmap.RoaringBitmap;

/**
 * Rows to delete from one fragment, as physical offsets. The deletion file itself is written by
 * the committer, because a fragment has one deletion file holding all its deleted rows: the new
 * one is the union of the current one and these offsets, built against the version it commits on.
 */
public record TargetedDeletion(RowTarget target, RoaringBitmap offsets) {
    public TargetedDeletion {
        requireNonNull(target, "target is null");
        requireNonNull(offsets, "offsets is null");
    }
}
