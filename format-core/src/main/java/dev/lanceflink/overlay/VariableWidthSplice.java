package dev.lanceflink.overlay;

import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;

/**
 * Builds a string or binary column (4-byte offsets) from base values with some cells replaced by
 * overlay values. Most cells of a batch usually keep their base value, so every run of kept cells
 * is copied with one byte copy and shifted offsets, and only replaced cells are copied one by
 * one; the output is allocated once at its exact size (no growth while copying).
 */
final class VariableWidthSplice {
    private static final int OFFSET_WIDTH = BaseVariableWidthVector.OFFSET_WIDTH;

    private VariableWidthSplice() {}

    /**
     * Fills {@code out} (new, unallocated, same type as {@code base}) with {@code n} cells: cell
     * {@code i} is {@code base[i]} if {@code source[i] < 0}, else
     * {@code values.get(source[i])[sourceIndex[i]]}; validity is copied with the values.
     *
     * @param values vectors of the same type as {@code base}
     */
    static void splice(
            BaseVariableWidthVector base,
            List<FieldVector> values,
            int[] source,
            int[] sourceIndex,
            int n,
            BaseVariableWidthVector out) {
        ArrowBuf baseOffsets = base.getOffsetBuffer();
        long bytes = 0;
        for (int i = 0; i < n; ) {
            if (source[i] < 0) {
                int j = keptRunEnd(source, i, n);
                bytes += baseOffsets.getInt((long) j * OFFSET_WIDTH) - baseOffsets.getInt((long) i * OFFSET_WIDTH);
                i = j;
            } else {
                bytes += length((BaseVariableWidthVector) values.get(source[i]), sourceIndex[i]);
                i++;
            }
        }
        out.allocateNew(bytes, n);
        ArrowBuf outOffsets = out.getOffsetBuffer();
        ArrowBuf outData = out.getDataBuffer();
        ArrowBuf outValidity = out.getValidityBuffer();
        ArrowBuf baseData = base.getDataBuffer();
        int cursor = 0;
        outOffsets.setInt(0, 0);
        for (int i = 0; i < n; ) {
            if (source[i] < 0) {
                int j = keptRunEnd(source, i, n);
                int start = baseOffsets.getInt((long) i * OFFSET_WIDTH);
                int end = baseOffsets.getInt((long) j * OFFSET_WIDTH);
                baseData.getBytes(start, outData, cursor, end - start);
                int shift = cursor - start;
                for (int x = i; x < j; x++) {
                    outOffsets.setInt(
                            (long) (x + 1) * OFFSET_WIDTH, baseOffsets.getInt((long) (x + 1) * OFFSET_WIDTH) + shift);
                    if (!base.isNull(x)) {
                        BitVectorHelper.setBit(outValidity, x);
                    }
                }
                cursor += end - start;
                i = j;
            } else {
                BaseVariableWidthVector v = (BaseVariableWidthVector) values.get(source[i]);
                int s = sourceIndex[i];
                if (!v.isNull(s)) {
                    ArrowBuf vOffsets = v.getOffsetBuffer();
                    int start = vOffsets.getInt((long) s * OFFSET_WIDTH);
                    int length = vOffsets.getInt((long) (s + 1) * OFFSET_WIDTH) - start;
                    v.getDataBuffer().getBytes(start, outData, cursor, length);
                    cursor += length;
                    BitVectorHelper.setBit(outValidity, i);
                }
                outOffsets.setInt((long) (i + 1) * OFFSET_WIDTH, cursor);
                i++;
            }
        }
        // Every offset is written: without this, setValueCount would "fill holes" after the last set cell.
        out.setLastSet(n - 1);
        out.setValueCount(n);
    }

    /** The end (exclusive) of the run of kept cells starting at {@code i}. */
    private static int keptRunEnd(int[] source, int i, int n) {
        int j = i;
        while (j < n && source[j] < 0) {
            j++;
        }
        return j;
    }

    /** Bytes of cell {@code s}; a NULL cell contributes nothing to the output. */
    private static int length(BaseVariableWidthVector v, int s) {
        if (v.isNull(s)) {
            return 0;
        }
        ArrowBuf offsets = v.getOffsetBuffer();
        return offsets.getInt((long) (s + 1) * OFFSET_WIDTH) - offsets.getInt((long) s * OFFSET_WIDTH);
    }
}
