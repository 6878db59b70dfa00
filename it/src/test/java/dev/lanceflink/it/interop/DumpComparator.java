package dev.lanceflink.it.interop;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Compares two dump documents ({@code {"version", "schema", "num_rows", "rows"}}, format in
 * it/README.md) cell by cell, e.g. the official SDK's dump of a dataset against our CLI's dump.
 *
 * <p>Rules, driven by the column type in the expected schema:
 * <ul>
 *   <li>float16/float32: both sides are parsed from their decimal text straight to float32
 *       and must be the same float ({@code NaN} equals {@code NaN}), or at most
 *       {@link #withFloatUlps} units in the last place apart. Text is never compared, so
 *       {@code 0.1} and {@code 0.100000001} are equal for float32. float64 alike with doubles.
 *       Known limit: a dump parsed with decimal numbers loses the sign of zero, so -0.0 equals
 *       0.0.
 *   <li>decimal128: numerically equal and printed with the same scale ({@code 1.5000} vs
 *       {@code 1.5} is a difference).
 *   <li>everything else (integers, strings, dates, timestamps, hex binary, booleans):
 *       exact JSON equality; integers by value.
 *   <li>lists/structs recurse with the element type; struct children missing on one side are
 *       treated as {@code null}.
 * </ul>
 *
 * <p>Schemas must be equal (name, type string, nullability, order) and so must
 * {@code num_rows}; {@code version} is compared only with {@link #withVersionCheck}. Rows are
 * compared in order, or after sorting both sides by a key column ({@link #sortedBy}).
 */
public final class DumpComparator {

    /** Parses dumps without losing digits: decimals stay exact, scale included. */
    public static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .disable(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES)
            .build();

    private static final int MAX_REPORTED = 20;
    private static final Pattern FSL = Pattern.compile("^fixed_size_list<(.*), (\\d+)>$");

    private final String sortColumn;
    private final int floatUlps;
    private final boolean checkVersion;

    private DumpComparator(String sortColumn, int floatUlps, boolean checkVersion) {
        this.sortColumn = sortColumn;
        this.floatUlps = floatUlps;
        this.checkVersion = checkVersion;
    }

    /** Rows in order, floats exactly equal, version ignored. */
    public static DumpComparator exact() {
        return new DumpComparator(null, 0, false);
    }

    /** Sorts both row lists by {@code column} (scalar values) before comparing. */
    public DumpComparator sortedBy(String column) {
        return new DumpComparator(column, floatUlps, checkVersion);
    }

    /** Accepts floats up to {@code ulps} units in the last place apart. */
    public DumpComparator withFloatUlps(int ulps) {
        return new DumpComparator(sortColumn, ulps, checkVersion);
    }

    /** Also requires equal {@code version} fields. */
    public DumpComparator withVersionCheck() {
        return new DumpComparator(sortColumn, floatUlps, true);
    }

    /** Throws an {@link AssertionError} listing the first differences, if there are any. */
    public void assertSame(JsonNode expected, JsonNode actual) {
        assertSame("", expected, actual);
    }

    /** As {@link #assertSame(JsonNode, JsonNode)}, naming what is compared (e.g. the dataset). */
    public void assertSame(String what, JsonNode expected, JsonNode actual) {
        List<String> differences = differences(expected, actual);
        if (!differences.isEmpty()) {
            StringBuilder message = new StringBuilder(what.isEmpty() ? "" : what + ": ")
                    .append("dumps differ (")
                    .append(differences.size() >= MAX_REPORTED ? "at least " : "")
                    .append(differences.size())
                    .append(" differences):");
            differences.forEach(d -> message.append("\n  ").append(d));
            throw new AssertionError(message.toString());
        }
    }

    /** Up to 20 human-readable differences; empty when the dumps are equal. */
    public List<String> differences(JsonNode expected, JsonNode actual) {
        List<String> out = new ArrayList<>();
        if (checkVersion && !sameInteger(expected.path("version"), actual.path("version"))) {
            out.add("version: expected " + expected.path("version") + " but was " + actual.path("version"));
        }
        JsonNode expectedSchema = expected.path("schema");
        if (!expectedSchema.equals(actual.path("schema"))) {
            out.add("schema: expected " + expectedSchema + " but was " + actual.path("schema"));
            return out;
        }
        if (!sameInteger(expected.path("num_rows"), actual.path("num_rows"))) {
            out.add("num_rows: expected " + expected.path("num_rows") + " but was " + actual.path("num_rows"));
        }
        Map<String, String> types = new HashMap<>();
        List<String> columns = new ArrayList<>();
        for (JsonNode column : expectedSchema) {
            types.put(column.path("name").asText(), column.path("type").asText());
            columns.add(column.path("name").asText());
        }
        List<JsonNode> expectedRows = rows(expected);
        List<JsonNode> actualRows = rows(actual);
        if (expectedRows.size() != actualRows.size()) {
            out.add("rows: expected " + expectedRows.size() + " rows but was " + actualRows.size());
        }
        int n = Math.min(expectedRows.size(), actualRows.size());
        for (int r = 0; r < n && out.size() < MAX_REPORTED; r++) {
            JsonNode e = expectedRows.get(r);
            JsonNode a = actualRows.get(r);
            for (String column : columns) {
                compare("row " + r + ", column '" + column + "'", types.get(column), e.get(column), a.get(column), out);
                if (out.size() >= MAX_REPORTED) {
                    break;
                }
            }
            for (Iterator<String> names = a.fieldNames(); names.hasNext(); ) {
                String name = names.next();
                if (!types.containsKey(name)) {
                    out.add("row " + r + ": unexpected column '" + name + "'");
                }
            }
        }
        return out;
    }

    private static boolean sameInteger(JsonNode a, JsonNode b) {
        return a.isIntegralNumber() && b.isIntegralNumber()
                ? a.bigIntegerValue().equals(b.bigIntegerValue())
                : a.equals(b);
    }

    private List<JsonNode> rows(JsonNode dump) {
        List<JsonNode> rows = new ArrayList<>();
        dump.path("rows").forEach(rows::add);
        if (sortColumn != null) {
            rows.sort(Comparator.comparing((JsonNode row) -> row.get(sortColumn), DumpComparator::compareKeys));
        }
        return rows;
    }

    private static int compareKeys(JsonNode a, JsonNode b) {
        boolean aNull = a == null || a.isNull();
        boolean bNull = b == null || b.isNull();
        if (aNull || bNull) {
            return Boolean.compare(!aNull, !bNull);
        }
        if (a.isNumber() && b.isNumber()) {
            return a.decimalValue().compareTo(b.decimalValue());
        }
        return a.asText().compareTo(b.asText());
    }

    private void compare(String where, String type, JsonNode e, JsonNode a, List<String> out) {
        boolean eNull = e == null || e.isNull();
        boolean aNull = a == null || a.isNull();
        if (eNull || aNull) {
            if (eNull != aNull) {
                out.add(where + ": expected " + render(e) + " but was " + render(a));
            }
            return;
        }
        if (type.startsWith("list<") || type.startsWith("large_list<")) {
            compareArray(where, element(type, type.indexOf('<') + 1, type.length() - 1), e, a, out);
        } else if (type.startsWith("fixed_size_list<")) {
            Matcher m = FSL.matcher(type);
            String item = m.matches() ? m.group(1) : type;
            compareArray(where, stripNotNull(item), e, a, out);
        } else if (type.startsWith("struct<")) {
            if (!e.isObject() || !a.isObject()) {
                out.add(where + ": expected " + render(e) + " but was " + render(a));
                return;
            }
            for (Map.Entry<String, String> child : structChildren(type).entrySet()) {
                compare(
                        where + "." + child.getKey(),
                        child.getValue(),
                        e.get(child.getKey()),
                        a.get(child.getKey()),
                        out);
            }
        } else if (type.equals("float32") || type.equals("float16")) {
            if (!sameFloat(e, a)) {
                out.add(where + ": expected " + render(e) + " but was " + render(a));
            }
        } else if (type.equals("float64")) {
            if (!sameDouble(e, a)) {
                out.add(where + ": expected " + render(e) + " but was " + render(a));
            }
        } else if (type.startsWith("decimal")) {
            if (!e.isNumber()
                    || !a.isNumber()
                    || e.decimalValue().compareTo(a.decimalValue()) != 0
                    || e.decimalValue().scale() != a.decimalValue().scale()) {
                out.add(where + ": expected " + render(e) + " but was " + render(a)
                        + (e.isNumber() && a.isNumber() && e.decimalValue().compareTo(a.decimalValue()) == 0
                                ? " (scale differs)"
                                : ""));
            }
        } else if (e.isNumber() && a.isNumber()) {
            if (e.decimalValue().compareTo(a.decimalValue()) != 0) {
                out.add(where + ": expected " + render(e) + " but was " + render(a));
            }
        } else if (!e.equals(a)) {
            out.add(where + ": expected " + render(e) + " but was " + render(a));
        }
    }

    private void compareArray(String where, String itemType, JsonNode e, JsonNode a, List<String> out) {
        if (!e.isArray() || !a.isArray()) {
            out.add(where + ": expected " + render(e) + " but was " + render(a));
            return;
        }
        if (e.size() != a.size()) {
            out.add(where + ": expected " + e.size() + " items but was " + a.size() + " (expected " + render(e)
                    + " but was " + render(a) + ")");
            return;
        }
        for (int i = 0; i < e.size() && out.size() < MAX_REPORTED; i++) {
            compare(where + "[" + i + "]", itemType, e.get(i), a.get(i), out);
        }
    }

    private boolean sameFloat(JsonNode e, JsonNode a) {
        Float x = parseFloat(e);
        Float y = parseFloat(a);
        if (x == null || y == null) {
            return false;
        }
        if (Float.isNaN(x) || Float.isNaN(y)) {
            return Float.isNaN(x) && Float.isNaN(y);
        }
        if (x.floatValue() == y.floatValue()) {
            return true;
        }
        return floatUlps > 0
                && Float.isFinite(x)
                && Float.isFinite(y)
                && Math.abs(x - y) <= floatUlps * Math.max(Math.ulp(x), Math.ulp(y));
    }

    private boolean sameDouble(JsonNode e, JsonNode a) {
        Double x = parseDouble(e);
        Double y = parseDouble(a);
        if (x == null || y == null) {
            return false;
        }
        if (Double.isNaN(x) || Double.isNaN(y)) {
            return Double.isNaN(x) && Double.isNaN(y);
        }
        if (x.doubleValue() == y.doubleValue()) {
            return true;
        }
        return floatUlps > 0
                && Double.isFinite(x)
                && Double.isFinite(y)
                && Math.abs(x - y) <= floatUlps * Math.max(Math.ulp(x), Math.ulp(y));
    }

    /** A float32 from a dump cell: decimal text parsed directly, or a NaN/Infinity string. */
    private static Float parseFloat(JsonNode node) {
        if (node.isNumber()) {
            return Float.parseFloat(exactText(node));
        }
        if (node.isTextual()) {
            return switch (node.textValue()) {
                case "NaN" -> Float.NaN;
                case "Infinity" -> Float.POSITIVE_INFINITY;
                case "-Infinity" -> Float.NEGATIVE_INFINITY;
                default -> null;
            };
        }
        return null;
    }

    private static Double parseDouble(JsonNode node) {
        if (node.isNumber()) {
            return Double.parseDouble(exactText(node));
        }
        if (node.isTextual()) {
            return switch (node.textValue()) {
                case "NaN" -> Double.NaN;
                case "Infinity" -> Double.POSITIVE_INFINITY;
                case "-Infinity" -> Double.NEGATIVE_INFINITY;
                default -> null;
            };
        }
        return null;
    }

    private static String exactText(JsonNode number) {
        BigDecimal value = number.decimalValue();
        return value.toString();
    }

    private static String render(JsonNode node) {
        if (node == null) {
            return "<missing>";
        }
        String text = node.isNumber() ? node.decimalValue().toPlainString() : node.toString();
        return text.length() <= 120 ? text : text.substring(0, 117) + "...";
    }

    /** The item type of {@code list<...>} between {@code from} and {@code to}. */
    private static String element(String type, int from, int to) {
        return stripNotNull(type.substring(from, to).trim());
    }

    private static String stripNotNull(String type) {
        return type.endsWith(" not null") ? type.substring(0, type.length() - 9) : type;
    }

    /** Child name → type of a {@code struct<a: T, b: U>} string (top-level commas only). */
    static Map<String, String> structChildren(String type) {
        Map<String, String> children = new java.util.LinkedHashMap<>();
        String body = type.substring("struct<".length(), type.length() - 1);
        int depth = 0;
        int start = 0;
        for (int i = 0; i <= body.length(); i++) {
            char c = i < body.length() ? body.charAt(i) : ',';
            if (c == '<' || c == '(' || c == '[') {
                depth++;
            } else if (c == '>' || c == ')' || c == ']') {
                depth--;
            } else if (c == ',' && depth == 0) {
                String member = body.substring(start, i).trim();
                int colon = member.indexOf(':');
                children.put(
                        member.substring(0, colon).trim(),
                        stripNotNull(member.substring(colon + 1).trim()));
                start = i + 1;
            }
        }
        return children;
    }
}
