package dev.lanceflink.expr;

import static dev.lanceflink.expr.PredicateEvaluator.FALSE;
import static dev.lanceflink.expr.PredicateEvaluator.TRUE;
import static dev.lanceflink.expr.PredicateEvaluator.UNKNOWN;

import dev.lanceflink.expr.PredicateEvaluator.ColumnRef;
import dev.lanceflink.expr.PredicateEvaluator.Kind;
import dev.lanceflink.expr.PredicateEvaluator.Source;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.function.IntToDoubleFunction;
import java.util.function.IntToLongFunction;
import java.util.function.IntUnaryOperator;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.Decimal256Vector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float2Vector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
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
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * Comparisons in the typed domains ({@link Expr.Domain} other than LENIENT): both operands are
 * read in the domain's representation, straight from the Arrow buffers where the type allows,
 * and a NULL on either side makes the row UNKNOWN. Operands are columns, literals, and
 * {@link Expr.Floor} of a time or timestamp column; a pair the domain does not define fails with
 * a {@link FilterException} naming both sides.
 */
final class TypedComparison {
    private static final long MILLIS_PER_DAY = 86_400_000L;
    private static final long[] POW10 = new long[19];

    static {
        POW10[0] = 1;
        for (int i = 1; i < POW10.length; i++) {
            POW10[i] = POW10[i - 1] * 10;
        }
    }

    private TypedComparison() {}

    /** A comparison result per non-null row. */
    @FunctionalInterface
    private interface RowTest {
        boolean test(int row);
    }

    @FunctionalInterface
    private interface IntToFloatFunction {
        float applyAsFloat(int row);
    }

    /** One side: a column (rounded down to {@code floorDigits} when that is not -1) or a literal. */
    private record Operand(ColumnRef column, int floorDigits, Object literal, Expr expr) {
        boolean isNull(int row) {
            return column == null ? literal == null : column.isNull(row);
        }

        boolean isColumn() {
            return column != null;
        }

        FieldVector vector() {
            return column.vector();
        }

        String describe() {
            if (column != null) {
                return "column '" + column.name() + "'";
            }
            return literal instanceof byte[] b
                    ? "the binary literal of " + b.length + " bytes"
                    : literal instanceof String s ? "'" + s + "'" : "the literal " + literal;
        }
    }

    /** {@code in} in its domain: true where some value equals, NOT of that when negated. */
    static byte[] in(Expr.In in, VectorSchemaRoot batch) {
        byte[] out = new byte[batch.getRowCount()];
        Arrays.fill(out, FALSE);
        byte[] eq = new byte[out.length];
        for (Expr.Literal v : in.values()) {
            evaluate(new Expr.Compare(Expr.CompareOp.EQ, in.inner(), v, in.domain()), batch, eq);
            for (int i = 0; i < out.length; i++) {
                if (eq[i] == TRUE || out[i] == TRUE) {
                    out[i] = TRUE;
                } else if (eq[i] == UNKNOWN) {
                    out[i] = UNKNOWN;
                }
            }
        }
        if (in.negated()) {
            for (int i = 0; i < out.length; i++) {
                out[i] = out[i] == UNKNOWN ? UNKNOWN : (byte) (1 - out[i]);
            }
        }
        return out;
    }

    static void evaluate(Expr.Compare c, VectorSchemaRoot batch, byte[] out) {
        Expr left = c.left();
        Expr right = c.right();
        Expr.CompareOp op = c.op();
        if (left instanceof Expr.Literal && !(right instanceof Expr.Literal)) {
            Expr t = left;
            left = right;
            right = t;
            op = op.flip();
        }
        Operand l = operand(left, batch, c);
        Operand r = operand(right, batch, c);
        if ((!l.isColumn() && l.literal() == null) || (!r.isColumn() && r.literal() == null)) {
            Arrays.fill(out, UNKNOWN);
            return;
        }
        RowTest test = switch (c.domain()) {
            case EXACT -> exact(l, r, op, c);
            case FLOAT -> floats(l, r, op, c);
            case DOUBLE -> doubles(l, r, op, c, false);
            case DOUBLE_TOTAL -> doubles(l, r, op, c, true);
            case LENIENT -> throw new IllegalArgumentException("LENIENT comparisons are not typed: " + c);
        };
        for (int i = 0; i < out.length; i++) {
            out[i] = l.isNull(i) || r.isNull(i) ? UNKNOWN : test.test(i) ? TRUE : FALSE;
        }
    }

