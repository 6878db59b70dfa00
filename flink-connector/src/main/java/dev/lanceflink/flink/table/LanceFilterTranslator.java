package dev.lanceflink.flink.table;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.flink.table.expressions.CallExpression;
import org.apache.flink.table.expressions.FieldReferenceExpression;
import org.apache.flink.table.expressions.ResolvedExpression;
import org.apache.flink.table.expressions.ValueLiteralExpression;
import org.apache.flink.table.functions.BuiltInFunctionDefinitions;
import org.apache.flink.table.functions.FunctionDefinition;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeFamily;
import org.apache.flink.table.types.logical.LogicalTypeRoot;

/**
 * Translates Flink filter expressions into the SQL filter format-core's scanner evaluates:
 * comparisons between columns and literals, AND / OR / NOT, IS [NOT] NULL, IN, and bare boolean
 * columns, over BOOLEAN, integer, DECIMAL, VARCHAR and DATE operands.
 *
 * <p>Only translations whose result equals Flink's on every row are made, because an accepted
 * filter is not evaluated again by Flink. Hence no FLOAT/DOUBLE (the scanner orders NaN above
 * all values and -0.0 below 0.0, Flink's comparisons do neither), no TIMESTAMP (the scanner
 * truncates a literal to the column's unit), no CHAR columns (padding), no BINARY, no DECIMAL literal of
 * more than 15 digits (the scanner parses fractional literals as doubles), and no casts or
 * function calls. Everything else stays with Flink.
 */
final class LanceFilterTranslator {
    private LanceFilterTranslator() {}

    /**
     * The scanner filter equivalent to {@code e} (same result on every row, SQL null logic
     * included), or empty if any part of it has none.
     */
    static Optional<String> translate(ResolvedExpression e) {
        if (e instanceof FieldReferenceExpression f && f.getOutputDataType().getLogicalType().getTypeRoot()
                == LogicalTypeRoot.BOOLEAN) {
            return column(f).map(c -> "(" + c + " = TRUE)");
        }
        if (!(e instanceof CallExpression call)) {
            return Optional.empty();
        }
        FunctionDefinition fn = call.getFunctionDefinition();
        List<ResolvedExpression> args = call.getResolvedChildren();
        if (fn == BuiltInFunctionDefinitions.AND || fn == BuiltInFunctionDefinitions.OR) {
            List<String> parts = new ArrayList<>();
            for (ResolvedExpression a : args) {
                Optional<String> p = translate(a);
                if (p.isEmpty()) {
                    return Optional.empty();
                }
                parts.add(p.get());
            }
            return Optional.of("(" + String.join(fn == BuiltInFunctionDefinitions.AND ? " AND " : " OR ", parts) + ")");
        }
        if (fn == BuiltInFunctionDefinitions.NOT) {
            return translate(args.get(0)).map(p -> "(NOT " + p + ")");
        }
        if (fn == BuiltInFunctionDefinitions.IS_NULL || fn == BuiltInFunctionDefinitions.IS_NOT_NULL) {
            if (!(args.get(0) instanceof FieldReferenceExpression f)) {
                return Optional.empty();
            }
            String suffix = fn == BuiltInFunctionDefinitions.IS_NULL ? " IS NULL)" : " IS NOT NULL)";
            return column(f).map(c -> "(" + c + suffix);
        }
        if (fn == BuiltInFunctionDefinitions.IN) {
            if (!(args.get(0) instanceof FieldReferenceExpression f)) {
                return Optional.empty();
            }
            List<String> values = new ArrayList<>();
            for (ResolvedExpression a : args.subList(1, args.size())) {
                Optional<String> v = a instanceof ValueLiteralExpression l && sameFamily(f, l) && exact(f, l)
                        ? literal(l) : Optional.empty();
                if (v.isEmpty()) {
                    return Optional.empty();
                }
                values.add(v.get());
            }
            return column(f).map(c -> "(" + c + " IN (" + String.join(", ", values) + "))");
        }
        String op = comparison(fn);
        if (op != null && args.size() == 2) {
            Optional<String> l = operand(args.get(0));
            Optional<String> r = operand(args.get(1));
            if (l.isPresent() && r.isPresent() && sameFamily(args.get(0), args.get(1))
                    && exact(args.get(0), args.get(1))) {
                return Optional.of("(" + l.get() + " " + op + " " + r.get() + ")");
            }
        }
        return Optional.empty();
    }

