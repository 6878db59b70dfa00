package dev.lanceflink.encoding.v21;

import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;

/**
 * Writes decoded structure and values into Arrow vectors, buffer by buffer (offsets, validity
 * and data are copied as whole arrays, never value by value through setters).
 */
final class ArrowVectorFiller {
    private ArrowVectorFiller() {}

    /** Allocates {@code v} for at least {@code n} values. */
    static void allocate(FieldVector v, int n) {
        v.setInitialCapacity(Math.max(n, 1));
        v.allocateNew();
        while (v.getValueCapacity() < n) {
            v.reAlloc();
        }
    }

    /**
     * Copies {@code n} validity bits (LSB-first) into the vector's validity buffer; {@code bits}
     * null means every element is valid (the buffer is then filled without a source array).
     */
    static void setValidity(ArrowBuf validity, byte[] bits, int n) {
        int bytes = (n + 7) / 8;
        if (bits == null) {
            validity.setOne(0L, (long) bytes);
        } else {
            validity.setBytes(0, bits, 0, bytes);
        }
        if ((n & 7) != 0) {
            // Clear bits past n in the last byte: Arrow expects them zero.
            byte last = (byte) ((bits == null ? 0xFF : bits[bytes - 1]) & ((1 << (n & 7)) - 1));
            validity.setByte(bytes - 1, last);
        }
    }

    /** Fills a list vector's validity and offsets; the caller fills the child and then sets the count. */
    static void fillList(FieldVector v, byte[] validity, int[] offsets, int n) {
        allocate(v, n);
        if (v instanceof ListVector lv) {
            setValidity(lv.getValidityBuffer(), validity, n);
            ArrowBuf off = lv.getOffsetBuffer();
            while (off.capacity() < 4L * (n + 1)) {
                lv.reAlloc();
                off = lv.getOffsetBuffer();
            }
            for (int i = 0; i <= n; i++) {
                off.setInt(4L * i, offsets[i]);
            }
            lv.setLastSet(n - 1);
        } else if (v instanceof LargeListVector lv) {
            setValidity(lv.getValidityBuffer(), validity, n);
            ArrowBuf off = lv.getOffsetBuffer();
            while (off.capacity() < 8L * (n + 1)) {
                lv.reAlloc();
                off = lv.getOffsetBuffer();
            }
            for (int i = 0; i <= n; i++) {
                off.setLong(8L * i, offsets[i]);
            }
            lv.setLastSet(n - 1);
        } else {
            throw new EncodingException(
                    "a list layer cannot fill an Arrow " + v.getClass().getSimpleName());
        }
    }

    /** Fills a (non-packed) struct vector's validity; children are filled by the caller. */
    static void fillStructValidity(StructVector v, byte[] validity, int n) {
        allocate(v, n);
        setValidity(v.getValidityBuffer(), validity, n);
    }

    /**
     * Fills a leaf vector with {@code values} (slot i = element i) and the given validity
     * ({@code null}: all valid).
     */
    static void fillLeaf(FieldVector v, Values values, byte[] validity, int n) {
        if (values.count() != n) {
            throw new EncodingException(
                    "leaf '" + v.getName() + "' has " + n + " elements but " + values.count() + " value slots");
        }
        if (values instanceof FixedWidthValues f) {
            if (!(v instanceof BaseFixedWidthVector fv)) {
                throw new EncodingException(
                        "fixed-width values cannot fill Arrow " + v.getClass().getSimpleName());
            }
            allocate(fv, n);
            long bytes = f.byteSize(n);
            fv.getDataBuffer().setBytes(0, f.data(), 0, bytes);
            setValidity(fv.getValidityBuffer(), validity, n);
            fv.setValueCount(n);
        } else if (values instanceof VariableWidthValues vw) {
            long total = vw.offsets()[n];
            if (v instanceof BaseVariableWidthVector bv) {
                bv.allocateNew(Math.max(total, 1), Math.max(n, 1));
                while (bv.getValueCapacity() < n) {
                    bv.reAlloc();
                }
                ArrowBuf off = bv.getOffsetBuffer();
                long[] o = vw.offsets();
                for (int i = 0; i <= n; i++) {
                    off.setInt(4L * i, (int) o[i]);
                }
                bv.getDataBuffer().setBytes(0, vw.data(), 0, total);
                setValidity(bv.getValidityBuffer(), validity, n);
                bv.setLastSet(n - 1);
                bv.setValueCount(n);
            } else if (v instanceof BaseLargeVariableWidthVector bv) {
                bv.allocateNew(Math.max(total, 1), Math.max(n, 1));
                while (bv.getValueCapacity() < n) {
                    bv.reAlloc();
                }
                ArrowBuf off = bv.getOffsetBuffer();
                long[] o = vw.offsets();
                for (int i = 0; i <= n; i++) {
                    off.setLong(8L * i, o[i]);
                }
                bv.getDataBuffer().setBytes(0, vw.data(), 0, total);
                setValidity(bv.getValidityBuffer(), validity, n);
                bv.setLastSet(n - 1);
                bv.setValueCount(n);
            } else {
                throw new EncodingException("variable-width values cannot fill Arrow "
                        + v.getClass().getSimpleName());
            }
        } else if (values instanceof FixedSizeListValues fsl) {
            if (!(v instanceof FixedSizeListVector lv)) {
                throw new EncodingException("fixed-size-list values cannot fill Arrow "
                        + v.getClass().getSimpleName());
            }
            allocate(lv, n);
            setValidity(lv.getValidityBuffer(), validity, n);
            int items = n * fsl.dimension();
            byte[] itemValidity = fsl.itemValidity();
            if (itemValidity != null && itemValidity.length * 8L < items) {
                itemValidity = Arrays.copyOf(itemValidity, (items + 7) / 8);
            }
            fillLeaf(lv.getDataVector(), fsl.items(), itemValidity, items);
            lv.setValueCount(n);
        } else if (values instanceof StructValues sv) {
            if (!(v instanceof StructVector st)) {
                throw new EncodingException(
                        "packed struct values cannot fill Arrow " + v.getClass().getSimpleName());
            }
            allocate(st, n);
            setValidity(st.getValidityBuffer(), validity, n);
            List<FieldVector> children = st.getChildrenFromFields();
            if (children.size() != sv.children().size()) {
                throw new EncodingException("packed struct '" + v.getName() + "' has " + children.size()
                        + " fields but the column stores " + sv.children().size());
            }
            for (int i = 0; i < children.size(); i++) {
                fillLeaf(children.get(i), sv.children().get(i), null, n);
            }
            st.setValueCount(n);
        }
    }
}
