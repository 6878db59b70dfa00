package dev.lanceflink.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.table.operations.ModifyOperation;
import org.apache.flink.table.operations.Operation;
import org.apache.flink.table.operations.SinkModifyOperation;
import org.apache.flink.table.operations.StatementSetOperation;

/**
 * One line for the statement failures whose raw form does not tell a user what went wrong or what
 * to do: Flink reports them from deep inside its planner or its runtime, in its own terms. Each
 * is recognised by the exception Flink throws and rewritten as what is wrong, where, and what to
 * write instead; every other failure keeps its own message ({@link SqlCommand#describe}).
 */
final class StatementFailures {
    /** Flink's NOT NULL enforcer ({@code table.exec.sink.not-null-enforcer} = ERROR, the default) before the sink. */
    private static final Pattern NOT_NULL = Pattern.compile(
            "Column '(.+)' is NOT NULL, however, a null value is being written into it\\..*", Pattern.DOTALL);
    /** Calcite's "not implemented" for an expression it cannot convert (here: a SET expression of an UPDATE). */
    private static final Pattern UNCONVERTIBLE =
            Pattern.compile("class org\\.apache\\.calcite\\.sql\\.\\w+: (.+)", Pattern.DOTALL);
    /** The catalog's default for time travel, which Flink's in-memory catalog does not override. */
    private static final String NO_TIME_TRAVEL = "getTable(ObjectPath, long) is not implemented for class ";

    private static final Pattern TIME_TRAVEL_TARGET = Pattern.compile(
            "((?:`[^`]+`|[\\w$]+)(?:\\s*\\.\\s*(?:`[^`]+`|[\\w$]+))*)\\s+FOR\\s+SYSTEM_TIME\\s+AS\\s+OF",
            Pattern.CASE_INSENSITIVE);
    private static final Pattern UPDATE = Pattern.compile("UPDATE\\b.*", Pattern.CASE_INSENSITIVE | Pattern.DOTALL);

    private StatementFailures() {}

    /**
     * The message of a job that {@code operation} submitted and that failed with {@code cause}:
     * a NULL written into a NOT NULL column names the column, the table and the statement kind;
     * anything else is the job's own message.
     */
    static String jobFailed(Operation operation, Throwable cause) {
        for (Throwable t = cause; t != null; t = t.getCause() == t ? null : t.getCause()) {
            Matcher m = t.getMessage() == null ? null : NOT_NULL.matcher(t.getMessage());
            if (m != null && m.matches()) {
                return notNull(m.group(1), operation);
            }
        }
        return SqlCommand.describe(cause);
    }

    private static String notNull(String column, Operation operation) {
        List<String> tables = new ArrayList<>();
        boolean update = false;
        List<ModifyOperation> sinks = operation instanceof StatementSetOperation set
                ? set.getOperations()
                : operation instanceof ModifyOperation single ? List.of(single) : List.of();
        for (ModifyOperation op : sinks) {
            if (op instanceof SinkModifyOperation sink) {
                tables.add(sink.getContextResolvedTable().getIdentifier().asSummaryString());
                update |= sink.isUpdate();
            }
        }
        String table =
                tables.size() == 1 ? " of " + tables.get(0) : tables.isEmpty() ? "" : " of one of the tables " + tables;
        if (update) {
            return "column '" + column + "'" + table + " is NOT NULL, but the UPDATE sets it to NULL in some rows."
                    + " Set it to a value (e.g. COALESCE(<expression>, <default>)) or leave those rows out with the"
                    + " WHERE clause";
        }
        return "column '" + column + "'" + table + " is NOT NULL, but the statement writes NULL into it in some rows."
                + " Give it a value in every row (e.g. COALESCE(<expression>, <default>) in the query) or leave those"
                + " rows out (WHERE <expression> IS NOT NULL)";
    }

