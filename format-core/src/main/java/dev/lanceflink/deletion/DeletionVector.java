package dev.lanceflink.deletion;

import static java.util.Objects.requireNonNull;

import org.roaringbitmap.RoaringBitmap;

/**
 * The set of deleted physical row offsets of one fragment. Immutable; backed by a Roaring bitmap
 * (offsets are unsigned 32-bit, compared as such).
 */
public final class DeletionVector {
    /** No row deleted. */
    public static final DeletionVector EMPTY = new DeletionVector(new RoaringBitmap());

    private final RoaringBitmap offsets;

    private DeletionVector(RoaringBitmap offsets) {
        this.offsets = offsets;
    }

    /** A vector holding a copy of {@code offsets}. */
    public static DeletionVector of(RoaringBitmap offsets) {
        return new DeletionVector(requireNonNull(offsets, "offsets is null").clone());
    }

    public static DeletionVector of(int... offsets) {
        return new DeletionVector(RoaringBitmap.bitmapOf(offsets));
    }

    public int cardinality() {
        return offsets.getCardinality();
    }

    public boolean isEmpty() {
        return offsets.isEmpty();
    }

    public boolean contains(int offset) {
        return offsets.contains(offset);
    }

    /** A copy of the offsets as a bitmap, for bulk work (masks, intersections). */
    public RoaringBitmap toBitmap() {
        return offsets.clone();
    }

    /** The offsets in ascending order. */
    public int[] toArray() {
        return offsets.toArray();
    }

    public DeletionVector union(DeletionVector other) {
        return new DeletionVector(RoaringBitmap.or(offsets, other.offsets));
    }

    public boolean intersects(DeletionVector other) {
        return RoaringBitmap.intersects(offsets, other.offsets);
    }

    /** Offsets present in both vectors. */
    public DeletionVector intersection(DeletionVector other) {
        return new DeletionVector(RoaringBitmap.and(offsets, other.offsets));
    }

    /** True if every offset {@code 0 .. physicalRows-1} is deleted. */
    public boolean coversAll(long physicalRows) {
        return physicalRows > 0 && offsets.getLongCardinality() >= physicalRows && offsets.contains(0L, physicalRows);
    }

    /** Offsets at or beyond {@code physicalRows}, which a deletion vector must not contain. */
    public boolean hasOffsetAtOrBeyond(long physicalRows) {
        return !offsets.isEmpty() && Integer.toUnsignedLong(offsets.last()) >= physicalRows;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof DeletionVector d && offsets.equals(d.offsets);
    }

    @Override
    public int hashCode() {
        return offsets.hashCode();
    }

    @Override
    public String toString() {
        return "DeletionVector[" + cardinality() + " offsets]";
    }
}
