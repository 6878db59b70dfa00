package dev.lanceflink.flink.table;

import static dev.lanceflink.flink.table.SqlTestSupport.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.file.FileVersion;
import dev.lanceflink.flink.types.LanceTypeMapping;
import dev.lanceflink.flink.types.VectorDimensions;
import dev.lanceflink.table.DataFile;
import dev.lanceflink.testkit.flink.MiniClusters;
import java.nio.file.Path;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every Flink type the sink writes round-trips through INSERT INTO and SELECT: the table is
 * created from the Flink declaration with {@link LanceTypeMapping} (as a catalog does), written
 * by SQL with extreme values and NULLs, read back by SQL. Types the sink cannot write yet fail
 * with a clear error and commit nothing.
 */
class LanceSqlTypeMatrixITCase {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = MiniClusters.oneTaskManager(2);

    /** Every scalar type, each column nullable except the id. */
    static final String SCALAR_COLUMNS = "id INT NOT NULL, b BOOLEAN, i8 TINYINT, i16 SMALLINT, i64 BIGINT, "
            + "f32 FLOAT, f64 DOUBLE, dec10 DECIMAL(10, 2), dec38 DECIMAL(38, 6), c CHAR(3), vc VARCHAR(20), "
            + "s STRING, bin BINARY(4), vb VARBINARY(10), bs BYTES, d DATE, ts6 TIMESTAMP(6), ts9 TIMESTAMP(9), "
            + "ltz6 TIMESTAMP_LTZ(6), ltz9 TIMESTAMP_LTZ(9)";

    /** Three rows: extremes, all NULL, other extremes (session time zone UTC). */
    static final String SCALAR_VALUES = "INSERT INTO t VALUES "
            + "(1, TRUE, CAST(-128 AS TINYINT), CAST(-32768 AS SMALLINT), -9223372036854775808, CAST(1.5 AS FLOAT),"
            + " 2.25E-300, 12345678.91, CAST('12345678901234567890123456789012.123456' AS DECIMAL(38, 6)),"
            + " CAST('abc' AS CHAR(3)), 'héllo wörld', '日本語 ✓', CAST(X'01020304' AS BINARY(4)), X'', X'ff00', DATE '1969-12-31',"
            + " TIMESTAMP '1969-12-31 23:59:59.999999', TIMESTAMP '2026-01-01 00:00:00.123456789',"
            + " CAST(TIMESTAMP '2026-11-29 21:00:00.000001' AS TIMESTAMP_LTZ(6)),"
            + " CAST(TIMESTAMP '1900-01-01 00:00:00.000000001' AS TIMESTAMP_LTZ(9))), "
            + "(2, CAST(NULL AS BOOLEAN), CAST(NULL AS TINYINT), CAST(NULL AS SMALLINT), CAST(NULL AS BIGINT),"
            + " CAST(NULL AS FLOAT), CAST(NULL AS DOUBLE), CAST(NULL AS DECIMAL(10, 2)),"
            + " CAST(NULL AS DECIMAL(38, 6)), CAST(NULL AS CHAR(3)), CAST(NULL AS VARCHAR(20)),"
            + " CAST(NULL AS STRING), CAST(NULL AS BINARY(4)), CAST(NULL AS VARBINARY(10)), CAST(NULL AS BYTES),"
            + " CAST(NULL AS DATE), CAST(NULL AS TIMESTAMP(6)), CAST(NULL AS TIMESTAMP(9)),"
            + " CAST(NULL AS TIMESTAMP_LTZ(6)), CAST(NULL AS TIMESTAMP_LTZ(9))), "
            + "(3, FALSE, CAST(127 AS TINYINT), CAST(32767 AS SMALLINT), 9223372036854775807,"
            + " CAST(-1.5E38 AS FLOAT), -1.7976931348623157E308, -0.01,"
            + " CAST('-99999999999999999999999999999999.999999' AS DECIMAL(38, 6)), CAST('x' AS CHAR(3)), '', '', CAST(X'00' AS BINARY(4)),"
            + " X'00ff00ff00ff00ff00ff', X'00', DATE '9999-12-31', TIMESTAMP '0001-01-01 00:00:00',"
            + " TIMESTAMP '2262-04-11 23:47:16.854775807', CAST(TIMESTAMP '1970-01-01 00:00:00' AS TIMESTAMP_LTZ(6)),"
            + " CAST(TIMESTAMP '1677-09-21 00:12:43.145224192' AS TIMESTAMP_LTZ(9)))";

