package dev.lanceflink.oracle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/** The dump rendering rules, and loading rows.json back through {@link RowLoader}. */
class DumpFormatTest {

    @Test
    void floatsPrintTheShortestRoundTrippingDecimalInPlainNotation() {
        assertThat(DumpFormat.shortestFloat(0.1f)).isEqualTo("0.1");
        assertThat(DumpFormat.shortestFloat(1.0f)).isEqualTo("1.0");
        assertThat(DumpFormat.shortestFloat(-0.0f)).isEqualTo("-0.0");
        assertThat(DumpFormat.shortestFloat(1.0e10f)).isEqualTo("10000000000.0");
        assertThat(DumpFormat.shortestFloat(Float.MIN_VALUE))
                .isEqualTo("0.000000000000000000000000000000000000000000001");
        // JDK 17's Double.toString prints 1.0E23 as "9.999999999999999E22" and 2.0E23 as
        // "1.9999999999999998E23"; the explicit search finds the shortest digits.
        assertThat(DumpFormat.shortestFloat(0.002f)).isEqualTo("0.002");
        assertThat(DumpFormat.shortestDouble(1.0e23)).isEqualTo("100000000000000000000000.0");
        assertThat(DumpFormat.shortestDouble(2.0e23)).isEqualTo("200000000000000000000000.0");
        assertThat(DumpFormat.shortestDouble(0.1 + 0.2)).isEqualTo("0.30000000000000004");
        assertThat(DumpFormat.floatNode(Float.NaN).textValue()).isEqualTo("NaN");
        assertThat(DumpFormat.doubleNode(Double.NEGATIVE_INFINITY).textValue()).isEqualTo("-Infinity");
    }

    @Test
    void timestampsAlwaysShowSecondsAndTheUnitsDigits() {
        assertThat(DumpFormat.timestamp(1_600_000_001_000_003L, TimeUnit.MICROSECOND, false))
                .isEqualTo("2020-09-13T12:26:41.000003");
        assertThat(DumpFormat.timestamp(1_600_000_000_000_000L, TimeUnit.MICROSECOND, true))
                .isEqualTo("2020-09-13T12:26:40.000000Z");
        assertThat(DumpFormat.timestamp(-1L, TimeUnit.MICROSECOND, false)).isEqualTo("1969-12-31T23:59:59.999999");
        assertThat(DumpFormat.timestamp(-1L, TimeUnit.SECOND, false)).isEqualTo("1969-12-31T23:59:59");
        assertThat(DumpFormat.timestamp(1L, TimeUnit.NANOSECOND, true)).isEqualTo("1970-01-01T00:00:00.000000001Z");
        assertThat(DumpFormat.parseTimestamp("1969-12-31T23:59:59.999999", TimeUnit.MICROSECOND, false))
                .isEqualTo(-1L);
        assertThat(DumpFormat.parseTimestamp("2020-09-13T14:26:40+02:00", TimeUnit.MILLISECOND, true))
                .isEqualTo(1_600_000_000_000L);
        assertThatThrownBy(() -> DumpFormat.parseTimestamp("2020-09-13T12:26:40.0000001", TimeUnit.MICROSECOND, false))
                .hasMessageContaining("finer than the column's unit");
    }

    @Test
    void binaryIsLowercaseHex() {
        assertThat(DumpFormat.hex(new byte[] {0, (byte) 0xAB, 0x7f})).isEqualTo("0x00ab7f");
        assertThat(DumpFormat.hex(new byte[0])).isEqualTo("0x");
        assertThat(DumpFormat.unhex("0x00AB7f")).containsExactly(0, 0xAB, 0x7f);
        assertThatThrownBy(() -> DumpFormat.unhex("0xabc")).hasMessageContaining("\"0x\" + hex pairs");
        assertThatThrownBy(() -> DumpFormat.unhex("0xa-")).hasMessageContaining("not a hex digit in '0xa-'");
    }

