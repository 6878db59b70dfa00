package dev.lanceflink.it.interop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

class DumpComparatorTest {

    private static final String SCHEMA = """
      "schema": [{"name":"id","type":"int64","nullable":false},
                 {"name":"score","type":"float32","nullable":true},
                 {"name":"x","type":"float64","nullable":true},
                 {"name":"amount","type":"decimal128(20, 4)","nullable":true},
                 {"name":"tags","type":"list<utf8>","nullable":true},
                 {"name":"emb","type":"fixed_size_list<float32, 2>","nullable":true},
                 {"name":"info","type":"struct<a: int32, t: timestamp[us, tz=UTC]>",
                  "nullable":true}]""";

    private static JsonNode dump(String rows) throws Exception {
        return DumpComparator.MAPPER.readTree("{\"version\": 1, " + SCHEMA + ", \"num_rows\": "
                + DumpComparator.MAPPER.readTree(rows).size() + ", \"rows\": " + rows + "}");
    }

    private static final String ROW0 = "{\"id\":0,\"score\":1.5,\"x\":0.1,\"amount\":1.5000,"
            + "\"tags\":[\"a\",null],\"emb\":[\"NaN\",0.25],"
            + "\"info\":{\"a\":1,\"t\":\"2020-09-13T12:26:41.000003Z\"}}";
    private static final String ROW1 =
            "{\"id\":1,\"score\":null,\"x\":\"-Infinity\"," + "\"amount\":null,\"tags\":[],\"emb\":null,\"info\":null}";

    @Test
    void equalDumpsHaveNoDifferences() throws Exception {
        JsonNode a = dump("[" + ROW0 + "," + ROW1 + "]");
        assertThat(DumpComparator.exact().differences(a, dump("[" + ROW0 + "," + ROW1 + "]")))
                .isEmpty();
    }

    @Test
    void float32IsComparedAsFloat32NotAsText() throws Exception {
        JsonNode expected = dump("[" + ROW0 + "]");
        // 1.50000001 rounds to the same float32 as 1.5; 0.25000003 does not equal 0.25.
        JsonNode sameFloat = dump("[" + ROW0.replace("\"score\":1.5", "\"score\":1.50000001") + "]");
        JsonNode otherFloat = dump("[" + ROW0.replace("0.25]", "0.25000003]") + "]");
        assertThat(DumpComparator.exact().differences(expected, sameFloat)).isEmpty();
        assertThat(DumpComparator.exact().differences(expected, otherFloat))
                .containsExactly("row 0, column 'emb'[1]: expected 0.25 but was 0.25000003");
        assertThat(DumpComparator.exact().withFloatUlps(1).differences(expected, otherFloat))
                .isEmpty();
    }

    @Test
    void messagesNameRowColumnAndPath() throws Exception {
        JsonNode expected = dump("[" + ROW0 + "," + ROW1 + "]");
        JsonNode actual = dump("["
                + ROW0.replace("\"score\":1.5", "\"score\":1.25")
                        .replace("\"a\",null", "\"a\",\"b\"")
                        .replace(".000003Z", ".000004Z")
                + ","
                + ROW1.replace("\"x\":\"-Infinity\"", "\"x\":\"NaN\"") + "]");
        assertThat(DumpComparator.exact().differences(expected, actual))
                .containsExactly(
                        "row 0, column 'score': expected 1.5 but was 1.25",
                        "row 0, column 'tags'[1]: expected null but was \"b\"",
                        "row 0, column 'info'.t: expected \"2020-09-13T12:26:41.000003Z\" but was "
                                + "\"2020-09-13T12:26:41.000004Z\"",
                        "row 1, column 'x': expected \"-Infinity\" but was \"NaN\"");
    }

    @Test
    void decimalsMustKeepTheirScale() throws Exception {
        JsonNode expected = dump("[" + ROW0 + "]");
        JsonNode actual = dump("[" + ROW0.replace("1.5000", "1.5") + "]");
        assertThat(DumpComparator.exact().differences(expected, actual))
                .containsExactly("row 0, column 'amount': expected 1.5000 but was 1.5 (scale differs)");
    }

    @Test
    void rowOrderMattersUnlessSorted() throws Exception {
        JsonNode expected = dump("[" + ROW0 + "," + ROW1 + "]");
        JsonNode swapped = dump("[" + ROW1 + "," + ROW0 + "]");
        assertThat(DumpComparator.exact().differences(expected, swapped)).isNotEmpty();
        assertThat(DumpComparator.exact().sortedBy("id").differences(expected, swapped))
                .isEmpty();
    }

    @Test
    void schemaAndRowCountDifferencesAreReported() throws Exception {
        JsonNode expected = dump("[" + ROW0 + "," + ROW1 + "]");
        JsonNode fewer = dump("[" + ROW0 + "]");
        assertThat(DumpComparator.exact().differences(expected, fewer))
                .containsExactly("num_rows: expected 2 but was 1", "rows: expected 2 rows but was 1");
        JsonNode otherSchema = DumpComparator.MAPPER.readTree(
                expected.toString().replace("\"type\":\"float64\"", "\"type\":\"float32\""));
        assertThat(DumpComparator.exact().differences(expected, otherSchema))
                .singleElement()
                .asString()
                .startsWith("schema: expected [");
        assertThatThrownBy(() -> DumpComparator.exact().assertSame(expected, fewer))
                .isInstanceOf(AssertionError.class)
                .hasMessage("dumps differ (2 differences):\n  num_rows: expected 2 but was 1\n"
                        + "  rows: expected 2 rows but was 1");
    }

    @Test
    void structChildTypesAreSplitAtTopLevelCommasOnly() {
        assertThat(DumpComparator.structChildren(
                        "struct<a: decimal128(20, 4), b: timestamp[us, tz=UTC], c: fixed_size_list<int8, 4>>"))
                .containsExactly(
                        java.util.Map.entry("a", "decimal128(20, 4)"),
                        java.util.Map.entry("b", "timestamp[us, tz=UTC]"),
                        java.util.Map.entry("c", "fixed_size_list<int8, 4>"));
    }
}
