package dev.lanceflink.expr;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
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
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt2Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * Evaluates a filter over one Arrow batch with SQL three-valued logic. The result per row is
 * {@link #FALSE}, {@link #TRUE} or {@link #UNKNOWN}; a row passes a filter only when TRUE.
 * Comparisons of a column with a literal read the Arrow buffers directly (no per-row objects).
 */
public final class PredicateEvaluator {
    public static final byte FALSE = 0;
    public static final byte TRUE = 1;
    public static final byte UNKNOWN = 2;

    private PredicateEvaluator() {}

    /** The columns (top-level names) an expression reads, for projection. */
    public static List<String> referencedColumns(Expr e) {
        List<String> out = new ArrayList<>();
        collect(e, out);
        return out;
    }

    private static void collect(Expr e, List<String> out) {
        if (e instanceof Expr.Column c) {
            if (!out.contains(c.path().get(0))) {
                out.add(c.path().get(0));
            }
        } else if (e instanceof Expr.Compare c) {
            collect(c.left(), out);
            collect(c.right(), out);
        } else if (e instanceof Expr.Arith a) {
            collect(a.left(), out);
            collect(a.right(), out);
        } else if (e instanceof Expr.And a) {
            collect(a.left(), out);
            collect(a.right(), out);
        } else if (e instanceof Expr.Or o) {
            collect(o.left(), out);
            collect(o.right(), out);
        } else if (e instanceof Expr.Not n) {
            collect(n.inner(), out);
        } else if (e instanceof Expr.IsNull n) {
            collect(n.inner(), out);
        } else if (e instanceof Expr.In in) {
            collect(in.inner(), out);
        } else if (e instanceof Expr.Like l) {
            collect(l.inner(), out);
        } else if (e instanceof Expr.Floor f) {
            collect(f.inner(), out);
        }
    }

    /** Row indices of {@code batch} for which {@code filter} is TRUE, ascending. */
    public static int[] selectedRows(Expr filter, VectorSchemaRoot batch) {
        byte[] truth = evaluate(filter, batch);
        int n = 0;
        for (byte b : truth) {
            if (b == TRUE) {
                n++;
            }
        }
        int[] rows = new int[n];
        int j = 0;
        for (int i = 0; i < truth.length; i++) {
            if (truth[i] == TRUE) {
                rows[j++] = i;
            }
        }
        return rows;
    }

    /** Truth value per row. */
    public static byte[] evaluate(Expr e, VectorSchemaRoot batch) {
        int rows = batch.getRowCount();
        byte[] out = new byte[rows];
        if (e instanceof Expr.And a) {
            byte[] l = evaluate(a.left(), batch);
            byte[] r = evaluate(a.right(), batch);
            for (int i = 0; i < rows; i++) {
                out[i] = (l[i] == FALSE || r[i] == FALSE) ? FALSE : (l[i] == TRUE && r[i] == TRUE) ? TRUE : UNKNOWN;
            }
        } else if (e instanceof Expr.Or o) {
            byte[] l = evaluate(o.left(), batch);
            byte[] r = evaluate(o.right(), batch);
            for (int i = 0; i < rows; i++) {
                out[i] = (l[i] == TRUE || r[i] == TRUE) ? TRUE : (l[i] == FALSE && r[i] == FALSE) ? FALSE : UNKNOWN;
            }
        } else if (e instanceof Expr.Not n) {
            byte[] v = evaluate(n.inner(), batch);
            for (int i = 0; i < rows; i++) {
                out[i] = v[i] == UNKNOWN ? UNKNOWN : (byte) (1 - v[i]);
            }
        } else if (e instanceof Expr.IsNull n) {
            // A column of any type (lists and structs too) is null by its validity alone.
            ColumnRef column = n.inner() instanceof Expr.Column c ? ColumnRef.resolve(c, batch) : null;
            Source s = column == null ? source(n.inner(), batch) : null;
            for (int i = 0; i < rows; i++) {
                boolean isNull = column != null ? column.isNull(i) : s.isNull(i);
                out[i] = (isNull != n.negated()) ? TRUE : FALSE;
            }
        } else if (e instanceof Expr.Compare c && c.domain() != Expr.Domain.LENIENT) {
            TypedComparison.evaluate(c, batch, out);
        } else if (e instanceof Expr.Compare c) {
            compare(c, batch, out);
        } else if (e instanceof Expr.In in && in.domain() != Expr.Domain.LENIENT) {
            return TypedComparison.in(in, batch);
        } else if (e instanceof Expr.In in) {
            Source s = source(in.inner(), batch);
            Arrays.fill(out, FALSE);
            boolean listHasNull = false;
            for (Expr.Literal lit : in.values()) {
                if (lit.value() == null) {
                    listHasNull = true;
                    continue;
                }
                Source v = literalFor(lit, s, in.inner());
                for (int i = 0; i < rows; i++) {
                    if (out[i] != TRUE && !s.isNull(i) && Source.compare(s, i, v, 0) == 0) {
                        out[i] = TRUE;
                    }
                }
            }
            for (int i = 0; i < rows; i++) {
                if (s.isNull(i) || (out[i] == FALSE && listHasNull)) {
                    out[i] = UNKNOWN;
                } else if (in.negated()) {
                    out[i] = (byte) (1 - out[i]);
                }
            }
        } else if (e instanceof Expr.Like l) {
            Source s = source(l.inner(), batch);
            if (s.kind != Kind.STRING) {
                throw new FilterException("LIKE needs a string column, but " + describe(l.inner()) + " is " + s.kind);
            }
            Pattern p = likePattern(l.pattern());
            for (int i = 0; i < rows; i++) {
                if (s.isNull(i)) {
                    out[i] = UNKNOWN;
                } else {
                    boolean m = p.matcher(new String(s.bytes(i), StandardCharsets.UTF_8))
                            .matches();
                    out[i] = (m != l.negated()) ? TRUE : FALSE;
                }
            }
        } else if (e instanceof Expr.Literal lit) {
            if (lit.value() == null) {
                Arrays.fill(out, UNKNOWN);
            } else if (lit.value() instanceof Boolean b) {
                Arrays.fill(out, b ? TRUE : FALSE);
            } else {
                throw new FilterException("The literal " + lit.value() + " is not a condition");
            }
        } else if (e instanceof Expr.Column c) {
            Source s = source(c, batch);
            if (s.kind != Kind.BOOL) {
                throw new FilterException(
                        "Column '" + c.dotted() + "' is not boolean and cannot be a condition by itself");
            }
            for (int i = 0; i < rows; i++) {
                out[i] = s.isNull(i) ? UNKNOWN : (s.getLong(i) != 0 ? TRUE : FALSE);
            }
        }
        return out;
    }

    private static void compare(Expr.Compare c, VectorSchemaRoot batch, byte[] out) {
        Expr.CompareOp op = c.op();
        Expr left = c.left();
        Expr right = c.right();
        if (left instanceof Expr.Literal && !(right instanceof Expr.Literal)) {
            Expr t = left;
            left = right;
            right = t;
            op = op.flip();
        }
        Source l = source(left, batch);
        Source r = right instanceof Expr.Literal lit ? literalFor(lit, l, left) : source(right, batch);
        for (int i = 0; i < out.length; i++) {
            int ri = r.constant ? 0 : i;
            if (l.isNull(i) || r.isNull(ri)) {
                out[i] = UNKNOWN;
                continue;
            }
            int cmp = Source.compare(l, i, r, ri);
            boolean b = switch (op) {
                case EQ -> cmp == 0;
                case NE -> cmp != 0;
                case LT -> cmp < 0;
                case LE -> cmp <= 0;
                case GT -> cmp > 0;
                case GE -> cmp >= 0;
            };
            out[i] = b ? TRUE : FALSE;
        }
    }

    private static Pattern likePattern(String like) {
        StringBuilder re = new StringBuilder();
        for (int i = 0; i < like.length(); i++) {
            char ch = like.charAt(i);
            if (ch == '\\' && i + 1 < like.length()) {
                re.append(Pattern.quote(String.valueOf(like.charAt(++i))));
            } else if (ch == '%') {
                re.append(".*");
            } else if (ch == '_') {
                re.append('.');
            } else {
                re.append(Pattern.quote(String.valueOf(ch)));
            }
        }
        return Pattern.compile(re.toString(), Pattern.DOTALL);
    }

    private static String describe(Expr e) {
        return e instanceof Expr.Column c ? "column '" + c.dotted() + "'" : e.toString();
    }

    enum Kind {
        LONG,
        DOUBLE,
        DECIMAL,
        STRING,
        BYTES,
        BOOL
    }

    /** A column of the batch, with the struct whose nulls make it null too (or null). */
    record ColumnRef(FieldVector vector, FieldVector nullParent, String name) {
        static ColumnRef resolve(Expr.Column c, VectorSchemaRoot batch) {
            FieldVector v = batch.getVector(c.path().get(0));
            if (v == null) {
                throw new FilterException("The filter refers to column '" + c.dotted()
                        + "', which the table does not have (columns: " + columnNames(batch) + ")");
            }
            for (int i = 1; i < c.path().size(); i++) {
                if (!(v instanceof StructVector s) || s.getChild(c.path().get(i)) == null) {
                    throw new FilterException("The filter refers to '" + c.dotted() + "', but '"
                            + String.join(".", c.path().subList(0, i)) + "' has no field '"
                            + c.path().get(i) + "'");
                }
                // A null struct makes its fields null too.
                FieldVector parent = v;
                v = (FieldVector) s.getChild(c.path().get(i));
                return new ColumnRef(v, parent, c.dotted());
            }
            return new ColumnRef(v, null, c.dotted());
        }

        boolean isNull(int row) {
            return vector.isNull(row) || (nullParent != null && nullParent.isNull(row));
        }
    }

    private static Source source(Expr e, VectorSchemaRoot batch) {
        if (e instanceof Expr.Column c) {
            ColumnRef ref = ColumnRef.resolve(c, batch);
            return columnSource(ref.vector(), ref.name(), ref.nullParent());
        }
        if (e instanceof Expr.Literal lit) {
            return Source.literal(lit.value());
        }
        if (e instanceof Expr.Arith a) {
            return arithmetic(a, batch);
        }
        if (e instanceof Expr.Floor f) {
            throw new FilterException("Rounding a time down to " + f.digits() + " digits (" + f
                    + ") needs a comparison in the EXACT domain");
        }
        throw new FilterException("Only columns, literals and arithmetic can be compared, not " + e);
    }

    /** Computes an arithmetic expression into arrays (a null in either operand gives null). */
    private static Source arithmetic(Expr.Arith a, VectorSchemaRoot batch) {
        Source l = source(a.left(), batch);
        Source r = source(a.right(), batch);
        for (Source s : new Source[] {l, r}) {
            if (s.kind != Kind.LONG && s.kind != Kind.DOUBLE) {
                throw new FilterException(
                        "Arithmetic needs integer or floating-point operands, not " + s.kind + " (in " + a + ")");
            }
        }
        int rows = batch.getRowCount();
        boolean[] nulls = new boolean[rows];
        boolean integral = l.kind == Kind.LONG && r.kind == Kind.LONG;
        long[] longs = integral ? new long[rows] : null;
        double[] doubles = integral ? null : new double[rows];
        for (int i = 0; i < rows; i++) {
            int li = l.constant ? 0 : i;
            int ri = r.constant ? 0 : i;
            if (l.isNull(li) || r.isNull(ri)) {
                nulls[i] = true;
                continue;
            }
            if (integral) {
                long x = l.getLong(li);
                long y = r.getLong(ri);
                if (y == 0 && (a.op() == Expr.ArithOp.DIVIDE || a.op() == Expr.ArithOp.MODULO)) {
                    throw new FilterException("Division by zero in " + a);
                }
                longs[i] = switch (a.op()) {
                    case ADD -> x + y;
                    case SUBTRACT -> x - y;
                    case MULTIPLY -> x * y;
                    case DIVIDE -> x / y;
                    case MODULO -> x % y;
                };
            } else {
                double x = l.getDouble(li);
                double y = r.getDouble(ri);
                doubles[i] = switch (a.op()) {
                    case ADD -> x + y;
                    case SUBTRACT -> x - y;
                    case MULTIPLY -> x * y;
                    case DIVIDE -> x / y;
                    case MODULO -> x % y;
                };
            }
        }
        return Source.computed(integral ? Kind.LONG : Kind.DOUBLE, longs, doubles, nulls);
    }

    private static String columnNames(VectorSchemaRoot batch) {
        List<String> names = new ArrayList<>();
        batch.getSchema().getFields().forEach(f -> names.add(f.getName()));
        return String.join(", ", names);
    }

    private static Source columnSource(FieldVector v, String name, FieldVector nullParent) {
        Kind kind;
        if (v instanceof BitVector) {
            kind = Kind.BOOL;
        } else if (v instanceof TinyIntVector
                || v instanceof SmallIntVector
                || v instanceof IntVector
                || v instanceof BigIntVector
                || v instanceof UInt1Vector
                || v instanceof UInt2Vector
                || v instanceof UInt4Vector
                || v instanceof UInt8Vector
                || v instanceof DateDayVector
                || v instanceof DateMilliVector
                || v instanceof TimeStampVector) {
            kind = Kind.LONG;
        } else if (v instanceof Float2Vector || v instanceof Float4Vector || v instanceof Float8Vector) {
            kind = Kind.DOUBLE;
        } else if (v instanceof DecimalVector) {
            kind = Kind.DECIMAL;
        } else if (v instanceof VarCharVector || v instanceof LargeVarCharVector) {
            kind = Kind.STRING;
        } else if (v instanceof BaseVariableWidthVector
                || v instanceof BaseLargeVariableWidthVector
                || v instanceof FixedSizeBinaryVector) {
            kind = Kind.BYTES;
        } else {
            throw new FilterException(
                    "Column '" + name + "' has type " + v.getField().getType() + ", which filters cannot compare");
        }
        return new Source(kind, v, nullParent, null, false);
    }

    /** Converts a literal to the representation of the column it is compared with. */
    private static Source literalFor(Expr.Literal lit, Source column, Expr columnExpr) {
        Object value = lit.value();
        if (value == null) {
            return Source.literal(null);
        }
        FieldVector v = column.vector;
        String where = describe(columnExpr);
        if (v instanceof DateDayVector || v instanceof DateMilliVector) {
            LocalDate d = value instanceof LocalDate ld
                    ? ld
                    : value instanceof String s
                            ? parseDate(s, where)
                            : value instanceof LocalDateTime ldt ? ldt.toLocalDate() : null;
            if (d == null) {
                throw mismatch(value, where, "a date");
            }
            long days = d.toEpochDay();
            return Source.literal(v instanceof DateDayVector ? days : days * 86_400_000L);
        }
        if (v instanceof TimeStampVector) {
            LocalDateTime t = value instanceof LocalDateTime ldt
                    ? ldt
                    : value instanceof LocalDate ld
                            ? ld.atStartOfDay()
                            : value instanceof String s ? parseTimestamp(s, where) : null;
            if (t == null) {
                throw mismatch(value, where, "a timestamp");
            }
            TimeUnit unit = ((ArrowType.Timestamp) v.getField().getType()).getUnit();
            long seconds = t.toEpochSecond(ZoneOffset.UTC);
            long nanos = t.getNano();
            long raw = switch (unit) {
                case SECOND -> seconds;
                case MILLISECOND -> seconds * 1_000L + nanos / 1_000_000L;
                case MICROSECOND -> seconds * 1_000_000L + nanos / 1_000L;
                case NANOSECOND -> seconds * 1_000_000_000L + nanos;
            };
            return Source.literal(raw);
        }
        switch (column.kind) {
            case LONG, DOUBLE, DECIMAL -> {
                if (!(value instanceof Number)) {
                    throw mismatch(value, where, "a number");
                }
            }
            case STRING -> {
                if (!(value instanceof String)) {
                    throw mismatch(value, where, "a string");
                }
            }
            case BYTES -> {
                if (value instanceof String s) {
                    return Source.literal(s.getBytes(StandardCharsets.UTF_8));
                }
                if (!(value instanceof byte[])) {
                    throw mismatch(value, where, "binary (X'..')");
                }
            }
            case BOOL -> {
                if (!(value instanceof Boolean)) {
                    throw mismatch(value, where, "TRUE or FALSE");
                }
            }
        }
        return Source.literal(value);
    }

    private static LocalDate parseDate(String s, String where) {
        try {
            return LocalDate.parse(s.trim());
        } catch (DateTimeParseException e) {
            throw new FilterException("'" + s + "' is not a date (yyyy-mm-dd), as " + where + " needs");
        }
    }

    private static LocalDateTime parseTimestamp(String s, String where) {
        try {
            return LocalDateTime.parse(s.trim().replace(' ', 'T'));
        } catch (DateTimeParseException e) {
            throw new FilterException("'" + s + "' is not a timestamp (yyyy-mm-dd hh:mm:ss), as " + where + " needs");
        }
    }

    private static FilterException mismatch(Object value, String where, String expected) {
        String shown = value instanceof byte[]
                ? "a binary literal"
                : value instanceof String s ? "'" + s + "'" : String.valueOf(value);
        return new FilterException("Cannot compare " + where + " with " + shown + ": expected " + expected);
    }

    /** A column or a literal, read without per-row objects where the type allows. */
    static final class Source {
        final Kind kind;
        final FieldVector vector;
        final FieldVector nullParent;
        final Object literal;
        final boolean constant;
        final byte[] literalBytes;
        long[] computedLongs;
        double[] computedDoubles;
        boolean[] computedNulls;

        static Source computed(Kind kind, long[] longs, double[] doubles, boolean[] nulls) {
            Source s = new Source(kind, null, null, null, false);
            s.computedLongs = longs;
            s.computedDoubles = doubles;
            s.computedNulls = nulls;
            return s;
        }

        Source(Kind kind, FieldVector vector, FieldVector nullParent, Object literal, boolean constant) {
            this.kind = kind;
            this.vector = vector;
            this.nullParent = nullParent;
            this.literal = literal;
            this.constant = constant;
            this.literalBytes = literal instanceof String s
                    ? s.getBytes(StandardCharsets.UTF_8)
                    : literal instanceof byte[] b ? b : null;
        }

        static Source literal(Object value) {
            Kind k = value == null
                    ? Kind.LONG
                    : value instanceof Long || value instanceof Integer
                            ? Kind.LONG
                            : value instanceof BigDecimal
                                    ? Kind.DECIMAL
                                    : value instanceof Number
                                            ? Kind.DOUBLE
                                            : value instanceof String
                                                    ? Kind.STRING
                                                    : value instanceof Boolean ? Kind.BOOL : Kind.BYTES;
            return new Source(k, null, null, value, true);
        }

        boolean isNull(int row) {
            if (constant) {
                return literal == null;
            }
            if (computedNulls != null) {
                return computedNulls[row];
            }
            return vector.isNull(row) || (nullParent != null && nullParent.isNull(row));
        }

        long getLong(int row) {
            if (constant) {
                return literal instanceof Boolean b ? (b ? 1 : 0) : ((Number) literal).longValue();
            }
            if (computedLongs != null) {
                return computedLongs[row];
            }
            FieldVector v = vector;
            if (v instanceof BitVector b) {
                return b.get(row);
            }
            if (v instanceof UInt1Vector u) {
                return Byte.toUnsignedLong(u.get(row));
            }
            if (v instanceof UInt2Vector u) {
                return u.get(row);
            }
            if (v instanceof UInt4Vector u) {
                return Integer.toUnsignedLong(u.get(row));
            }
            ArrowBuf data = ((BaseFixedWidthVector) v).getDataBuffer();
            return switch (((BaseFixedWidthVector) v).getTypeWidth()) {
                case 1 -> data.getByte(row);
                case 2 -> data.getShort((long) row * 2);
                case 4 -> data.getInt((long) row * 4);
                default -> data.getLong((long) row * 8);
            };
        }

        double getDouble(int row) {
            if (constant || kind == Kind.LONG) {
                return constant ? ((Number) literal).doubleValue() : (double) getLong(row);
            }
            if (computedDoubles != null) {
                return computedDoubles[row];
            }
            if (vector instanceof Float4Vector f) {
                return f.get(row);
            }
            if (vector instanceof Float8Vector f) {
                return f.get(row);
            }
            if (vector instanceof Float2Vector f) {
                return f.getValueAsFloat(row);
            }
            return getDecimal(row).doubleValue();
        }

        BigDecimal getDecimal(int row) {
            if (constant) {
                return literal instanceof BigDecimal d ? d : new BigDecimal(literal.toString());
            }
            if (vector instanceof DecimalVector d) {
                return d.getObject(row);
            }
            return kind == Kind.LONG ? BigDecimal.valueOf(getLong(row)) : BigDecimal.valueOf(getDouble(row));
        }

        byte[] bytes(int row) {
            if (constant) {
                return literalBytes;
            }
            if (vector instanceof VarCharVector s) {
                return s.get(row);
            }
            if (vector instanceof LargeVarCharVector s) {
                return s.get(row);
            }
            return (byte[]) vector.getObject(row);
        }

        /** Compares a variable-width cell with a byte string, unsigned, in place. */
        int compareBytesInPlace(int row, byte[] other) {
            ArrowBuf data;
            long start;
            long end;
            if (vector instanceof BaseVariableWidthVector v) {
                data = v.getDataBuffer();
                start = v.getStartOffset(row);
                end = v.getStartOffset(row + 1);
            } else if (vector instanceof BaseLargeVariableWidthVector v) {
                data = v.getDataBuffer();
                start = v.getOffsetBuffer().getLong((long) row * 8);
                end = v.getOffsetBuffer().getLong((long) (row + 1) * 8);
            } else {
                return compareUnsigned(bytes(row), other);
            }
            long len = end - start;
            long n = Math.min(len, other.length);
            for (long i = 0; i < n; i++) {
                int c = Integer.compare(data.getByte(start + i) & 0xFF, other[(int) i] & 0xFF);
                if (c != 0) {
                    return c;
                }
            }
            return Long.compare(len, other.length);
        }

        static int compareUnsigned(byte[] a, byte[] b) {
            return Arrays.compareUnsigned(a, b);
        }

        static int compare(Source l, int li, Source r, int ri) {
            Kind a = l.kind;
            Kind b = r.kind;
            if (isNumeric(a) && isNumeric(b)) {
                if (a == Kind.LONG && b == Kind.LONG) {
                    return Long.compare(l.getLong(li), r.getLong(ri));
                }
                if (a == Kind.DECIMAL || b == Kind.DECIMAL) {
                    return l.getDecimal(li).compareTo(r.getDecimal(ri));
                }
                return Double.compare(l.getDouble(li), r.getDouble(ri));
            }
            if ((a == Kind.STRING || a == Kind.BYTES) && (b == Kind.STRING || b == Kind.BYTES)) {
                if (r.constant && !l.constant) {
                    return l.compareBytesInPlace(li, r.literalBytes);
                }
                return compareUnsigned(l.bytes(li), r.bytes(ri));
            }
            if (a == Kind.BOOL && b == Kind.BOOL) {
                return Long.compare(l.getLong(li), r.getLong(ri));
            }
            throw new FilterException("Cannot compare a " + a + " value with a " + b + " value");
        }

        private static boolean isNumeric(Kind k) {
            return k == Kind.LONG || k == Kind.DOUBLE || k == Kind.DECIMAL;
        }
    }
}
