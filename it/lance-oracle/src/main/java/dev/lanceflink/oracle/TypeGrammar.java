package dev.lanceflink.oracle;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

/**
 * The textual column-type grammar shared by {@code schema.json} (input of {@code write}) and the
 * {@code schema} section of every dump. One grammar for both directions means a dump can be fed
 * back to {@code write} unchanged, and our own CLI prints exactly the same strings.
 *
 * <pre>
 * type     := 'bool' | 'int8' | 'int16' | 'int32' | 'int64'
 *           | 'uint8' | 'uint16' | 'uint32' | 'uint64'
 *           | 'float16' | 'float32' | 'float64'
 *           | 'utf8' | 'large_utf8' | 'binary' | 'large_binary' | 'date32'
 *           | 'fixed_size_binary[' N ']'
 *           | 'timestamp[' unit ']' | 'timestamp[' unit ', tz=' zone ']'     unit := s | ms | us | ns
 *           | 'decimal128(' precision ', ' scale ')'
 *           | 'list<' element '>' | 'large_list<' element '>'
 *           | 'fixed_size_list<' element ', ' N '>'
 *           | 'struct<' member (', ' member)* '>'
 * element  := type [' not null']                      (list items are nullable unless marked)
 * member   := name ': ' type [' not null']             name := [A-Za-z_][A-Za-z0-9_]*
 * </pre>
 *
 * <p>Whitespace around punctuation is optional when parsing; {@link #format} always prints the
 * canonical spacing shown above. List and fixed-size-list children are named {@code item}; the
 * child name is not part of the grammar because readers must not depend on it.
 */
public final class TypeGrammar {

    private static final String ITEM = "item";

    private final String text;
    private int pos;

    private TypeGrammar(String text) {
        this.text = text;
    }

    /** Parses {@code type} into an Arrow field called {@code name}. */
    public static Field parseField(String name, String type, boolean nullable) {
        TypeGrammar parser = new TypeGrammar(type);
        Field field = parser.parseType(name, nullable);
        parser.skipSpaces();
        if (parser.pos != type.length()) {
            throw parser.error("unexpected text after the type");
        }
        return field;
    }

    /** The canonical type string of {@code field} (its own nullability is not part of it). */
    public static String format(Field field) {
        StringBuilder out = new StringBuilder();
        appendType(field, out);
        return out.toString();
    }

    private static void appendType(Field field, StringBuilder out) {
        ArrowType type = field.getType();
        switch (type.getTypeID()) {
            case Bool -> out.append("bool");
            case Int -> {
                ArrowType.Int t = (ArrowType.Int) type;
                out.append(t.getIsSigned() ? "int" : "uint").append(t.getBitWidth());
            }
            case FloatingPoint ->
                out.append(
                        switch (((ArrowType.FloatingPoint) type).getPrecision()) {
                            case HALF -> "float16";
                            case SINGLE -> "float32";
                            case DOUBLE -> "float64";
                        });
            case Utf8 -> out.append("utf8");
            case LargeUtf8 -> out.append("large_utf8");
            case Binary -> out.append("binary");
            case LargeBinary -> out.append("large_binary");
            case FixedSizeBinary ->
                out.append("fixed_size_binary[")
                        .append(((ArrowType.FixedSizeBinary) type).getByteWidth())
                        .append(']');
            case Date -> {
                if (((ArrowType.Date) type).getUnit() != DateUnit.DAY) {
                    throw new IllegalArgumentException(
                            "column '" + field.getName() + "': date64 is not part of the type grammar");
                }
                out.append("date32");
            }
            case Timestamp -> {
                ArrowType.Timestamp t = (ArrowType.Timestamp) type;
                out.append("timestamp[").append(unitName(t.getUnit()));
                if (t.getTimezone() != null) {
                    out.append(", tz=").append(t.getTimezone());
                }
                out.append(']');
            }
            case Decimal -> {
                ArrowType.Decimal t = (ArrowType.Decimal) type;
                if (t.getBitWidth() != 128) {
                    throw new IllegalArgumentException("column '" + field.getName()
                            + "': only decimal128 is part of the type grammar, found decimal" + t.getBitWidth());
                }
                out.append("decimal128(")
                        .append(t.getPrecision())
                        .append(", ")
                        .append(t.getScale())
                        .append(')');
            }
            case List -> appendElement("list<", field, out).append('>');
            case LargeList -> appendElement("large_list<", field, out).append('>');
            case FixedSizeList ->
                appendElement("fixed_size_list<", field, out)
                        .append(", ")
                        .append(((ArrowType.FixedSizeList) type).getListSize())
                        .append('>');
            case Struct -> {
                out.append("struct<");
                List<Field> children = field.getChildren();
                for (int i = 0; i < children.size(); i++) {
                    Field child = children.get(i);
                    out.append(i == 0 ? "" : ", ").append(child.getName()).append(": ");
                    appendType(child, out);
                    if (!child.isNullable()) {
                        out.append(" not null");
                    }
                }
                out.append('>');
            }
            default ->
                throw new IllegalArgumentException(
                        "column '" + field.getName() + "': Arrow type " + type + " is not part of the type grammar");
        }
    }

