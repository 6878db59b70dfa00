package dev.lanceflink.expr;

import java.io.Serializable;
import java.util.List;

/**
 * A filter expression: the SQL subset that Lance filters use ({@code id > 3 AND name IS NOT
 * NULL}, {@code age IN (1, 2)}, {@code name LIKE 'a%'}, ...). {@link ExprParser} builds it from
 * text; an engine that has typed predicates (Flink's planner) builds it directly, naming in each
 * comparison the {@link Domain} its operands are compared in. Evaluated per batch by
 * {@link PredicateEvaluator} with SQL's three-valued logic.
 *
 * <p>Immutable and serializable, so that a filter travels with a job to its readers as it is.
 */
public sealed interface Expr extends Serializable {

    /** A column, possibly a dotted path into a struct ({@code address.city}). */
    record Column(List<String> path) implements Expr {
        public Column {
            path = List.copyOf(path);
            if (path.isEmpty()) {
                throw new IllegalArgumentException("A column reference needs a name");
            }
        }

        /** A top-level column. */
        public static Column of(String name) {
            return new Column(List.of(name));
        }

        public String dotted() {
            return String.join(".", path);
        }
    }

    /**
     * A literal. {@code value} is one of: Long (every integer width), Float, Double,
     * java.math.BigDecimal (any precision), String, Boolean, byte[], {@link java.time.LocalDate},
     * {@link java.time.LocalTime}, {@link java.time.LocalDateTime} (a timestamp without time
     * zone), {@link java.time.Instant} (a timestamp with local time zone), or null (SQL NULL).
     * Integer, Short and Byte values are held as Long.
     *
     * <p>{@link ExprParser} produces Long, Double (a number with a fraction or exponent),
     * BigDecimal (an integer beyond a long), String, Boolean, byte[], LocalDate, LocalDateTime
     * and null.
     */
    record Literal(Object value) implements Expr {
        public Literal {
            if (value instanceof Integer || value instanceof Short || value instanceof Byte) {
                value = ((Number) value).longValue();
            }
        }
    }

    enum CompareOp {
        EQ("="),
        NE("!="),
        LT("<"),
        LE("<="),
        GT(">"),
        GE(">=");

        final String symbol;

        CompareOp(String symbol) {
            this.symbol = symbol;
        }

        CompareOp flip() {
            return switch (this) {
                case EQ, NE -> this;
                case LT -> GT;
                case LE -> GE;
                case GT -> LT;
                case GE -> LE;
            };
        }

        /** Whether the operator holds for a comparison result (negative, zero, positive). */
        boolean holds(int cmp) {
            return switch (this) {
                case EQ -> cmp == 0;
                case NE -> cmp != 0;
                case LT -> cmp < 0;
                case LE -> cmp <= 0;
                case GT -> cmp > 0;
                case GE -> cmp >= 0;
            };
        }
    }

    /**
     * The type both operands of a comparison are brought to before they are compared (SQL's
     * implicit cast), which decides how values of different types, NaN and -0.0 compare. A NULL
     * operand makes any comparison UNKNOWN in every domain.
     */
    enum Domain {
        /**
         * Lance's text filters ({@link ExprParser}), whose literals carry no SQL type: a literal
         * is converted to its column's type (a string may stand for a date or a timestamp, a
         * timestamp literal is truncated to the column's unit), integers and decimals compare
         * exactly, other numbers as doubles in total order (NaN above every number and equal to
         * itself, -0.0 below 0.0), strings by their UTF-8 bytes.
         */
        LENIENT,
        /**
         * Exact values of one kind on both sides, no conversion that could round: integers and
         * decimals of any precision with each other, strings with strings and binary with binary
         * (unsigned bytes, a prefix first), booleans (FALSE before TRUE), dates, times of day
         * (to the nanosecond), timestamps without time zone ({@code LocalDateTime} literals) and
         * with local time zone ({@code Instant} literals) to the nanosecond. Floating-point
         * operands are refused.
         */
        EXACT,
        /**
         * Both sides converted to a 32-bit float as Java converts numbers, compared with IEEE
         * 754 operators: NaN is unequal to everything (only {@code <>} holds) and -0.0 equals 0.0.
         */
        FLOAT,
        /** As {@link #FLOAT}, in 64-bit doubles. */
        DOUBLE,
        /**
         * Both sides converted to a double and ordered by {@link Double#compare}: NaN above every
         * number and equal to itself, -0.0 below 0.0. A decimal of at most 18 digits converts as
         * its unscaled long divided by 10^scale in double arithmetic (how engines that hold such
         * decimals in a long convert them), a longer one by {@link java.math.BigDecimal#doubleValue()}.
         */
        DOUBLE_TOTAL
    }

    /** A comparison; the three-argument form compares in the {@link Domain#LENIENT} domain. */
    record Compare(CompareOp op, Expr left, Expr right, Domain domain) implements Expr {
        public Compare(CompareOp op, Expr left, Expr right) {
            this(op, left, right, Domain.LENIENT);
        }
    }

    enum ArithOp {
        ADD,
        SUBTRACT,
        MULTIPLY,
        DIVIDE,
        MODULO
    }

    /** Arithmetic on numbers; integer operands give an integer result, as in SQL. */
    record Arith(ArithOp op, Expr left, Expr right) implements Expr {}

    /**
     * A TIME or TIMESTAMP column's value rounded down (toward the past) to {@code digits}
     * fractional digits of a second, 0..9: the value an engine holding the column at that
     * precision compares. Only in the {@link Domain#EXACT} domain.
     */
    record Floor(Expr inner, int digits) implements Expr {
        public Floor {
            if (digits < 0 || digits > 9) {
                throw new IllegalArgumentException("Fractional second digits are 0..9, got " + digits);
            }
        }
    }

    record And(Expr left, Expr right) implements Expr {}

    record Or(Expr left, Expr right) implements Expr {}

    record Not(Expr inner) implements Expr {}

    record IsNull(Expr inner, boolean negated) implements Expr {}

    /**
     * {@code inner [NOT] IN (values)}: as {@code inner = v1 OR inner = v2 ...} (negated: NOT of
     * that), each equality compared in {@code domain}; the three-argument form is LENIENT.
     */
    record In(Expr inner, List<Literal> values, boolean negated, Domain domain) implements Expr {
        public In {
            values = List.copyOf(values);
        }

        public In(Expr inner, List<Literal> values, boolean negated) {
            this(inner, values, negated, Domain.LENIENT);
        }
    }

    record Like(Expr inner, String pattern, boolean negated) implements Expr {}

    /** The conjunction of {@code parts} (TRUE when there are none). */
    static Expr and(List<? extends Expr> parts) {
        Expr out = null;
        for (Expr p : parts) {
            out = out == null ? p : new And(out, p);
        }
        return out == null ? new Literal(Boolean.TRUE) : out;
    }
}
