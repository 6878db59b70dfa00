package dev.lanceflink.flink.table;

import dev.lanceflink.expr.Expr;
import dev.lanceflink.expr.Expr.CompareOp;
import dev.lanceflink.expr.Expr.Domain;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.DecimalDataUtils;
import org.apache.flink.table.expressions.CallExpression;
import org.apache.flink.table.expressions.FieldReferenceExpression;
import org.apache.flink.table.expressions.ResolvedExpression;
import org.apache.flink.table.expressions.ValueLiteralExpression;
import org.apache.flink.table.functions.BuiltInFunctionDefinitions;
import org.apache.flink.table.functions.FunctionDefinition;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeFamily;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.TimestampType;

/**
 * Builds format-core's filter tree from Flink's filter expressions: comparisons of columns with
 * literals or columns, IN lists, [NOT] BETWEEN, AND / OR / NOT, IS [NOT] NULL, IS [NOT]
 * TRUE/FALSE and bare boolean columns, over BOOLEAN, every integer width, FLOAT, DOUBLE, DECIMAL
 * of any precision, CHAR/VARCHAR, BINARY/VARBINARY, DATE, TIME, TIMESTAMP and TIMESTAMP_LTZ.
 *
 * <p>An accepted filter leaves Flink's plan, so each comparison is built to give Flink's result
 * on every row: it names the {@link Domain} in which Flink's generated code compares those two
 * types — integers and decimals exactly, two floating-point or integer operands as Java's
 * primitives (IEEE: NaN unordered, -0.0 = 0.0), a floating-point operand against a decimal with
 * {@link Double#compare} after Flink's own decimal-to-double conversion — and reads columns as
 * Flink's reader holds them (TIMESTAMP(p) rounded down to p digits, TIME to milliseconds).
 * Left to Flink: TIMESTAMP against TIMESTAMP_LTZ (Flink converts in the session time zone),
 * dates or times against strings, casts other than exact widenings, = and <> of a FLOAT or DOUBLE
 * with zero (see {@code compare}), NULL literals, LIKE, function calls and nested fields.
 */
final class LanceFilterTranslator {
    private LanceFilterTranslator() {}

    /**
     * The tree equivalent to {@code e} (same result on every row, SQL null logic included), or
     * empty if any part of it has none; {@code columns} are the physical columns it may read.
     */
    static Optional<Expr> translate(ResolvedExpression e, Set<String> columns) {
        return new LanceFilterTranslator.Run(columns).translate(e);
    }

    /** The conjunction of accepted filters, AND-ed inequalities of one column folded into NOT IN. */
    static Expr conjunction(List<Expr> filters) {
        return foldIn(filters, CompareOp.NE).orElseGet(() -> Expr.and(filters));
    }

