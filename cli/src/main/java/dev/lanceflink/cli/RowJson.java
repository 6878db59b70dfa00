package dev.lanceflink.cli;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.StringWriter;
import java.lang.reflect.Array;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.MultisetType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.types.Row;

/**
 * Renders the rows of a Flink SQL result (the external Java objects {@code TableResult.collect()}
 * returns) as JSON with the value conventions of {@code dump} ({@link ArrowJson}), so that
 * {@code sql --format json} and {@code dump} print a table's values the same way:
 * <ul>
 *   <li>integers as numbers; FLOAT/DOUBLE as the shortest round-tripping plain decimal, NaN and
 *       infinities as strings; DECIMAL(p, s) as a number with exactly s fraction digits;
 *   <li>BINARY/BYTES as {@code "0x"} + lowercase hex; DATE as {@code YYYY-MM-DD};
 *   <li>TIMESTAMP(p) as {@code YYYY-MM-DDTHH:MM:SS} plus 0/3/6/9 fraction digits (the Arrow unit
 *       Lance stores that precision in: s, ms, us, ns), TIMESTAMP_LTZ the same in UTC plus {@code Z};
 *   <li>ARRAY as an array, ROW as an object of every field in order, MAP (like Arrow's map, a
 *       list of entries) as an array of {@code {"key": k, "value": v}} objects.
 * </ul>
 * Types Lance cannot store (TIME, INTERVAL, ...) but a query can compute are printed as strings
 * of Flink's own rendering.
 *
 * <p>The writer tree is built once per result schema, so rows are rendered without type
 * dispatch per cell.
 */
final class RowJson {
    private static final DateTimeFormatter SECONDS = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss", Locale.ROOT);

    /** Writes one non-null value of a known type. */
    interface ValueWriter {
        void write(JsonGenerator g, Object value) throws IOException;
    }

    private final List<String> names;
    private final ValueWriter[] writers;

    RowJson(List<String> names, List<LogicalType> types) {
        this.names = List.copyOf(names);
        this.writers = new ValueWriter[types.size()];
        for (int i = 0; i < writers.length; i++) {
            writers[i] = writerFor(types.get(i));
        }
    }

    /** Writes one row as an object with the result's column names. */
    void writeRow(JsonGenerator g, Row row) throws IOException {
        g.writeStartObject();
        for (int i = 0; i < writers.length; i++) {
            g.writeFieldName(names.get(i));
            Object v = row.getField(i);
            if (v == null) {
                g.writeNull();
            } else {
                writers[i].write(g, v);
            }
        }
        g.writeEndObject();
    }

