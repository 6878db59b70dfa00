package dev.lanceflink.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.util.Float16;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float2Vector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt2Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * Fills a {@link VectorSchemaRoot} from JSON rows written in the dump conventions of
 * {@link DumpFormat}, so that a dump (or a generated row set) can be written back through the
 * SDK. Inputs are checked strictly: a value that does not fit the column (out of range, too many
 * decimal digits, a float16 that is not exactly representable, a wrong fixed-size-list length)
 * is an error naming the row and column, because a silently adjusted input would make the
 * "dump equals input" checks of the interop tests meaningless.
 */
public final class RowLoader {

    private RowLoader() {}

    /** Loads {@code rows} (a JSON array of objects keyed by column name) into {@code root}. */
    public static void load(JsonNode rows, VectorSchemaRoot root) {
        if (!rows.isArray()) {
            throw new IllegalArgumentException("rows must be a JSON array of objects");
        }
        root.allocateNew();
        List<FieldVector> vectors = root.getFieldVectors();
        int rowIndex = 0;
        for (JsonNode row : rows) {
            if (!row.isObject()) {
                throw new IllegalArgumentException("row " + rowIndex + " is not a JSON object");
            }
            for (Map.Entry<String, JsonNode> entry : row.properties()) {
                String name = entry.getKey();
                if (root.getVector(name) == null) {
                    throw new IllegalArgumentException(
                            "row " + rowIndex + ": column '" + name + "' is not in the schema");
                }
            }
            for (FieldVector vector : vectors) {
                JsonNode value = row.get(vector.getName());
                try {
                    write(vector, rowIndex, value == null ? DumpFormat.NODES.nullNode() : value);
                } catch (RuntimeException e) {
                    throw new IllegalArgumentException(
                            "row " + rowIndex + ", column '" + vector.getName() + "': " + e.getMessage(), e);
                }
            }
            rowIndex++;
        }
        root.setRowCount(rowIndex);
    }

