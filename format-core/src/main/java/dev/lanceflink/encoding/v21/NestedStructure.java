package dev.lanceflink.encoding.v21;

import java.util.Arrays;

/**
 * The Arrow-shaped structure that one leaf column's levels describe (compression.md §7): for every
 * node on the path from the top-level field (node 0) down to the leaf (last node), the number of
 * elements, their validity and, for list nodes, the offsets into the next node's elements.
 *
 * <p>Every leaf element owns one value slot, in order, so the leaf's element {@code i} is value
 * slot {@code i}. Elements below a null struct are present (Arrow struct children have the
 * struct's length) but invalid; lists that are null, empty or below a null have no children.
 */
public final class NestedStructure {
    private final boolean[] isList;
    private final int[] counts;
    private final byte[][] validity;
    private final int[][] offsets;
    private final boolean[] anyNull;

    private NestedStructure(boolean[] isList) {
        int n = isList.length;
        this.isList = isList;
        this.counts = new int[n];
        this.validity = new byte[n][64];
        this.offsets = new int[n][];
        this.anyNull = new boolean[n];
        for (int j = 0; j < n; j++) {
            if (isList[j]) {
                offsets[j] = new int[64];
            }
        }
    }

    /**
     * Assembles the structure.
     *
     * @param levels the leaf's levels (canonical def codes)
     * @param isListTopDown for each node from the top-level field down to the leaf: whether it is a
     *     list layer (list, large_list) rather than an item layer (struct or the leaf itself)
     */
    public static NestedStructure assemble(LeafLevels levels, boolean[] isListTopDown) {
        int numNodes = isListTopDown.length;
        if (isListTopDown[numNodes - 1]) {
            throw new IllegalArgumentException("the leaf node of a column cannot be a list layer");
        }
        int[] listNodes = new int[numNodes];
        int maxRep = 0;
        for (int j = 0; j < numNodes; j++) {
            if (isListTopDown[j]) {
                listNodes[maxRep++] = j;
            }
        }
        NestedStructure s = new NestedStructure(isListTopDown);
        short[] rep = levels.rep();
        short[] def = levels.def();
        if (numNodes == 1 && allZero(def, levels.size())) {
            // A top-level leaf without nulls (the common case): one valid element per entry.
            s.setAllValid(0, levels.size());
            return s;
        }
        if (maxRep > 0 && rep == null) {
            throw new IllegalArgumentException("a column with " + maxRep + " list layers has no repetition levels");
        }
        for (int i = 0, n = levels.size(); i < n; i++) {
            int firstNew = 0;
            if (maxRep > 0) {
                int r = rep[i];
                if (r < 0 || r > maxRep) {
                    throw new IllegalArgumentException(
                            "repetition level " + r + " at entry " + i + " is outside 0.." + maxRep);
                }
                int depth = maxRep - r; // lists (from the top) that this entry continues
                firstNew = depth == 0 ? 0 : listNodes[depth - 1] + 1;
                if (i == 0 && depth != 0) {
                    throw new IllegalArgumentException("the first level entry continues a list (repetition level " + r
                            + " < " + maxRep + "); the read did not start at a row boundary");
                }
            }
            int d = def[i];
            int nullNode = numNodes;
            boolean empty = false;
            if (d != 0) {
                int layer = (d - 1) >>> 1;
                nullNode = numNodes - 1 - layer;
                empty = ((d - 1) & 1) == 1;
                if (nullNode < 0) {
                    throw new IllegalArgumentException("definition level at entry " + i + " names layer " + layer
                            + " but the column has only " + numNodes + " layers");
                }
            }
            for (int j = firstNew; j < numNodes; j++) {
                boolean valid = j < nullNode || (j == nullNode && empty);
                s.addElement(j, valid);
                if (isListTopDown[j] && j >= nullNode) {
                    break;
                }
            }
        }
        for (int j = 0; j < numNodes; j++) {
            if (isListTopDown[j]) {
                s.ensureOffsets(j, s.counts[j] + 1);
                s.offsets[j][s.counts[j]] = s.counts[j + 1];
            }
        }
        return s;
    }

    private static boolean allZero(short[] def, int n) {
        for (int i = 0; i < n; i++) {
            if (def[i] != 0) {
                return false;
            }
        }
        return true;
    }

    private void setAllValid(int j, int n) {
        byte[] bits = new byte[(n + 7) / 8 + 1];
        Arrays.fill(bits, (byte) 0xFF);
        validity[j] = bits;
        counts[j] = n;
    }

    private void addElement(int j, boolean valid) {
        int e = counts[j];
        if ((e >>> 3) >= validity[j].length) {
            validity[j] = Arrays.copyOf(validity[j], validity[j].length * 2);
        }
        if (valid) {
            validity[j][e >>> 3] |= (byte) (1 << (e & 7));
        } else {
            anyNull[j] = true;
        }
        if (isList[j]) {
            ensureOffsets(j, e + 2);
            offsets[j][e] = counts[j + 1];
        }
        counts[j] = e + 1;
    }

    private void ensureOffsets(int j, int n) {
        if (n > offsets[j].length) {
            offsets[j] = Arrays.copyOf(offsets[j], Math.max(n, offsets[j].length * 2));
        }
    }

    public int numNodes() {
        return counts.length;
    }

    /** Elements of node {@code j}; node 0's count is the number of rows. */
    public int count(int j) {
        return counts[j];
    }

    /** LSB-first validity bits of node {@code j} (at least {@code ceil(count/8)} bytes). */
    public byte[] validity(int j) {
        return validity[j];
    }

    public boolean valid(int j, int element) {
        return (validity[j][element >>> 3] >>> (element & 7) & 1) != 0;
    }

    /** Whether any element of node {@code j} is null. */
    public boolean anyNull(int j) {
        return anyNull[j];
    }

    /** Offsets ({@code count + 1} entries) of list node {@code j} into node {@code j + 1}. */
    public int[] offsets(int j) {
        if (!isList[j]) {
            throw new IllegalArgumentException("node " + j + " is not a list");
        }
        return offsets[j];
    }

    public boolean isList(int j) {
        return isList[j];
    }
}
