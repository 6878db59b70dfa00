package dev.lanceflink.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float2Vector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt2Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;

/**
 * Compares Arrow cells with the {@code <fixture>.expected.json} rows written by the official SDK,
 * under the value conventions of the fixtures README (e.g. float16 as raw signed bits, binaries as
 * lowercase hex, timestamps as {@code LocalDateTime.toString()}, null struct children omitted).
 */
final class ExpectedCells {
    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS);

    private ExpectedCells() {}

    static JsonNode load(Path expectedJson) throws IOException {
        return JSON.readTree(expectedJson.toFile());
    }

    /** Asserts that cell {@code i} of {@code v} equals {@code expected}; {@code where} names it in failures. */
    static void assertCell(String where, JsonNode expected, FieldVector v, int i) {
        if (expected == null || expected.isNull()) {
            assertThat(v.isNull(i)).as(where + " should be null").isTrue();
            return;
        }
        assertThat(v.isNull(i))
                .as(where + " should be " + expected + " but is null")
                .isFalse();
        if (v instanceof StructVector s) {
            List<FieldVector> children = s.getChildrenFromFields();
            int present = 0;
            for (FieldVector c : children) {
                JsonNode e = expected.get(c.getName());
                if (e != null) {
                    present++;
                }
                assertCell(where + "." + c.getName(), e, c, i);
            }
            assertThat(present)
                    .as(where + " has unexpected fields: " + expected)
                    .isEqualTo(expected.size());
            return;
        }
        if (v instanceof ListVector l) {
            int start = l.getOffsetBuffer().getInt(4L * i);
            int end = l.getOffsetBuffer().getInt(4L * (i + 1));
            assertList(where, expected, l.getDataVector(), start, end);
            return;
        }
        if (v instanceof LargeListVector l) {
            int start = (int) l.getOffsetBuffer().getLong(8L * i);
            int end = (int) l.getOffsetBuffer().getLong(8L * (i + 1));
            assertList(where, expected, l.getDataVector(), start, end);
            return;
        }
        if (v instanceof FixedSizeListVector l) {
            int dim = l.getListSize();
            assertList(where, expected, l.getDataVector(), i * dim, (i + 1) * dim);
            return;
        }
        assertScalar(where, expected, v, i);
    }

    private static void assertList(String where, JsonNode expected, FieldVector items, int start, int end) {
        assertThat(expected.isArray())
                .as(where + ": expected " + expected + " but got a list")
                .isTrue();
        assertThat(end - start).as(where + " list length").isEqualTo(expected.size());
        Iterator<JsonNode> it = expected.elements();
        for (int j = start; j < end; j++) {
            assertCell(where + "[" + (j - start) + "]", it.next(), items, j);
        }
    }

    private static void assertScalar(String where, JsonNode e, FieldVector v, int i) {
        if (v instanceof Float4Vector f) {
            assertThat(f.get(i))
                    .as(where)
                    .isEqualTo(
                            e.isTextual()
                                    ? Float.parseFloat(e.asText())
                                    : e.decimalValue().floatValue());
        } else if (v instanceof Float8Vector f) {
            if (e.isTextual()) {
                assertThat(Double.toString(f.get(i))).as(where).isEqualTo(e.asText());
            } else {
                assertThat(f.get(i)).as(where).isEqualTo(e.decimalValue().doubleValue());
            }
        } else if (v instanceof Float2Vector f) {
            assertThat((long) f.getDataBuffer().getShort(2L * i)).as(where).isEqualTo(e.asLong());
        } else if (v instanceof UInt1Vector u) {
            assertThat((long) (u.get(i) & 0xFF)).as(where).isEqualTo(e.asLong());
        } else if (v instanceof UInt2Vector u) {
            assertThat((long) u.get(i)).as(where).isEqualTo(e.asLong());
        } else if (v instanceof UInt4Vector u) {
            assertThat(u.get(i) & 0xFFFFFFFFL).as(where).isEqualTo(e.asLong());
        } else if (v instanceof BaseIntVector n) {
            assertThat(n.getValueAsLong(i))
                    .as(where)
                    .isEqualTo(e.bigIntegerValue().longValue());
        } else if (v instanceof BitVector b) {
            assertThat(b.get(i) != 0).as(where).isEqualTo(e.asBoolean());
        } else if (v instanceof VarCharVector s) {
            assertThat(new String(s.get(i), java.nio.charset.StandardCharsets.UTF_8))
                    .as(where)
                    .isEqualTo(e.asText());
        } else if (v instanceof LargeVarCharVector s) {
            assertThat(new String(s.get(i), java.nio.charset.StandardCharsets.UTF_8))
                    .as(where)
                    .isEqualTo(e.asText());
        } else if (v instanceof VarBinaryVector b) {
            assertThat(hex(b.get(i))).as(where).isEqualTo(e.asText());
        } else if (v instanceof LargeVarBinaryVector b) {
            assertThat(hex(b.get(i))).as(where).isEqualTo(e.asText());
        } else if (v instanceof FixedSizeBinaryVector b) {
            assertThat(hex(b.get(i))).as(where).isEqualTo(e.asText());
        } else if (v instanceof DateDayVector d) {
            assertThat((long) d.get(i)).as(where).isEqualTo(e.asLong());
        } else if (v instanceof TimeStampVector t) {
            assertThat(String.valueOf(t.getObject(i))).as(where).isEqualTo(e.asText());
        } else if (v instanceof DecimalVector d) {
            assertThat(d.getObject(i)).as(where).isEqualByComparingTo(new BigDecimal(e.asText()));
        } else {
            fail(where + ": no comparison for " + v.getClass().getSimpleName());
        }
    }

    private static String hex(byte[] b) {
        return "0x" + HexFormat.of().formatHex(b);
    }
}