    /** Writes one JSON value into slot {@code index} of {@code vector}. */
    static void write(FieldVector vector, int index, JsonNode value) {
        if (value.isNull()) {
            if (!vector.getField().isNullable()) {
                throw new IllegalArgumentException("null in a non-nullable field '" + vector.getName() + "'");
            }
            writeNull(vector, index);
            return;
        }
        if (vector instanceof BitVector v) {
            if (!value.isBoolean()) {
                throw mismatch(value, "true/false");
            }
            v.setSafe(index, value.booleanValue() ? 1 : 0);
        } else if (vector instanceof TinyIntVector v) {
            v.setSafe(index, (byte) integer(value, Byte.MIN_VALUE, Byte.MAX_VALUE));
        } else if (vector instanceof SmallIntVector v) {
            v.setSafe(index, (short) integer(value, Short.MIN_VALUE, Short.MAX_VALUE));
        } else if (vector instanceof IntVector v) {
            v.setSafe(index, (int) integer(value, Integer.MIN_VALUE, Integer.MAX_VALUE));
        } else if (vector instanceof BigIntVector v) {
            v.setSafe(index, integer(value, Long.MIN_VALUE, Long.MAX_VALUE));
        } else if (vector instanceof UInt1Vector v) {
            v.setSafe(index, (int) integer(value, 0, 0xFF));
        } else if (vector instanceof UInt2Vector v) {
            v.setSafe(index, (int) integer(value, 0, 0xFFFF));
        } else if (vector instanceof UInt4Vector v) {
            v.setSafe(index, (int) integer(value, 0, 0xFFFF_FFFFL));
        } else if (vector instanceof UInt8Vector v) {
            v.setSafe(index, unsignedLong(value));
        } else if (vector instanceof Float2Vector v) {
            float f = floating(value);
            short half = Float16.toFloat16(f);
            if (Float.compare(Float16.toFloat(half), f) != 0) {
                throw new IllegalArgumentException(value + " is not exactly representable as float16");
            }
            v.setSafe(index, half);
        } else if (vector instanceof Float4Vector v) {
            v.setSafe(index, floating(value));
        } else if (vector instanceof Float8Vector v) {
            v.setSafe(index, floatingDouble(value));
        } else if (vector instanceof VarCharVector v) {
            v.setSafe(index, text(value).getBytes(StandardCharsets.UTF_8));
        } else if (vector instanceof LargeVarCharVector v) {
            v.setSafe(index, text(value).getBytes(StandardCharsets.UTF_8));
        } else if (vector instanceof VarBinaryVector v) {
            v.setSafe(index, DumpFormat.unhex(text(value)));
        } else if (vector instanceof LargeVarBinaryVector v) {
            v.setSafe(index, DumpFormat.unhex(text(value)));
        } else if (vector instanceof FixedSizeBinaryVector v) {
            byte[] bytes = DumpFormat.unhex(text(value));
            if (bytes.length != v.getByteWidth()) {
                throw new IllegalArgumentException(
                        "fixed_size_binary[" + v.getByteWidth() + "] got " + bytes.length + " bytes");
            }
            v.setSafe(index, bytes);
        } else if (vector instanceof DateDayVector v) {
            v.setSafe(index, DumpFormat.parseDate(text(value)));
        } else if (vector instanceof TimeStampVector v) {
            ArrowType.Timestamp type = (ArrowType.Timestamp) v.getField().getType();
            v.setSafe(index, DumpFormat.parseTimestamp(text(value), type.getUnit(), type.getTimezone() != null));
        } else if (vector instanceof DecimalVector v) {
            BigDecimal decimal = decimal(value);
            try {
                decimal = decimal.setScale(v.getScale(), RoundingMode.UNNECESSARY);
            } catch (ArithmeticException e) {
                throw new IllegalArgumentException(
                        decimal + " has more than " + v.getScale() + " fractional digits", e);
            }
            if (decimal.precision() > v.getPrecision()) {
                throw new IllegalArgumentException(decimal + " exceeds precision " + v.getPrecision());
            }
            v.setSafe(index, decimal);
        } else if (vector instanceof ListVector v) {
            requireArray(value);
            int offset = v.startNewValue(index);
            FieldVector items = v.getDataVector();
            for (int j = 0; j < value.size(); j++) {
                writeItem(items, offset + j, value.get(j));
            }
            v.endValue(index, value.size());
        } else if (vector instanceof LargeListVector v) {
            requireArray(value);
            long offset = v.startNewValue(index);
            FieldVector items = v.getDataVector();
            for (int j = 0; j < value.size(); j++) {
                writeItem(items, Math.toIntExact(offset + j), value.get(j));
            }
            v.endValue(index, value.size());
        } else if (vector instanceof FixedSizeListVector v) {
            requireArray(value);
            if (value.size() != v.getListSize()) {
                throw new IllegalArgumentException(
                        "fixed_size_list of " + v.getListSize() + " items got " + value.size());
            }
            v.setNotNull(index);
            FieldVector items = v.getDataVector();
            for (int j = 0; j < value.size(); j++) {
                writeItem(items, index * v.getListSize() + j, value.get(j));
            }
        } else if (vector instanceof StructVector v) {
            if (!value.isObject()) {
                throw mismatch(value, "an object");
            }
            v.setIndexDefined(index);
            for (FieldVector child : v.getChildrenFromFields()) {
                JsonNode childValue = value.get(child.getName());
                writeItem(child, index, childValue == null ? DumpFormat.NODES.nullNode() : childValue);
            }
            for (Iterator<String> names = value.fieldNames(); names.hasNext(); ) {
                String name = names.next();
                if (v.getChild(name) == null) {
                    throw new IllegalArgumentException("struct has no child '" + name + "'");
                }
            }
        } else {
            throw new IllegalArgumentException(
                    "Arrow type " + vector.getField().getType() + " cannot be loaded from JSON");
        }
    }

    private static void writeItem(FieldVector items, int index, JsonNode value) {
        try {
            write(items, index, value);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(items.getName() + "[" + index + "]: " + e.getMessage(), e);
        }
    }

