package dev.lanceflink.cli;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DateMilliVector;
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
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Renders Arrow cells and types as JSON under the dump conventions defined in the "Dump format"
 * section of {@code it/README.md}. The official-SDK oracle of the interop suite prints the same
 * text, so {@code bin/lance-flink dump} output compares directly with the SDK's:
 * <ul>
 *   <li>null at any level → {@code null}; lists → arrays; struct → object with every child in
 *       schema order (null children present as {@code null});
 *   <li>integers as JSON integers (uint64 unsigned); bool as {@code true}/{@code false};
 *   <li>floats: the fewest significant digits that parse back to the same value of the column's
 *       width (float16 widened to float32 exactly), in plain notation with at least one fraction
 *       digit; NaN / ±∞ as the strings {@code "NaN"}, {@code "Infinity"}, {@code "-Infinity"};
 *   <li>decimal128(p, s): a number with exactly {@code s} fraction digits;
 *   <li>binary: {@code "0x"} + lowercase hex; date32: {@code "YYYY-MM-DD"};
 *   <li>timestamps: {@code "YYYY-MM-DDTHH:MM:SS"} plus exactly 0/3/6/9 fraction digits for
 *       s/ms/us/ns, plus {@code Z} when the type has a zone (the instant rendered in UTC).
 * </ul>
 * Type names follow the oracle's type grammar ({@code fixed_size_binary[16]},
 * {@code timestamp[us, tz=UTC]}, {@code decimal128(20, 4)}, {@code list<int32 not null>},
 * {@code struct<a: int32, b: utf8>}).
 */
public final class ArrowJson {
    private static final DateTimeFormatter SECONDS = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss", Locale.ROOT);

    private ArrowJson() {}

    /** The canonical type string of {@code field}; its own nullability is not part of it. */
    public static String typeName(Field field) {
        StringBuilder out = new StringBuilder();
        appendType(field, out);
        return out.toString();
    }

    private static void appendType(Field field, StringBuilder out) {
        ArrowType t = field.getType();
        switch (t.getTypeID()) {
            case Bool -> out.append("bool");
            case Int -> {
                ArrowType.Int i = (ArrowType.Int) t;
                out.append(i.getIsSigned() ? "int" : "uint").append(i.getBitWidth());
            }
            case FloatingPoint ->
                out.append(
                        switch (((ArrowType.FloatingPoint) t).getPrecision()) {
                            case HALF -> "float16";
                            case SINGLE -> "float32";
                            case DOUBLE -> "float64";
                        });
            case Utf8 -> out.append("utf8");
            case LargeUtf8 -> out.append("large_utf8");
            case Binary -> out.append("binary");
            case LargeBinary -> out.append("large_binary");
            case FixedSizeBinary ->
                out.append("fixed_size_binary[")
                        .append(((ArrowType.FixedSizeBinary) t).getByteWidth())
                        .append(']');
            case Date -> out.append(((ArrowType.Date) t).getUnit() == DateUnit.DAY ? "date32" : "date64");
            case Timestamp -> {
                ArrowType.Timestamp ts = (ArrowType.Timestamp) t;
                out.append("timestamp[").append(unitName(ts.getUnit()));
                if (ts.getTimezone() != null) {
                    out.append(", tz=").append(ts.getTimezone());
                }
                out.append(']');
            }
            case Time -> {
                ArrowType.Time time = (ArrowType.Time) t;
                out.append("time")
                        .append(time.getBitWidth())
                        .append('[')
                        .append(unitName(time.getUnit()))
                        .append(']');
            }
            case Map -> {
                // map<key, value>: the entries struct's two children, as pyarrow names the type.
                List<Field> kv = field.getChildren().get(0).getChildren();
                out.append("map<");
                appendType(kv.get(0), out);
                out.append(kv.get(0).isNullable() ? "" : " not null").append(", ");
                appendType(kv.get(1), out);
                out.append(kv.get(1).isNullable() ? "" : " not null").append('>');
            }
            case Decimal -> {
                ArrowType.Decimal d = (ArrowType.Decimal) t;
                out.append("decimal")
                        .append(d.getBitWidth())
                        .append('(')
                        .append(d.getPrecision())
                        .append(", ")
                        .append(d.getScale())
                        .append(')');
            }
            case List -> appendElement("list<", field, out).append('>');
            case LargeList -> appendElement("large_list<", field, out).append('>');
            case FixedSizeList ->
                appendElement("fixed_size_list<", field, out)
                        .append(", ")
                        .append(((ArrowType.FixedSizeList) t).getListSize())
                        .append('>');
            case Struct -> {
                out.append("struct<");
                List<Field> children = field.getChildren();
                for (int i = 0; i < children.size(); i++) {
                    Field child = children.get(i);
                    out.append(i == 0 ? "" : ", ").append(child.getName()).append(": ");
                    appendType(child, out);
                    if (!child.isNullable()) {
                        out.append(" not null");
                    }
                }
                out.append('>');
            }
            // Outside the dump grammar: print Arrow's own name so a reader still sees the type.
            default -> out.append(t.toString().toLowerCase(Locale.ROOT));
        }
    }