    private record Run(Set<String> columns) {
        Optional<Expr> translate(ResolvedExpression e) {
            if (e instanceof FieldReferenceExpression f && root(f) == LogicalTypeRoot.BOOLEAN) {
                return column(f).map(c -> new Expr.Compare(CompareOp.EQ, c, new Expr.Literal(true), Domain.EXACT));
            }
            if (!(e instanceof CallExpression call)) {
                return Optional.empty();
            }
            FunctionDefinition fn = call.getFunctionDefinition();
            List<ResolvedExpression> args = call.getResolvedChildren();
            if (fn == BuiltInFunctionDefinitions.AND || fn == BuiltInFunctionDefinitions.OR) {
                List<Expr> parts = new ArrayList<>();
                for (ResolvedExpression a : args) {
                    Optional<Expr> p = translate(a);
                    if (p.isEmpty()) {
                        return Optional.empty();
                    }
                    parts.add(p.get());
                }
                return Optional.of(fn == BuiltInFunctionDefinitions.AND ? conjunction(parts) : disjunction(parts));
            }
            if (fn == BuiltInFunctionDefinitions.NOT) {
                return translate(args.get(0)).map(Expr.Not::new);
            }
            if (fn == BuiltInFunctionDefinitions.IS_NULL || fn == BuiltInFunctionDefinitions.IS_NOT_NULL) {
                return args.get(0) instanceof FieldReferenceExpression f
                        ? column(f).map(c -> new Expr.IsNull(c, fn == BuiltInFunctionDefinitions.IS_NOT_NULL))
                        : Optional.empty();
            }
            if (fn == BuiltInFunctionDefinitions.IS_TRUE
                    || fn == BuiltInFunctionDefinitions.IS_FALSE
                    || fn == BuiltInFunctionDefinitions.IS_NOT_TRUE
                    || fn == BuiltInFunctionDefinitions.IS_NOT_FALSE) {
                return truthTest(fn, args.get(0));
            }
            if (fn == BuiltInFunctionDefinitions.IN) {
                return in(args);
            }
            if ((fn == BuiltInFunctionDefinitions.BETWEEN || fn == BuiltInFunctionDefinitions.NOT_BETWEEN)
                    && args.size() == 3) {
                boolean not = fn == BuiltInFunctionDefinitions.NOT_BETWEEN;
                Optional<Expr> low = compare(not ? CompareOp.LT : CompareOp.GE, args.get(0), args.get(1));
                Optional<Expr> high = compare(not ? CompareOp.GT : CompareOp.LE, args.get(0), args.get(2));
                if (low.isEmpty() || high.isEmpty()) {
                    return Optional.empty();
                }
                return Optional.of(not ? new Expr.Or(low.get(), high.get()) : new Expr.And(low.get(), high.get()));
            }
            CompareOp op = comparison(fn);
            return op != null && args.size() == 2 ? compare(op, args.get(0), args.get(1)) : Optional.empty();
        }

        /**
         * {@code b IS [NOT] TRUE/FALSE} of a boolean column, from its three-valued result:
         * IS TRUE = (b IS NOT NULL AND b), IS NOT FALSE = (b IS NULL OR b), and the others alike.
         */
        private Optional<Expr> truthTest(FunctionDefinition fn, ResolvedExpression arg) {
            if (!(arg instanceof FieldReferenceExpression f) || root(f) != LogicalTypeRoot.BOOLEAN) {
                return Optional.empty();
            }
            boolean wanted = fn == BuiltInFunctionDefinitions.IS_TRUE || fn == BuiltInFunctionDefinitions.IS_NOT_TRUE;
            boolean negated =
                    fn == BuiltInFunctionDefinitions.IS_NOT_TRUE || fn == BuiltInFunctionDefinitions.IS_NOT_FALSE;
            return column(f).map(c -> {
                Expr is = new Expr.Compare(CompareOp.EQ, c, new Expr.Literal(wanted), Domain.EXACT);
                return negated
                        ? new Expr.Or(new Expr.IsNull(c, false), new Expr.Not(is))
                        : new Expr.And(new Expr.IsNull(c, true), is);
            });
        }

        private Optional<Expr> in(List<ResolvedExpression> args) {
            List<Expr> equalities = new ArrayList<>();
            for (ResolvedExpression v : args.subList(1, args.size())) {
                if (!(v instanceof ValueLiteralExpression)) {
                    return Optional.empty();
                }
                Optional<Expr> eq = compare(CompareOp.EQ, args.get(0), v);
                if (eq.isEmpty()) {
                    return Optional.empty();
                }
                equalities.add(eq.get());
            }
            return equalities.isEmpty() ? Optional.empty() : Optional.of(disjunction(equalities));
        }

