package dev.lanceflink.expr;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Parses Lance-style SQL filter strings. Grammar (case-insensitive keywords):
 * <pre>
 * expr      := or
 * or        := and ( OR and )*
 * and       := not ( AND not )*
 * not       := NOT not | predicate
 * predicate := operand ( cmp operand
 *                      | IS [NOT] NULL
 *                      | [NOT] IN '(' literal (',' literal)* ')'
 *                      | [NOT] BETWEEN operand AND operand
 *                      | [NOT] LIKE 'pattern' )?
 * operand   := term (('+' | '-') term)*
 * term      := factor (('*' | '/' | '%') factor)*
 * factor    := column | literal | '(' expr ')'
 * column    := ident ('.' ident)*        ident: [A-Za-z_][A-Za-z0-9_]* or `quoted`
 * literal   := number | 'string' | TRUE | FALSE | NULL | DATE 'yyyy-mm-dd'
 *            | TIMESTAMP 'yyyy-mm-dd hh:mm:ss[.ffffff]' | X'hex'
 * cmp       := = | == | != | <> | < | <= | > | >=
 * </pre>
 */
public final class ExprParser {
    private final String text;
    private int pos;

    private ExprParser(String text) {
        this.text = text;
    }

    public static Expr parse(String filter) {
        ExprParser p = new ExprParser(filter);
        Expr e = p.parseOr();
        p.skipSpace();
        if (p.pos != filter.length()) {
            throw p.error("unexpected '" + filter.substring(p.pos) + "'");
        }
        return e;
    }

    private FilterException error(String what) {
        return new FilterException("Cannot parse filter \"" + text + "\" at position " + pos + ": " + what);
    }

    private void skipSpace() {
        while (pos < text.length() && Character.isWhitespace(text.charAt(pos))) {
            pos++;
        }
    }

    /** Consumes a keyword if the next word is it (not a prefix of a longer identifier). */
    private boolean keyword(String kw) {
        skipSpace();
        int end = pos + kw.length();
        if (end > text.length() || !text.regionMatches(true, pos, kw, 0, kw.length())) {
            return false;
        }
        if (end < text.length() && isIdentPart(text.charAt(end))) {
            return false;
        }
        pos = end;
        return true;
    }

    private boolean symbol(String s) {
        skipSpace();
        if (text.startsWith(s, pos)) {
            pos += s.length();
            return true;
        }
        return false;
    }

    private static boolean isIdentStart(char c) {
        return Character.isLetter(c) || c == '_';
    }

    private static boolean isIdentPart(char c) {
        return Character.isLetterOrDigit(c) || c == '_';
    }

    private Expr parseOr() {
        Expr left = parseAnd();
        while (keyword("OR")) {
            left = new Expr.Or(left, parseAnd());
        }
        return left;
    }

    private Expr parseAnd() {
        Expr left = parseNot();
        while (keyword("AND")) {
            left = new Expr.And(left, parseNot());
        }
        return left;
    }

    private Expr parseNot() {
        if (keyword("NOT")) {
            return new Expr.Not(parseNot());
        }
        return parsePredicate();
    }

    private Expr parsePredicate() {
        Expr left = parseOperand();
        if (keyword("IS")) {
            boolean negated = keyword("NOT");
            if (!keyword("NULL")) {
                throw error("expected NULL after IS" + (negated ? " NOT" : ""));
            }
            return new Expr.IsNull(left, negated);
        }
        int save = pos;
        boolean negated = keyword("NOT");
        if (keyword("IN")) {
            if (!symbol("(")) {
                throw error("expected '(' after IN");
            }
            List<Expr.Literal> values = new ArrayList<>();
            do {
                Expr v = parseOperand();
                if (!(v instanceof Expr.Literal lit)) {
                    throw error("IN lists hold literals only");
                }
                values.add(lit);
            } while (symbol(","));
            if (!symbol(")")) {
                throw error("expected ')' to close the IN list");
            }
            return new Expr.In(left, List.copyOf(values), negated);
        }
        if (keyword("BETWEEN")) {
            Expr low = parseOperand();
            if (!keyword("AND")) {
                throw error("expected AND in BETWEEN");
            }
            Expr high = parseOperand();
            Expr between = new Expr.And(
                    new Expr.Compare(Expr.CompareOp.GE, left, low), new Expr.Compare(Expr.CompareOp.LE, left, high));
            return negated ? new Expr.Not(between) : between;
        }
        if (keyword("LIKE")) {
            Expr pattern = parseOperand();
            if (!(pattern instanceof Expr.Literal lit) || !(lit.value() instanceof String s)) {
                throw error("LIKE needs a string pattern");
            }
            return new Expr.Like(left, s, negated);
        }
        if (negated) {
            pos = save;
            throw error("expected IN, BETWEEN or LIKE after NOT");
        }
        Expr.CompareOp op = compareOp();
        if (op == null) {
            return left;
        }
        return new Expr.Compare(op, left, parseOperand());
    }

    private Expr.CompareOp compareOp() {
        if (symbol("==") || symbol("=")) {
            return Expr.CompareOp.EQ;
        }
        if (symbol("!=") || symbol("<>")) {
            return Expr.CompareOp.NE;
        }
        if (symbol("<=")) {
            return Expr.CompareOp.LE;
        }
        if (symbol(">=")) {
            return Expr.CompareOp.GE;
        }
        if (symbol("<")) {
            return Expr.CompareOp.LT;
        }
        if (symbol(">")) {
            return Expr.CompareOp.GT;
        }
        return null;
    }