    private static StringBuilder appendElement(String prefix, Field field, StringBuilder out) {
        Field item = field.getChildren().get(0);
        out.append(prefix);
        appendType(item, out);
        if (!item.isNullable()) {
            out.append(" not null");
        }
        return out;
    }

    private static String unitName(TimeUnit unit) {
        return switch (unit) {
            case SECOND -> "s";
            case MILLISECOND -> "ms";
            case MICROSECOND -> "us";
            case NANOSECOND -> "ns";
        };
    }

    /** Writes cell {@code row} of {@code v} as one JSON value. */
    public static void writeValue(JsonGenerator g, FieldVector v, int row) throws IOException {
        if (v.isNull(row)) {
            g.writeNull();
            return;
        }
        if (v instanceof BitVector b) {
            g.writeBoolean(b.get(row) != 0);
        } else if (v instanceof TinyIntVector x) {
            g.writeNumber(x.get(row));
        } else if (v instanceof SmallIntVector x) {
            g.writeNumber(x.get(row));
        } else if (v instanceof IntVector x) {
            g.writeNumber(x.get(row));
        } else if (v instanceof BigIntVector x) {
            g.writeNumber(x.get(row));
        } else if (v instanceof UInt1Vector x) {
            g.writeNumber(Byte.toUnsignedInt(x.get(row)));
        } else if (v instanceof UInt2Vector x) {
            g.writeNumber((int) x.get(row));
        } else if (v instanceof UInt4Vector x) {
            g.writeNumber(Integer.toUnsignedLong(x.get(row)));
        } else if (v instanceof UInt8Vector x) {
            long value = x.get(row);
            if (value >= 0) {
                g.writeNumber(value);
            } else {
                g.writeNumber(Long.toUnsignedString(value));
            }
        } else if (v instanceof Float2Vector x) {
            writeFloat(g, x.getValueAsFloat(row));
        } else if (v instanceof Float4Vector x) {
            writeFloat(g, x.get(row));
        } else if (v instanceof Float8Vector x) {
            writeDouble(g, x.get(row));
        } else if (v instanceof VarCharVector x) {
            g.writeString(new String(x.get(row), StandardCharsets.UTF_8));
        } else if (v instanceof LargeVarCharVector x) {
            g.writeString(new String(x.get(row), StandardCharsets.UTF_8));
        } else if (v instanceof VarBinaryVector x) {
            g.writeString(hex(x.get(row)));
        } else if (v instanceof LargeVarBinaryVector x) {
            g.writeString(hex(x.get(row)));
        } else if (v instanceof FixedSizeBinaryVector x) {
            g.writeString(hex(x.get(row)));
        } else if (v instanceof DateDayVector x) {
            g.writeString(LocalDate.ofEpochDay(x.get(row)).toString());
        } else if (v instanceof DateMilliVector x) {
            g.writeString(date64(x.get(row)));
        } else if (v instanceof TimeStampVector x) {
            ArrowType.Timestamp ts = (ArrowType.Timestamp) x.getField().getType();
            g.writeString(timestamp(x.get(row), ts.getUnit(), ts.getTimezone() != null));
        } else if (v instanceof TimeSecVector x) {
            g.writeString(timeOfDay(x.get(row), TimeUnit.SECOND));
        } else if (v instanceof TimeMilliVector x) {
            g.writeString(timeOfDay(x.get(row), TimeUnit.MILLISECOND));
        } else if (v instanceof TimeMicroVector x) {
            g.writeString(timeOfDay(x.get(row), TimeUnit.MICROSECOND));
        } else if (v instanceof TimeNanoVector x) {
            g.writeString(timeOfDay(x.get(row), TimeUnit.NANOSECOND));
        } else if (v instanceof DecimalVector x) {
            // getObject carries the column's scale, so toPlainString prints exactly s digits.
            g.writeNumber(x.getObject(row).toPlainString());
        } else if (v instanceof FixedSizeListVector x) {
            FieldVector items = (FieldVector) x.getDataVector();
            int n = x.getListSize();
            g.writeStartArray();
            for (int i = 0; i < n; i++) {
                writeValue(g, items, row * n + i);
            }
            g.writeEndArray();
        } else if (v instanceof ListVector x) {
            FieldVector items = x.getDataVector();
            g.writeStartArray();
            for (int i = x.getElementStartIndex(row), end = x.getElementEndIndex(row); i < end; i++) {
                writeValue(g, items, i);
            }
            g.writeEndArray();
        } else if (v instanceof LargeListVector x) {
            FieldVector items = x.getDataVector();
            g.writeStartArray();
            for (long i = x.getElementStartIndex(row), end = x.getElementEndIndex(row); i < end; i++) {
                writeValue(g, items, Math.toIntExact(i));
            }
            g.writeEndArray();
        } else if (v instanceof StructVector x) {
            g.writeStartObject();
            for (FieldVector child : x.getChildrenFromFields()) {
                g.writeFieldName(child.getName());
                writeValue(g, child, row);
            }
            g.writeEndObject();
        } else {
            throw new IllegalArgumentException("Column '" + v.getName() + "' has Arrow type "
                    + v.getField().getType() + ", which dump cannot render; leave it out with --columns");
        }
    }