    @Test
    void rowsLoadAndRenderBackUnchanged() throws Exception {
        String schemaJson = """
        [{"name":"id","type":"int64","nullable":false},
         {"name":"u","type":"uint64"},
         {"name":"f","type":"float32"},
         {"name":"h","type":"fixed_size_list<float16, 2>"},
         {"name":"d","type":"decimal128(20, 4)"},
         {"name":"day","type":"date32"},
         {"name":"ts","type":"timestamp[us, tz=UTC]"},
         {"name":"l","type":"large_list<utf8>"},
         {"name":"s","type":"struct<a: int32, b: binary>"}]""";
        String rowsJson = """
        [{"id":1,"u":18446744073709551615,"f":0.1,"h":[0.25,null],"d":-12.3400,
          "day":"1969-12-31","ts":"2020-09-13T12:26:41.000003Z","l":["",null,"\u00e9"],
          "s":{"a":null,"b":"0x00ff"}},
         {"id":2,"u":null,"f":"-Infinity","h":null,"d":null,"day":null,"ts":null,"l":[],
          "s":null}]""";
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("dumpformat");
        java.nio.file.Path schemaFile = dir.resolve("schema.json");
        java.nio.file.Files.writeString(schemaFile, schemaJson);
        Schema schema = LanceOracle.readSchema(schemaFile);
        JsonNode rows = LanceOracle.JSON.readTree(rowsJson);
        try (BufferAllocator allocator = new RootAllocator();
                VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
            RowLoader.load(rows, root);
            assertThat(root.getRowCount()).isEqualTo(2);
            ArrayNode rendered = DumpFormat.NODES.arrayNode();
            for (int r = 0; r < root.getRowCount(); r++) {
                ObjectNode row = rendered.addObject();
                for (FieldVector v : root.getFieldVectors()) {
                    row.set(v.getName(), DumpFormat.cell(v, r));
                }
            }
            assertThat(LanceOracle.JSON.writeValueAsString(rendered))
                    .isEqualTo("[{\"id\":1,\"u\":18446744073709551615,\"f\":0.1,\"h\":[0.25,null],\"d\":-12.3400,"
                            + "\"day\":\"1969-12-31\",\"ts\":\"2020-09-13T12:26:41.000003Z\","
                            + "\"l\":[\"\",null,\"\u00e9\"],\"s\":{\"a\":null,\"b\":\"0x00ff\"}},"
                            + "{\"id\":2,\"u\":null,\"f\":\"-Infinity\",\"h\":null,\"d\":null,\"day\":null,"
                            + "\"ts\":null,\"l\":[],\"s\":null}]");
            assertThat(OracleCommands.schemaJson(schema).toString())
                    .contains("{\"name\":\"l\",\"type\":\"large_list<utf8>\",\"nullable\":true}");
        }
    }

    @Test
    void rowErrorsNameRowColumnAndProblem() throws Exception {
        Schema schema = new Schema(List.of(
                TypeGrammar.parseField("i8", "int8", true),
                TypeGrammar.parseField("d", "decimal128(6, 2)", true),
                TypeGrammar.parseField("h", "float16", true),
                TypeGrammar.parseField("v", "fixed_size_list<int32, 2>", true)));
        try (BufferAllocator allocator = new RootAllocator();
                VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
            assertThatThrownBy(() -> RowLoader.load(LanceOracle.JSON.readTree("[{\"i8\":1},{\"i8\":300}]"), root))
                    .hasMessage("row 1, column 'i8': 300 is outside [-128, 127]");
            assertThatThrownBy(() -> RowLoader.load(LanceOracle.JSON.readTree("[{\"d\":1.234}]"), root))
                    .hasMessage("row 0, column 'd': 1.234 has more than 2 fractional digits");
            assertThatThrownBy(() -> RowLoader.load(LanceOracle.JSON.readTree("[{\"h\":0.1}]"), root))
                    .hasMessage("row 0, column 'h': 0.1 is not exactly representable as float16");
            assertThatThrownBy(() -> RowLoader.load(LanceOracle.JSON.readTree("[{\"v\":[1,2,3]}]"), root))
                    .hasMessage("row 0, column 'v': fixed_size_list of 2 items got 3");
            assertThatThrownBy(() -> RowLoader.load(LanceOracle.JSON.readTree("[{\"x\":1}]"), root))
                    .hasMessage("row 0: column 'x' is not in the schema");
        }
    }
}
