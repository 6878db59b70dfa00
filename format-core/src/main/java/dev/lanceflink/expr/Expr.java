package dev.lanceflink.expr;

import java.util.List;

/**
 * A parsed filter expression: the SQL subset that Lance filters use ({@code id > 3 AND name IS
 * NOT NULL}, {@code age IN (1, 2)}, {@code name LIKE 'a%'}, ...). Evaluated per batch by
 * {@link PredicateEvaluator} with SQL's three-valued logic.
 */
public sealed interface Expr {

    /** A column, possibly a dotted path into a struct ({@code address.city}). */
    record Column(List<String> path) implements Expr {
        public String dotted() {
            return String.join(".", path);
        }
    }

    /**
     * A literal. {@code value} is a Long, Double, java.math.BigDecimal (only when an integer does
     * not fit a long or the text had an exponent-free fraction that must stay exact), String,
     * Boolean, {@link java.time.LocalDate}, {@link java.time.LocalDateTime}, byte[] or null.
     */
    record Literal(Object value) implements Expr {}

    enum CompareOp {
        EQ("="), NE("!="), LT("<"), LE("<="), GT(">"), GE(">=");

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
    }

    record Compare(CompareOp op, Expr left, Expr right) implements Expr {}

    enum ArithOp { ADD, SUBTRACT, MULTIPLY, DIVIDE, MODULO }

    /** Arithmetic on numbers; integer operands give an integer result, as in SQL. */
    record Arith(ArithOp op, Expr left, Expr right) implements Expr {}

    record And(Expr left, Expr right) implements Expr {}

    record Or(Expr left, Expr right) implements Expr {}

    record Not(Expr inner) implements Expr {}

    record IsNull(Expr inner, boolean negated) implements Expr {}

    record In(Expr inner, List<Literal> values, boolean negated) implements Expr {}

    record Like(Expr inner, String pattern, boolean negated) implements Expr {}
}
