package dev.lanceflink.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Splits a SQL script into statements at the semicolons that end them, as Flink's SQL client
 * does: a semicolon inside a string literal ({@code 'a;b'}, with {@code ''} escapes), a quoted
 * identifier ({@code `a;b`} or {@code "a;b"}), a line comment ({@code -- ...}) or a block
 * comment ({@code /* ... *&#47;}) does not end a statement. The statements inside
 * {@code EXECUTE STATEMENT SET BEGIN ...; ...; END} stay one statement, since Flink parses the
 * whole block at once.
 *
 * <p>Each statement keeps its text (comments included) without the terminating semicolon and
 * remembers the line it starts on, for error messages. Statements made only of blanks and
 * comments are dropped.
 */
final class SqlScriptSplitter {
    /** One statement of a script, and the 1-based line of its first non-blank character. */
    record Statement(String sql, int line) {}

    /**
     * The statements a text ends with a semicolon, and where the rest begins: what follows the last
     * terminating semicolon (an unfinished statement, or blanks and comments).
     */
    record Terminated(List<Statement> statements, int restStart) {}

    private SqlScriptSplitter() {}

    static List<Statement> split(String script) {
        List<Statement> out = new ArrayList<>();
        scan(script, out, true);
        return out;
    }

    /**
     * The statements of {@code text} that a semicolon ends, for a prompt that runs each statement
     * as soon as its semicolon is typed; the rest waits for more lines.
     */
    static Terminated terminated(String text) {
        List<Statement> out = new ArrayList<>();
        int rest = scan(text, out, false);
        return new Terminated(out, rest);
    }

    /**
     * Adds the statements of {@code script} to {@code out}, the unterminated last one too if
     * {@code withRest}; returns the index after the last terminating semicolon.
     */
    private static int scan(String script, List<Statement> out, boolean withRest) {
        int restStart = 0;
        StringBuilder current = new StringBuilder();
        StringBuilder code = new StringBuilder(); // the statement without comments and literals, to find keywords
        int line = 1;
        int startLine = -1;
        int i = 0;
        int n = script.length();
        while (i < n) {
            char c = script.charAt(i);
            if (c == '-' && i + 1 < n && script.charAt(i + 1) == '-') {
                int end = script.indexOf('\n', i);
                end = end < 0 ? n : end;
                current.append(script, i, end);
                i = end;
                continue;
            }
            if (c == '/' && i + 1 < n && script.charAt(i + 1) == '*') {
                int end = script.indexOf("*/", i + 2);
                end = end < 0 ? n : end + 2;
                line += count(script, i, end, '\n');
                current.append(script, i, end);
                code.append(' ');
                i = end;
                continue;
            }
            if (startLine < 0 && !Character.isWhitespace(c) && c != ';') {
                startLine = line; // comments were handled above: this is the statement's first code
            }
            if (c == '\'' || c == '"' || c == '`') {
                int end = closingQuote(script, i, c);
                line += count(script, i, end, '\n');
                current.append(script, i, end);
                code.append(c == '\'' ? " '' " : " x ");
                i = end;
                continue;
            }
            if (c == ';' && !insideStatementSet(code)) {
                add(out, current, code, startLine);
                startLine = -1;
                i++;
                restStart = i;
                continue;
            }
            if (c == '\n') {
                line++;
            }
            current.append(c);
            code.append(c);
            i++;
        }
        if (withRest) {
            add(out, current, code, startLine);
        }
        return restStart;
    }

    /** Index just past the quote closing the one at {@code start} (a doubled quote is an escaped quote). */
    private static int closingQuote(String s, int start, char quote) {
        int i = start + 1;
        while (i < s.length()) {
            if (s.charAt(i) == quote) {
                if (i + 1 < s.length() && s.charAt(i + 1) == quote) {
                    i += 2;
                    continue;
                }
                return i + 1;
            }
            i++;
        }
        return s.length(); // unterminated: the parser reports it
    }

    private static int count(String s, int from, int to, char c) {
        int k = 0;
        for (int i = from; i < to; i++) {
            if (s.charAt(i) == c) {
                k++;
            }
        }
        return k;
    }

    /** In {@code EXECUTE STATEMENT SET BEGIN ...} before its closing {@code END}. */
    private static boolean insideStatementSet(StringBuilder code) {
        String[] words = code.toString().trim().toUpperCase(Locale.ROOT).split("\\s+");
        if (words.length < 4
                || !words[0].equals("EXECUTE")
                || !words[1].equals("STATEMENT")
                || !words[2].equals("SET")
                || !words[3].equals("BEGIN")) {
            return false;
        }
        return !words[words.length - 1].equals("END");
    }

    private static void add(List<Statement> out, StringBuilder current, StringBuilder code, int startLine) {
        if (!code.toString().isBlank()) {
            out.add(new Statement(current.toString().strip(), startLine));
        }
        current.setLength(0);
        code.setLength(0);
    }
}
