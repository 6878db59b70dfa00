package dev.lanceflink.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.util.RawValue;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
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
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * The value conventions of a dump: how one Arrow cell becomes one JSON value, and back. Every
 * tool that prints or compares dumps (this oracle, {@code bin/lance-flink dump}, the interop
 * tests) follows exactly these rules; they are repeated in the "Dump format" section of
 * {@code it/README.md}.
 *
 * <ul>
 *   <li>null (at any level) → {@code null}.
 *   <li>bool → {@code true}/{@code false}; int8…int64, uint8…uint64 → JSON integer (uint64 as
 *       its unsigned value).
 *   <li>float16/float32/float64 → a JSON number with the fewest significant digits that parse
 *       back to the same value of that width (float16 is widened to float32 first, exactly),
 *       in plain notation (never an exponent) with at least one fractional digit: {@code 1.0},
 *       {@code 0.1}, {@code -0.0}; {@code Float.MIN_VALUE} is {@code 0.000…001} (45 fractional
 *       digits). NaN, +∞, −∞ are the
 *       strings {@code "NaN"}, {@code "Infinity"}, {@code "-Infinity"}.
 *   <li>decimal128(p, s) → a JSON number with exactly {@code s} fractional digits
 *       ({@code 0.0000}; no decimal point when s = 0).
 *   <li>utf8, large_utf8 → JSON string. binary, large_binary, fixed_size_binary →
 *       {@code "0x"} + lowercase hex ({@code "0x"} for an empty value).
 *   <li>date32 → {@code "YYYY-MM-DD"} (proleptic Gregorian; years outside 0000–9999 with sign).
 *   <li>timestamp without zone → {@code "YYYY-MM-DDTHH:MM:SS"} followed by exactly 0 (s),
 *       3 (ms), 6 (us) or 9 (ns) fractional digits, e.g. {@code "2020-09-13T12:26:41.000003"};
 *       with a zone (any zone) → the same digits for the UTC instant followed by {@code Z}, e.g.
 *       {@code "2020-09-13T12:26:41.000003Z"} (the zone itself is in the schema).
 *   <li>list, large_list, fixed_size_list → JSON array; struct → JSON object with every child
 *       in schema order, null children present as {@code null}.
 * </ul>
 *
 * <p>Floats are emitted as raw JSON text so that the exact digits above survive serialization.
 */
public final class DumpFormat {

    /** Node factory; Jackson 2.15+ keeps a BigDecimal's scale when building nodes. */
    public static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private static final DateTimeFormatter SECONDS = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss", Locale.ROOT);

    private DumpFormat() {}

    /** The JSON value of row {@code index} of {@code vector}. */
    public static JsonNode cell(FieldVector vector, int index) {
        if (vector.isNull(index)) {
            return NODES.nullNode();
        }
        if (vector instanceof BitVector v) {
            return NODES.booleanNode(v.get(index) != 0);
        } else if (vector instanceof TinyIntVector v) {
            return NODES.numberNode(v.get(index));
        } else if (vector instanceof SmallIntVector v) {
            return NODES.numberNode(v.get(index));
        } else if (vector instanceof IntVector v) {
            return NODES.numberNode(v.get(index));
        } else if (vector instanceof BigIntVector v) {
            return NODES.numberNode(v.get(index));
        } else if (vector instanceof UInt1Vector v) {
            return NODES.numberNode(v.get(index) & 0xFF);
        } else if (vector instanceof UInt2Vector v) {
            return NODES.numberNode((int) v.get(index));
        } else if (vector instanceof UInt4Vector v) {
            return NODES.numberNode(v.get(index) & 0xFFFF_FFFFL);
        } else if (vector instanceof UInt8Vector v) {
            return NODES.numberNode(v.getObjectNoOverflow(index));
        } else if (vector instanceof Float2Vector v) {
            return floatNode(v.getValueAsFloat(index));
        } else if (vector instanceof Float4Vector v) {
            return floatNode(v.get(index));
        } else if (vector instanceof Float8Vector v) {
            return doubleNode(v.get(index));
        } else if (vector instanceof VarCharVector v) {
            return NODES.textNode(new String(v.get(index), StandardCharsets.UTF_8));
        } else if (vector instanceof LargeVarCharVector v) {
            return NODES.textNode(new String(v.get(index), StandardCharsets.UTF_8));
        } else if (vector instanceof VarBinaryVector v) {
            return NODES.textNode(hex(v.get(index)));
        } else if (vector instanceof LargeVarBinaryVector v) {
            return NODES.textNode(hex(v.get(index)));
        } else if (vector instanceof FixedSizeBinaryVector v) {
            return NODES.textNode(hex(v.get(index)));
        } else if (vector instanceof DateDayVector v) {
            return NODES.textNode(LocalDate.ofEpochDay(v.get(index)).toString());
        } else if (vector instanceof TimeStampVector v) {
            ArrowType.Timestamp type = (ArrowType.Timestamp) v.getField().getType();
            return NODES.textNode(timestamp(v.get(index), type.getUnit(), type.getTimezone() != null));
        } else if (vector instanceof DecimalVector v) {
            return NODES.rawValueNode(new RawValue(v.getObject(index).toPlainString()));
        } else if (vector instanceof ListVector v) {
            return array(v.getDataVector(), v.getElementStartIndex(index), v.getElementEndIndex(index));
        } else if (vector instanceof LargeListVector v) {
            return array(v.getDataVector(), v.getElementStartIndex(index), v.getElementEndIndex(index));
        } else if (vector instanceof FixedSizeListVector v) {
            long start = (long) index * v.getListSize();
            return array(v.getDataVector(), start, start + v.getListSize());
        } else if (vector instanceof StructVector v) {
            ObjectNode object = NODES.objectNode();
            List<FieldVector> children = v.getChildrenFromFields();
            for (FieldVector child : children) {
                object.set(child.getName(), cell(child, index));
            }
            return object;
        }
        throw new IllegalArgumentException("column '" + vector.getName() + "': Arrow type "
                + vector.getField().getType() + " has no dump rendering");
    }