    private static Operand operand(Expr e, VectorSchemaRoot batch, Expr.Compare c) {
        if (e instanceof Expr.Column col) {
            return new Operand(ColumnRef.resolve(col, batch), -1, null, e);
        }
        if (e instanceof Expr.Literal lit) {
            return new Operand(null, -1, lit.value(), e);
        }
        if (e instanceof Expr.Floor f && f.inner() instanceof Expr.Column col) {
            if (c.domain() != Expr.Domain.EXACT) {
                throw new FilterException(
                        "Rounding a time down (" + f + ") needs the EXACT domain, not " + c.domain() + ", in " + c);
            }
            return new Operand(ColumnRef.resolve(col, batch), f.digits(), null, e);
        }
        throw new FilterException("A " + c.domain() + " comparison compares columns, literals and a time column "
                + "rounded down, not " + e + " (in " + c + ")");
    }

    private static FilterException incomparable(Operand l, Operand r, Expr.Compare c, String why) {
        return new FilterException("Cannot compare " + l.describe() + " with " + r.describe() + " in the " + c.domain()
                + " domain: " + why + " (in " + c + ")");
    }

    // ---- floating point ---------------------------------------------------------------------

    private static RowTest floats(Operand l, Operand r, Expr.CompareOp op, Expr.Compare c) {
        IntToFloatFunction a = floatReader(l, r, c);
        IntToFloatFunction b = floatReader(r, l, c);
        return switch (op) {
            case EQ -> i -> a.applyAsFloat(i) == b.applyAsFloat(i);
            case NE -> i -> a.applyAsFloat(i) != b.applyAsFloat(i);
            case LT -> i -> a.applyAsFloat(i) < b.applyAsFloat(i);
            case LE -> i -> a.applyAsFloat(i) <= b.applyAsFloat(i);
            case GT -> i -> a.applyAsFloat(i) > b.applyAsFloat(i);
            case GE -> i -> a.applyAsFloat(i) >= b.applyAsFloat(i);
        };
    }

    private static IntToFloatFunction floatReader(Operand o, Operand other, Expr.Compare c) {
        if (!o.isColumn()) {
            Object v = o.literal();
            float f;
            if (v instanceof Float x) {
                f = x;
            } else if (v instanceof Long x) {
                f = (float) x; // Java's conversion, as a float comparison with an integer makes
            } else {
                throw incomparable(o, other, c, "FLOAT takes float and integer literals");
            }
            return i -> f;
        }
        FieldVector v = o.vector();
        if (v instanceof Float4Vector f) {
            return f::get;
        }
        if (v instanceof Float2Vector f) {
            return f::getValueAsFloat;
        }
        IntToLongFunction integer = integerReader(o);
        if (integer != null) {
            // Directly from the long: going through a double could round twice.
            return i -> (float) integer.applyAsLong(i);
        }
        throw incomparable(o, other, c, "FLOAT takes float and integer columns");
    }

    private static RowTest doubles(Operand l, Operand r, Expr.CompareOp op, Expr.Compare c, boolean total) {
        IntToDoubleFunction a = doubleReader(l, r, c, total);
        IntToDoubleFunction b = doubleReader(r, l, c, total);
        if (total) {
            return i -> op.holds(Double.compare(a.applyAsDouble(i), b.applyAsDouble(i)));
        }
        return switch (op) {
            case EQ -> i -> a.applyAsDouble(i) == b.applyAsDouble(i);
            case NE -> i -> a.applyAsDouble(i) != b.applyAsDouble(i);
            case LT -> i -> a.applyAsDouble(i) < b.applyAsDouble(i);
            case LE -> i -> a.applyAsDouble(i) <= b.applyAsDouble(i);
            case GT -> i -> a.applyAsDouble(i) > b.applyAsDouble(i);
            case GE -> i -> a.applyAsDouble(i) >= b.applyAsDouble(i);
        };
    }

