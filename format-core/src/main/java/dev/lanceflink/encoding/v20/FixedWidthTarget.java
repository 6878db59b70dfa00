package dev.lanceflink.encoding.v20;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;

/**
 * Arrow buffers being filled for a fixed-width vector (primitives, booleans, decimals,
 * fixed-size binary) or a fixed-size list of them, sized for exactly {@code rows} values.
 *
 * <p>Why build raw buffers and load them at the end instead of using the vectors' setters: pages
 * decode straight into place with bulk copies, and {@link FieldVector#loadFieldBuffers} then adopts
 * the buffers without another copy.
 */
final class FixedWidthTarget implements AutoCloseable {
    final long rows;
    /** 1 (booleans) or a multiple of 8; 0 for a fixed-size list level. */
    final int bitsPerValue;

    final ArrowBuf validity;
    /** Value bytes; null for a fixed-size list level. */
    final ArrowBuf values;
    /** Items of a fixed-size list level, {@code rows × dimension} of them; otherwise null. */
    final FixedWidthTarget child;

    final int dimension;

    private FixedWidthTarget(
            long rows, int bitsPerValue, ArrowBuf validity, ArrowBuf values, FixedWidthTarget child, int dimension) {
        this.rows = rows;
        this.bitsPerValue = bitsPerValue;
        this.validity = validity;
        this.values = values;
        this.child = child;
        this.dimension = dimension;
    }

    /** Whether {@code vector} (and for fixed-size lists, its items, recursively) is fixed-width. */
    static boolean supports(FieldVector vector) {
        if (vector instanceof FixedSizeListVector fsl) {
            return supports(fsl.getDataVector());
        }
        return vector instanceof BaseFixedWidthVector;
    }

    /** Bits per value of a fixed-width (non-list) vector. */
    static int bitsPerValue(FieldVector vector) {
        if (vector instanceof BitVector) {
            return 1;
        }
        return ((BaseFixedWidthVector) vector).getTypeWidth() * 8;
    }

    /** Allocates zeroed buffers for {@code rows} values of {@code vector}'s type. */
    static FixedWidthTarget allocate(FieldVector vector, long rows, BufferAllocator allocator) {
        ArrowBuf validity = zeroed(allocator, (rows + 7) / 8);
        try {
            if (vector instanceof FixedSizeListVector fsl) {
                int dim = fsl.getListSize();
                FixedWidthTarget child = allocate(fsl.getDataVector(), rows * dim, allocator);
                return new FixedWidthTarget(rows, 0, validity, null, child, dim);
            }
            int bits = bitsPerValue(vector);
            ArrowBuf values = zeroed(allocator, (rows * bits + 7) / 8);
            return new FixedWidthTarget(rows, bits, validity, values, null, 0);
        } catch (RuntimeException e) {
            validity.close();
            throw e;
        }
    }

    static ArrowBuf zeroed(BufferAllocator allocator, long bytes) {
        ArrowBuf b = allocator.buffer(Math.max(bytes, 1));
        b.setZero(0, b.capacity());
        return b;
    }

    /** Marks rows {@code [out, out+count)} valid at this level and, for lists, their items. */
    void markValid(long out, long count) {
        Bitmaps.setRange(validity, out, count);
        if (child != null) {
            child.markValid(out * dimension, count * dimension);
        }
    }

    /** Hands the buffers to {@code vector} (which takes its own references). */
    void loadInto(FieldVector vector) {
        int n = Math.toIntExact(rows);
        int nulls = BitVectorHelper.getNullCount(validity, n);
        List<ArrowBuf> own = new ArrayList<>(2);
        own.add(validity);
        if (values != null) {
            own.add(values);
        }
        vector.loadFieldBuffers(new ArrowFieldNode(n, nulls), own);
        if (child != null) {
            child.loadInto(((FixedSizeListVector) vector).getDataVector());
        }
    }

    @Override
    public void close() {
        validity.close();
        if (values != null) {
            values.close();
        }
        if (child != null) {
            child.close();
        }
    }
}