    /** What SELECT * returns for {@link #SCALAR_VALUES}, in id order. */
    static final List<String> SCALAR_ROWS = List.of(
            "+I[1, true, -128, -32768, -9223372036854775808, 1.5, 2.25E-300, 12345678.91,"
                    + " 12345678901234567890123456789012.123456, abc, héllo wörld, 日本語 ✓, [1, 2, 3, 4], [],"
                    + " [-1, 0], 1969-12-31, 1969-12-31T23:59:59.999999, 2026-01-01T00:00:00.123456789,"
                    + " 2026-11-29T21:00:00.000001Z, 1900-01-01T00:00:00.000000001Z]",
            "+I[2, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null,"
                    + " null, null, null]",
            "+I[3, false, 127, 32767, 9223372036854775807, -1.5E38, -1.7976931348623157E308, -0.01,"
                    + " -99999999999999999999999999999999.999999, x  , , , [0, 0, 0, 0],"
                    + " [0, -1, 0, -1, 0, -1, 0, -1, 0, -1], [0], 9999-12-31, 0001-01-01T00:00,"
                    + " 2262-04-11T23:47:16.854775807, 1970-01-01T00:00:00Z, 1677-09-21T00:12:43.145224192Z]");

    @TempDir
    Path dir;

    private String createFromDeclaration(String name, String columns, String options) throws Exception {
        return createFromDeclaration(name, columns, options, FileVersion.DEFAULT_FOR_NEW_TABLES);
    }

    private String createFromDeclaration(String name, String columns, String options, FileVersion version)
            throws Exception {
        String uri = dir.resolve(name + ".lance").toString();
        TableEnvironment probe = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        probe.executeSql("CREATE TABLE p (" + columns + ") WITH ('connector' = 'blackhole')");
        ResolvedSchema schema = probe.from("p").getResolvedSchema();
        RowType rowType = (RowType) schema.toPhysicalRowDataType().getLogicalType();
        Schema arrow = LanceTypeMapping.toArrowSchema(rowType, VectorDimensions.parse(parseMap(options)));
        Dataset.write(
                        uri,
                        Map.of(),
                        List.of(),
                        arrow,
                        WriteParams.of(WriteMode.CREATE).withFileVersion(version))
                .close();
        return uri;
    }

    private static Map<String, String> parseMap(String vectorDimensions) {
        Map<String, String> out = new java.util.LinkedHashMap<>();
        if (!vectorDimensions.isEmpty()) {
            for (String entry : vectorDimensions.split(",")) {
                String[] kv = entry.split(":");
                out.put(kv[0], kv[1]);
            }
        }
        return out;
    }

    private static TableEnvironment env(String uri, String columns, String extraOptions) {
        TableEnvironment t = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        t.getConfig().set("parallelism.default", "1");
        t.getConfig().setLocalTimeZone(ZoneId.of("UTC"));
        t.executeSql("CREATE TABLE t (" + columns + ") WITH ('connector' = 'lance', 'path' = '" + uri + "'"
                + extraOptions + ")");
        return t;
    }

    private static long version(String uri) throws Exception {
        try (Dataset d = Dataset.open(uri, Map.of())) {
            return d.version();
        }
    }

    @Test
    void everyScalarTypeRoundTripsThroughInsertAndSelect() throws Exception {
        String uri = createFromDeclaration("scalars", SCALAR_COLUMNS, "");
        TableEnvironment t = env(uri, SCALAR_COLUMNS, "");
        t.executeSql(SCALAR_VALUES).await();
        assertThat(rows(t, "SELECT * FROM t ORDER BY id")).containsExactlyElementsOf(SCALAR_ROWS);
        assertThat(version(uri)).isEqualTo(2);
    }