        private Optional<Expr> compare(CompareOp op, ResolvedExpression a, ResolvedExpression b) {
            Optional<Operand> l = operand(a);
            Optional<Operand> r = operand(b);
            if (l.isEmpty() || r.isEmpty() || (l.get().literal() && r.get().literal())) {
                return Optional.empty();
            }
            Domain domain = domain(l.get().type(), r.get().type());
            if (domain == null) {
                return Optional.empty();
            }
            if (!l.get().fits(domain) || !r.get().fits(domain)) {
                return Optional.empty();
            }
            if ((op == CompareOp.EQ || op == CompareOp.NE)
                    && (domain == Domain.FLOAT || domain == Domain.DOUBLE)
                    && (l.get().isZero() || r.get().isZero())) {
                // Flink evaluates IN lists and <> (SEARCH over points) with a hash set, where -0.0
                // differs from 0.0, but pushes them down as IEEE =/<>, where it equals 0.0: which one
                // the plan would have used is not visible here.
                return Optional.empty();
            }
            Optional<Expr> left = l.get().in(domain);
            Optional<Expr> right = r.get().in(domain);
            return left.isEmpty() || right.isEmpty()
                    ? Optional.empty()
                    : Optional.of(new Expr.Compare(op, left.get(), right.get(), domain));
        }

        /** A comparison operand: a column (read as Flink reads it), a widened column, or a literal. */
        private Optional<Operand> operand(ResolvedExpression e) {
            if (e instanceof FieldReferenceExpression f) {
                LogicalType t = f.getOutputDataType().getLogicalType();
                return column(f).map(c -> new Operand(asFlinkReadsIt(c, t), t, null, false));
            }
            if (e instanceof ValueLiteralExpression l) {
                return l.isNull()
                        ? Optional.empty()
                        : Optional.of(new Operand(null, l.getOutputDataType().getLogicalType(), l, false));
            }
            if (e instanceof CallExpression c
                    && c.getFunctionDefinition() == BuiltInFunctionDefinitions.CAST
                    && c.getResolvedChildren().get(0) instanceof FieldReferenceExpression f) {
                LogicalType from = f.getOutputDataType().getLogicalType();
                LogicalType to = c.getOutputDataType().getLogicalType();
                return exactWidening(from, to)
                        ? column(f).map(col -> new Operand(col, to, null, true))
                        : Optional.empty();
            }
            return Optional.empty();
        }

        private Optional<Expr> column(FieldReferenceExpression f) {
            return columns.contains(f.getName()) ? Optional.of(Expr.Column.of(f.getName())) : Optional.empty();
        }
    }

    /**
     * A column expression ({@code column} set) or a literal ({@code value} set), with its Flink
     * type; {@code widened}: a column under a cast to {@code type}.
     */
    private record Operand(Expr column, LogicalType type, ValueLiteralExpression value, boolean widened) {
        boolean literal() {
            return value != null;
        }

        boolean isZero() {
            return value != null
                    && value.getValueAs(Number.class)
                            .map(n -> n.doubleValue() == 0)
                            .orElse(false);
        }

        /**
         * Whether the domain converts the column as the cast does: a column cast to FLOAT only
         * in FLOAT (in a double domain Flink widens the rounded float), to DOUBLE in the double
         * domains, to DECIMAL only where decimals compare exactly.
         */
        boolean fits(Domain domain) {
            if (!widened || type.is(LogicalTypeFamily.INTEGER_NUMERIC)) {
                return true;
            }
            return switch (type.getTypeRoot()) {
                case FLOAT -> domain == Domain.FLOAT;
                case DOUBLE -> domain == Domain.DOUBLE || domain == Domain.DOUBLE_TOTAL;
                case DECIMAL -> domain == Domain.EXACT;
                default -> false;
            };
        }

        Optional<Expr> in(Domain domain) {
            return column != null
                    ? Optional.of(column)
                    : literalValue(value, domain).map(Expr.Literal::new);
        }
    }

    private static LogicalTypeRoot root(FieldReferenceExpression f) {
        return f.getOutputDataType().getLogicalType().getTypeRoot();
    }

