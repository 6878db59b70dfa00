package dev.lanceflink.schema;

import java.io.Serializable;
import java.util.Arrays;

/**
 * An immutable set of column positions (0-based indexes of a schema's top-level fields), of any
 * width: which columns an update sets, which ones a writer writes, which ones are keys.
 *
 * <p>Positions below 64 live in one {@code long}, so that a table of up to 64 columns pays what a
 * plain bit mask costs: {@link #contains} is a shift and a test, and set operations allocate
 * nothing when the result is one of their operands (the usual case: the same columns again).
 * Wider tables add one word per 64 further columns. Two sets with the same positions are equal
 * however they were built (no trailing empty words are kept).
 *
 * <p>Walk a set without allocating with {@code for (int c = s.first(); c >= 0; c = s.next(c + 1))}.
 */
public final class ColumnSet implements Serializable {
    private static final long serialVersionUID = 1L;
    private static final long[] NO_WORDS = {};

    /** The set without any column. */
    public static final ColumnSet EMPTY = new ColumnSet(0, NO_WORDS);

    /** Positions 0..63. */
    private final long low;
    /** Word {@code k} holds positions {@code 64 (k + 1)} to {@code 64 (k + 2) - 1}; its last word is not 0. */
    private final long[] high;

    private ColumnSet(long low, long[] high) {
        this.low = low;
        this.high = high;
    }

    /** The set of {@code positions} (each at least 0; repeats are fine). */
    public static ColumnSet of(int... positions) {
        Builder b = builder();
        for (int p : positions) {
            b.add(p);
        }
        return b.build();
    }

    /** Positions {@code 0} to {@code count - 1}: every column of a table of {@code count} columns. */
    public static ColumnSet firstColumns(int count) {
        if (count < 0) {
            throw new IllegalArgumentException("A column count must not be negative, got " + count);
        }
        if (count <= Long.SIZE) {
            return fromMask(count == Long.SIZE ? -1L : (1L << count) - 1);
        }
        long[] high = new long[(count - 1) / Long.SIZE];
        Arrays.fill(high, -1L);
        int rest = count % Long.SIZE;
        if (rest != 0) {
            high[high.length - 1] = (1L << rest) - 1;
        }
        return new ColumnSet(-1L, high);
    }

    /** The positions of the bits set in {@code mask} (bit {@code i} is position {@code i}). */
    public static ColumnSet fromMask(long mask) {
        return mask == 0 ? EMPTY : new ColumnSet(mask, NO_WORDS);
    }

    /**
     * The set whose {@link #word}s are {@code words} (word 0 holds positions 0 to 63, bit
     * {@code i} of it position {@code i}); the array is copied.
     */
    public static ColumnSet fromWords(long[] words) {
        int n = significantWords(words, words.length);
        if (n <= 1) {
            return fromMask(n == 0 ? 0 : words[0]);
        }
        return new ColumnSet(words[0], Arrays.copyOfRange(words, 1, n));
    }

    /** A builder for sets made one position at a time. */
    public static Builder builder() {
        return new Builder();
    }

    /** Number of words up to the last one that holds a position; 0 for the empty set. */
    public int wordCount() {
        return high.length > 0 ? high.length + 1 : low != 0 ? 1 : 0;
    }

    /** Word {@code i}: bit {@code b} set means position {@code 64 i + b} is in the set; 0 past the last word. */
    public long word(int i) {
        if (i < 0) {
            throw new IndexOutOfBoundsException("word index " + i);
        }
        return i == 0 ? low : i <= high.length ? high[i - 1] : 0;
    }

    /** True if every position is below 64, so {@link #asMask} holds the whole set. */
    public boolean fitsInMask() {
        return high.length == 0;
    }

    /**
     * The set as a 64-bit mask.
     *
     * @throws IllegalStateException if it holds a position of 64 or more
     */
    public long asMask() {
        if (high.length != 0) {
            throw new IllegalStateException(
                    "The column set " + this + " holds positions beyond 63; it has no 64-bit" + " mask");
        }
        return low;
    }

    public boolean contains(int position) {
        if (position < Long.SIZE) {
            return position >= 0 && (low & (1L << position)) != 0;
        }
        int w = position / Long.SIZE - 1;
        return w < high.length && (high[w] & (1L << position)) != 0;
    }

    /**
     * Where {@code position} sits among the set's positions in ascending order (the number of
     * positions below it), or -1 if the set does not hold it: the index of a column's value when
     * the values of the set's columns are packed in column order.
     */
    public int indexOf(int position) {
        if (position < 0) {
            return -1;
        }
        long bit = 1L << position; // position % 64
        if (position < Long.SIZE) {
            return (low & bit) == 0 ? -1 : Long.bitCount(low & (bit - 1));
        }
        int w = position / Long.SIZE - 1;
        if (w >= high.length || (high[w] & bit) == 0) {
            return -1;
        }
        int n = Long.bitCount(low);
        for (int k = 0; k < w; k++) {
            n += Long.bitCount(high[k]);
        }
        return n + Long.bitCount(high[w] & (bit - 1));
    }

    public boolean isEmpty() {
        return low == 0 && high.length == 0;
    }

    /** Number of positions in the set. */
    public int size() {
        int n = Long.bitCount(low);
        for (long w : high) {
            n += Long.bitCount(w);
        }
        return n;
    }