    static ValueWriter writerFor(LogicalType type) {
        switch (type.getTypeRoot()) {
            case BOOLEAN:
                return (g, v) -> g.writeBoolean((Boolean) v);
            case TINYINT:
            case SMALLINT:
            case INTEGER:
                return (g, v) -> g.writeNumber(((Number) v).intValue());
            case BIGINT:
                return (g, v) -> g.writeNumber((Long) v);
            case FLOAT:
                return (g, v) -> {
                    float f = (Float) v;
                    if (Float.isFinite(f)) {
                        g.writeNumber(ArrowJson.shortestFloat(f));
                    } else {
                        g.writeString(ArrowJson.nonFinite(f));
                    }
                };
            case DOUBLE:
                return (g, v) -> {
                    double d = (Double) v;
                    if (Double.isFinite(d)) {
                        g.writeNumber(ArrowJson.shortestDouble(d));
                    } else {
                        g.writeString(ArrowJson.nonFinite(d));
                    }
                };
            case CHAR:
            case VARCHAR:
                return (g, v) -> g.writeString((String) v);
            case BINARY:
            case VARBINARY:
                return (g, v) -> g.writeString(ArrowJson.hex((byte[]) v));
            case DECIMAL: {
                int scale = ((DecimalType) type).getScale();
                return (g, v) -> g.writeNumber(((BigDecimal) v)
                        .setScale(scale, RoundingMode.UNNECESSARY)
                        .toPlainString());
            }
            case DATE:
                return (g, v) -> g.writeString(((LocalDate) v).toString());
            case TIMESTAMP_WITHOUT_TIME_ZONE: {
                int digits = fractionDigits(((TimestampType) type).getPrecision());
                return (g, v) -> g.writeString(timestamp((LocalDateTime) v, digits, false));
            }
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE: {
                int digits = fractionDigits(((LocalZonedTimestampType) type).getPrecision());
                return (g, v) ->
                        g.writeString(timestamp(LocalDateTime.ofInstant((Instant) v, ZoneOffset.UTC), digits, true));
            }
            case ARRAY: {
                ValueWriter element = writerFor(((ArrayType) type).getElementType());
                return (g, v) -> {
                    g.writeStartArray();
                    if (v instanceof Object[] values) {
                        for (Object e : values) {
                            writeNullable(g, element, e);
                        }
                    } else {
                        // Primitive arrays (a NOT NULL element type may convert to int[], double[], ...).
                        for (int i = 0, n = Array.getLength(v); i < n; i++) {
                            element.write(g, Array.get(v, i));
                        }
                    }
                    g.writeEndArray();
                };
            }
            case ROW: {
                RowType rowType = (RowType) type;
                RowJson nested = new RowJson(rowType.getFieldNames(), rowType.getChildren());
                return (g, v) -> nested.writeRow(g, (Row) v);
            }
            case MAP: {
                MapType m = (MapType) type;
                return entries(writerFor(m.getKeyType()), writerFor(m.getValueType()));
            }
            case MULTISET:
                return entries(writerFor(((MultisetType) type).getElementType()), (g, v) -> g.writeNumber((Integer) v));
            default:
                return (g, v) -> g.writeString(v.toString());
        }
    }

    private static ValueWriter entries(ValueWriter key, ValueWriter value) {
        return (g, v) -> {
            g.writeStartArray();
            for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                g.writeStartObject();
                g.writeFieldName("key");
                writeNullable(g, key, e.getKey());
                g.writeFieldName("value");
                writeNullable(g, value, e.getValue());
                g.writeEndObject();
            }
            g.writeEndArray();
        };
    }

    private static void writeNullable(JsonGenerator g, ValueWriter w, Object v) throws IOException {
        if (v == null) {
            g.writeNull();
        } else {
            w.write(g, v);
        }
    }

    /** Fraction digits of the Arrow unit Lance keeps a timestamp of this precision in. */
    static int fractionDigits(int precision) {
        return precision == 0 ? 0 : precision <= 3 ? 3 : precision <= 6 ? 6 : 9;
    }

    static String timestamp(LocalDateTime t, int digits, boolean utc) {
        StringBuilder out = new StringBuilder(32).append(SECONDS.format(t));
        if (digits > 0) {
            String nanos = Integer.toString(t.getNano());
            StringBuilder fraction = new StringBuilder(9);
            for (int i = nanos.length(); i < 9; i++) {
                fraction.append('0');
            }
            fraction.append(nanos);
            out.append('.').append(fraction, 0, digits);
        }
        if (utc) {
            out.append('Z');
        }
        return out.toString();
    }

    /** The plain-text form of a value for the table format: strings as they are, anything else as its JSON. */
    static List<String> cellTexts(RowJson json, Row row) throws IOException {
        List<String> out = new ArrayList<>(json.writers.length);
        for (int i = 0; i < json.writers.length; i++) {
            Object v = row.getField(i);
            if (v == null) {
                out.add("NULL");
            } else if (v instanceof String s) {
                out.add(s);
            } else {
                StringWriter text = new StringWriter();
                try (JsonGenerator g = Json.FACTORY.createGenerator(text)) {
                    json.writers[i].write(g, v);
                }
                String s = text.toString();
                // Strings inside JSON (dates, timestamps, hex) read better without their quotes in a table.
                out.add(s.length() >= 2 && s.charAt(0) == '"' ? s.substring(1, s.length() - 1) : s);
            }
        }
        return out;
    }
}