    @Test
    void millisecondAndSecondTimestampsTakeTheirOwnPrecisions() throws Exception {
        String uri = dir.resolve("ms.lance").toString();
        Dataset.write(
                        uri,
                        Map.of(),
                        List.of(),
                        new Schema(List.of(
                                new Field(
                                        "ms",
                                        FieldType.nullable(new ArrowType.Timestamp(TimeUnit.MILLISECOND, null)),
                                        null),
                                new Field(
                                        "sec",
                                        FieldType.nullable(new ArrowType.Timestamp(TimeUnit.SECOND, "UTC")),
                                        null))),
                        WriteParams.of(WriteMode.CREATE))
                .close();
        TableEnvironment t = env(uri, "ms TIMESTAMP(3), sec TIMESTAMP_LTZ(0)", "");
        t.executeSql("INSERT INTO t VALUES (TIMESTAMP '1969-12-31 23:59:59.999',"
                        + " CAST(TIMESTAMP '1969-12-31 23:59:59' AS TIMESTAMP_LTZ(0))),"
                        + " (CAST(NULL AS TIMESTAMP(3)), CAST(NULL AS TIMESTAMP_LTZ(0)))")
                .await();
        assertThat(rows(t, "SELECT * FROM t"))
                .containsExactlyInAnyOrder("+I[1969-12-31T23:59:59.999, 1969-12-31T23:59:59Z]", "+I[null, null]");
    }

    @Test
    void millisecondTimestampsDeclaredAsSuchGoIntoMicrosecondColumns() throws Exception {
        // TIMESTAMP(3) and TIMESTAMP_LTZ(3) are stored in microseconds (LanceTypeMapping); Flink's
        // binary rows hold them as epoch milliseconds, which the sink reads as declared.
        String columns = "id INT NOT NULL, ts TIMESTAMP(3), ltz TIMESTAMP_LTZ(3)";
        String uri = createFromDeclaration("ts3", columns, "");
        TableEnvironment t = env(uri, columns, "");
        t.executeSql("INSERT INTO t VALUES (1, TIMESTAMP '1969-12-31 23:59:59.999',"
                        + " CAST(TIMESTAMP '2026-11-29 21:00:00.123' AS TIMESTAMP_LTZ(3))),"
                        + " (2, CAST(NULL AS TIMESTAMP(3)), CAST(NULL AS TIMESTAMP_LTZ(3)))")
                .await();
        assertThat(rows(t, "SELECT * FROM t ORDER BY id"))
                .containsExactly("+I[1, 1969-12-31T23:59:59.999, 2026-11-29T21:00:00.123Z]", "+I[2, null, null]");
        // What is stored: microseconds, read back with the unit's own precision.
        TableEnvironment micros = env(uri, "id INT NOT NULL, ts TIMESTAMP(6), ltz TIMESTAMP_LTZ(6)", "");
        assertThat(rows(micros, "SELECT * FROM t WHERE id = 1"))
                .containsExactly("+I[1, 1969-12-31T23:59:59.999, 2026-11-29T21:00:00.123Z]");
        try (Dataset d = Dataset.open(uri, Map.of())) {
            assertThat(d.schema().fieldByName("ts").orElseThrow().logicalType()).isEqualTo("timestamp:us:-");
        }
    }

    /**
     * The change sinks (upsert by PRIMARY KEY, UPDATE) read cells with the table's types, so rows
     * of TIMESTAMP(3) columns stored in microseconds are re-laid out first; read as TIMESTAMP(6)
     * from a binary row they would be garbage.
     */
    @Test
    void millisecondTimestampsUpsertAndUpdateIntoMicrosecondColumns() throws Exception {
        String columns = "id INT NOT NULL, ts TIMESTAMP(3), ltz TIMESTAMP_LTZ(3), PRIMARY KEY (id) NOT ENFORCED";
        String uri = createFromDeclaration("ts3pk", "id INT NOT NULL, ts TIMESTAMP(3), ltz TIMESTAMP_LTZ(3)", "");
        TableEnvironment t = env(uri, columns, "");
        t.executeSql("INSERT INTO t VALUES (1, TIMESTAMP '1969-12-31 23:59:59.999',"
                        + " CAST(TIMESTAMP '2026-11-29 21:00:00.123' AS TIMESTAMP_LTZ(3))),"
                        + " (2, TIMESTAMP '2000-01-01 00:00:00.001', CAST(NULL AS TIMESTAMP_LTZ(3)))")
                .await();
        t.executeSql("INSERT INTO t VALUES (2, TIMESTAMP '2000-01-01 00:00:00.002',"
                        + " CAST(TIMESTAMP '2001-01-01 00:00:00.5' AS TIMESTAMP_LTZ(3)))")
                .await(); // upsert: overlay
        t.executeSql("UPDATE t SET ts = TIMESTAMP '1970-01-01 00:00:00.042' WHERE id = 1")
                .await();

        assertThat(rows(t, "SELECT * FROM t ORDER BY id"))
                .containsExactly(
                        "+I[1, 1970-01-01T00:00:00.042, 2026-11-29T21:00:00.123Z]",
                        "+I[2, 2000-01-01T00:00:00.002, 2001-01-01T00:00:00.500Z]");
        try (Dataset d = Dataset.open(uri, Map.of())) {
            assertThat(d.countRows()).isEqualTo(2);
            assertThat(d.manifest().fragments().get(0).overlays()).hasSize(2);
        }
    }