    /** The smallest position, or -1 for the empty set. */
    public int first() {
        return next(0);
    }

    /** The smallest position that is {@code from} or more, or -1 if there is none. */
    public int next(int from) {
        if (from < 0) {
            from = 0;
        }
        if (from < Long.SIZE) {
            long w = low & (-1L << from);
            if (w != 0) {
                return Long.numberOfTrailingZeros(w);
            }
            from = Long.SIZE;
        }
        int k = from / Long.SIZE - 1;
        if (k >= high.length) {
            return -1;
        }
        long w = high[k] & (-1L << from);
        while (true) {
            if (w != 0) {
                return (k + 1) * Long.SIZE + Long.numberOfTrailingZeros(w);
            }
            if (++k == high.length) {
                return -1;
            }
            w = high[k];
        }
    }

    /** The positions in ascending order. */
    public int[] toArray() {
        int[] out = new int[size()];
        int i = 0;
        for (int c = first(); c >= 0; c = next(c + 1)) {
            out[i++] = c;
        }
        return out;
    }

    /** True if every position of {@code other} is in this set. */
    public boolean containsAll(ColumnSet other) {
        if ((other.low & ~low) != 0 || other.high.length > high.length) {
            return false;
        }
        for (int k = 0; k < other.high.length; k++) {
            if ((other.high[k] & ~high[k]) != 0) {
                return false;
            }
        }
        return true;
    }

    /** True if the two sets share a position. */
    public boolean intersects(ColumnSet other) {
        if ((low & other.low) != 0) {
            return true;
        }
        int n = Math.min(high.length, other.high.length);
        for (int k = 0; k < n; k++) {
            if ((high[k] & other.high[k]) != 0) {
                return true;
            }
        }
        return false;
    }

    /** The positions in either set; one of the two sets itself when it holds the other. */
    public ColumnSet union(ColumnSet other) {
        if (containsAll(other)) {
            return this;
        }
        if (other.containsAll(this)) {
            return other;
        }
        long[] longer = high.length >= other.high.length ? high : other.high;
        long[] shorter = longer == high ? other.high : high;
        long[] words = longer.clone();
        for (int k = 0; k < shorter.length; k++) {
            words[k] |= shorter[k];
        }
        return new ColumnSet(low | other.low, words);
    }

    /** The positions in both sets; one of the two sets itself when the other holds it. */
    public ColumnSet intersection(ColumnSet other) {
        if (other.containsAll(this)) {
            return this;
        }
        if (containsAll(other)) {
            return other;
        }
        int n = Math.min(high.length, other.high.length);
        long[] words = new long[n];
        for (int k = 0; k < n; k++) {
            words[k] = high[k] & other.high[k];
        }
        return trimmed(low & other.low, words);
    }

    /** The positions of this set that are not in {@code other}; this set itself when they share none. */
    public ColumnSet minus(ColumnSet other) {
        if (!intersects(other)) {
            return this;
        }
        long[] words = high.clone();
        int n = Math.min(high.length, other.high.length);
        for (int k = 0; k < n; k++) {
            words[k] &= ~other.high[k];
        }
        return trimmed(low & ~other.low, words);
    }

    private static ColumnSet trimmed(long low, long[] high) {
        int n = significantWords(high, high.length);
        if (n == 0) {
            return fromMask(low);
        }
        return new ColumnSet(low, n == high.length ? high : Arrays.copyOf(high, n));
    }

    private static int significantWords(long[] words, int length) {
        int n = length;
        while (n > 0 && words[n - 1] == 0) {
            n--;
        }
        return n;
    }

    @Override
    public boolean equals(Object o) {
        return o == this || o instanceof ColumnSet s && s.low == low && Arrays.equals(s.high, high);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(low) * 31 + Arrays.hashCode(high);
    }

    /** The positions, as in {@code {0, 3, 70}}. */
    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("{");
        for (int c = first(); c >= 0; c = next(c + 1)) {
            b.append(b.length() > 1 ? ", " : "").append(c);
        }
        return b.append('}').toString();
    }

    /** Gathers positions; {@link #build} may be called more than once. */
    public static final class Builder {
        private long low;
        private long[] high = NO_WORDS;

        private Builder() {}

        /** Adds {@code position} (at least 0). */
        public Builder add(int position) {
            if (position < 0) {
                throw new IllegalArgumentException("A column position must not be negative, got " + position);
            }
            if (position < Long.SIZE) {
                low |= 1L << position;
                return this;
            }
            int w = position / Long.SIZE - 1;
            if (w >= high.length) {
                high = Arrays.copyOf(high, Math.max(w + 1, high.length * 2));
            }
            high[w] |= 1L << position;
            return this;
        }

        /** Adds every position of {@code set}. */
        public Builder addAll(ColumnSet set) {
            low |= set.low;
            if (set.high.length > high.length) {
                high = Arrays.copyOf(high, set.high.length);
            }
            for (int k = 0; k < set.high.length; k++) {
                high[k] |= set.high[k];
            }
            return this;
        }

        public ColumnSet build() {
            int n = significantWords(high, high.length);
            return n == 0 ? fromMask(low) : new ColumnSet(low, Arrays.copyOf(high, n));
        }
    }
}