    private static void writeFloat(JsonGenerator g, float f) throws IOException {
        if (Float.isNaN(f) || Float.isInfinite(f)) {
            g.writeString(nonFinite(f));
        } else {
            g.writeNumber(shortestFloat(f));
        }
    }

    private static void writeDouble(JsonGenerator g, double d) throws IOException {
        if (Double.isNaN(d) || Double.isInfinite(d)) {
            g.writeString(nonFinite(d));
        } else {
            g.writeNumber(shortestDouble(d));
        }
    }

    static String nonFinite(double value) {
        return Double.isNaN(value) ? "NaN" : value > 0 ? "Infinity" : "-Infinity";
    }

    /**
     * The plain decimal with the fewest significant digits that parses back to {@code value} as a
     * float32: the exact binary value rounded half-even to 1, 2, … 9 digits until it round-trips.
     * JDK 17's {@code Float.toString} is not always shortest and switches to exponent notation, so
     * it cannot be used directly.
     */
    public static String shortestFloat(float value) {
        if (value == 0.0f) {
            return Float.floatToRawIntBits(value) < 0 ? "-0.0" : "0.0";
        }
        BigDecimal exact = new BigDecimal(value);
        for (int digits = 1; digits <= 9; digits++) {
            BigDecimal candidate = exact.round(new MathContext(digits, RoundingMode.HALF_EVEN));
            if (Float.parseFloat(candidate.toString()) == value) {
                return plain(candidate);
            }
        }
        return plain(exact);
    }

    /** As {@link #shortestFloat} for float64 (up to 17 digits). */
    public static String shortestDouble(double value) {
        if (value == 0.0d) {
            return Double.doubleToRawLongBits(value) < 0 ? "-0.0" : "0.0";
        }
        BigDecimal exact = new BigDecimal(value);
        for (int digits = 1; digits <= 17; digits++) {
            BigDecimal candidate = exact.round(new MathContext(digits, RoundingMode.HALF_EVEN));
            if (Double.parseDouble(candidate.toString()) == value) {
                return plain(candidate);
            }
        }
        return plain(exact);
    }

    private static String plain(BigDecimal decimal) {
        BigDecimal stripped = decimal.stripTrailingZeros();
        return (stripped.scale() <= 0 ? stripped.setScale(1) : stripped).toPlainString();
    }

    /**
     * A timestamp of {@code value} {@code unit}s since the epoch: seconds precision text plus
     * exactly as many fraction digits as the unit has (none for seconds); {@code utc} appends the
     * {@code Z} of zoned timestamps.
     */
    public static String timestamp(long value, TimeUnit unit, boolean utc) {
        long perSecond;
        int digits;
        switch (unit) {
            case SECOND -> {
                perSecond = 1L;
                digits = 0;
            }
            case MILLISECOND -> {
                perSecond = 1_000L;
                digits = 3;
            }
            case MICROSECOND -> {
                perSecond = 1_000_000L;
                digits = 6;
            }
            default -> {
                perSecond = 1_000_000_000L;
                digits = 9;
            }
        }
        long seconds = Math.floorDiv(value, perSecond);
        long fraction = Math.floorMod(value, perSecond);
        StringBuilder out =
                new StringBuilder(32).append(SECONDS.format(LocalDateTime.ofEpochSecond(seconds, 0, ZoneOffset.UTC)));
        if (digits > 0) {
            out.append('.');
            String text = Long.toString(fraction);
            for (int i = text.length(); i < digits; i++) {
                out.append('0');
            }
            out.append(text);
        }
        if (utc) {
            out.append('Z');
        }
        return out.toString();
    }

    /**
     * time32/time64 as {@code HH:MM:SS} plus exactly 0/3/6/9 fraction digits for s/ms/us/ns: the
     * time part of the timestamp rendering, as a time of day is a timestamp on 1970-01-01.
     */
    static String timeOfDay(long value, TimeUnit unit) {
        String stamp = timestamp(value, unit, false);
        return stamp.substring(stamp.indexOf('T') + 1);
    }

    /** date64 (milliseconds): the date when it is a whole day, else the millisecond timestamp. */
    static String date64(long millis) {
        return Math.floorMod(millis, 86_400_000L) == 0
                ? LocalDate.ofEpochDay(Math.floorDiv(millis, 86_400_000L)).toString()
                : timestamp(millis, TimeUnit.MILLISECOND, false);
    }

    /** {@code "0x"} followed by two lowercase hex digits per byte. */
    public static String hex(byte[] bytes) {
        return "0x" + HexFormat.of().formatHex(bytes);
    }
}