    /**
     * Marks slot {@code index} null. Children of a null struct or fixed-size list still occupy
     * slots in Arrow, so they are nulled too (whatever their own nullability says).
     */
    private static void writeNull(FieldVector vector, int index) {
        if (vector instanceof BaseFixedWidthVector v) {
            v.setNull(index);
        } else if (vector instanceof BaseVariableWidthVector v) {
            v.setNull(index);
        } else if (vector instanceof BaseLargeVariableWidthVector v) {
            v.setNull(index);
        } else if (vector instanceof ListVector v) {
            v.setNull(index);
        } else if (vector instanceof LargeListVector v) {
            v.setNull(index);
        } else if (vector instanceof FixedSizeListVector v) {
            v.setNull(index);
            FieldVector items = v.getDataVector();
            for (int j = 0; j < v.getListSize(); j++) {
                writeNull(items, index * v.getListSize() + j);
            }
        } else if (vector instanceof StructVector v) {
            v.setNull(index);
            for (FieldVector child : v.getChildrenFromFields()) {
                writeNull(child, index);
            }
        } else {
            throw new IllegalArgumentException(
                    "Arrow type " + vector.getField().getType() + " cannot hold a null here");
        }
    }

    private static long integer(JsonNode value, long min, long max) {
        if (!value.isIntegralNumber() || !value.canConvertToLong()) {
            throw mismatch(value, "an integer in [" + min + ", " + max + "]");
        }
        long v = value.longValue();
        if (v < min || v > max) {
            throw new IllegalArgumentException(v + " is outside [" + min + ", " + max + "]");
        }
        return v;
    }

    private static long unsignedLong(JsonNode value) {
        if (!value.isIntegralNumber()) {
            throw mismatch(value, "an integer in [0, 2^64-1]");
        }
        BigInteger big = value.bigIntegerValue();
        if (big.signum() < 0 || big.bitLength() > 64) {
            throw new IllegalArgumentException(big + " is outside [0, 2^64-1]");
        }
        return big.longValue();
    }

    /**
     * A float32 from a JSON number, parsed from its decimal text (no rounding through double).
     * A string holding a number is accepted too: it is the only way to pass {@code -0.0}, whose
     * sign a decimal JSON number loses.
     */
    private static float floating(JsonNode value) {
        if (value.isTextual()) {
            return switch (value.textValue()) {
                case "NaN" -> Float.NaN;
                case "Infinity" -> Float.POSITIVE_INFINITY;
                case "-Infinity" -> Float.NEGATIVE_INFINITY;
                default -> {
                    try {
                        yield Float.parseFloat(value.textValue());
                    } catch (NumberFormatException e) {
                        throw mismatch(value, "a number, \"NaN\", \"Infinity\" or \"-Infinity\"");
                    }
                }
            };
        }
        if (!value.isNumber()) {
            throw mismatch(value, "a number");
        }
        return Float.parseFloat(value.asText());
    }

    private static double floatingDouble(JsonNode value) {
        if (value.isTextual()) {
            return switch (value.textValue()) {
                case "NaN" -> Double.NaN;
                case "Infinity" -> Double.POSITIVE_INFINITY;
                case "-Infinity" -> Double.NEGATIVE_INFINITY;
                default -> {
                    try {
                        yield Double.parseDouble(value.textValue());
                    } catch (NumberFormatException e) {
                        throw mismatch(value, "a number, \"NaN\", \"Infinity\" or \"-Infinity\"");
                    }
                }
            };
        }
        if (!value.isNumber()) {
            throw mismatch(value, "a number");
        }
        return Double.parseDouble(value.asText());
    }

    private static BigDecimal decimal(JsonNode value) {
        if (value.isNumber()) {
            return new BigDecimal(value.asText());
        }
        if (value.isTextual()) {
            try {
                return new BigDecimal(value.textValue());
            } catch (NumberFormatException e) {
                throw mismatch(value, "a decimal number");
            }
        }
        throw mismatch(value, "a decimal number");
    }

    private static String text(JsonNode value) {
        if (!value.isTextual()) {
            throw mismatch(value, "a string");
        }
        return value.textValue();
    }

    private static void requireArray(JsonNode value) {
        if (!value.isArray()) {
            throw mismatch(value, "an array");
        }
    }

    private static IllegalArgumentException mismatch(JsonNode value, String expected) {
        return new IllegalArgumentException(
                "expected " + expected + ", got " + DumpFormat.abbreviate(value.toString()));
    }
}
