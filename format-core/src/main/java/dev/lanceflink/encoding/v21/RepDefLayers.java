package dev.lanceflink.encoding.v21;

import java.util.Arrays;
import java.util.List;
import lance.encodings21.RepDefLayer;

/**
 * The meaning of a page's definition levels (compression.md §7). Lance assigns def codes from the
 * inside out, and only to layers that can be null or empty, so the same code means different
 * things on two pages of one column when one page happens to have no nulls at some layer. This
 * class translates a page's codes into <em>canonical</em> codes that depend only on the layer:
 * {@code 0} = valid, {@code 2k+1} = null at layer {@code k}, {@code 2k+2} = empty list at layer
 * {@code k}, where layer 0 is the leaf (innermost) and the last layer the top-level field.
 */
public final class RepDefLayers {
    private final int numLayers;
    private final int maxRep;
    /** page def code → canonical code. */
    private final short[] canonical;

    private final int firstListLayer;

    private RepDefLayers(int numLayers, int maxRep, short[] canonical, int firstListLayer) {
        this.numLayers = numLayers;
        this.maxRep = maxRep;
        this.canonical = canonical;
        this.firstListLayer = firstListLayer;
    }

    /** Interprets the {@code layers} field of a page layout (innermost first). */
    public static RepDefLayers of(List<RepDefLayer> layers) {
        if (layers.isEmpty()) {
            throw new IllegalArgumentException(
                    "a page layout lists no rep/def layers; every structural page has at least one");
        }
        short[] map = new short[2 * layers.size() + 1];
        int code = 0;
        int maxRep = 0;
        int firstList = layers.size();
        for (int k = 0; k < layers.size(); k++) {
            RepDefLayer l = layers.get(k);
            if (firstList == layers.size()
                    && l != RepDefLayer.REPDEF_ALL_VALID_ITEM
                    && l != RepDefLayer.REPDEF_NULLABLE_ITEM) {
                firstList = k;
            }
            switch (l) {
                case REPDEF_ALL_VALID_ITEM -> {}
                case REPDEF_ALL_VALID_LIST -> maxRep++;
                case REPDEF_NULLABLE_ITEM -> map[++code] = (short) (2 * k + 1);
                case REPDEF_NULLABLE_LIST -> {
                    maxRep++;
                    map[++code] = (short) (2 * k + 1);
                }
                case REPDEF_EMPTYABLE_LIST -> {
                    maxRep++;
                    map[++code] = (short) (2 * k + 2);
                }
                case REPDEF_NULL_AND_EMPTY_LIST -> {
                    maxRep++;
                    map[++code] = (short) (2 * k + 1);
                    map[++code] = (short) (2 * k + 2);
                }
                default -> throw new IllegalArgumentException("unknown rep/def layer " + l + " at position " + k);
            }
        }
        return new RepDefLayers(layers.size(), maxRep, Arrays.copyOf(map, code + 1), firstList);
    }

    public int numLayers() {
        return numLayers;
    }

    /** Number of list layers: the repetition level that starts a new row. */
    public int maxRep() {
        return maxRep;
    }

    /**
     * Whether a level entry with canonical def code {@code d} owns a value slot: it does when the
     * leaf is valid or when the null lies on an item layer inside the innermost list (struct
     * nulls, leaf nulls); null or empty lists and anything under them own none.
     */
    public boolean visible(int canonicalDef) {
        return canonicalDef == 0 || ((canonicalDef - 1) >>> 1) < firstListLayer;
    }

    /** Highest def code used on the page (0 when nothing can be null or empty). */
    public int maxDef() {
        return canonical.length - 1;
    }

    /** Rewrites page def codes in place into canonical codes. */
    public void canonicalize(short[] def, int from, int to) {
        for (int i = from; i < to; i++) {
            int d = def[i];
            if (d < 0 || d >= canonical.length) {
                throw new IllegalArgumentException("definition level " + d + " at entry " + i
                        + " is larger than the page's maximum " + (canonical.length - 1));
            }
            def[i] = canonical[d];
        }
    }

    /** Canonical code of page code {@code d}. */
    public short canonical(int d) {
        if (d < 0 || d >= canonical.length) {
            throw new IllegalArgumentException(
                    "definition level " + d + " is larger than the page's maximum " + (canonical.length - 1));
        }
        return canonical[d];
    }
}
