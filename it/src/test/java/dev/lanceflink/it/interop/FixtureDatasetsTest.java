package dev.lanceflink.it.interop;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The Lance 7.0.0 fixture datasets (format-core test resources: one per group of encodings,
 * written by the official SDK) read through the whole table path — {@code Dataset.open},
 * manifest, {@code Scanner}, {@code bin/lance-flink dump} — give exactly the SDK's own read-back
 * in {@code <name>.expected.json}. format-core's {@code LanceFileReaderFixtureTest} checks the
 * same files at the file-reader level; this test adds everything above it.
 *
 * <p>The fixtures' expected rows use the SDK's {@code getObject} conventions (fixture README),
 * which are converted here to the dump conventions: float16 raw bits → value, date32 days →
 * date, LocalDateTime text → fixed 6 fraction digits, uint64 signed → unsigned, omitted null
 * struct children → explicit {@code null}.
 */
class FixtureDatasetsTest {

    private static final Path FIXTURES =
            Path.of("..", "format-core", "src", "test", "resources", "fixtures", "lance-7.0.0");
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final Pattern FSL = Pattern.compile("^fixed_size_list<(.*), (\\d+)>$");
    private static final DateTimeFormatter MICROS =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSS", Locale.ROOT);

    @ParameterizedTest
    @ValueSource(
            strings = {
                "v20_default_table",
                "v20_all",
                "v21_default_table",
                "v21_ints",
                "v21_strings",
                "v21_fullzip",
                "v21_huge",
                "v21_nested",
                "v21_const",
                "v21_options",
                "v22_default_table",
                "v22_ints",
                "v22_strings",
                "v22_fullzip",
                "v22_huge",
                "v22_nested",
                "v22_const",
                "v22_options"
            })
    void ourDumpEqualsTheSdksReadBack(String fixture) throws Exception {
        JsonNode sdk = DumpComparator.MAPPER.readTree(Files.readString(FIXTURES.resolve(fixture + ".expected.json")));
        JsonNode ours = OurCli.run("dump", FIXTURES.resolve(fixture + ".lance").toString());

        List<String> sdkColumns = new ArrayList<>();
        sdk.path("schema")
                .forEach(c -> sdkColumns.add(
                        c.path("name").asText() + ":" + c.path("nullable").asBoolean()));
        List<String> ourColumns = new ArrayList<>();
        ours.path("schema")
                .forEach(c -> ourColumns.add(
                        c.path("name").asText() + ":" + c.path("nullable").asBoolean()));
        assertThat(ourColumns).isEqualTo(sdkColumns);

        ObjectNode expected = DumpComparator.MAPPER.createObjectNode();
        expected.put("version", sdk.path("version").asLong());
        expected.set("schema", ours.path("schema"));
        expected.put("num_rows", sdk.path("num_rows").asLong());
        ArrayNode rows = expected.putArray("rows");
        for (JsonNode row : sdk.path("rows")) {
            ObjectNode converted = rows.addObject();
            for (JsonNode column : ours.path("schema")) {
                String name = column.path("name").asText();
                converted.set(name, convert(column.path("type").asText(), row.get(name)));
            }
        }
        DumpComparator.exact().withVersionCheck().assertSame(fixture, expected, ours);
    }

    /** One SDK {@code getObject} value of dump type {@code type} in the dump conventions. */
    private static JsonNode convert(String type, JsonNode value) {
        if (value == null || value.isNull()) {
            return NODES.nullNode();
        }
        if (type.startsWith("list<") || type.startsWith("large_list<")) {
            return items(stripNotNull(type.substring(type.indexOf('<') + 1, type.length() - 1)), value);
        }
        Matcher fsl = FSL.matcher(type);
        if (fsl.matches()) {
            return items(stripNotNull(fsl.group(1)), value);
        }
        if (type.startsWith("struct<")) {
            ObjectNode out = NODES.objectNode();
            for (Map.Entry<String, String> child :
                    DumpComparator.structChildren(type).entrySet()) {
                out.set(child.getKey(), convert(child.getValue(), value.get(child.getKey())));
            }
            return out;
        }
        return switch (type) {
            case "float16" -> floatNode(halfToFloat(value.intValue()));
            case "date32" ->
                NODES.textNode(LocalDate.ofEpochDay(value.longValue()).toString());
            case "timestamp[us]" -> NODES.textNode(MICROS.format(LocalDateTime.parse(value.asText())));
            case "uint64" ->
                NODES.numberNode(
                        value.bigIntegerValue().signum() < 0
                                ? value.bigIntegerValue().add(BigInteger.ONE.shiftLeft(64))
                                : value.bigIntegerValue());
            default -> value;
        };
    }

    private static ArrayNode items(String itemType, JsonNode value) {
        ArrayNode out = NODES.arrayNode();
        value.forEach(item -> out.add(convert(itemType, item)));
        return out;
    }

    private static String stripNotNull(String type) {
        return type.endsWith(" not null") ? type.substring(0, type.length() - 9) : type;
    }

    /** IEEE half-precision bits (as a signed 16-bit number) to the float it denotes exactly. */
    static float halfToFloat(int bits) {
        int sign = (bits >> 15) & 1;
        int exponent = (bits >> 10) & 0x1F;
        int mantissa = bits & 0x3FF;
        float magnitude;
        if (exponent == 0) {
            magnitude = mantissa * 0x1p-24f;
        } else if (exponent == 31) {
            magnitude = mantissa == 0 ? Float.POSITIVE_INFINITY : Float.NaN;
        } else {
            magnitude = Math.scalb((float) (1024 + mantissa), exponent - 25);
        }
        return sign == 1 ? -magnitude : magnitude;
    }

    private static JsonNode floatNode(float f) {
        if (Float.isNaN(f)) {
            return NODES.textNode("NaN");
        }
        if (Float.isInfinite(f)) {
            return NODES.textNode(f > 0 ? "Infinity" : "-Infinity");
        }
        return NODES.numberNode(new BigDecimal(Float.toString(f)));
    }
}
