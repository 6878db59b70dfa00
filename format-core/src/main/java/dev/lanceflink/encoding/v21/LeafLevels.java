package dev.lanceflink.encoding.v21;

import java.util.Arrays;

/**
 * Growable repetition/definition levels of one leaf column for a read: rep levels as stored
 * (Lance numbering: {@code maxRep} starts a row, 0 continues the innermost list) and def levels
 * in canonical form (see {@link RepDefLayers}). Columns without lists keep no rep levels; every
 * entry is then a row.
 */
public final class LeafLevels {
    private final boolean hasRep;
    private short[] rep;
    private short[] def;
    private int size;

    public LeafLevels(boolean hasRep, int capacity) {
        this.hasRep = hasRep;
        int c = Math.max(capacity, 16);
        this.rep = hasRep ? new short[c] : null;
        this.def = new short[c];
    }

    public boolean hasRep() {
        return hasRep;
    }

    public int size() {
        return size;
    }

    /** Rep levels (valid up to {@link #size()}), or null without lists. */
    public short[] rep() {
        return rep;
    }

    /** Canonical def levels, valid up to {@link #size()}. */
    public short[] def() {
        return def;
    }

    private void ensure(int n) {
        if (n > def.length) {
            int c = Math.max(n, def.length * 2);
            def = Arrays.copyOf(def, c);
            if (hasRep) {
                rep = Arrays.copyOf(rep, c);
            }
        }
    }

    /**
     * Appends entries {@code [from, to)}; {@code srcRep} may be null only if the column has no
     * lists, {@code srcDef} null means "all valid".
     */
    public void append(short[] srcRep, short[] srcDef, int from, int to) {
        int n = to - from;
        ensure(size + n);
        if (hasRep) {
            if (srcRep == null) {
                throw new IllegalArgumentException("a page of a list column has no repetition levels");
            }
            System.arraycopy(srcRep, from, rep, size, n);
        }
        if (srcDef == null) {
            Arrays.fill(def, size, size + n, (short) 0);
        } else {
            System.arraycopy(srcDef, from, def, size, n);
        }
        size += n;
    }

    /** Appends {@code n} entries with the same levels (constant and all-null pages). */
    public void appendRepeated(short repLevel, short defLevel, int n) {
        ensure(size + n);
        if (hasRep) {
            Arrays.fill(rep, size, size + n, repLevel);
        }
        Arrays.fill(def, size, size + n, defLevel);
        size += n;
    }
}
