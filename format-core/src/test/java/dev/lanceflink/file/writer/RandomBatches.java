package dev.lanceflink.file.writer;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.Decimal256Vector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.DurationVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float2Vector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeMilliVector;
import org.apache.arrow.vector.TimeNanoVector;
import org.apache.arrow.vector.TimeSecVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt2Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.Text;

/** Fills Arrow vectors of any writer-supported type with seeded random data, and normalises cells for comparison. */
final class RandomBatches {
    private RandomBatches() {}

    /**
     * @param nullEvery a nullable position is null when {@code rnd.nextInt(nullEvery) == 0}; 0 = no nulls;
     *     1 = all null
     * @param maxLen strings get 0..maxLen bytes
     */
    record Shape(int nullEvery, int maxListLen, int maxLen) {}

    static VectorSchemaRoot batch(Schema schema, BufferAllocator allocator, int rows, long seed, Shape shape) {
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
        Random rnd = new Random(seed);
        for (FieldVector v : root.getFieldVectors()) {
            fill(v, rows, rnd, shape);
        }
        root.setRowCount(rows);
        return root;
    }

    private static boolean isNull(ValueVector v, Random rnd, Shape s) {
        return v.getField().isNullable() && s.nullEvery() > 0 && rnd.nextInt(s.nullEvery()) == 0;
    }

    static void fill(FieldVector v, int n, Random rnd, Shape s) {
        if (v instanceof FixedSizeListVector fsl) {
            fsl.allocateNew();
            int dim = fsl.getListSize();
            for (int i = 0; i < n; i++) {
                if (isNull(v, rnd, s)) {
                    fsl.setNull(i);
                } else {
                    fsl.setNotNull(i);
                }
            }
            fill(fsl.getDataVector(), n * dim, rnd, s);
            fsl.setValueCount(n);
            return;
        }
        if (v instanceof ListVector list) {
            list.allocateNew();
            int total = 0;
            for (int i = 0; i < n; i++) {
                boolean nul = isNull(v, rnd, s);
                int len = nul ? 0 : rnd.nextInt(s.maxListLen() + 1);
                list.startNewValue(i);
                list.endValue(i, len);
                if (nul) {
                    list.setNull(i);
                }
                total += len;
            }
            fill(list.getDataVector(), total, rnd, s);
            list.setValueCount(n);
            return;
        }
        if (v instanceof LargeListVector list) {
            list.allocateNew();
            int total = 0;
            for (int i = 0; i < n; i++) {
                boolean nul = isNull(v, rnd, s);
                int len = nul ? 0 : rnd.nextInt(s.maxListLen() + 1);
                list.startNewValue(i);
                list.endValue(i, len);
                if (nul) {
                    list.setNull(i);
                }
                total += len;
            }
            fill(list.getDataVector(), total, rnd, s);
            list.setValueCount(n);
            return;
        }
        if (v instanceof StructVector st) {
            st.allocateNew();
            for (FieldVector c : st.getChildrenFromFields()) {
                fill(c, n, rnd, s);
            }
            for (int i = 0; i < n; i++) {
                if (isNull(v, rnd, s)) {
                    st.setNull(i);
                } else {
                    st.setIndexDefined(i);
                }
            }
            st.setValueCount(n);
            return;
        }
        v.allocateNew();
        for (int i = 0; i < n; i++) {
            if (isNull(v, rnd, s)) {
                setNull(v, i);
                continue;
            }
            if (v instanceof BitVector b) {
                b.setSafe(i, rnd.nextBoolean() ? 1 : 0);
            } else if (v instanceof TinyIntVector t) {
                t.setSafe(i, (byte) rnd.nextInt());
            } else if (v instanceof SmallIntVector t) {
                t.setSafe(i, (short) rnd.nextInt());
            } else if (v instanceof IntVector t) {
                t.setSafe(i, rnd.nextInt());
            } else if (v instanceof BigIntVector t) {
                t.setSafe(i, rnd.nextLong());
            } else if (v instanceof Float2Vector t) {
                t.setSafe(i, (short) rnd.nextInt(0x7c00));
            } else if (v instanceof Float4Vector t) {
                t.setSafe(i, rnd.nextFloat() * 1000 - 500);
            } else if (v instanceof Float8Vector t) {
                t.setSafe(i, rnd.nextDouble() * 1e6 - 5e5);
            } else if (v instanceof DateDayVector t) {
                t.setSafe(i, rnd.nextInt(40000));
            } else if (v instanceof DateMilliVector t) {
                t.setSafe(i, rnd.nextInt(40000) * 86_400_000L);
            } else if (v instanceof TimeSecVector t) {
                t.setSafe(i, rnd.nextInt(86_400));
            } else if (v instanceof TimeMilliVector t) {
                t.setSafe(i, rnd.nextInt(86_400_000));
            } else if (v instanceof TimeMicroVector t) {
                t.setSafe(i, rnd.nextLong(86_400_000_000L));
            } else if (v instanceof TimeNanoVector t) {
                t.setSafe(i, rnd.nextLong(86_400_000_000_000L));
            } else if (v instanceof TimeStampVector t) {
                t.setSafe(i, rnd.nextLong() >>> 12);
            } else if (v instanceof DurationVector t) {
                t.setSafe(i, rnd.nextLong() >> 8);
            } else if (v instanceof UInt1Vector t) {
                t.setSafe(i, rnd.nextInt(256));
            } else if (v instanceof UInt2Vector t) {
                t.setSafe(i, (char) rnd.nextInt(65536));
            } else if (v instanceof UInt4Vector t) {
                t.setSafe(i, rnd.nextInt());
            } else if (v instanceof UInt8Vector t) {
                t.setSafe(i, rnd.nextLong());
            } else if (v instanceof FixedSizeBinaryVector t) {
                byte[] b = new byte[t.getByteWidth()];
                rnd.nextBytes(b);
                t.setSafe(i, b);
            } else if (v instanceof DecimalVector t) {
                t.setSafe(i, BigDecimal.valueOf(rnd.nextLong() % 100000000000L, t.getScale()));
            } else if (v instanceof Decimal256Vector t) {
                t.setSafe(i, new BigDecimal(new java.math.BigInteger(200, rnd), t.getScale()));
            } else if (v instanceof VarCharVector t) {
                t.setSafe(i, text(rnd, s.maxLen()));
            } else if (v instanceof LargeVarCharVector t) {
                t.setSafe(i, text(rnd, s.maxLen()));
            } else if (v instanceof VarBinaryVector t) {
                t.setSafe(i, bytes(rnd, s.maxLen()));
            } else if (v instanceof LargeVarBinaryVector t) {
                t.setSafe(i, bytes(rnd, s.maxLen()));
            } else {
                throw new IllegalArgumentException("no generator for " + v.getClass());
            }
        }
        v.setValueCount(n);
    }

