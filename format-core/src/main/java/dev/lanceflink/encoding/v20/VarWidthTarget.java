package dev.lanceflink.encoding.v20;

import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;

/**
 * Arrow buffers being filled for a variable-width vector (utf8 / binary with 32-bit offsets,
 * large_utf8 / large_binary with 64-bit offsets). The data buffer is allocated once the total
 * byte count of the requested rows is known (after all page offsets were read).
 */
final class VarWidthTarget implements AutoCloseable {
    final long rows;
    /** 4 or 8. */
    final int offsetWidth;

    final ArrowBuf validity;
    final ArrowBuf offsets;
    ArrowBuf data;

    private VarWidthTarget(long rows, int offsetWidth, ArrowBuf validity, ArrowBuf offsets) {
        this.rows = rows;
        this.offsetWidth = offsetWidth;
        this.validity = validity;
        this.offsets = offsets;
    }

    static boolean supports(FieldVector vector) {
        return vector instanceof BaseVariableWidthVector || vector instanceof BaseLargeVariableWidthVector;
    }

    static VarWidthTarget allocate(FieldVector vector, long rows, BufferAllocator allocator) {
        int width = vector instanceof BaseLargeVariableWidthVector ? 8 : 4;
        ArrowBuf validity = FixedWidthTarget.zeroed(allocator, (rows + 7) / 8);
        try {
            ArrowBuf offsets = FixedWidthTarget.zeroed(allocator, (rows + 1) * width);
            return new VarWidthTarget(rows, width, validity, offsets);
        } catch (RuntimeException e) {
            validity.close();
            throw e;
        }
    }

    /** Allocates the data buffer for {@code bytes} bytes; 32-bit offsets limit it to 2 GiB − 1. */
    void allocateData(long bytes, BufferAllocator allocator, String where) throws V20DecodeException {
        if (offsetWidth == 4 && bytes > Integer.MAX_VALUE) {
            throw new V20DecodeException(where + ": the requested rows hold " + bytes
                    + " bytes, more than a utf8/binary vector with 32-bit offsets can address; read fewer rows"
                    + " at a time or use large_utf8/large_binary");
        }
        data = allocator.buffer(Math.max(bytes, 1));
    }

    void setOffset(long index, long value) {
        if (offsetWidth == 4) {
            offsets.setInt(index * 4, (int) value);
        } else {
            offsets.setLong(index * 8, value);
        }
    }

    void loadInto(FieldVector vector) {
        int n = Math.toIntExact(rows);
        int nulls = BitVectorHelper.getNullCount(validity, n);
        vector.loadFieldBuffers(new ArrowFieldNode(n, nulls), List.of(validity, offsets, data));
    }

    @Override
    public void close() {
        validity.close();
        offsets.close();
        if (data != null) {
            data.close();
        }
    }
}
