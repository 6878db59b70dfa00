package dev.lanceflink.file.writer;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The chain of fields from a top-level field down to one leaf: the unit of a 2.1+ column.
 * Layer numbering follows Lance: layer 0 is the leaf, layer {@code depth} the top-level field
 * (rep/def layers are listed innermost first).
 */
final class LeafPath {
    final WriterField[] fields;
    /** For {@code fields[j]} (j ≥ 1) under a struct: its position among the struct's children. */
    final int[] childOrdinal;
    /** Number of list layers on the path (= max repetition level). */
    final int maxRep;
    /** Layer index of the innermost list, or {@code Integer.MAX_VALUE} without lists. */
    final int innermostListLayer;
    /** Lance list level (maxRep outermost … 1 innermost) of each list on the path, by path index. */
    final int[] listLevel;

    LeafPath(List<WriterField> chain, List<Integer> ordinals) {
        this.fields = chain.toArray(new WriterField[0]);
        this.childOrdinal = ordinals.stream().mapToInt(Integer::intValue).toArray();
        int lists = 0;
        int innermost = Integer.MAX_VALUE;
        for (int j = 0; j < fields.length; j++) {
            if (fields[j].kind().isList()) {
                lists++;
                innermost = layerOf(j);
            }
        }
        this.maxRep = lists;
        this.innermostListLayer = innermost;
        this.listLevel = new int[fields.length];
        int q = lists;
        for (int j = 0; j < fields.length; j++) {
            if (fields[j].kind().isList()) {
                listLevel[j] = q--;
            }
        }
    }

    int depth() {
        return fields.length - 1;
    }

    int numLayers() {
        return fields.length;
    }

    int layerOf(int pathIndex) {
        return fields.length - 1 - pathIndex;
    }

    WriterField leaf() {
        return fields[fields.length - 1];
    }

    /** An entry ending (null or empty) at {@code layer} keeps a value slot iff it is below every list. */
    boolean slotAt(int layer) {
        return layer < innermostListLayer;
    }

    /** Pre-order list of the leaf paths of a top-level field (2.1+ columns, in column order). */
    static List<LeafPath> leavesOf(WriterField top) {
        List<LeafPath> out = new ArrayList<>();
        collect(top, new ArrayList<>(), new ArrayList<>(), -1, out);
        return out;
    }

    private static void collect(
            WriterField f, List<WriterField> chain, List<Integer> ordinals, int ordinal, List<LeafPath> out) {
        chain.add(f);
        ordinals.add(ordinal);
        if (f.kind().isLeaf()) {
            out.add(new LeafPath(new ArrayList<>(chain), new ArrayList<>(ordinals)));
        } else {
            List<WriterField> children = f.children();
            if (children.isEmpty()) {
                throw new IllegalArgumentException("field '" + f.name() + "' (id " + f.id() + ") is a "
                        + f.kind().name().toLowerCase(Locale.ROOT)
                        + " without child fields; Lance cannot store it");
            }
            for (int i = 0; i < children.size(); i++) {
                collect(children.get(i), chain, ordinals, f.kind() == WriterField.Kind.STRUCT ? i : -1, out);
            }
        }
        chain.remove(chain.size() - 1);
        ordinals.remove(ordinals.size() - 1);
    }
}