    private static IntToDoubleFunction doubleReader(Operand o, Operand other, Expr.Compare c, boolean total) {
        if (!o.isColumn()) {
            Object v = o.literal();
            double d;
            if (v instanceof Double x) {
                d = x;
            } else if (v instanceof Float x) {
                d = x;
            } else if (v instanceof Long x) {
                d = (double) x;
            } else if (total && v instanceof BigDecimal x) {
                d = decimalToDouble(x, x.precision());
            } else {
                throw incomparable(
                        o,
                        other,
                        c,
                        c.domain() + " takes "
                                + (total ? "double, float, integer and decimal" : "double, float and integer")
                                + " literals");
            }
            return i -> d;
        }
        FieldVector v = o.vector();
        if (v instanceof Float8Vector f) {
            return f::get;
        }
        if (v instanceof Float4Vector f) {
            return f::get;
        }
        if (v instanceof Float2Vector f) {
            return f::getValueAsFloat;
        }
        IntToLongFunction integer = integerReader(o);
        if (integer != null) {
            return i -> (double) integer.applyAsLong(i);
        }
        if (total && v instanceof DecimalVector d) {
            int precision = d.getPrecision();
            int scale = d.getScale();
            if (precision <= 18) {
                double divisor = (double) POW10[scale];
                return i -> (double) unscaledLong(d, i) / divisor;
            }
            return i -> d.getObject(i).doubleValue();
        }
        if (total && v instanceof Decimal256Vector d) {
            int precision = ((ArrowType.Decimal) d.getField().getType()).getPrecision();
            return i -> decimalToDouble(d.getObject(i), precision);
        }
        throw incomparable(
                o,
                other,
                c,
                c.domain() + " takes " + (total ? "floating-point, integer and decimal" : "floating-point and integer")
                        + " columns");
    }

    /** See {@link Expr.Domain#DOUBLE_TOTAL}. */
    static double decimalToDouble(BigDecimal d, int precision) {
        if (precision <= 18 && d.scale() >= 0 && d.scale() <= 18) {
            return (double) d.unscaledValue().longValueExact() / (double) POW10[d.scale()];
        }
        return d.doubleValue();
    }

    /** The unscaled value of a decimal of at most 18 digits: the low 64 bits of its 128. */
    private static long unscaledLong(DecimalVector d, int row) {
        return d.getDataBuffer().getLong((long) row * DecimalVector.TYPE_WIDTH);
    }

    /** Reads an integer column as longs, or null if the column is not of a signed or 8..32-bit unsigned integer type. */
    private static IntToLongFunction integerReader(Operand o) {
        FieldVector v = o.vector();
        if (v instanceof TinyIntVector
                || v instanceof SmallIntVector
                || v instanceof IntVector
                || v instanceof BigIntVector
                || v instanceof UInt1Vector
                || v instanceof UInt2Vector
                || v instanceof UInt4Vector) {
            Source s = new Source(Kind.LONG, v, null, null, false);
            return s::getLong;
        }
        return null;
    }

    // ---- exact values -----------------------------------------------------------------------

    private enum Exact {
        INTEGER,
        DECIMAL,
        STRING,
        BINARY,
        BOOLEAN,
        DATE,
        TIME,
        TIMESTAMP,
        TIMESTAMP_TZ
    }

