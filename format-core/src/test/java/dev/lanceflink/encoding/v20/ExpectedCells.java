package dev.lanceflink.encoding.v20;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.util.Text;

/**
 * Compares Arrow cells with a fixture's {@code expected.json} under the conventions of the
 * fixtures README: the oracle printed Arrow Java's {@code getObject}, so this compares
 * {@code getObject} values (float16 as raw signed bits, timestamps as LocalDateTime strings,
 * binaries as 0x-hex, structs as maps without null children).
 */
final class ExpectedCells {
    private static final ObjectMapper MAPPER =
            new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

    private ExpectedCells() {}

    static JsonNode load(Path expectedJson) throws IOException {
        return MAPPER.readTree(expectedJson.toFile());
    }

    /** Asserts that cell {@code i} of {@code vector} equals {@code expected}. */
    static void assertCell(FieldVector vector, int i, JsonNode expected, String where) {
        assertValue(vector.getObject(i), expected, where);
    }

    static void assertValue(Object actual, JsonNode expected, String where) {
        if (expected == null || expected.isNull()) {
            assertThat(actual).as(where).isNull();
            return;
        }
        if (actual == null) {
            fail(where + ": expected " + expected + " but was null");
        }
        if (actual instanceof Float f) {
            assertThat(f).as(where).isEqualTo(expected.floatValue());
        } else if (actual instanceof Double d) {
            if (expected.isTextual()) {
                assertThat(d).as(where).isEqualTo(Double.valueOf(expected.asText()));
            } else {
                assertThat(d).as(where).isEqualTo(expected.doubleValue());
            }
        } else if (actual instanceof BigDecimal bd) {
            assertThat(bd.compareTo(new BigDecimal(expected.asText())))
                    .as(where + ": " + bd + " vs " + expected)
                    .isZero();
        } else if (actual instanceof Byte
                || actual instanceof Short
                || actual instanceof Integer
                || actual instanceof Long) {
            assertThat(expected.isIntegralNumber())
                    .as(where + ": expected " + expected + " to be an integer")
                    .isTrue();
            assertThat(((Number) actual).longValue()).as(where).isEqualTo(expected.longValue());
        } else if (actual instanceof Boolean b) {
            assertThat(expected.isBoolean()).as(where).isTrue();
            assertThat(b).as(where).isEqualTo(expected.booleanValue());
        } else if (actual instanceof Text || actual instanceof String) {
            assertThat(actual.toString()).as(where).isEqualTo(expected.asText());
        } else if (actual instanceof byte[] bytes) {
            assertThat("0x" + HexFormat.of().formatHex(bytes)).as(where).isEqualTo(expected.asText());
        } else if (actual instanceof LocalDateTime t) {
            assertThat(t.toString()).as(where).isEqualTo(expected.asText());
        } else if (actual instanceof List<?> list) {
            assertThat(expected.isArray())
                    .as(where + ": expected " + expected + " for list " + list)
                    .isTrue();
            assertThat(list).as(where + " size").hasSize(expected.size());
            for (int k = 0; k < list.size(); k++) {
                assertValue(list.get(k), expected.get(k), where + "[" + k + "]");
            }
        } else if (actual instanceof Map<?, ?> map) {
            assertThat(expected.isObject())
                    .as(where + ": expected " + expected + " for struct " + map)
                    .isTrue();
            assertThat(map.size())
                    .as(where + " keys " + map.keySet() + " vs " + expected)
                    .isEqualTo(expected.size());
            Iterator<Map.Entry<String, JsonNode>> it = expected.fields();
            while (it.hasNext()) {
                Map.Entry<String, JsonNode> e = it.next();
                assertThat(map.containsKey(e.getKey()))
                        .as(where + " has key " + e.getKey())
                        .isTrue();
                assertValue(map.get(e.getKey()), e.getValue(), where + "." + e.getKey());
            }
        } else {
            fail(where + ": no comparison for " + actual.getClass() + " (" + actual + ")");
        }
    }
}