    private static StringBuilder appendElement(String prefix, Field field, StringBuilder out) {
        Field item = field.getChildren().get(0);
        out.append(prefix);
        appendType(item, out);
        if (!item.isNullable()) {
            out.append(" not null");
        }
        return out;
    }

    private static String unitName(TimeUnit unit) {
        return switch (unit) {
            case SECOND -> "s";
            case MILLISECOND -> "ms";
            case MICROSECOND -> "us";
            case NANOSECOND -> "ns";
        };
    }

    // ---------------------------------------------------------------- parser

    private Field parseType(String name, boolean nullable) {
        skipSpaces();
        String word = identifier();
        switch (word) {
            case "bool":
                return leaf(name, nullable, ArrowType.Bool.INSTANCE);
            case "int8":
            case "int16":
            case "int32":
            case "int64":
                return leaf(name, nullable, new ArrowType.Int(Integer.parseInt(word.substring(3)), true));
            case "uint8":
            case "uint16":
            case "uint32":
            case "uint64":
                return leaf(name, nullable, new ArrowType.Int(Integer.parseInt(word.substring(4)), false));
            case "float16":
                return leaf(name, nullable, new ArrowType.FloatingPoint(FloatingPointPrecision.HALF));
            case "float32":
                return leaf(name, nullable, new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE));
            case "float64":
                return leaf(name, nullable, new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE));
            case "utf8":
                return leaf(name, nullable, ArrowType.Utf8.INSTANCE);
            case "large_utf8":
                return leaf(name, nullable, ArrowType.LargeUtf8.INSTANCE);
            case "binary":
                return leaf(name, nullable, ArrowType.Binary.INSTANCE);
            case "large_binary":
                return leaf(name, nullable, ArrowType.LargeBinary.INSTANCE);
            case "date32":
                return leaf(name, nullable, new ArrowType.Date(DateUnit.DAY));
            case "fixed_size_binary": {
                expect('[');
                int width = positiveInt("byte width");
                expect(']');
                return leaf(name, nullable, new ArrowType.FixedSizeBinary(width));
            }
            case "timestamp": {
                expect('[');
                TimeUnit unit = timeUnit();
                String zone = null;
                if (tryConsume(',')) {
                    skipSpaces();
                    expectWord("tz");
                    expect('=');
                    zone = until(']').trim();
                    if (zone.isEmpty()) {
                        throw error("empty time zone");
                    }
                }
                expect(']');
                return leaf(name, nullable, new ArrowType.Timestamp(unit, zone));
            }
            case "decimal128": {
                expect('(');
                int precision = positiveInt("precision");
                expect(',');
                int scale = nonNegativeInt("scale");
                expect(')');
                if (precision > 38 || scale > precision) {
                    throw error("decimal128 needs 1 <= precision <= 38 and scale <= precision, got (" + precision + ", "
                            + scale + ")");
                }
                return leaf(name, nullable, new ArrowType.Decimal(precision, scale, 128));
            }
            case "list":
            case "large_list": {
                expect('<');
                Field item = element(ITEM);
                expect('>');
                ArrowType type = word.equals("list") ? ArrowType.List.INSTANCE : ArrowType.LargeList.INSTANCE;
                return new Field(name, new FieldType(nullable, type, null), List.of(item));
            }
            case "fixed_size_list": {
                expect('<');
                Field item = element(ITEM);
                expect(',');
                int size = positiveInt("list size");
                expect('>');
                return new Field(name, new FieldType(nullable, new ArrowType.FixedSizeList(size), null), List.of(item));
            }
            case "struct": {
                expect('<');
                List<Field> members = new ArrayList<>();
                do {
                    skipSpaces();
                    String member = identifier();
                    expect(':');
                    members.add(element(member));
                } while (tryConsume(','));
                expect('>');
                return new Field(name, new FieldType(nullable, ArrowType.Struct.INSTANCE, null), members);
            }
            default:
                throw error("unknown type '" + word + "'");
        }
    }

    /** A nested type, nullable unless followed by {@code not null}. */
    private Field element(String name) {
        int start = pos;
        Field parsed = parseType(name, true);
        skipSpaces();
        if (text.startsWith("not", pos)) {
            int save = pos;
            pos += 3;
            skipSpaces();
            if (text.startsWith("null", pos)) {
                pos += 4;
                // Rebuild with nullable=false; children are kept as parsed.
                return new Field(name, new FieldType(false, parsed.getType(), null), parsed.getChildren());
            }
            pos = save;
        }
        if (pos == start) {
            throw error("expected a type");
        }
        return parsed;
    }

    private static Field leaf(String name, boolean nullable, ArrowType type) {
        return new Field(name, new FieldType(nullable, type, null), null);
    }

    private TimeUnit timeUnit() {
        skipSpaces();
        String unit = identifier();
        return switch (unit) {
            case "s" -> TimeUnit.SECOND;
            case "ms" -> TimeUnit.MILLISECOND;
            case "us" -> TimeUnit.MICROSECOND;
            case "ns" -> TimeUnit.NANOSECOND;
            default -> throw error("unknown time unit '" + unit + "' (expected s, ms, us or ns)");
        };
    }

    private String identifier() {
        int start = pos;
        while (pos < text.length()) {
            char c = text.charAt(pos);
            boolean ok = c == '_'
                    || (c >= 'a' && c <= 'z')
                    || (c >= 'A' && c <= 'Z')
                    || (pos > start && c >= '0' && c <= '9');
            if (!ok) {
                break;
            }
            pos++;
        }
        if (pos == start) {
            throw error("expected a name");
        }
        return text.substring(start, pos);
    }

    private int positiveInt(String what) {
        int value = nonNegativeInt(what);
        if (value == 0) {
            throw error(what + " must be positive");
        }
        return value;
    }

    private int nonNegativeInt(String what) {
        skipSpaces();
        int start = pos;
        while (pos < text.length() && Character.isDigit(text.charAt(pos))) {
            pos++;
        }
        if (pos == start) {
            throw error("expected the " + what + " (a number)");
        }
        try {
            return Integer.parseInt(text.substring(start, pos));
        } catch (NumberFormatException e) {
            throw error(what + " is too large");
        }
    }

    private String until(char stop) {
        int start = pos;
        while (pos < text.length() && text.charAt(pos) != stop) {
            pos++;
        }
        return text.substring(start, pos);
    }

    private void expectWord(String word) {
        if (!text.startsWith(word, pos)) {
            throw error("expected '" + word + "'");
        }
        pos += word.length();
        skipSpaces();
    }

    private void expect(char c) {
        if (!tryConsume(c)) {
            throw error("expected '" + c + "'");
        }
    }

    private boolean tryConsume(char c) {
        skipSpaces();
        if (pos < text.length() && text.charAt(pos) == c) {
            pos++;
            return true;
        }
        return false;
    }

    private void skipSpaces() {
        while (pos < text.length() && text.charAt(pos) == ' ') {
            pos++;
        }
    }

    private IllegalArgumentException error(String message) {
        return new IllegalArgumentException(
                String.format(Locale.ROOT, "type \"%s\", offset %d: %s", text, pos, message));
    }
}