    private static Exact exactKind(Operand o, Operand other, Expr.Compare c) {
        if (!o.isColumn()) {
            Object v = o.literal();
            if (v instanceof Long) {
                return Exact.INTEGER;
            } else if (v instanceof BigDecimal) {
                return Exact.DECIMAL;
            } else if (v instanceof String) {
                return Exact.STRING;
            } else if (v instanceof byte[]) {
                return Exact.BINARY;
            } else if (v instanceof Boolean) {
                return Exact.BOOLEAN;
            } else if (v instanceof LocalDate) {
                return Exact.DATE;
            } else if (v instanceof LocalTime) {
                return Exact.TIME;
            } else if (v instanceof LocalDateTime) {
                return Exact.TIMESTAMP;
            } else if (v instanceof Instant) {
                return Exact.TIMESTAMP_TZ;
            }
            throw incomparable(
                    o, other, c, "floating-point values compare in the FLOAT, DOUBLE or DOUBLE_TOTAL domain");
        }
        FieldVector v = o.vector();
        if (integerReader(o) != null) {
            return Exact.INTEGER;
        } else if (v instanceof DecimalVector || v instanceof Decimal256Vector) {
            return Exact.DECIMAL;
        } else if (v instanceof VarCharVector || v instanceof LargeVarCharVector) {
            return Exact.STRING;
        } else if (v instanceof BaseVariableWidthVector
                || v instanceof BaseLargeVariableWidthVector
                || v instanceof FixedSizeBinaryVector) {
            return Exact.BINARY;
        } else if (v instanceof BitVector) {
            return Exact.BOOLEAN;
        } else if (v instanceof DateDayVector || v instanceof DateMilliVector) {
            return Exact.DATE;
        } else if (v instanceof TimeSecVector
                || v instanceof TimeMilliVector
                || v instanceof TimeMicroVector
                || v instanceof TimeNanoVector) {
            return Exact.TIME;
        } else if (v instanceof TimeStampVector) {
            return ((ArrowType.Timestamp) v.getField().getType()).getTimezone() == null
                    ? Exact.TIMESTAMP
                    : Exact.TIMESTAMP_TZ;
        } else if (v instanceof Float2Vector || v instanceof Float4Vector || v instanceof Float8Vector) {
            throw incomparable(
                    o, other, c, "floating-point values compare in the FLOAT, DOUBLE or DOUBLE_TOTAL domain");
        }
        throw incomparable(o, other, c, "its type " + v.getField().getType() + " is not comparable");
    }

    private static RowTest exact(Operand l, Operand r, Expr.CompareOp op, Expr.Compare c) {
        Exact a = exactKind(l, r, c);
        Exact b = exactKind(r, l, c);
        if ((l.floorDigits() >= 0 && !isTime(a)) || (r.floorDigits() >= 0 && !isTime(b))) {
            throw incomparable(l, r, c, "only a time or timestamp column can be rounded down");
        }
        boolean numeric = (a == Exact.INTEGER || a == Exact.DECIMAL) && (b == Exact.INTEGER || b == Exact.DECIMAL);
        if (!numeric && a != b) {
            throw incomparable(l, r, c, "one is " + name(a) + ", the other " + name(b));
        }
        IntUnaryOperator cmp = switch (a) {
            case INTEGER, DECIMAL -> numbers(l, a, r, b);
            case STRING, BINARY -> bytes(l, r);
            case BOOLEAN -> longs(booleanReader(l), booleanReader(r));
            case DATE -> longs(dateReader(l), dateReader(r));
            case TIME -> longs(timeReader(l), timeReader(r));
            case TIMESTAMP, TIMESTAMP_TZ -> timestamps(l, r);
        };
        return i -> op.holds(cmp.applyAsInt(i));
    }

    private static boolean isTime(Exact k) {
        return k == Exact.TIME || k == Exact.TIMESTAMP || k == Exact.TIMESTAMP_TZ;
    }

    private static String name(Exact k) {
        return switch (k) {
            case INTEGER -> "an integer";
            case DECIMAL -> "a decimal";
            case STRING -> "a string";
            case BINARY -> "binary";
            case BOOLEAN -> "a boolean";
            case DATE -> "a date";
            case TIME -> "a time of day";
            case TIMESTAMP -> "a timestamp without time zone";
            case TIMESTAMP_TZ -> "a timestamp with time zone (an instant)";
        };
    }

    private static IntUnaryOperator longs(IntToLongFunction a, IntToLongFunction b) {
        return i -> Long.compare(a.applyAsLong(i), b.applyAsLong(i));
    }

    private static IntToLongFunction booleanReader(Operand o) {
        if (!o.isColumn()) {
            long v = (Boolean) o.literal() ? 1 : 0;
            return i -> v;
        }
        BitVector bits = (BitVector) o.vector();
        return bits::get;
    }