    private static void setNull(FieldVector v, int i) {
        if (v instanceof org.apache.arrow.vector.BaseFixedWidthVector f) {
            f.setNull(i);
        } else if (v instanceof org.apache.arrow.vector.BaseVariableWidthVector f) {
            f.setNull(i);
        } else if (v instanceof org.apache.arrow.vector.BaseLargeVariableWidthVector f) {
            f.setNull(i);
        } else {
            throw new IllegalArgumentException(v.getClass().toString());
        }
    }

    private static byte[] text(Random rnd, int maxLen) {
        int len = rnd.nextInt(maxLen + 1);
        StringBuilder sb = new StringBuilder(len);
        for (int k = 0; k < len; k++) {
            sb.append((char) ('a' + rnd.nextInt(26)));
        }
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] bytes(Random rnd, int maxLen) {
        byte[] b = new byte[rnd.nextInt(maxLen + 1)];
        rnd.nextBytes(b);
        return b;
    }

    /** Cell values of a vector as comparable Java objects (strings, hex, lists, maps). */
    static List<Object> cells(ValueVector v) {
        List<Object> out = new ArrayList<>(v.getValueCount());
        for (int i = 0; i < v.getValueCount(); i++) {
            out.add(normalize(v.getObject(i)));
        }
        return out;
    }

    static Object normalize(Object o) {
        if (o instanceof byte[] b) {
            return "0x" + HexFormat.of().formatHex(b);
        }
        if (o instanceof Text t) {
            return t.toString();
        }
        if (o instanceof List<?> l) {
            List<Object> out = new ArrayList<>(l.size());
            for (Object x : l) {
                out.add(normalize(x));
            }
            return out;
        }
        if (o instanceof Map<?, ?> m) {
            Map<Object, Object> out = new LinkedHashMap<>();
            for (Map.Entry<?, ?> e : m.entrySet()) {
                out.put(e.getKey(), normalize(e.getValue()));
            }
            return out;
        }
        if (o instanceof Float f) {
            return Float.floatToRawIntBits(f);
        }
        if (o instanceof Double d) {
            return Double.doubleToRawLongBits(d);
        }
        return o;
    }
}
