package dev.lanceflink.it.interop;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * Deterministic test data covering every column type the connector supports, written in the
 * dump conventions (it/README.md) so the same JSON serves as oracle input ({@code rows.json})
 * and as the expected dump.
 *
 * <p>Row {@code k} is a pure function of its key, so any key range can be generated
 * independently (appends) and deletions can be mirrored by filtering keys. Coverage: every
 * nullable column is null in about one row in eleven (at rows that differ per column); item
 * nulls inside lists and fixed-size lists; null struct children; empty, Unicode (incl.
 * astral-plane) and 10 KB strings; empty binaries; NaN and ±Infinity in float32/float64;
 * float32/float64 extremes (subnormal minimum, maximum); int8/int64 extremes; dates and
 * timestamps before 1970; 20-digit decimals of both signs; empty lists.
 */
public final class InteropData {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final DateTimeFormatter MICROS =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSS", Locale.ROOT);

    /** Column names, types and nullability of {@link #allTypesSchema()}, in order. */
    private static final String[][] COLUMNS = {
        {"id", "int64", "false"},
        {"flag", "bool", "true"},
        {"i8", "int8", "true"},
        {"i16", "int16", "true"},
        {"i32", "int32", "true"},
        {"i64", "int64", "true"},
        {"f32", "float32", "true"},
        {"f64", "float64", "true"},
        {"name", "utf8", "true"},
        {"note", "large_utf8", "true"},
        {"payload", "binary", "true"},
        {"day", "date32", "true"},
        {"ts", "timestamp[us]", "true"},
        {"tstz", "timestamp[us, tz=UTC]", "true"},
        {"amount", "decimal128(20, 4)", "true"},
        {"emb", "fixed_size_list<float32, 8>", "true"},
        {"q4", "fixed_size_list<int8, 4>", "true"},
        {"h4", "fixed_size_list<float16, 4>", "true"},
        {"ints", "list<int32>", "true"},
        {"tags", "list<utf8>", "true"},
        {"info", "struct<a: int32, b: utf8>", "true"},
    };

    private InteropData() {}

    /** The schema.json of the all-types table (key column {@code id}, never null). */
    public static ArrayNode allTypesSchema() {
        ArrayNode schema = NODES.arrayNode();
        for (String[] column : COLUMNS) {
            schema.addObject()
                    .put("name", column[0])
                    .put("type", column[1])
                    .put("nullable", Boolean.parseBoolean(column[2]));
        }
        return schema;
    }

    /** Rows for keys {@code fromKey} (inclusive) to {@code toKey} (exclusive), in key order. */
    public static ArrayNode allTypesRows(long fromKey, long toKey) {
        ArrayNode rows = NODES.arrayNode();
        for (long k = fromKey; k < toKey; k++) {
            rows.add(row(k));
        }
        return rows;
    }

    /** The row of key {@code k}. */
    public static ObjectNode row(long k) {
        ObjectNode row = NODES.objectNode();
        row.put("id", k);
        for (int c = 1; c < COLUMNS.length; c++) {
            String name = COLUMNS[c][0];
            row.set(name, isNull(k, c) ? NODES.nullNode() : value(name, k));
        }
        return row;
    }

    /** Whether column {@code c} (index in the schema) is null in row {@code k}. */
    private static boolean isNull(long k, int c) {
        return Math.floorMod(k + 3L * c, 11L) == 0;
    }

    private static JsonNode value(String column, long k) {
        return switch (column) {
            case "flag" -> NODES.booleanNode(k % 3 == 0);
            case "i8" -> NODES.numberNode(k == 4 ? Byte.MIN_VALUE : (int) ((k * 37) % 256) - 128);
            case "i16" -> NODES.numberNode((int) ((k * 7919) % 65536) - 32768);
            case "i32" -> NODES.numberNode((int) (k * 2_654_435_761L));
            case "i64" ->
                NODES.numberNode(k == 1 ? Long.MIN_VALUE : k == 2 ? Long.MAX_VALUE : k * 0x9E37_79B9_7F4A_7C15L);
            case "f32" -> float32(k);
            case "f64" -> float64(k);
            case "name" -> NODES.textNode(name(k));
            case "note" -> NODES.textNode(k % 97 == 5 ? longText(k) : k % 4 == 0 ? "" : "note " + k + " \u2713");
            case "payload" -> NODES.textNode(hex(bytes(k)));
            case "day" -> NODES.textNode(LocalDate.ofEpochDay(k * 37 - 20_000).toString());
            case "ts" ->
                NODES.textNode(
                        timestamp(k % 10 == 3 ? -k * 86_400_000_001L : 1_600_000_000_000_000L + k * 3_600_000_123L));
            case "tstz" -> NODES.textNode(timestamp(1_500_000_000_000_007L - k * 999_999_937L) + "Z");
            case "amount" -> NODES.numberNode(amount(k));
            case "emb" -> embedding(k);
            case "q4" -> quantized(k);
            case "h4" -> halves(k);
            case "ints" -> ints(k);
            case "tags" -> tags(k);
            case "info" -> info(k);
            default -> throw new IllegalArgumentException("no generator for column " + column);
        };
    }