    private static ArrayNode array(FieldVector items, long start, long end) {
        ArrayNode array = NODES.arrayNode();
        for (long i = start; i < end; i++) {
            array.add(cell(items, Math.toIntExact(i)));
        }
        return array;
    }

    /** float16 and float32 values: see the class comment. */
    public static JsonNode floatNode(float value) {
        if (Float.isNaN(value) || Float.isInfinite(value)) {
            return NODES.textNode(nonFinite(value));
        }
        return NODES.rawValueNode(new RawValue(shortestFloat(value)));
    }

    /** float64 values: see the class comment. */
    public static JsonNode doubleNode(double value) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            return NODES.textNode(nonFinite(value));
        }
        return NODES.rawValueNode(new RawValue(shortestDouble(value)));
    }

    private static String nonFinite(double value) {
        return Double.isNaN(value) ? "NaN" : value > 0 ? "Infinity" : "-Infinity";
    }

    /**
     * The shortest plain decimal that parses back to {@code value} as a float32. JDK 17's
     * {@code Float.toString} is not always shortest, so the digits are searched explicitly.
     */
    public static String shortestFloat(float value) {
        if (value == 0.0f) {
            return (Float.floatToRawIntBits(value) < 0) ? "-0.0" : "0.0";
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

    /** The shortest plain decimal that parses back to {@code value} as a float64. */
    public static String shortestDouble(double value) {
        if (value == 0.0d) {
            return (Double.doubleToRawLongBits(value) < 0) ? "-0.0" : "0.0";
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
     * Renders a timestamp: {@code value} counts {@code unit}s since the epoch; {@code utc} adds
     * the {@code Z} suffix used for zoned timestamps.
     */
    public static String timestamp(long value, TimeUnit unit, boolean utc) {
        long perSecond = unitsPerSecond(unit);
        long seconds = Math.floorDiv(value, perSecond);
        long fraction = Math.floorMod(value, perSecond);
        LocalDateTime time = LocalDateTime.ofEpochSecond(seconds, 0, ZoneOffset.UTC);
        StringBuilder out = new StringBuilder(32).append(SECONDS.format(time));
        int digits = fractionDigits(unit);
        if (digits > 0) {
            String frac = Long.toString(fraction);
            out.append('.');
            for (int i = frac.length(); i < digits; i++) {
                out.append('0');
            }
            out.append(frac);
        }
        if (utc) {
            out.append('Z');
        }
        return out.toString();
    }

    /**
     * Parses a timestamp string in the dump rendering (or any ISO-8601 form with up to the unit's
     * precision; for zoned columns an offset other than {@code Z} is also accepted) back to
     * {@code unit}s since the epoch.
     */
    public static long parseTimestamp(String text, TimeUnit unit, boolean zoned) {
        Instant instant;
        try {
            if (zoned) {
                instant = OffsetDateTime.parse(text).toInstant();
            } else {
                instant = LocalDateTime.parse(text).toInstant(ZoneOffset.UTC);
            }
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(
                    "'" + text + "' is not a timestamp"
                            + (zoned
                                    ? " with offset (e.g. 2020-09-13T12:26:41.000003Z)"
                                    : " without zone (e.g. 2020-09-13T12:26:41.000003)"),
                    e);
        }
        long perSecond = unitsPerSecond(unit);
        long nanosPerUnit = 1_000_000_000L / perSecond;
        if (instant.getNano() % nanosPerUnit != 0) {
            throw new IllegalArgumentException("'" + text + "' is finer than the column's unit " + unit);
        }
        return Math.addExact(Math.multiplyExact(instant.getEpochSecond(), perSecond), instant.getNano() / nanosPerUnit);
    }

    private static long unitsPerSecond(TimeUnit unit) {
        return switch (unit) {
            case SECOND -> 1L;
            case MILLISECOND -> 1_000L;
            case MICROSECOND -> 1_000_000L;
            case NANOSECOND -> 1_000_000_000L;
        };
    }

    private static int fractionDigits(TimeUnit unit) {
        return switch (unit) {
            case SECOND -> 0;
            case MILLISECOND -> 3;
            case MICROSECOND -> 6;
            case NANOSECOND -> 9;
        };
    }

    /** {@code "0x"} followed by two lowercase hex digits per byte. */
    public static String hex(byte[] bytes) {
        return "0x" + HexFormat.of().formatHex(bytes);
    }

    /** Inverse of {@link #hex}; upper-case digits are accepted. */
    public static byte[] unhex(String text) {
        if (!text.startsWith("0x") || (text.length() & 1) != 0) {
            throw new IllegalArgumentException(
                    "binary values are written as \"0x\" + hex pairs, got '" + abbreviate(text) + "'");
        }
        try {
            return HexFormat.of().parseHex(text, 2, text.length());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "not a hex digit in '" + abbreviate(text) + "' (" + e.getMessage() + ")", e);
        }
    }

    /** Days since the epoch of a {@code YYYY-MM-DD} string. */
    public static int parseDate(String text) {
        try {
            return Math.toIntExact(LocalDate.parse(text).toEpochDay());
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("'" + text + "' is not a date (YYYY-MM-DD)", e);
        }
    }

    static String abbreviate(String text) {
        return text.length() <= 40 ? text : text.substring(0, 37) + "...";
    }
}