    private Expr parseOperand() {
        Expr left = parseTerm();
        while (true) {
            skipSpace();
            if (symbol("+")) {
                left = new Expr.Arith(Expr.ArithOp.ADD, left, parseTerm());
            } else if (pos + 1 < text.length() && text.charAt(pos) == '-' && text.charAt(pos + 1) != '-') {
                pos++;
                left = new Expr.Arith(Expr.ArithOp.SUBTRACT, left, parseTerm());
            } else {
                return left;
            }
        }
    }

    private Expr parseTerm() {
        Expr left = parseFactor();
        while (true) {
            if (symbol("*")) {
                left = new Expr.Arith(Expr.ArithOp.MULTIPLY, left, parseFactor());
            } else if (symbol("/")) {
                left = new Expr.Arith(Expr.ArithOp.DIVIDE, left, parseFactor());
            } else if (symbol("%")) {
                left = new Expr.Arith(Expr.ArithOp.MODULO, left, parseFactor());
            } else {
                return left;
            }
        }
    }

    private Expr parseFactor() {
        skipSpace();
        if (pos >= text.length()) {
            throw error("unexpected end of filter");
        }
        char c = text.charAt(pos);
        if (c == '(') {
            pos++;
            Expr e = parseOr();
            if (!symbol(")")) {
                throw error("expected ')'");
            }
            return e;
        }
        if (c == '\'') {
            return new Expr.Literal(stringLiteral());
        }
        if (Character.isDigit(c)
                || ((c == '-' || c == '+' || c == '.')
                        && pos + 1 < text.length()
                        && (Character.isDigit(text.charAt(pos + 1)) || text.charAt(pos + 1) == '.'))) {
            return new Expr.Literal(number());
        }
        if (keyword("TRUE")) {
            return new Expr.Literal(Boolean.TRUE);
        }
        if (keyword("FALSE")) {
            return new Expr.Literal(Boolean.FALSE);
        }
        if (keyword("NULL")) {
            return new Expr.Literal(null);
        }
        int save = pos;
        if (keyword("DATE") && peekQuote()) {
            String s = stringLiteral();
            try {
                return new Expr.Literal(LocalDate.parse(s));
            } catch (DateTimeParseException e) {
                throw error("bad DATE literal '" + s + "' (expected yyyy-mm-dd)");
            }
        }
        pos = save;
        if (keyword("TIMESTAMP") && peekQuote()) {
            String s = stringLiteral();
            try {
                return new Expr.Literal(LocalDateTime.parse(s.trim().replace(' ', 'T')));
            } catch (DateTimeParseException e) {
                throw error("bad TIMESTAMP literal '" + s + "' (expected yyyy-mm-dd hh:mm:ss[.ffffff])");
            }
        }
        pos = save;
        if ((c == 'x' || c == 'X') && pos + 1 < text.length() && text.charAt(pos + 1) == '\'') {
            pos++;
            return new Expr.Literal(hex(stringLiteral()));
        }
        return column();
    }

    private boolean peekQuote() {
        skipSpace();
        return pos < text.length() && text.charAt(pos) == '\'';
    }

    private String stringLiteral() {
        StringBuilder sb = new StringBuilder();
        pos++; // opening quote
        while (true) {
            if (pos >= text.length()) {
                throw error("unterminated string literal");
            }
            char c = text.charAt(pos++);
            if (c == '\'') {
                if (pos < text.length() && text.charAt(pos) == '\'') {
                    sb.append('\'');
                    pos++;
                } else {
                    return sb.toString();
                }
            } else {
                sb.append(c);
            }
        }
    }

    private Object number() {
        int start = pos;
        if (text.charAt(pos) == '-' || text.charAt(pos) == '+') {
            pos++;
        }
        boolean fraction = false;
        while (pos < text.length()) {
            char c = text.charAt(pos);
            if (Character.isDigit(c)) {
                pos++;
            } else if (c == '.' || c == 'e' || c == 'E') {
                fraction = true;
                pos++;
                if ((c == 'e' || c == 'E')
                        && pos < text.length()
                        && (text.charAt(pos) == '-' || text.charAt(pos) == '+')) {
                    pos++;
                }
            } else {
                break;
            }
        }
        String s = text.substring(start, pos);
        try {
            if (!fraction) {
                try {
                    return Long.parseLong(s);
                } catch (NumberFormatException tooBig) {
                    return new BigDecimal(s);
                }
            }
            return Double.parseDouble(s);
        } catch (NumberFormatException e) {
            throw error("bad number '" + s + "'");
        }
    }

    private byte[] hex(String s) {
        if (s.length() % 2 != 0) {
            throw error("hex literal needs an even number of digits");
        }
        try {
            return HexFormat.of().parseHex(s);
        } catch (IllegalArgumentException e) {
            throw error("bad hex digit in X'" + s + "'");
        }
    }

    private Expr column() {
        List<String> path = new ArrayList<>();
        do {
            skipSpace();
            if (pos < text.length() && text.charAt(pos) == '`') {
                int end = text.indexOf('`', pos + 1);
                if (end < 0) {
                    throw error("unterminated `quoted` column name");
                }
                path.add(text.substring(pos + 1, end));
                pos = end + 1;
            } else if (pos < text.length() && isIdentStart(text.charAt(pos))) {
                int start = pos;
                while (pos < text.length() && isIdentPart(text.charAt(pos))) {
                    pos++;
                }
                String word = text.substring(start, pos);
                if (RESERVED.contains(word.toUpperCase(Locale.ROOT))) {
                    pos = start;
                    throw error("unexpected keyword " + word);
                }
                path.add(word);
            } else {
                throw error("expected a column name or a literal");
            }
        } while (symbol("."));
        return new Expr.Column(List.copyOf(path));
    }

    private static final Set<String> RESERVED = Set.of("AND", "OR", "NOT", "IS", "IN", "BETWEEN", "LIKE");
}