    private static JsonNode float32(long k) {
        return switch ((int) (k % 17)) {
            case 5 -> NODES.textNode("NaN");
            case 6 -> NODES.textNode("Infinity");
            case 7 -> NODES.textNode("-Infinity");
            default ->
                k == 3
                        ? floatNode(Float.MIN_VALUE)
                        : k == 4 ? floatNode(Float.MAX_VALUE) : floatNode((float) (k * 0.37) - 50f);
        };
    }

    private static JsonNode float64(long k) {
        return switch ((int) (k % 19)) {
            case 4 -> NODES.textNode("NaN");
            case 8 -> NODES.textNode("Infinity");
            case 9 -> NODES.textNode("-Infinity");
            default ->
                k == 3
                        ? doubleNode(Double.MIN_VALUE)
                        : k == 5 ? doubleNode(-Double.MAX_VALUE) : doubleNode(k * 1.0000001e-3 - 7.5);
        };
    }

    private static String name(long k) {
        if (k % 50 == 2) {
            return longText(k);
        }
        return switch ((int) (k % 6)) {
            case 0 -> "";
            case 1 -> "gr\u00fc\u00dfe \u4e16\u754c \ud83d\ude80 #" + k;
            default -> "name-" + k;
        };
    }

    /** A 10 KB (10,240 chars) string that differs per key. */
    private static String longText(long k) {
        StringBuilder text = new StringBuilder(10_240 + 32);
        while (text.length() < 10_240) {
            text.append("lance-").append(k).append('-').append(text.length()).append(' ');
        }
        text.setLength(10_240);
        return text.toString();
    }

    private static byte[] bytes(long k) {
        int length = k % 5 == 0 ? 0 : (int) (k % 7) + 1;
        byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            bytes[i] = (byte) (k * 31 + i * 17);
        }
        return bytes;
    }

    private static BigDecimal amount(long k) {
        if (k % 13 == 0) {
            return new BigDecimal(k % 2 == 0 ? "9999999999999999.9999" : "-9999999999999999.9999");
        }
        return BigDecimal.valueOf(k * 1_000_003L - 500_000L, 4);
    }

    private static ArrayNode embedding(long k) {
        ArrayNode items = NODES.arrayNode();
        for (int j = 0; j < 8; j++) {
            if ((k + j) % 9 == 4) {
                items.addNull();
            } else if (j == 7 && k % 23 == 1) {
                items.add("NaN");
            } else {
                items.add(floatNode(k + j * 0.25f - 3.5f));
            }
        }
        return items;
    }

    private static ArrayNode quantized(long k) {
        ArrayNode items = NODES.arrayNode();
        for (int j = 0; j < 4; j++) {
            if ((k + j) % 10 == 7) {
                items.addNull();
            } else {
                items.add((int) ((k * 4 + j) % 256) - 128);
            }
        }
        return items;
    }

    /** float16 items, all exactly representable (multiples of 0.25 up to 16.5). */
    private static ArrayNode halves(long k) {
        ArrayNode items = NODES.arrayNode();
        for (int j = 0; j < 4; j++) {
            if ((k + j) % 13 == 6) {
                items.addNull();
            } else {
                float v = ((k % 64) + j) * 0.25f;
                items.add(floatNode(j == 3 ? -v : v));
            }
        }
        return items;
    }

    private static ArrayNode ints(long k) {
        ArrayNode items = NODES.arrayNode();
        for (int j = 0; j < k % 5; j++) {
            if ((k + j) % 7 == 3) {
                items.addNull();
            } else {
                items.add((int) (k * 10 + j));
            }
        }
        return items;
    }

    private static ArrayNode tags(long k) {
        ArrayNode items = NODES.arrayNode();
        for (int j = 0; j < k % 4; j++) {
            if ((k + j) % 9 == 0) {
                items.addNull();
            } else {
                items.add(j == 1 ? "" : j == 2 ? "\u00e9t\u00e9-" + k : "t" + k + "." + j);
            }
        }
        return items;
    }

    private static ObjectNode info(long k) {
        ObjectNode info = NODES.objectNode();
        if (k % 5 == 1) {
            info.putNull("a");
        } else {
            info.put("a", (int) (k * 3));
        }
        if (k % 7 == 2) {
            info.putNull("b");
        } else {
            info.put("b", "b" + k);
        }
        return info;
    }

    /** Microseconds since the epoch in the dump rendering of {@code timestamp[us]}. */
    static String timestamp(long micros) {
        long seconds = Math.floorDiv(micros, 1_000_000L);
        int nanos = (int) Math.floorMod(micros, 1_000_000L) * 1000;
        return MICROS.format(LocalDateTime.ofEpochSecond(seconds, nanos, ZoneOffset.UTC));
    }

    static String hex(byte[] bytes) {
        StringBuilder out = new StringBuilder(2 + 2 * bytes.length).append("0x");
        for (byte b : bytes) {
            out.append(Character.forDigit((b >> 4) & 0xF, 16)).append(Character.forDigit(b & 0xF, 16));
        }
        return out.toString();
    }

    /** A float32 as a JSON number whose decimal text parses back to exactly {@code f}. */
    private static JsonNode floatNode(float f) {
        return NODES.numberNode(new BigDecimal(Float.toString(f)));
    }

    private static JsonNode doubleNode(double d) {
        return NODES.numberNode(new BigDecimal(Double.toString(d)));
    }
}
