package dev.lanceflink.encoding.v21;

import java.util.ArrayList;
import java.util.List;

/**
 * Value slots of a packed struct column (one column for the whole struct): one {@link Values}
 * per child, all with the same number of slots. Struct-level nulls live in the def levels.
 */
public final class StructValues implements Values {
    private final List<Values> children;
    private int count;

    public StructValues(List<Values> children, int count) {
        for (Values c : children) {
            if (c.count() != count) {
                throw new IllegalArgumentException(
                        "packed struct child has " + c.count() + " values, expected " + count);
            }
        }
        this.children = children;
        this.count = count;
    }

    public List<Values> children() {
        return children;
    }

    @Override
    public int count() {
        return count;
    }

    /** Records one more row after a caller appended one value to every child. */
    void incrementCount() {
        count++;
        for (Values c : children) {
            if (c.count() != count) {
                throw new IllegalStateException("packed struct child has " + c.count() + " values, expected " + count);
            }
        }
    }

    @Override
    public StructValues emptyLike() {
        List<Values> c = new ArrayList<>(children.size());
        for (Values v : children) {
            c.add(v.emptyLike());
        }
        return new StructValues(c, 0);
    }

    @Override
    public void append(Values src, int from, int to) {
        StructValues s = (StructValues) src;
        for (int i = 0; i < children.size(); i++) {
            children.get(i).append(s.children.get(i), from, to);
        }
        count += to - from;
    }

    @Override
    public void expectSlots(int slots) {
        for (Values c : children) {
            c.expectSlots(slots);
        }
    }

    @Override
    public void appendPlaceholders(int n) {
        for (Values c : children) {
            c.appendPlaceholders(n);
        }
        count += n;
    }

    @Override
    public void appendGather(Values dictionary, FixedWidthValues indices, int from, int to) {
        StructValues d = (StructValues) dictionary;
        for (int i = 0; i < children.size(); i++) {
            children.get(i).appendGather(d.children.get(i), indices, from, to);
        }
        count += to - from;
    }
}
