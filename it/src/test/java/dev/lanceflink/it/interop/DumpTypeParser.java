package dev.lanceflink.it.interop;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Parses the type grammar of it/README.md ({@code list<int32 not null>},
 * {@code struct<a: int32, b: utf8>}, {@code timestamp[us, tz=UTC]}, …) into Arrow fields on our
 * side of the classpath, so tests can build the batches our writer gets from the same
 * {@code schema.json} the oracle reads. List items are named {@code item}, as Arrow and Lance do.
 */
final class DumpTypeParser {
    private final String text;
    private int pos;

    private DumpTypeParser(String text) {
        this.text = text;
    }

    /** The Arrow schema of a {@code schema.json} array ({@code [{"name","type","nullable"}]}). */
    static Schema schema(com.fasterxml.jackson.databind.JsonNode columns) {
        List<Field> fields = new ArrayList<>();
        for (com.fasterxml.jackson.databind.JsonNode c : columns) {
            fields.add(field(
                    c.path("name").asText(),
                    c.path("type").asText(),
                    c.path("nullable").asBoolean(true)));
        }
        return new Schema(fields);
    }

    /** One field of the given name, type string and nullability. */
    static Field field(String name, String type, boolean nullable) {
        DumpTypeParser p = new DumpTypeParser(type);
        Field f = p.type(name, nullable);
        p.skipSpaces();
        if (p.pos != type.length()) {
            throw p.error("unexpected text");
        }
        return f;
    }

    private Field type(String name, boolean nullable) {
        String word = word();
        return switch (word) {
            case "bool" -> leaf(name, nullable, ArrowType.Bool.INSTANCE);
            case "int8", "int16", "int32", "int64" ->
                leaf(name, nullable, new ArrowType.Int(Integer.parseInt(word.substring(3)), true));
            case "uint8", "uint16", "uint32", "uint64" ->
                leaf(name, nullable, new ArrowType.Int(Integer.parseInt(word.substring(4)), false));
            case "float16" -> leaf(name, nullable, new ArrowType.FloatingPoint(FloatingPointPrecision.HALF));
            case "float32" -> leaf(name, nullable, new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE));
            case "float64" -> leaf(name, nullable, new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE));
            case "utf8" -> leaf(name, nullable, ArrowType.Utf8.INSTANCE);
            case "large_utf8" -> leaf(name, nullable, ArrowType.LargeUtf8.INSTANCE);
            case "binary" -> leaf(name, nullable, ArrowType.Binary.INSTANCE);
            case "large_binary" -> leaf(name, nullable, ArrowType.LargeBinary.INSTANCE);
            case "date32" -> leaf(name, nullable, new ArrowType.Date(DateUnit.DAY));
            case "fixed_size_binary" -> {
                expect('[');
                int width = number();
                expect(']');
                yield leaf(name, nullable, new ArrowType.FixedSizeBinary(width));
            }
            case "timestamp" -> {
                expect('[');
                TimeUnit unit = switch (word()) {
                    case "s" -> TimeUnit.SECOND;
                    case "ms" -> TimeUnit.MILLISECOND;
                    case "us" -> TimeUnit.MICROSECOND;
                    case "ns" -> TimeUnit.NANOSECOND;
                    default -> throw error("unknown time unit");
                };
                String zone = null;
                if (peek(',')) {
                    expect(',');
                    if (!word().equals("tz")) {
                        throw error("expected tz=");
                    }
                    expect('=');
                    skipSpaces();
                    int start = pos;
                    while (pos < text.length() && text.charAt(pos) != ']') {
                        pos++;
                    }
                    zone = text.substring(start, pos).trim();
                }
                expect(']');
                yield leaf(name, nullable, new ArrowType.Timestamp(unit, zone));
            }
            case "decimal128" -> {
                expect('(');
                int precision = number();
                expect(',');
                int scale = number();
                expect(')');
                yield leaf(name, nullable, new ArrowType.Decimal(precision, scale, 128));
            }
            case "list", "large_list" -> {
                expect('<');
                Field item = element();
                expect('>');
                yield new Field(
                        name,
                        new FieldType(
                                nullable,
                                word.equals("list") ? ArrowType.List.INSTANCE : ArrowType.LargeList.INSTANCE,
                                null),
                        List.of(item));
            }
            case "fixed_size_list" -> {
                expect('<');
                Field item = element();
                expect(',');
                int size = number();
                expect('>');
                yield new Field(name, new FieldType(nullable, new ArrowType.FixedSizeList(size), null), List.of(item));
            }
            case "struct" -> {
                expect('<');
                List<Field> children = new ArrayList<>();
                do {
                    if (!children.isEmpty()) {
                        expect(',');
                    }
                    String child = word();
                    expect(':');
                    children.add(typeWithNullability(child));
                } while (peek(','));
                expect('>');
                yield new Field(name, new FieldType(nullable, ArrowType.Struct.INSTANCE, null), children);
            }
            default -> throw error("unknown type '" + word + "'");
        };
    }

    private Field element() {
        return typeWithNullability("item");
    }

    /** {@code type [not null]}. */
    private Field typeWithNullability(String name) {
        int start = pos;
        Field probe = type(name, true);
        skipSpaces();
        if (text.startsWith("not null", pos)) {
            pos += "not null".length();
            pos = start;
            Field f = type(name, false);
            skipSpaces();
            pos += "not null".length();
            return f;
        }
        return probe;
    }

    private static Field leaf(String name, boolean nullable, ArrowType type) {
        return new Field(name, new FieldType(nullable, type, null), null);
    }

    private String word() {
        skipSpaces();
        int start = pos;
        while (pos < text.length() && (Character.isLetterOrDigit(text.charAt(pos)) || text.charAt(pos) == '_')) {
            pos++;
        }
        if (start == pos) {
            throw error("expected a name");
        }
        return text.substring(start, pos);
    }

    private int number() {
        String w = word();
        try {
            return Integer.parseInt(w);
        } catch (NumberFormatException e) {
            throw error("expected a number, got '" + w + "'");
        }
    }

    private boolean peek(char c) {
        skipSpaces();
        return pos < text.length() && text.charAt(pos) == c;
    }

    private void expect(char c) {
        if (!peek(c)) {
            throw error("expected '" + c + "'");
        }
        pos++;
    }

    private void skipSpaces() {
        while (pos < text.length() && text.charAt(pos) == ' ') {
            pos++;
        }
    }

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException(what + " at offset " + pos + " of type '" + text + "'");
    }
}