    private static IntToLongFunction dateReader(Operand o) {
        if (!o.isColumn()) {
            long v = ((LocalDate) o.literal()).toEpochDay();
            return i -> v;
        }
        if (o.vector() instanceof DateDayVector d) {
            return d::get;
        }
        DateMilliVector d = (DateMilliVector) o.vector();
        return i -> Math.floorDiv(d.get(i), MILLIS_PER_DAY);
    }

    /** Nanoseconds of the day. */
    private static IntToLongFunction timeReader(Operand o) {
        if (!o.isColumn()) {
            long v = ((LocalTime) o.literal()).toNanoOfDay();
            return i -> v;
        }
        FieldVector v = o.vector();
        long nanosPerUnit = v instanceof TimeSecVector
                ? 1_000_000_000L
                : v instanceof TimeMilliVector ? 1_000_000L : v instanceof TimeMicroVector ? 1_000L : 1L;
        long grain = o.floorDigits() < 0 ? 1 : POW10[9 - o.floorDigits()];
        Source s = new Source(Kind.LONG, v, null, null, false);
        return i -> {
            long nanos = s.getLong(i) * nanosPerUnit;
            return nanos - Math.floorMod(nanos, grain);
        };
    }

    private static IntUnaryOperator numbers(Operand l, Exact a, Operand r, Exact b) {
        if (a == Exact.INTEGER && b == Exact.INTEGER) {
            return longs(longReader(l), longReader(r));
        }
        if (l.isColumn() && !r.isColumn()) {
            return columnVersusNumber(l, a, toDecimal(r.literal()));
        }
        IntFunctionDecimal x = decimalReader(l, a);
        IntFunctionDecimal y = decimalReader(r, b);
        return i -> x.apply(i).compareTo(y.apply(i));
    }

    @FunctionalInterface
    private interface IntFunctionDecimal {
        BigDecimal apply(int row);
    }

    private static IntToLongFunction longReader(Operand o) {
        if (!o.isColumn()) {
            long v = (Long) o.literal();
            return i -> v;
        }
        return integerReader(o);
    }

    private static BigDecimal toDecimal(Object literal) {
        return literal instanceof BigDecimal d ? d : BigDecimal.valueOf((Long) literal);
    }

    private static IntFunctionDecimal decimalReader(Operand o, Exact kind) {
        if (!o.isColumn()) {
            BigDecimal v = toDecimal(o.literal());
            return i -> v;
        }
        if (kind == Exact.INTEGER) {
            IntToLongFunction l = integerReader(o);
            return i -> BigDecimal.valueOf(l.applyAsLong(i));
        }
        if (o.vector() instanceof DecimalVector d) {
            return d::getObject;
        }
        Decimal256Vector d = (Decimal256Vector) o.vector();
        return d::getObject;
    }

    /**
     * An integer or decimal column against a number, on the column's unscaled longs where it has
     * at most 18 digits: the number is rounded down to the column's scale and a dropped fraction
     * breaks the tie, so the comparison stays exact.
     */
    private static IntUnaryOperator columnVersusNumber(Operand column, Exact kind, BigDecimal value) {
        IntToLongFunction unscaled;
        int scale;
        if (kind == Exact.INTEGER) {
            unscaled = integerReader(column);
            scale = 0;
        } else if (column.vector() instanceof DecimalVector d && d.getPrecision() <= 18) {
            unscaled = i -> unscaledLong(d, i);
            scale = d.getScale();
        } else {
            IntFunctionDecimal x = decimalReader(column, kind);
            return i -> x.apply(i).compareTo(value);
        }
        BigDecimal shifted = value.movePointRight(scale);
        BigDecimal floor = shifted.setScale(0, RoundingMode.FLOOR);
        boolean fraction = shifted.compareTo(floor) != 0;
        long bound;
        try {
            bound = floor.longValueExact();
        } catch (ArithmeticException beyondEveryLong) {
            int sign = -value.signum(); // every column value is below a huge value, above a hugely negative one
            return i -> sign;
        }
        return i -> {
            long x = unscaled.applyAsLong(i);
            return x != bound ? Long.compare(x, bound) : fraction ? -1 : 0;
        };
    }