    @Test
    void timesOfDayRoundTripInSecondsAndMilliseconds() throws Exception {
        String columns = "id INT NOT NULL, t0 TIME(0), t3 TIME(3)";
        String uri = createFromDeclaration("times", columns, "");
        try (Dataset d = Dataset.open(uri, Map.of())) {
            assertThat(d.schema().fieldByName("t0").orElseThrow().logicalType()).isEqualTo("time32:s");
            assertThat(d.schema().fieldByName("t3").orElseThrow().logicalType()).isEqualTo("time32:ms");
        }
        TableEnvironment t = env(uri, columns, "");
        t.executeSql(
                        "INSERT INTO t VALUES (1, TIME '00:00:00', TIME '23:59:59.999'),"
                                + " (2, TIME '13:14:15', TIME '13:14:15.678'), (3, CAST(NULL AS TIME(0)), CAST(NULL AS TIME(3)))")
                .await();
        assertThat(rows(t, "SELECT * FROM t ORDER BY id"))
                .containsExactly("+I[1, 00:00, 23:59:59.999]", "+I[2, 13:14:15, 13:14:15.678]", "+I[3, null, null]");
        assertThat(rows(t, "SELECT id FROM t WHERE t3 > TIME '13:00:00' ORDER BY id"))
                .containsExactly("+I[1]", "+I[2]");
    }

    /** Nested ROWs, ARRAY<ROW>, nested and decimal lists, with NULL at each level. */
    static final String NESTED_COLUMNS = "id INT NOT NULL, st ROW<a INT, b STRING>,"
            + " deep ROW<sub ROW<x DOUBLE, tags ARRAY<STRING>>, n BIGINT>, pts ARRAY<ROW<x DOUBLE, y DOUBLE>>,"
            + " grid ARRAY<ARRAY<INT>>, decs ARRAY<DECIMAL(10, 2)>, tss ARRAY<TIMESTAMP(3)>";

    static final String NESTED_VALUES = "INSERT INTO t VALUES "
            + "(1, ROW(1, 'a'), ROW(ROW(1.5, ARRAY['x', CAST(NULL AS STRING)]), 7),"
            + " ARRAY[ROW(1.0, 2.0), CAST(NULL AS ROW<x DOUBLE, y DOUBLE>), ROW(CAST(NULL AS DOUBLE), -3.0)],"
            + " ARRAY[ARRAY[1, 2], CAST(NULL AS ARRAY<INT>), ARRAY[CAST(NULL AS INT)]],"
            + " ARRAY[CAST(-1.25 AS DECIMAL(10, 2)), CAST(NULL AS DECIMAL(10, 2))],"
            + " ARRAY[TIMESTAMP '1969-12-31 23:59:59.999', CAST(NULL AS TIMESTAMP(3))]), "
            + "(2, CAST(NULL AS ROW<a INT, b STRING>), ROW(CAST(NULL AS ROW<x DOUBLE, tags ARRAY<STRING>>), 8),"
            + " CAST(NULL AS ARRAY<ROW<x DOUBLE, y DOUBLE>>), CAST(NULL AS ARRAY<ARRAY<INT>>),"
            + " CAST(NULL AS ARRAY<DECIMAL(10, 2)>), CAST(NULL AS ARRAY<TIMESTAMP(3)>)), "
            + "(3, ROW(CAST(NULL AS INT), CAST(NULL AS STRING)),"
            + " ROW(ROW(CAST(NULL AS DOUBLE), CAST(NULL AS ARRAY<STRING>)), CAST(NULL AS BIGINT)),"
            + " ARRAY[ROW(0.0, 0.0)], ARRAY[ARRAY_REMOVE(ARRAY[0], 0)],"
            + " ARRAY_REMOVE(ARRAY[CAST(0 AS DECIMAL(10, 2))], CAST(0 AS DECIMAL(10, 2))),"
            + " ARRAY[TIMESTAMP '2262-04-11 23:47:16.854'])";

