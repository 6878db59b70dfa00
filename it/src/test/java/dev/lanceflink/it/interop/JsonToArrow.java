package dev.lanceflink.it.interop;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float2Vector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Builds the Arrow batch our writer gets from dump-convention JSON rows (it/README.md), the same
 * rows the oracle feeds the SDK: so both writers receive identical values. Values that do not
 * fit their column are rejected, never adjusted.
 */
final class JsonToArrow {

    private JsonToArrow() {}

    /** One batch holding {@code rows} under the schema of {@code schemaJson}. */
    static VectorSchemaRoot batch(JsonNode schemaJson, JsonNode rows, BufferAllocator allocator) {
        Schema schema = DumpTypeParser.schema(schemaJson);
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
        try {
            root.allocateNew();
            int r = 0;
            for (JsonNode row : rows) {
                for (FieldVector v : root.getFieldVectors()) {
                    set(v, r, row.get(v.getName()));
                }
                r++;
            }
            root.setRowCount(r);
            return root;
        } catch (RuntimeException e) {
            root.close();
            throw e;
        }
    }

    private static void set(FieldVector v, int i, JsonNode value) {
        if (value == null || value.isNull()) {
            setNull(v, i);
            return;
        }
        if (v instanceof BitVector b) {
            b.setSafe(i, value.booleanValue() ? 1 : 0);
        } else if (v instanceof BaseIntVector n) {
            ArrowType.Int type = (ArrowType.Int) v.getField().getType();
            long x = value.bigIntegerValue().longValue();
            int bits = type.getBitWidth();
            boolean fits = !value.canConvertToExactIntegral()
                    ? false
                    : bits == 64
                            ? (type.getIsSigned()
                                    ? value.canConvertToLong()
                                    : value.bigIntegerValue().signum() >= 0
                                            && value.bigIntegerValue().bitLength() <= 64)
                            : type.getIsSigned()
                                    ? x >= -(1L << (bits - 1)) && x < (1L << (bits - 1))
                                    : x >= 0 && x < (1L << bits);
            if (!fits) {
                throw new IllegalArgumentException(
                        v.getName() + ": " + value + " does not fit " + (type.getIsSigned() ? "int" : "uint") + bits);
            }
            n.setWithPossibleTruncate(i, x); // a safe set: grows the buffers
        } else if (v instanceof Float2Vector h) {
            float f = floatValue(value);
            h.setSafeWithPossibleTruncate(i, f);
            if (h.getValueAsFloat(i) != f && !Float.isNaN(f)) {
                throw new IllegalArgumentException(value + " is not exactly a float16");
            }
        } else if (v instanceof Float4Vector f) {
            f.setSafe(i, floatValue(value));
        } else if (v instanceof Float8Vector d) {
            d.setSafe(i, doubleValue(value));
        } else if (v instanceof VarCharVector s) {
            s.setSafe(i, value.textValue().getBytes(StandardCharsets.UTF_8));
        } else if (v instanceof LargeVarCharVector s) {
            s.setSafe(i, value.textValue().getBytes(StandardCharsets.UTF_8));
        } else if (v instanceof VarBinaryVector b) {
            b.setSafe(i, unhex(value.textValue()));
        } else if (v instanceof LargeVarBinaryVector b) {
            b.setSafe(i, unhex(value.textValue()));
        } else if (v instanceof FixedSizeBinaryVector b) {
            b.setSafe(i, unhex(value.textValue()));
        } else if (v instanceof DateDayVector d) {
            d.setSafe(i, Math.toIntExact(LocalDate.parse(value.textValue()).toEpochDay()));
        } else if (v instanceof TimeStampVector t) {
            ArrowType.Timestamp type = (ArrowType.Timestamp) t.getField().getType();
            var instant = type.getTimezone() == null
                    ? LocalDateTime.parse(value.textValue()).toInstant(ZoneOffset.UTC)
                    : OffsetDateTime.parse(value.textValue()).toInstant();
            long units = switch (type.getUnit()) {
                case SECOND -> instant.getEpochSecond();
                case MILLISECOND -> instant.toEpochMilli();
                case MICROSECOND ->
                    Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), instant.getNano() / 1000);
                case NANOSECOND ->
                    Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000_000L), instant.getNano());
            };
            t.setSafe(i, units);
        } else if (v instanceof DecimalVector d) {
            BigDecimal exact = value.decimalValue().setScale(d.getScale()); // throws if digits are lost
            d.setSafe(i, exact);
        } else if (v instanceof ListVector l) {
            int start = l.startNewValue(i);
            int n = 0;
            for (JsonNode item : value) {
                set(l.getDataVector(), start + n++, item);
            }
            l.endValue(i, n);
        } else if (v instanceof LargeListVector l) {
            long start = l.startNewValue(i);
            int n = 0;
            for (JsonNode item : value) {
                set(l.getDataVector(), Math.toIntExact(start + n++), item);
            }
            l.endValue(i, n);
        } else if (v instanceof FixedSizeListVector l) {
            if (value.size() != l.getListSize()) {
                throw new IllegalArgumentException(
                        v.getName() + ": expected " + l.getListSize() + " items, got " + value);
            }
            l.setNotNull(i);
            for (int j = 0; j < value.size(); j++) {
                set(l.getDataVector(), i * l.getListSize() + j, value.get(j));
            }
        } else if (v instanceof StructVector s) {
            s.setIndexDefined(i);
            for (FieldVector child : s.getChildrenFromFields()) {
                set(child, i, value.get(child.getName()));
            }
        } else {
            throw new IllegalArgumentException("column " + v.getName() + ": no JSON loader for "
                    + v.getField().getType());
        }
    }

    private static void setNull(FieldVector v, int i) {
        if (v instanceof FixedSizeListVector l) {
            l.setNull(i);
            for (int j = 0; j < l.getListSize(); j++) {
                setNull(l.getDataVector(), i * l.getListSize() + j);
            }
        } else if (v instanceof StructVector s) {
            s.setNull(i);
            for (FieldVector child : s.getChildrenFromFields()) {
                setNull(child, i);
            }
        } else if (v instanceof ListVector l) {
            l.setNull(i);
        } else if (v instanceof LargeListVector l) {
            l.setNull(i);
        } else {
            while (i >= v.getValueCapacity()) {
                v.reAlloc();
            }
            v.setNull(i);
        }
    }

    private static float floatValue(JsonNode value) {
        return value.isNumber()
                ? Float.parseFloat(value.decimalValue().toString())
                : Float.parseFloat(value.textValue());
    }

    private static double doubleValue(JsonNode value) {
        return value.isNumber()
                ? Double.parseDouble(value.decimalValue().toString())
                : Double.parseDouble(value.textValue());
    }

    private static byte[] unhex(String text) {
        if (!text.startsWith("0x") || (text.length() & 1) != 0) {
            throw new IllegalArgumentException("binary values are \"0x\" + hex pairs, got " + text);
        }
        byte[] out = new byte[(text.length() - 2) / 2];
        for (int i = 0; i < out.length; i++) {
            out[i] = (byte) Integer.parseInt(text.substring(2 + 2 * i, 4 + 2 * i), 16);
        }
        return out;
    }
}