    private static IntUnaryOperator bytes(Operand l, Operand r) {
        Source a = bytesSource(l);
        if (!r.isColumn()) {
            byte[] v = r.literal() instanceof String s ? s.getBytes(StandardCharsets.UTF_8) : (byte[]) r.literal();
            return i -> a.compareBytesInPlace(i, v);
        }
        Source b = bytesSource(r);
        return i -> Arrays.compareUnsigned(a.bytes(i), b.bytes(i));
    }

    private static Source bytesSource(Operand o) {
        FieldVector v = o.vector();
        return new Source(
                v instanceof VarCharVector || v instanceof LargeVarCharVector ? Kind.STRING : Kind.BYTES,
                v,
                null,
                null,
                false);
    }

    // ---- timestamps -------------------------------------------------------------------------

    private static IntUnaryOperator timestamps(Operand l, Operand r) {
        if (!r.isColumn()) {
            long seconds;
            int nanos;
            if (r.literal() instanceof Instant t) {
                seconds = t.getEpochSecond();
                nanos = t.getNano();
            } else {
                LocalDateTime t = (LocalDateTime) r.literal();
                seconds = t.toEpochSecond(ZoneOffset.UTC);
                nanos = t.getNano();
            }
            return columnVersusInstant(l, seconds, nanos);
        }
        IntToLongFunction a = timestampRaw(l);
        IntToLongFunction b = timestampRaw(r);
        long unitsA = unitsPerSecond(l);
        long unitsB = unitsPerSecond(r);
        if (unitsA == unitsB) {
            return longs(a, b);
        }
        return i -> {
            long x = a.applyAsLong(i);
            long y = b.applyAsLong(i);
            int s = Long.compare(Math.floorDiv(x, unitsA), Math.floorDiv(y, unitsB));
            if (s != 0) {
                return s;
            }
            return Long.compare(
                    Math.floorMod(x, unitsA) * (1_000_000_000L / unitsA),
                    Math.floorMod(y, unitsB) * (1_000_000_000L / unitsB));
        };
    }

    private static long unitsPerSecond(Operand o) {
        TimeUnit unit = ((ArrowType.Timestamp) o.vector().getField().getType()).getUnit();
        return switch (unit) {
            case SECOND -> 1L;
            case MILLISECOND -> 1_000L;
            case MICROSECOND -> 1_000_000L;
            case NANOSECOND -> 1_000_000_000L;
        };
    }

    /** The column's raw values in its unit, rounded down to the operand's digits. */
    private static IntToLongFunction timestampRaw(Operand o) {
        TimeStampVector v = (TimeStampVector) o.vector();
        long units = unitsPerSecond(o);
        int unitDigits = Long.toString(units).length() - 1;
        if (o.floorDigits() < 0 || o.floorDigits() >= unitDigits) {
            return i -> v.getDataBuffer().getLong((long) i * 8);
        }
        long grain = POW10[unitDigits - o.floorDigits()];
        return i -> {
            long raw = v.getDataBuffer().getLong((long) i * 8);
            return raw - Math.floorMod(raw, grain);
        };
    }

    /** The column against an instant given as epoch seconds and nanoseconds, exactly. */
    private static IntUnaryOperator columnVersusInstant(Operand column, long seconds, int nanos) {
        IntToLongFunction raw = timestampRaw(column);
        long units = unitsPerSecond(column);
        long nanosPerUnit = 1_000_000_000L / units;
        long bound;
        try {
            bound = Math.addExact(Math.multiplyExact(seconds, units), nanos / nanosPerUnit);
        } catch (ArithmeticException beyondTheUnitsRange) {
            int sign = seconds < 0 ? 1 : -1;
            return i -> sign;
        }
        boolean fraction = nanos % nanosPerUnit != 0;
        return i -> {
            long x = raw.applyAsLong(i);
            return x != bound ? Long.compare(x, bound) : fraction ? -1 : 0;
        };
    }
}