    static final List<String> NESTED_ROWS = List.of(
            "+I[1, +I[1, a], +I[+I[1.5, [x, null]], 7], [+I[1.0, 2.0], null, +I[null, -3.0]], [[1, 2], null, [null]],"
                    + " [-1.25, null], [1969-12-31T23:59:59.999, null]]",
            "+I[2, null, +I[null, 8], null, null, null, null]",
            "+I[3, +I[null, null], +I[+I[null, null], null], [+I[0.0, 0.0]], [[]], [],"
                    + " [2262-04-11T23:47:16.854]]");

    @Test
    void nestedRowsAndListsRoundTripWithNullsAtEachLevel() throws Exception {
        String uri = createFromDeclaration("nested", NESTED_COLUMNS, "");
        TableEnvironment t = env(uri, NESTED_COLUMNS, "");
        t.executeSql(NESTED_VALUES).await();
        assertThat(rows(t, "SELECT * FROM t ORDER BY id")).containsExactlyElementsOf(NESTED_ROWS);
        assertThat(rows(t, "SELECT id, st.b, deep.sub.tags, pts[1].y FROM t ORDER BY id"))
                .containsExactly("+I[1, a, [x, null], 2.0]", "+I[2, null, null, null]", "+I[3, null, null, 0.0]");
        assertThat(version(uri)).isEqualTo(2);
    }

    @Test
    void aMapColumnOfAVersion21TableIsRefusedAndNothingIsCommitted() throws Exception {
        String columns = "id INT NOT NULL, m MAP<STRING, INT>";
        String uri = createFromDeclaration("maps21", columns, "", FileVersion.V2_1);
        assertThat(dataFormat(uri)).isEqualTo("2.1");
        TableEnvironment t = env(uri, columns, "");
        assertThatThrownBy(() ->
                        t.executeSql("INSERT INTO t VALUES (1, MAP['a', 1])").await())
                .hasStackTraceContaining("column 'm' is a MAP (MAP<STRING, INT>), but maps need data storage version"
                        + " 2.2 and this Lance table is version 2.1");
        assertThat(version(uri)).isEqualTo(1);
    }

    /**
     * A Lance catalog creates tables in data storage version 2.2 (current Lance's default, which
     * holds maps), and INSERT INTO writes maps into them: NULL maps, NULL values, maps nested in a ROW.
     * (The values themselves are checked by the official SDK in the it module's MapColumnInteropITCase.)
     */
    @Test
    void aCatalogCreatesMapTablesInVersion22AndInsertWritesMapsIntoThem() throws Exception {
        Path warehouse = dir.resolve("warehouse");
        TableEnvironment t = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        t.getConfig().set("parallelism.default", "1");
        t.executeSql("CREATE CATALOG lake WITH ('type' = 'lance', 'warehouse' = '" + warehouse + "')");
        t.executeSql("USE CATALOG lake");
        t.executeSql("CREATE TABLE plain (id INT NOT NULL, s STRING)");
        t.executeSql("CREATE TABLE maps (id INT NOT NULL, m MAP<STRING, INT>, st ROW<n INT, tags MAP<INT, STRING>>)");
        String plain = warehouse.resolve("default/plain.lance").toString();
        String maps = warehouse.resolve("default/maps.lance").toString();
        assertThat(dataFormat(plain)).isEqualTo("2.2");
        assertThat(dataFormat(maps)).isEqualTo("2.2");

        t.executeSql("INSERT INTO maps VALUES (1, MAP['a', 1, 'b', CAST(NULL AS INT)], ROW(7, MAP[1, 'x'])),"
                        + " (2, CAST(NULL AS MAP<STRING, INT>), CAST(NULL AS ROW<n INT, tags MAP<INT, STRING>>)),"
                        + " (3, MAP['c', 3], ROW(8, CAST(NULL AS MAP<INT, STRING>)))")
                .await();
        assertThat(version(maps)).isEqualTo(2);
        try (Dataset d = Dataset.open(maps, Map.of())) {
            assertThat(d.countRows()).isEqualTo(3);
            assertThat(d.fragments()).hasSize(1);
            DataFile file = d.fragments().get(0).files().get(0);
            assertThat(file.fileMajorVersion()).isEqualTo(2);
            assertThat(file.fileMinorVersion()).isEqualTo(2);
            // Leaf columns: id, m.entries.key, m.entries.value, st.n, st.tags.entries.key, st.tags.entries.value.
            assertThat(file.fields()).containsExactly(0, 3, 4, 6, 9, 10);
        }
        assertThat(rows(t, "SELECT * FROM maps ORDER BY id"))
                .containsExactly(
                        "+I[1, {a=1, b=null}, +I[7, {1=x}]]", "+I[2, null, null]", "+I[3, {c=3}, +I[8, null]]");
        assertThat(rows(t, "SELECT id, m['a'], m['b'], st.tags[1] FROM maps ORDER BY id"))
                .containsExactly("+I[1, 1, null, x]", "+I[2, null, null, null]", "+I[3, null, null, null]");
    }

