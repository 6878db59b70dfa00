package dev.lanceflink.it.interop;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.flink.types.LanceTypeMapping;
import dev.lanceflink.flink.types.VectorDimensions;
import java.nio.file.Path;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every Flink SQL type the sink writes, through {@code INSERT INTO} on a table created from the
 * Flink declaration with {@link LanceTypeMapping} (what a catalog does): Flink's SELECT returns
 * the inserted values, and the official SDK reads exactly the same values (its dump compared cell
 * by cell with the expected one). Nested ROWs and lists, and TIMESTAMP(3) into the microsecond
 * columns Lance stores it in, alike; TIME columns are checked through the SDK's schema, row count
 * and a filter it evaluates (the oracle's dump cannot render times).
 */
class SqlTypeMatrixInteropITCase {

    private static final String COLUMNS = "id INT NOT NULL, b BOOLEAN, i8 TINYINT, i16 SMALLINT, "
            + "i64 BIGINT, f32 FLOAT, f64 DOUBLE, dec10 DECIMAL(10, 2), dec38 DECIMAL(38, 6), c CHAR(3), "
            + "vc VARCHAR(20), s STRING, bin BINARY(4), vb VARBINARY(10), bs BYTES, d DATE, "
            + "ts6 TIMESTAMP(6), ts9 TIMESTAMP(9), ltz6 TIMESTAMP_LTZ(6), ltz9 TIMESTAMP_LTZ(9)";

    /** Extremes, all NULL, other extremes; the session time zone is UTC. */
    private static final String INSERT = "INSERT INTO t VALUES "
            + "(1, TRUE, CAST(-128 AS TINYINT), CAST(-32768 AS SMALLINT), -9223372036854775808,"
            + " CAST(1.5 AS FLOAT), 2.25E-300, 12345678.91,"
            + " CAST('12345678901234567890123456789012.123456' AS DECIMAL(38, 6)), CAST('abc' AS CHAR(3)),"
            + " 'héllo wörld', '日本語 ✓', CAST(X'01020304' AS BINARY(4)), X'', X'ff00',"
            + " DATE '1969-12-31', TIMESTAMP '1969-12-31 23:59:59.999999',"
            + " TIMESTAMP '2026-01-01 00:00:00.123456789',"
            + " CAST(TIMESTAMP '2026-11-29 21:00:00.000001' AS TIMESTAMP_LTZ(6)),"
            + " CAST(TIMESTAMP '1900-01-01 00:00:00.000000001' AS TIMESTAMP_LTZ(9))), "
            + "(2, CAST(NULL AS BOOLEAN), CAST(NULL AS TINYINT), CAST(NULL AS SMALLINT),"
            + " CAST(NULL AS BIGINT), CAST(NULL AS FLOAT), CAST(NULL AS DOUBLE),"
            + " CAST(NULL AS DECIMAL(10, 2)), CAST(NULL AS DECIMAL(38, 6)), CAST(NULL AS CHAR(3)),"
            + " CAST(NULL AS VARCHAR(20)), CAST(NULL AS STRING), CAST(NULL AS BINARY(4)),"
            + " CAST(NULL AS VARBINARY(10)), CAST(NULL AS BYTES), CAST(NULL AS DATE),"
            + " CAST(NULL AS TIMESTAMP(6)), CAST(NULL AS TIMESTAMP(9)), CAST(NULL AS TIMESTAMP_LTZ(6)),"
            + " CAST(NULL AS TIMESTAMP_LTZ(9))), "
            + "(3, FALSE, CAST(127 AS TINYINT), CAST(32767 AS SMALLINT), 9223372036854775807,"
            + " CAST(-1.5E38 AS FLOAT), -1.7976931348623157E308, -0.01,"
            + " CAST('-99999999999999999999999999999999.999999' AS DECIMAL(38, 6)), CAST('x' AS CHAR(3)),"
            + " '', '', CAST(X'00' AS BINARY(4)), X'00ff00ff00ff00ff00ff', X'00', DATE '9999-12-31',"
            + " TIMESTAMP '0001-01-01 00:00:00', TIMESTAMP '2262-04-11 23:47:16.854775807',"
            + " CAST(TIMESTAMP '1970-01-01 00:00:00' AS TIMESTAMP_LTZ(6)),"
            + " CAST(TIMESTAMP '1677-09-21 00:12:43.145224192' AS TIMESTAMP_LTZ(9)))";

    /** Flink's SELECT * of the inserted rows, in id order. */
    private static final List<String> FLINK_ROWS = List.of(
            "+I[1, true, -128, -32768, -9223372036854775808, 1.5, 2.25E-300, 12345678.91,"
                    + " 12345678901234567890123456789012.123456, abc, héllo wörld, 日本語 ✓, [1, 2, 3, 4], [],"
                    + " [-1, 0], 1969-12-31, 1969-12-31T23:59:59.999999, 2026-01-01T00:00:00.123456789,"
                    + " 2026-11-29T21:00:00.000001Z, 1900-01-01T00:00:00.000000001Z]",
            "+I[2, null, null, null, null, null, null, null, null, null, null, null, null, null, null,"
                    + " null, null, null, null, null]",
            "+I[3, false, 127, 32767, 9223372036854775807, -1.5E38, -1.7976931348623157E308,"
                    + " -0.01, -99999999999999999999999999999999.999999, x  , , , [0, 0, 0, 0],"
                    + " [0, -1, 0, -1, 0, -1, 0, -1, 0, -1], [0], 9999-12-31, 0001-01-01T00:00,"
                    + " 2262-04-11T23:47:16.854775807, 1970-01-01T00:00:00Z, 1677-09-21T00:12:43.145224192Z]");

    /** The SDK's dump of the same table (conventions: it/README.md, "Dump format"). */
    private static final String SDK_DUMP = """
      {"schema": [
        {"name": "id", "type": "int32", "nullable": false},
        {"name": "b", "type": "bool", "nullable": true},
        {"name": "i8", "type": "int8", "nullable": true},
        {"name": "i16", "type": "int16", "nullable": true},
        {"name": "i64", "type": "int64", "nullable": true},
        {"name": "f32", "type": "float32", "nullable": true},
        {"name": "f64", "type": "float64", "nullable": true},
        {"name": "dec10", "type": "decimal128(10, 2)", "nullable": true},
        {"name": "dec38", "type": "decimal128(38, 6)", "nullable": true},
        {"name": "c", "type": "utf8", "nullable": true},
        {"name": "vc", "type": "utf8", "nullable": true},
        {"name": "s", "type": "utf8", "nullable": true},
        {"name": "bin", "type": "binary", "nullable": true},
        {"name": "vb", "type": "binary", "nullable": true},
        {"name": "bs", "type": "binary", "nullable": true},
        {"name": "d", "type": "date32", "nullable": true},
        {"name": "ts6", "type": "timestamp[us]", "nullable": true},
        {"name": "ts9", "type": "timestamp[ns]", "nullable": true},
        {"name": "ltz6", "type": "timestamp[us, tz=UTC]", "nullable": true},
        {"name": "ltz9", "type": "timestamp[ns, tz=UTC]", "nullable": true}],
       "num_rows": 3,
       "rows": [
        {"id": 1, "b": true, "i8": -128, "i16": -32768, "i64": -9223372036854775808,
         "f32": 1.5, "f64": 2.25E-300, "dec10": 12345678.91,
         "dec38": 12345678901234567890123456789012.123456, "c": "abc", "vc": "héllo wörld",
         "s": "日本語 ✓", "bin": "0x01020304", "vb": "0x", "bs": "0xff00", "d": "1969-12-31",
         "ts6": "1969-12-31T23:59:59.999999", "ts9": "2026-01-01T00:00:00.123456789",
         "ltz6": "2026-11-29T21:00:00.000001Z", "ltz9": "1900-01-01T00:00:00.000000001Z"},
        {"id": 2, "b": null, "i8": null, "i16": null, "i64": null, "f32": null, "f64": null,
         "dec10": null, "dec38": null, "c": null, "vc": null, "s": null, "bin": null, "vb": null,
         "bs": null, "d": null, "ts6": null, "ts9": null, "ltz6": null, "ltz9": null},
        {"id": 3, "b": false, "i8": 127, "i16": 32767, "i64": 9223372036854775807,
         "f32": -1.5E38, "f64": -1.7976931348623157E308, "dec10": -0.01,
         "dec38": -99999999999999999999999999999999.999999, "c": "x  ", "vc": "", "s": "",
         "bin": "0x00000000", "vb": "0x00ff00ff00ff00ff00ff", "bs": "0x00", "d": "9999-12-31",
         "ts6": "0001-01-01T00:00:00.000000", "ts9": "2262-04-11T23:47:16.854775807",
         "ltz6": "1970-01-01T00:00:00.000000Z", "ltz9": "1677-09-21T00:12:43.145224192Z"}]}
      """;

    @TempDir
    Path dir;

    /** Creates an empty Lance table with the Arrow schema the Flink declaration maps to. */
    private static void createFromDeclaration(String uri, String columns, String dimensions) throws Exception {
        TableEnvironment probe = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        probe.executeSql("CREATE TABLE p (" + columns + ") WITH ('connector' = 'blackhole')");
        RowType rowType = (RowType)
                probe.from("p").getResolvedSchema().toPhysicalRowDataType().getLogicalType();
        Map<String, String> dims = dimensions.isEmpty()
                ? Map.of()
                : Map.of(dimensions.split(":")[0], dimensions.split(":")[1]);
        Schema arrow = LanceTypeMapping.toArrowSchema(rowType, VectorDimensions.parse(dims));
        Dataset.write(uri, Map.of(), List.of(), arrow, WriteParams.of(WriteMode.CREATE))
                .close();
    }

    private static TableEnvironment sql(String uri, String columns, String extraOptions) {
        TableEnvironment t = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        t.getConfig().set("parallelism.default", "1");
        t.getConfig().setLocalTimeZone(ZoneId.of("UTC"));
        t.executeSql("CREATE TABLE t (" + columns + ") WITH ('connector' = 'lance', 'path' = '" + uri + "'"
                + extraOptions + ")");
        return t;
    }

    private static List<String> select(TableEnvironment t, String query) throws Exception {
        List<String> out = new ArrayList<>();
        try (CloseableIterator<Row> it = t.executeSql(query).collect()) {
            it.forEachRemaining(r -> out.add(r.toString()));
        }
        return out;
    }

    private static long latestVersion(String uri) throws Exception {
        try (Dataset d = Dataset.open(uri, Map.of())) {
            return d.version();
        }
    }

    @Test
    void everyWritableTypeRoundTripsThroughSqlAndTheSdkReadsTheSameValues() throws Exception {
        String uri = dir.resolve("types.lance").toString();
        createFromDeclaration(uri, COLUMNS, "");
        TableEnvironment t = sql(uri, COLUMNS, "");
        t.executeSql(INSERT).await();

        assertThat(select(t, "SELECT * FROM t ORDER BY id")).containsExactlyElementsOf(FLINK_ROWS);
        assertThat(latestVersion(uri)).isEqualTo(2);
        JsonNode sdk = OracleProcess.fromBuild().run("dump", uri, "--order-by", "id");
        DumpComparator.exact()
                .assertSame("the SDK's read of the SQL-written table", DumpComparator.MAPPER.readTree(SDK_DUMP), sdk);
    }

    @Test
    void vectorsAndListsWrittenThroughSqlAreReadByTheSdk() throws Exception {
        String uri = dir.resolve("vectors.lance").toString();
        String columns = "id INT NOT NULL, embedding ARRAY<FLOAT>, tags ARRAY<STRING>";
        createFromDeclaration(uri, columns, "embedding:2");
        TableEnvironment t = sql(uri, columns, ", 'vector-dimensions' = 'embedding:2'");
        t.executeSql("INSERT INTO t VALUES (1, ARRAY[CAST(1.5 AS FLOAT), CAST(-2.0 AS FLOAT)],"
                        + " ARRAY['a', 'b']), (2, CAST(NULL AS ARRAY<FLOAT>), ARRAY['x'])")
                .await();

        JsonNode sdk = OracleProcess.fromBuild().run("dump", uri, "--order-by", "id");
        assertThat(sdk.get("rows").toString())
                .isEqualTo("[{\"id\":1,\"embedding\":[1.5,-2.0],\"tags\":[\"a\",\"b\"]},"
                        + "{\"id\":2,\"embedding\":null,\"tags\":[\"x\"]}]");
        assertThat(latestVersion(uri)).isEqualTo(2);
    }

    /** Nested ROWs, ARRAY of ROW, nested and decimal lists, millisecond timestamps. */
    private static final String NESTED_COLUMNS = "id INT NOT NULL, st ROW<a INT, b STRING>,"
            + " deep ROW<sub ROW<x DOUBLE, tags ARRAY<STRING>>, n BIGINT>,"
            + " pts ARRAY<ROW<x DOUBLE, y DOUBLE>>, grid ARRAY<ARRAY<INT>>, decs ARRAY<DECIMAL(10, 2)>,"
            + " ts3 TIMESTAMP(3), ltz3 TIMESTAMP_LTZ(3)";

    /** NULL at each level; TIMESTAMP(3) and TIMESTAMP_LTZ(3) go into microsecond columns. */
    private static final String NESTED_INSERT = "INSERT INTO t VALUES "
            + "(1, ROW(1, 'a'), ROW(ROW(1.5, ARRAY['x', CAST(NULL AS STRING)]), 7),"
            + " ARRAY[ROW(1.0, 2.0), CAST(NULL AS ROW<x DOUBLE, y DOUBLE>), ROW(CAST(NULL AS DOUBLE), -3.0)],"
            + " ARRAY[ARRAY[1, 2], CAST(NULL AS ARRAY<INT>), ARRAY[CAST(NULL AS INT)]],"
            + " ARRAY[CAST(-1.25 AS DECIMAL(10, 2)), CAST(NULL AS DECIMAL(10, 2))],"
            + " TIMESTAMP '1969-12-31 23:59:59.999',"
            + " CAST(TIMESTAMP '2026-11-29 21:00:00.123' AS TIMESTAMP_LTZ(3))), "
            + "(2, CAST(NULL AS ROW<a INT, b STRING>),"
            + " ROW(CAST(NULL AS ROW<x DOUBLE, tags ARRAY<STRING>>), 8),"
            + " CAST(NULL AS ARRAY<ROW<x DOUBLE, y DOUBLE>>), CAST(NULL AS ARRAY<ARRAY<INT>>),"
            + " CAST(NULL AS ARRAY<DECIMAL(10, 2)>), CAST(NULL AS TIMESTAMP(3)),"
            + " CAST(NULL AS TIMESTAMP_LTZ(3))), "
            + "(3, ROW(CAST(NULL AS INT), CAST(NULL AS STRING)),"
            + " ROW(ROW(CAST(NULL AS DOUBLE), CAST(NULL AS ARRAY<STRING>)), CAST(NULL AS BIGINT)),"
            + " ARRAY[ROW(0.0, 0.0)], ARRAY[ARRAY_REMOVE(ARRAY[0], 0)],"
            + " ARRAY_REMOVE(ARRAY[CAST(0 AS DECIMAL(10, 2))], CAST(0 AS DECIMAL(10, 2))),"
            + " TIMESTAMP '2262-04-11 23:47:16.854',"
            + " CAST(TIMESTAMP '0001-01-01 00:00:00.001' AS TIMESTAMP_LTZ(3)))";

    private static final List<String> NESTED_FLINK_ROWS = List.of(
            "+I[1, +I[1, a], +I[+I[1.5, [x, null]], 7], [+I[1.0, 2.0], null, +I[null, -3.0]],"
                    + " [[1, 2], null, [null]], [-1.25, null], 1969-12-31T23:59:59.999,"
                    + " 2026-11-29T21:00:00.123Z]",
            "+I[2, null, +I[null, 8], null, null, null, null, null]",
            "+I[3, +I[null, null], +I[+I[null, null], null], [+I[0.0, 0.0]], [[]], [],"
                    + " 2262-04-11T23:47:16.854, 0001-01-01T00:00:00.001Z]");

    private static final String NESTED_SDK_DUMP = """
      {"schema": [
        {"name": "id", "type": "int32", "nullable": false},
        {"name": "st", "type": "struct<a: int32, b: utf8>", "nullable": true},
        {"name": "deep", "type": "struct<sub: struct<x: float64, tags: list<utf8>>, n: int64>",
         "nullable": true},
        {"name": "pts", "type": "list<struct<x: float64, y: float64>>", "nullable": true},
        {"name": "grid", "type": "list<list<int32>>", "nullable": true},
        {"name": "decs", "type": "list<decimal128(10, 2)>", "nullable": true},
        {"name": "ts3", "type": "timestamp[us]", "nullable": true},
        {"name": "ltz3", "type": "timestamp[us, tz=UTC]", "nullable": true}],
       "num_rows": 3,
       "rows": [
        {"id": 1, "st": {"a": 1, "b": "a"},
         "deep": {"sub": {"x": 1.5, "tags": ["x", null]}, "n": 7},
         "pts": [{"x": 1.0, "y": 2.0}, null, {"x": null, "y": -3.0}],
         "grid": [[1, 2], null, [null]], "decs": [-1.25, null],
         "ts3": "1969-12-31T23:59:59.999000", "ltz3": "2026-11-29T21:00:00.123000Z"},
        {"id": 2, "st": null, "deep": {"sub": null, "n": 8}, "pts": null, "grid": null,
         "decs": null, "ts3": null, "ltz3": null},
        {"id": 3, "st": {"a": null, "b": null},
         "deep": {"sub": {"x": null, "tags": null}, "n": null},
         "pts": [{"x": 0.0, "y": 0.0}], "grid": [[]], "decs": [],
         "ts3": "2262-04-11T23:47:16.854000", "ltz3": "0001-01-01T00:00:00.001000Z"}]}
      """;

    @Test
    void nestedRowsListsAndMillisecondTimestampsWrittenThroughSqlAreReadByTheSdk() throws Exception {
        String uri = dir.resolve("nested.lance").toString();
        createFromDeclaration(uri, NESTED_COLUMNS, "");
        TableEnvironment t = sql(uri, NESTED_COLUMNS, "");
        t.executeSql(NESTED_INSERT).await();

        assertThat(select(t, "SELECT * FROM t ORDER BY id")).containsExactlyElementsOf(NESTED_FLINK_ROWS);
        assertThat(latestVersion(uri)).isEqualTo(2);
        JsonNode sdk = OracleProcess.fromBuild().run("dump", uri, "--order-by", "id");
        DumpComparator.exact()
                .assertSame(
                        "the SDK's read of the SQL-written nested table",
                        DumpComparator.MAPPER.readTree(NESTED_SDK_DUMP),
                        sdk);
    }

    /**
     * TIME columns: the oracle's dump has no rendering for Arrow time types, so the SDK shows its
     * read another way: it reports the stored logical types and row count, and evaluates a filter
     * on the TIME column when it deletes a row, which Flink then sees.
     */
    @Test
    void timeColumnsWrittenThroughSqlAreOpenedAndFilteredByTheSdk() throws Exception {
        String uri = dir.resolve("times.lance").toString();
        String columns = "id INT NOT NULL, t0 TIME(0), t3 TIME(3)";
        createFromDeclaration(uri, columns, "");
        TableEnvironment t = sql(uri, columns, "");
        t.executeSql("INSERT INTO t VALUES (1, TIME '00:00:00', TIME '23:59:59.999'),"
                        + " (2, TIME '13:14:15', CAST(NULL AS TIME(3))),"
                        + " (3, CAST(NULL AS TIME(0)), TIME '13:14:15.678')")
                .await();

        OracleProcess oracle = OracleProcess.fromBuild();
        JsonNode inspect = oracle.run("inspect", uri);
        assertThat(inspect.get("num_rows").asLong()).isEqualTo(3);
        List<String> types = new ArrayList<>();
        inspect.get("fields")
                .forEach(f -> types.add(
                        f.get("name").asText() + " " + f.get("logical_type").asText()));
        assertThat(types).containsExactly("id int32", "t0 time32:s", "t3 time32:ms");

        oracle.run("delete", uri, "--filter", "t3 IS NULL");
        assertThat(latestVersion(uri)).isEqualTo(3);
        assertThat(select(t, "SELECT * FROM t ORDER BY id"))
                .containsExactly("+I[1, 00:00, 23:59:59.999]", "+I[3, null, 13:14:15.678]");
    }
}