    /**
     * The column as Flink's reader hands it to Flink: TIME at milliseconds, TIMESTAMP(p) and
     * TIMESTAMP_LTZ(p) rounded down to p fractional digits, whatever the stored unit.
     */
    private static Expr asFlinkReadsIt(Expr column, LogicalType t) {
        int digits = switch (t.getTypeRoot()) {
            case TIME_WITHOUT_TIME_ZONE -> 3;
            case TIMESTAMP_WITHOUT_TIME_ZONE -> ((TimestampType) t).getPrecision();
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE -> ((LocalZonedTimestampType) t).getPrecision();
            default -> 9;
        };
        return digits < 9 ? new Expr.Floor(column, digits) : column;
    }

    /** Casts that keep every value, so that comparing the column itself in the domain is the same. */
    private static boolean exactWidening(LogicalType from, LogicalType to) {
        if (from.is(LogicalTypeFamily.INTEGER_NUMERIC)) {
            if (to.is(LogicalTypeFamily.INTEGER_NUMERIC)) {
                return integerDigits(to) >= integerDigits(from);
            }
            // The domain converts the integer exactly as Flink's cast does (Java's conversion).
            if (to.is(LogicalTypeRoot.FLOAT) || to.is(LogicalTypeRoot.DOUBLE)) {
                return true;
            }
            return to instanceof DecimalType d && d.getPrecision() - d.getScale() >= integerDigits(from);
        }
        if (from instanceof DecimalType a && to instanceof DecimalType b) {
            return b.getScale() >= a.getScale() && b.getPrecision() - b.getScale() >= a.getPrecision() - a.getScale();
        }
        return from.is(LogicalTypeRoot.FLOAT) && to.is(LogicalTypeRoot.DOUBLE);
    }

    private static int integerDigits(LogicalType t) {
        return switch (t.getTypeRoot()) {
            case TINYINT -> 3;
            case SMALLINT -> 5;
            case INTEGER -> 10;
            default -> 19;
        };
    }

    /**
     * How Flink's generated code compares values of these types (ScalarOperatorGens): either
     * side DECIMAL → DecimalDataUtils.compare (exact with decimals and integers, Double.compare
     * with floating point); other numbers as Java primitives; strings, binary, booleans, dates,
     * times and timestamps of one kind by value. Null where Flink does something else.
     */
    static Domain domain(LogicalType a, LogicalType b) {
        boolean decimalA = a.is(LogicalTypeRoot.DECIMAL);
        boolean decimalB = b.is(LogicalTypeRoot.DECIMAL);
        if (a.is(LogicalTypeFamily.NUMERIC) && b.is(LogicalTypeFamily.NUMERIC)) {
            if (decimalA || decimalB) {
                return a.is(LogicalTypeFamily.APPROXIMATE_NUMERIC) || b.is(LogicalTypeFamily.APPROXIMATE_NUMERIC)
                        ? Domain.DOUBLE_TOTAL
                        : Domain.EXACT;
            }
            if (a.is(LogicalTypeRoot.DOUBLE) || b.is(LogicalTypeRoot.DOUBLE)) {
                return Domain.DOUBLE;
            }
            return a.is(LogicalTypeRoot.FLOAT) || b.is(LogicalTypeRoot.FLOAT) ? Domain.FLOAT : Domain.EXACT;
        }
        if ((a.is(LogicalTypeFamily.CHARACTER_STRING) && b.is(LogicalTypeFamily.CHARACTER_STRING))
                || (a.is(LogicalTypeFamily.BINARY_STRING) && b.is(LogicalTypeFamily.BINARY_STRING))) {
            return Domain.EXACT;
        }
        return switch (a.getTypeRoot()) {
            case BOOLEAN, DATE, TIME_WITHOUT_TIME_ZONE, TIMESTAMP_WITHOUT_TIME_ZONE, TIMESTAMP_WITH_LOCAL_TIME_ZONE ->
                a.getTypeRoot() == b.getTypeRoot() ? Domain.EXACT : null;
            default -> null;
        };
    }