    private static String dataFormat(String uri) throws Exception {
        try (Dataset d = Dataset.open(uri, Map.of())) {
            return d.manifest().dataFormat().version();
        }
    }

    @Test
    void updatesOverlayTimeColumnsAndRefuseRowColumnsNamingThem() throws Exception {
        String columns = "id INT NOT NULL, t3 TIME(3), st ROW<a INT>";
        String uri = createFromDeclaration("updates", columns, "");
        TableEnvironment t = env(uri, columns, "");
        t.executeSql("INSERT INTO t VALUES (1, TIME '01:02:03.004', ROW(1)), (2, TIME '05:06:07.008', ROW(2))")
                .await();
        t.executeSql("UPDATE t SET t3 = TIME '23:59:59.999' WHERE id = 2").await();
        assertThat(rows(t, "SELECT * FROM t ORDER BY id"))
                .containsExactly("+I[1, 01:02:03.004, +I[1]]", "+I[2, 23:59:59.999, +I[2]]");
        long before = version(uri);
        assertThatThrownBy(() -> t.executeSql("UPDATE t SET st = CAST(ROW(5) AS ROW<a INT>) WHERE id = 1")
                        .await())
                .hasStackTraceContaining("sets ROW column 'st', but updates are written as data overlay files, which"
                        + " cannot replace a struct column");
        assertThat(version(uri)).isEqualTo(before);
    }

    @Test
    void vectorsAndListsRoundTripAndAWrongSizedVectorIsRefusedNamingTheColumn() throws Exception {
        String columns = "id INT NOT NULL, embedding ARRAY<FLOAT>, tags ARRAY<STRING>";
        String uri = createFromDeclaration("vectors", columns, "embedding:2");
        TableEnvironment t = env(uri, columns, ", 'vector-dimensions' = 'embedding:2'");
        t.executeSql("INSERT INTO t VALUES (1, ARRAY[CAST(1.5 AS FLOAT), CAST(-2.0 AS FLOAT)], ARRAY['a', 'b', 'c']),"
                        + " (2, CAST(NULL AS ARRAY<FLOAT>), ARRAY['x']), (3, ARRAY[CAST(0.0 AS FLOAT), CAST(NULL AS FLOAT)],"
                        + " CAST(NULL AS ARRAY<STRING>))")
                .await();
        assertThat(rows(t, "SELECT * FROM t ORDER BY id"))
                .containsExactly("+I[1, [1.5, -2.0], [a, b, c]]", "+I[2, null, [x]]", "+I[3, [0.0, null], null]");

        assertThatThrownBy(() -> t.executeSql("INSERT INTO t VALUES (4, ARRAY[CAST(1.0 AS FLOAT)], ARRAY['y'])")
                        .await())
                .hasStackTraceContaining(
                        "Column 'embedding' of " + uri + " holds vectors of 2 values, but a record" + " has 1");
        assertThat(version(uri)).isEqualTo(2);
    }
}