    /** Whether the scanner compares these two operands exactly as Flink does (see the class comment). */
    private static boolean exact(ResolvedExpression a, ResolvedExpression b) {
        return exactOperand(a) && exactOperand(b);
    }

    private static boolean exactOperand(ResolvedExpression e) {
        LogicalType t = e.getOutputDataType().getLogicalType();
        if (t.is(LogicalTypeFamily.INTEGER_NUMERIC)) {
            return true;
        }
        return switch (t.getTypeRoot()) {
            case VARCHAR, BOOLEAN, DATE -> true;
            // A CHAR literal holds exactly its text; a CHAR column would be compared padded.
            case CHAR -> e instanceof ValueLiteralExpression;
            // The scanner parses a fractional literal as a double: exact up to 15 significant digits.
            case DECIMAL -> !(e instanceof ValueLiteralExpression l)
                    || l.getValueAs(BigDecimal.class).map(d -> d.precision() <= 15).orElse(false);
            default -> false;
        };
    }

    private static String comparison(FunctionDefinition fn) {
        if (fn == BuiltInFunctionDefinitions.EQUALS) {
            return "=";
        } else if (fn == BuiltInFunctionDefinitions.NOT_EQUALS) {
            return "!=";
        } else if (fn == BuiltInFunctionDefinitions.GREATER_THAN) {
            return ">";
        } else if (fn == BuiltInFunctionDefinitions.GREATER_THAN_OR_EQUAL) {
            return ">=";
        } else if (fn == BuiltInFunctionDefinitions.LESS_THAN) {
            return "<";
        } else if (fn == BuiltInFunctionDefinitions.LESS_THAN_OR_EQUAL) {
            return "<=";
        }
        return null;
    }

    private static Optional<String> operand(ResolvedExpression e) {
        if (e instanceof FieldReferenceExpression f) {
            return column(f);
        }
        if (e instanceof ValueLiteralExpression l) {
            return literal(l);
        }
        return Optional.empty();
    }

    private static Optional<String> column(FieldReferenceExpression f) {
        String name = f.getName();
        return name.indexOf('`') >= 0 ? Optional.empty() : Optional.of("`" + name + "`");
    }

    private static boolean sameFamily(ResolvedExpression a, ResolvedExpression b) {
        return family(a.getOutputDataType().getLogicalType()) != null
                && family(a.getOutputDataType().getLogicalType()) == family(b.getOutputDataType().getLogicalType());
    }

    /** Groups of types the scanner compares without coercion surprises. */
    private static String family(LogicalType t) {
        if (t.is(LogicalTypeFamily.INTEGER_NUMERIC)) {
            return "integer";
        }
        return switch (t.getTypeRoot()) {
            case DECIMAL -> "decimal";
            case CHAR, VARCHAR -> "string";
            case BOOLEAN -> "boolean";
            case DATE -> "date";
            default -> null;
        };
    }

    private static Optional<String> literal(ValueLiteralExpression l) {
        if (l.isNull()) {
            return Optional.empty();
        }
        LogicalType t = l.getOutputDataType().getLogicalType();
        if (t.is(LogicalTypeFamily.INTEGER_NUMERIC)) {
            return l.getValueAs(Long.class).map(Number.class::cast)
                    .or(() -> l.getValueAs(Integer.class))
                    .or(() -> l.getValueAs(Short.class))
                    .or(() -> l.getValueAs(Byte.class))
                    .map(n -> Long.toString(n.longValue()));
        }
        return switch (t.getTypeRoot()) {
            case DECIMAL -> l.getValueAs(BigDecimal.class).map(BigDecimal::toPlainString);
            case BOOLEAN -> l.getValueAs(Boolean.class).map(b -> b ? "TRUE" : "FALSE");
            case CHAR, VARCHAR -> l.getValueAs(String.class).map(s -> "'" + s.replace("'", "''") + "'");
            case DATE -> l.getValueAs(LocalDate.class).map(d -> "DATE '" + d + "'");
            default -> Optional.empty();
        };
    }
}
