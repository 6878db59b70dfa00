package dev.lanceflink.encoding.v21;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Fixed-size-list value slots of a primitive FSL leaf: {@code dimension} items per slot, stored
 * flattened in {@link #items()}, with an optional per-item validity bitmap (LSB-first, 1 = valid).
 */
public final class FixedSizeListValues implements Values {
    private final int dimension;
    private final Values items;
    /** Item validity bits; null while every item so far is valid. */
    private byte[] itemValidity;

    private int count;

    private FixedSizeListValues(int dimension, Values items, byte[] itemValidity, int count) {
        if (dimension <= 0) {
            throw new IllegalArgumentException("fixed-size list dimension must be positive, got " + dimension);
        }
        this.dimension = dimension;
        this.items = items;
        this.itemValidity = itemValidity;
        this.count = count;
    }

    /**
     * Wraps decoded items.
     *
     * @param itemValidity LSB-first item validity, or null when all items are valid
     */
    public static FixedSizeListValues wrap(int dimension, Values items, byte[] itemValidity) {
        if (items.count() % dimension != 0) {
            throw new IllegalArgumentException(
                    items.count() + " items are not a whole number of lists of " + dimension);
        }
        return new FixedSizeListValues(dimension, items, itemValidity, items.count() / dimension);
    }

    public int dimension() {
        return dimension;
    }

    public Values items() {
        return items;
    }

    /** LSB-first item validity, or null when all items are valid. */
    public byte[] itemValidity() {
        return itemValidity;
    }

    public boolean itemValid(int item) {
        return itemValidity == null || (itemValidity[item >>> 3] >>> (item & 7) & 1) != 0;
    }

    @Override
    public int count() {
        return count;
    }

    @Override
    public FixedSizeListValues emptyLike() {
        return new FixedSizeListValues(dimension, items.emptyLike(), null, 0);
    }

    private void setValidity(int item, boolean valid) {
        if (itemValidity == null) {
            if (valid) {
                return;
            }
            itemValidity = new byte[Math.max(64, (item + 8) / 8 * 2)];
            Arrays.fill(itemValidity, (byte) 0xFF);
        }
        if ((item >>> 3) >= itemValidity.length) {
            int old = itemValidity.length;
            itemValidity = Arrays.copyOf(itemValidity, Math.max(old * 2, (item >>> 3) + 1));
            Arrays.fill(itemValidity, old, itemValidity.length, (byte) 0xFF);
        }
        if (valid) {
            itemValidity[item >>> 3] |= (byte) (1 << (item & 7));
        } else {
            itemValidity[item >>> 3] &= (byte) ~(1 << (item & 7));
        }
    }

    @Override
    public void append(Values src, int from, int to) {
        FixedSizeListValues s = (FixedSizeListValues) src;
        if (s.dimension != dimension) {
            throw new IllegalArgumentException(
                    "cannot append lists of " + s.dimension + " items to lists of " + dimension);
        }
        int base = count * dimension;
        items.append(s.items, from * dimension, to * dimension);
        if (s.itemValidity != null || itemValidity != null) {
            for (int i = 0, n = (to - from) * dimension; i < n; i++) {
                setValidity(base + i, s.itemValid(from * dimension + i));
            }
        }
        count += to - from;
    }

    /**
     * Appends one list from {@code src}: when {@code hasValidity}, {@code ceil(dimension/8)}
     * validity bytes (LSB-first) come first, then the {@code dimension} items.
     */
    public void appendRow(ByteBuffer src, int at, boolean hasValidity) {
        int base = count * dimension;
        int p = at;
        if (hasValidity) {
            for (int i = 0; i < dimension; i++) {
                setValidity(base + i, (src.get(at + (i >>> 3)) >>> (i & 7) & 1) != 0);
            }
            p += (dimension + 7) / 8;
        } else if (itemValidity != null) {
            for (int i = 0; i < dimension; i++) {
                setValidity(base + i, true);
            }
        }
        if (!(items instanceof FixedWidthValues f)) {
            throw new IllegalArgumentException("only fixed-size lists of fixed-width items can be read row by row");
        }
        f.appendFrom(src, p, dimension);
        count++;
    }

    /**
     * Appends {@code n} lists stored back to back at {@code src[at..]} without validity bytes
     * (all items valid), in one bulk copy.
     */
    public void appendRows(ByteBuffer src, int at, int n) {
        if (!(items instanceof FixedWidthValues f)) {
            throw new IllegalArgumentException("only fixed-size lists of fixed-width items can be read in bulk");
        }
        int base = count * dimension;
        f.appendFrom(src, at, Math.multiplyExact(n, dimension));
        if (itemValidity != null) {
            for (int i = 0, items = n * dimension; i < items; i++) {
                setValidity(base + i, true);
            }
        }
        count += n;
    }

    @Override
    public void expectSlots(int slots) {
        items.expectSlots((int) Math.min(Integer.MAX_VALUE - 16L, (long) slots * dimension));
    }

    @Override
    public void appendPlaceholders(int n) {
        int base = count * dimension;
        items.appendPlaceholders(n * dimension);
        if (itemValidity != null) {
            for (int i = 0; i < n * dimension; i++) {
                setValidity(base + i, true);
            }
        }
        count += n;
    }

    @Override
    public void appendGather(Values dictionary, FixedWidthValues indices, int from, int to) {
        FixedSizeListValues d = (FixedSizeListValues) dictionary;
        for (int i = from; i < to; i++) {
            long idx = indices.u32(i);
            if (idx >= d.count) {
                throw new IllegalArgumentException(
                        "dictionary index " + idx + " out of range for " + d.count + " items");
            }
            append(d, (int) idx, (int) idx + 1);
        }
    }
}
