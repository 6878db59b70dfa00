package dev.lanceflink.encoding.v20;

import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.NonNullableStructVector;
import org.apache.arrow.vector.complex.StructVector;

/**
 * Appends rows of one vector to another of the same type, recursing through lists, fixed-size
 * lists and structs by their offsets and child ranges.
 *
 * <p>Why not {@code TransferPair.copyValueSafe}: for nested types Arrow Java copies through its
 * complex writers, which have no writer for a fixed-size list inside a list ("FieldWriter not
 * implemented for FixedSizeList type"), so {@code take} on {@code list<fixed_size_list<…>>}
 * failed. Copying offsets and child ranges works for every nesting the 2.0 reader produces.
 *
 * <p>Rows must be appended in ascending target order (as {@link V20FieldReader#take} does):
 * list offsets are built from the previous row's end.
 */
final class VectorRowCopier {
    private VectorRowCopier() {}

    /** Copies row {@code from} of {@code src} to row {@code to} of {@code dst}. */
    static void copyRow(FieldVector src, int from, FieldVector dst, int to) {
        copyRange(src, from, dst, to, 1);
    }

    /** Copies rows {@code [from, from + count)} of {@code src} to rows starting at {@code to} of {@code dst}. */
    static void copyRange(FieldVector src, int from, FieldVector dst, int to, int count) {
        if (count == 0) {
            return;
        }
        if (src instanceof ListVector s && dst instanceof ListVector d) {
            for (int i = 0; i < count; i++) {
                if (s.isNull(from + i)) {
                    d.setNull(to + i);
                    continue;
                }
                int start = s.getElementStartIndex(from + i);
                int size = s.getElementEndIndex(from + i) - start;
                int childAt = d.startNewValue(to + i);
                copyRange(s.getDataVector(), start, d.getDataVector(), childAt, size);
                d.endValue(to + i, size);
            }
        } else if (src instanceof LargeListVector s && dst instanceof LargeListVector d) {
            for (int i = 0; i < count; i++) {
                if (s.isNull(from + i)) {
                    d.setNull(to + i);
                    continue;
                }
                long start = s.getElementStartIndex(from + i);
                long size = s.getElementEndIndex(from + i) - start;
                long childAt = d.startNewValue(to + i);
                copyRange(
                        s.getDataVector(),
                        Math.toIntExact(start),
                        d.getDataVector(),
                        Math.toIntExact(childAt),
                        Math.toIntExact(size));
                d.endValue(to + i, size);
            }
        } else if (src instanceof FixedSizeListVector s && dst instanceof FixedSizeListVector d) {
            int dim = s.getListSize();
            for (int i = 0; i < count; i++) {
                if (s.isNull(from + i)) {
                    d.setNull(to + i);
                } else {
                    d.startNewValue(to + i);
                }
            }
            // Items of null rows are copied too: a fixed-size list keeps their slots.
            copyRange(s.getDataVector(), from * dim, d.getDataVector(), to * dim, count * dim);
        } else if (src instanceof NonNullableStructVector s && dst instanceof NonNullableStructVector d) {
            if (d instanceof StructVector nullable) {
                for (int i = 0; i < count; i++) {
                    if (s.isNull(from + i)) {
                        nullable.setNull(to + i);
                    } else {
                        nullable.setIndexDefined(to + i);
                    }
                }
            }
            for (int c = 0; c < s.getChildrenFromFields().size(); c++) {
                copyRange(
                        s.getChildrenFromFields().get(c),
                        from,
                        d.getChildrenFromFields().get(c),
                        to,
                        count);
            }
        } else if (src instanceof BaseFixedWidthVector
                || src instanceof BaseVariableWidthVector
                || src instanceof BaseLargeVariableWidthVector) {
            for (int i = 0; i < count; i++) {
                dst.copyFromSafe(from + i, to + i, src);
            }
        } else {
            throw new IllegalArgumentException(
                    "cannot copy rows of a " + src.getClass().getSimpleName() + " ("
                            + src.getField() + ") into a " + dst.getClass().getSimpleName()
                            + "; the 2.0 reader produces only primitive, binary, list, fixed-size list and struct vectors");
        }
    }
}