    /** The literal's value as the domain compares it (Flink's own conversions where it converts). */
    private static Optional<Object> literalValue(ValueLiteralExpression l, Domain domain) {
        LogicalType t = l.getOutputDataType().getLogicalType();
        if (t.is(LogicalTypeFamily.INTEGER_NUMERIC)) {
            return l.getValueAs(Number.class).map(Number::longValue);
        }
        return switch (t.getTypeRoot()) {
            case FLOAT -> l.getValueAs(Float.class).map(Object.class::cast);
            case DOUBLE -> l.getValueAs(Double.class).map(Object.class::cast);
            case DECIMAL ->
                l.getValueAs(BigDecimal.class)
                        .map(d -> domain == Domain.DOUBLE_TOTAL ? flinkDouble(d, (DecimalType) t) : d);
            case BOOLEAN -> l.getValueAs(Boolean.class).map(Object.class::cast);
            case CHAR, VARCHAR -> l.getValueAs(String.class).map(Object.class::cast);
            case BINARY, VARBINARY -> l.getValueAs(byte[].class).map(Object.class::cast);
            case DATE -> l.getValueAs(LocalDate.class).map(Object.class::cast);
            // Flink holds a time of day in milliseconds, a literal's too.
            case TIME_WITHOUT_TIME_ZONE -> l.getValueAs(LocalTime.class).map(x -> x.truncatedTo(ChronoUnit.MILLIS));
            case TIMESTAMP_WITHOUT_TIME_ZONE ->
                l.getValueAs(LocalDateTime.class).map(Object.class::cast);
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE -> l.getValueAs(Instant.class).map(Object.class::cast);
            default -> Optional.empty();
        };
    }

    /** The double Flink compares a decimal literal as: its DecimalData's doubleValue. */
    private static Object flinkDouble(BigDecimal d, DecimalType t) {
        DecimalData data = DecimalData.fromBigDecimal(d, t.getPrecision(), t.getScale());
        return data == null ? d.doubleValue() : DecimalDataUtils.doubleValue(data);
    }

    private static CompareOp comparison(FunctionDefinition fn) {
        if (fn == BuiltInFunctionDefinitions.EQUALS) {
            return CompareOp.EQ;
        } else if (fn == BuiltInFunctionDefinitions.NOT_EQUALS) {
            return CompareOp.NE;
        } else if (fn == BuiltInFunctionDefinitions.GREATER_THAN) {
            return CompareOp.GT;
        } else if (fn == BuiltInFunctionDefinitions.GREATER_THAN_OR_EQUAL) {
            return CompareOp.GE;
        } else if (fn == BuiltInFunctionDefinitions.LESS_THAN) {
            return CompareOp.LT;
        } else if (fn == BuiltInFunctionDefinitions.LESS_THAN_OR_EQUAL) {
            return CompareOp.LE;
        }
        return null;
    }

    /** OR-ed equalities of one column with literals in one domain become an IN list. */
    private static Expr disjunction(List<Expr> parts) {
        return foldIn(parts, CompareOp.EQ).orElseGet(() -> {
            Expr out = parts.get(0);
            for (Expr p : parts.subList(1, parts.size())) {
                out = new Expr.Or(out, p);
            }
            return out;
        });
    }

    /**
     * {@code parts} as {@code x IN (...)} (op EQ, OR-ed parts) or {@code x NOT IN (...)} (op NE,
     * AND-ed parts) if every part compares the same operand with a literal in the same domain.
     */
    private static Optional<Expr> foldIn(List<Expr> parts, CompareOp op) {
        if (parts.size() < 2) {
            return Optional.empty();
        }
        Expr operand = null;
        Domain domain = null;
        List<Expr.Literal> values = new ArrayList<>();
        for (Expr p : parts) {
            if (!(p instanceof Expr.Compare c)
                    || c.op() != op
                    || !(c.right() instanceof Expr.Literal v)
                    || c.left() instanceof Expr.Literal
                    || (operand != null && (!operand.equals(c.left()) || domain != c.domain()))) {
                return Optional.empty();
            }
            operand = c.left();
            domain = c.domain();
            values.add(v);
        }
        return Optional.of(new Expr.In(operand, values, op == CompareOp.NE, domain));
    }
}
