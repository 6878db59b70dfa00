package dev.lanceflink.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.POJONode;
import com.fasterxml.jackson.databind.util.RawValue;
import java.math.BigDecimal;
import java.util.Comparator;

/**
 * Orders dump cells for {@code dump --order-by}: null first, then booleans (false before true),
 * then numbers by value (floats and decimals are raw JSON numbers, compared exactly), then
 * strings by UTF-16 code units. Strings include dates and timestamps, whose rendering sorts
 * chronologically within 0000–9999, and the float specials {@code "NaN"}/{@code "Infinity"}.
 * Lists and structs cannot be ordered by.
 */
final class JsonOrder {

    static final Comparator<JsonNode> NULLS_FIRST = JsonOrder::compare;

    private JsonOrder() {}

    private static int compare(JsonNode a, JsonNode b) {
        int rank = Integer.compare(rank(a), rank(b));
        if (rank != 0) {
            return rank;
        }
        return switch (rank(a)) {
            case 0 -> 0;
            case 1 -> Boolean.compare(a.booleanValue(), b.booleanValue());
            case 2 -> number(a).compareTo(number(b));
            default -> a.textValue().compareTo(b.textValue());
        };
    }

    private static int rank(JsonNode node) {
        if (node == null || node.isNull()) {
            return 0;
        }
        if (node.isBoolean()) {
            return 1;
        }
        if (node.isNumber() || isRawNumber(node)) {
            return 2;
        }
        if (node.isTextual()) {
            return 3;
        }
        throw new IllegalArgumentException("--order-by needs a column of scalars, found " + node.getNodeType());
    }

    private static boolean isRawNumber(JsonNode node) {
        return node instanceof POJONode pojo && pojo.getPojo() instanceof RawValue;
    }

    private static BigDecimal number(JsonNode node) {
        if (isRawNumber(node)) {
            return new BigDecimal(
                    ((RawValue) ((POJONode) node).getPojo()).rawValue().toString());
        }
        return node.decimalValue();
    }
}
