package dev.lanceflink.expr;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * Writes an expression as filter text in {@link ExprParser}'s syntax, every sub-expression in
 * parentheses: {@code ((`id` > 5) AND (`name` IS NOT NULL))}. A tree the parser produced reads
 * back as the same tree. A typed tree prints its operators and operands but not its comparison
 * domains or roundings ({@link Expr.Floor} prints as its column), and times of day and instants
 * print as {@code TIME '..'} and {@code TIMESTAMP_LTZ '..Z'}, which the parser does not read: such
 * text is for people (plans, messages, a transaction's predicate), not for evaluation.
 */
public final class ExprPrinter {
    private ExprPrinter() {}

    public static String sql(Expr e) {
        if (e instanceof Expr.Column c) {
            List<String> parts = new ArrayList<>();
            c.path().forEach(p -> parts.add("`" + p + "`"));
            return String.join(".", parts);
        } else if (e instanceof Expr.Literal l) {
            return literal(l.value());
        } else if (e instanceof Expr.Compare c) {
            return "(" + sql(c.left()) + " " + c.op().symbol + " " + sql(c.right()) + ")";
        } else if (e instanceof Expr.Arith a) {
            String op = switch (a.op()) {
                case ADD -> "+";
                case SUBTRACT -> "-";
                case MULTIPLY -> "*";
                case DIVIDE -> "/";
                case MODULO -> "%";
            };
            return "(" + sql(a.left()) + " " + op + " " + sql(a.right()) + ")";
        } else if (e instanceof Expr.Floor f) {
            return sql(f.inner());
        } else if (e instanceof Expr.And a) {
            return "(" + sql(a.left()) + " AND " + sql(a.right()) + ")";
        } else if (e instanceof Expr.Or o) {
            return "(" + sql(o.left()) + " OR " + sql(o.right()) + ")";
        } else if (e instanceof Expr.Not n) {
            return "(NOT " + sql(n.inner()) + ")";
        } else if (e instanceof Expr.IsNull n) {
            return "(" + sql(n.inner()) + (n.negated() ? " IS NOT NULL)" : " IS NULL)");
        } else if (e instanceof Expr.In in) {
            List<String> values = new ArrayList<>();
            in.values().forEach(v -> values.add(literal(v.value())));
            return "(" + sql(in.inner()) + (in.negated() ? " NOT IN (" : " IN (") + String.join(", ", values) + "))";
        } else if (e instanceof Expr.Like l) {
            return "(" + sql(l.inner()) + (l.negated() ? " NOT LIKE " : " LIKE ") + literal(l.pattern()) + ")";
        }
        throw new IllegalArgumentException("Unknown expression " + e);
    }

    private static String literal(Object v) {
        if (v == null) {
            return "NULL";
        } else if (v instanceof Boolean b) {
            return b ? "TRUE" : "FALSE";
        } else if (v instanceof BigDecimal d) {
            return d.toPlainString();
        } else if (v instanceof Number n) {
            return n.toString();
        } else if (v instanceof String s) {
            return "'" + s.replace("'", "''") + "'";
        } else if (v instanceof byte[] b) {
            return "X'" + HexFormat.of().formatHex(b) + "'";
        } else if (v instanceof LocalDate d) {
            return "DATE '" + d + "'";
        } else if (v instanceof LocalDateTime t) {
            return "TIMESTAMP '" + t.toLocalDate() + " " + t.toLocalTime() + "'";
        } else if (v instanceof LocalTime t) {
            return "TIME '" + t + "'";
        } else if (v instanceof Instant t) {
            LocalDateTime utc = LocalDateTime.ofInstant(t, ZoneOffset.UTC);
            return "TIMESTAMP_LTZ '" + utc.toLocalDate() + " " + utc.toLocalTime() + "Z'";
        }
        throw new IllegalArgumentException(
                "Unknown literal " + v + " (" + v.getClass().getName() + ")");
    }
}