    /**
     * A one-line explanation of a statement that failed while Flink planned it, if the failure is
     * one of those Flink reports in its own internal terms; empty otherwise.
     *
     * @param currentCatalog the session's current catalog, if the environment exists
     */
    static Optional<String> planningFailed(Throwable e, String sql, Optional<String> currentCatalog) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            String text = t.getMessage();
            if (!(t instanceof UnsupportedOperationException) || text == null) {
                continue;
            }
            if (text.startsWith(NO_TIME_TRAVEL)) {
                return Optional.of(timeTravel(sql, currentCatalog));
            }
            Matcher m = UNCONVERTIBLE.matcher(text);
            if (m.matches() && UPDATE.matcher(SqlCommand.firstLine(sql)).matches()) {
                return Optional.of(unconvertibleInUpdate(m.group(1).strip()));
            }
        }
        return Optional.empty();
    }

    /**
     * Flink looks a name up relative to the current catalog and database first; with time
     * travel it asks that catalog for the table at a time, and Flink's in-memory catalog
     * answers that with "not implemented" instead of "no such table", so the lookup never
     * reaches the catalog the name points to.
     */
    private static String timeTravel(String sql, Optional<String> currentCatalog) {
        String current = currentCatalog.map(c -> " (" + c + ")").orElse("");
        Matcher m = TIME_TRAVEL_TARGET.matcher(sql);
        List<String> parts = new ArrayList<>();
        if (m.find()) {
            for (String part : m.group(1).split("\\s*\\.\\s*")) {
                parts.add(
                        part.startsWith("`")
                                ? part.substring(1, part.length() - 1).replace("``", "`")
                                : part);
            }
        }
        if (parts.size() == 3
                && currentCatalog.map(c -> !c.equals(parts.get(0))).orElse(true)) {
            return "FOR SYSTEM_TIME AS OF on " + String.join(".", parts) + " fails while the current catalog"
                    + current + " is a Flink in-memory catalog: Flink asks the current catalog first, and that one"
                    + " cannot answer for a past time. Run USE CATALOG " + parts.get(0) + "; first, then the query";
        }
        return "FOR SYSTEM_TIME AS OF needs a table of a catalog that keeps versions (a Lance catalog,"
                + " 'type' = 'lance'); the current catalog" + current + " is a Flink in-memory catalog. For a"
                + " 'connector' = 'lance' table declared there, read an older version with the 'as-of' or 'version'"
                + " option: SELECT ... FROM t /*+ OPTIONS('as-of' = '2026-01-01T00:00:00Z') */";
    }

    /**
     * Calcite converts the SET expressions of an UPDATE from the statement as written, but types
     * them on the copies it validated, so a function whose conversion asks for its own type
     * (TIMESTAMPADD) fails inside Flink's planner. The same value written with {@code +} and an
     * interval converts.
     */
    private static String unconvertibleInUpdate(String expression) {
        String rewrite = timestampAddRewrite(expression);
        return "Flink's planner cannot convert " + expression + " in the SET clause of an UPDATE (a limitation of"
                + " Flink's SQL planner, not of the table); "
                + (rewrite != null
                        ? "write " + rewrite + " instead"
                        : "compute the value with other functions or operators");
    }

    /** {@code TIMESTAMPADD(unit, n, ts)} as {@code ts + INTERVAL 'n' unit}, or null if {@code call} is not one. */
    static String timestampAddRewrite(String call) {
        String upper = call.toUpperCase(Locale.ROOT);
        if (!upper.startsWith("TIMESTAMPADD(") || !call.endsWith(")")) {
            return null;
        }
        List<String> args = splitArguments(call.substring("TIMESTAMPADD(".length(), call.length() - 1));
        if (args.size() != 3) {
            return null;
        }
        String unit = args.get(0).toUpperCase(Locale.ROOT);
        String count = args.get(1);
        String ts = args.get(2);
        int factor = 1;
        switch (unit) {
            case "WEEK" -> {
                unit = "DAY";
                factor = 7;
            }
            case "QUARTER" -> {
                unit = "MONTH";
                factor = 3;
            }
            case "YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND" -> {}
            default -> {
                return null;
            }
        }
        if (count.matches("-?\\d+")) {
            long n = Long.parseLong(count) * factor;
            return ts + (n < 0 ? " - INTERVAL '" + -n : " + INTERVAL '" + n) + "' " + unit;
        }
        return ts + " + (" + count + ")" + (factor == 1 ? "" : " * " + factor) + " * INTERVAL '1' " + unit;
    }

    /** The top-level, comma-separated arguments of a call (commas inside parentheses or quotes stay). */
    private static List<String> splitArguments(String text) {
        List<String> out = new ArrayList<>();
        int depth = 0;
        char quote = 0;
        int start = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (quote != 0) {
                quote = c == quote ? 0 : quote;
            } else if (c == '\'' || c == '`' || c == '"') {
                quote = c;
            } else if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth--;
            } else if (c == ',' && depth == 0) {
                out.add(text.substring(start, i).strip());
                start = i + 1;
            }
        }
        out.add(text.substring(start).strip());
        return out;
    }
}
