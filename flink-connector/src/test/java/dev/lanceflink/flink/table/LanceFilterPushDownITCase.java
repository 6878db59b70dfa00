package dev.lanceflink.flink.table;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.flink.source.reader.ScanMetrics;
import dev.lanceflink.flink.types.LanceTypeMapping;
import dev.lanceflink.flink.types.VectorDimensions;
import dev.lanceflink.testkit.flink.MiniClusters;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeMilliVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.api.common.JobID;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Metric;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Filter push-down per type: each WHERE condition leaves Flink's plan, the scan emits only the
 * matching rows (the source's {@code lance.rowsEmitted} counter, against {@code rowsScanned}, the
 * live rows it read the filter columns of), and the result equals Flink's own evaluation of the
 * condition: the same query on the same table declared with {@code 'scan.filter-push-down.enabled'
 * = 'false'}, whose scan emits every row. The rows hold NULLs, NaN, -0.0, infinities, extremes,
 * pre-1970 instants and digits beyond a declared precision.
 */
class LanceFilterPushDownITCase {
    private static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = MiniClusters.oneTaskManager(2, REPORTER);

    private static final String COLUMNS = "id INT NOT NULL, b BOOLEAN, i8 TINYINT, i16 SMALLINT, i32 INT, i64 BIGINT, "
            + "f32 FLOAT, f64 DOUBLE, d10 DECIMAL(10, 2), d38 DECIMAL(38, 6), s STRING, c CHAR(3), vb BYTES, d DATE, "
            + "tm TIME(3), ts TIMESTAMP(6), ltz TIMESTAMP_LTZ(6)";

    /** Eight rows in {@link #COLUMNS} order; row 2 is NULL in every column but the id. */
    private static final Object[][] ROWS = {
        {
            0,
            true,
            (byte) -128,
            (short) -32768,
            Integer.MIN_VALUE,
            Long.MIN_VALUE,
            1.5f,
            1.5,
            "1.25",
            "12345678901234567890123456789012.123456",
            "alice",
            "abc",
            bytes(0x00),
            "1969-12-31",
            "00:00:00",
            "1969-12-31T23:59:59.999999",
            "1969-12-31T23:59:59.999999Z"
        },
        {
            1,
            false,
            (byte) 1,
            (short) 1,
            1,
            1L,
            Float.NaN,
            Double.NaN,
            "-0.01",
            "-99999999999999999999999999999999.999999",
            "é",
            "x  ",
            bytes(0xff),
            "2024-01-01",
            "10:00:00.123",
            "2024-01-01T00:00:00.000001",
            "2024-01-01T00:00:00.000001Z"
        },
        {2, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null},
        {
            3,
            true,
            (byte) 2,
            (short) 2,
            16_777_217,
            9_007_199_254_740_993L,
            -0.0f,
            -0.0,
            "0.00",
            "0.000001",
            "zz",
            "zz ",
            bytes(0x00, 0x01),
            "2024-02-29",
            "23:59:59.999",
            "2024-01-01T00:00:00.000999",
            "2024-01-01T00:00:00.000999Z"
        },
        {
            4,
            false,
            (byte) 127,
            (short) 32767,
            Integer.MAX_VALUE,
            Long.MAX_VALUE,
            0.1f,
            0.1,
            "12345678.91",
            "12345678901234567890123456789012.123457",
            "",
            "abc",
            bytes(),
            "9999-12-31",
            "12:00:00",
            "2024-01-01T00:00:00",
            "2024-01-01T00:00:00Z"
        },
        {
            5,
            true,
            (byte) 0,
            (short) 0,
            0,
            0L,
            Float.POSITIVE_INFINITY,
            Double.NEGATIVE_INFINITY,
            "1.00",
            "1.000000",
            "bob",
            "b  ",
            bytes(0x01, 0x02),
            "0001-01-01",
            "10:00:00",
            "0001-01-01T00:00:00",
            "1970-01-01T00:00:00Z"
        },
        {
            6,
            null,
            (byte) 3,
            (short) 300,
            3,
            3L,
            0.0f,
            0.0,
            "2.50",
            "2.500000",
            "Bob",
            null,
            bytes(0x01),
            "2024-01-02",
            "10:00:00.001",
            "2024-01-01T00:00:00.001",
            "2024-01-01T00:00:00.001Z"
        },
        {
            7,
            false,
            (byte) -1,
            (short) -1,
            -1,
            -1L,
            16_777_216f,
            0.30000000000000004,
            "-1.00",
            "-0.000001",
            "alicf",
            "abd",
            bytes(0x00, 0xff),
            "1970-01-01",
            "23:00:00",
            "2024-01-01T00:00:00.0009",
            "2026-11-29T21:00:00Z"
        },
    };

    private static byte[] bytes(int... values) {
        byte[] out = new byte[values.length];
        for (int i = 0; i < values.length; i++) {
            out[i] = (byte) values[i];
        }
        return out;
    }

    private static final int ROW_COUNT = 8;

    @TempDir
    static Path dir;

    private static String uri;
    private TableEnvironment env;

    @BeforeAll
    static void writeTable() throws Exception {
        uri = dir.resolve("typed.lance").toString();
        TableEnvironment probe = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        probe.executeSql("CREATE TABLE p (" + COLUMNS + ") WITH ('connector' = 'blackhole')");
        RowType rowType = (RowType)
                probe.from("p").getResolvedSchema().toPhysicalRowDataType().getLogicalType();
        Schema schema = LanceTypeMapping.toArrowSchema(rowType, VectorDimensions.parse(Map.of()));
        try (BufferAllocator allocator = new RootAllocator();
                VectorSchemaRoot batch = rows(schema, allocator)) {
            // Two files: the scan crosses fragments too.
            Dataset.write(
                            uri,
                            Map.of(),
                            List.of(batch),
                            schema,
                            WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(5))
                    .close();
        }
    }

    /**
     * Created per test: the extension makes its cluster (whose reporter sees the source's
     * metrics) the context environment only from beforeEach on.
     */
    @BeforeEach
    void createTables() {
        env = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        env.getConfig().set("parallelism.default", "1");
        env.getConfig().setLocalTimeZone(ZoneId.of("UTC"));
        // Small batches: a filter is evaluated batch by batch.
        String options = "'connector' = 'lance', 'path' = '" + uri + "', 'scan.batch-size' = '3'";
        env.executeSql("CREATE TABLE t (" + COLUMNS + ") WITH (" + options + ")");
        env.executeSql("CREATE TABLE flink_filters (" + COLUMNS + ") WITH (" + options
                + ", 'scan.filter-push-down.enabled' = 'false')");
        // The same timestamps declared with fewer digits: Flink reads them rounded down.
        String millis = COLUMNS.replace("ts TIMESTAMP(6)", "ts TIMESTAMP(3)");
        env.executeSql("CREATE TABLE t_ms (" + millis + ") WITH (" + options + ")");
        env.executeSql("CREATE TABLE flink_filters_ms (" + millis + ") WITH (" + options
                + ", 'scan.filter-push-down.enabled' = 'false')");
    }

    /** {@link #ROWS} as one Arrow batch of the table's schema (NaN and -0.0 cannot come from SQL VALUES). */
    private static VectorSchemaRoot rows(Schema schema, BufferAllocator allocator) {
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
        root.allocateNew();
        for (int r = 0; r < ROWS.length; r++) {
            for (int c = 0; c < ROWS[r].length; c++) {
                set(root.getVector(c), r, ROWS[r][c]);
            }
        }
        root.setRowCount(ROWS.length);
        return root;
    }

    private static void set(FieldVector v, int row, Object value) {
        if (value == null) {
            v.setNull(row);
        } else if (v instanceof BitVector b) {
            b.setSafe(row, (Boolean) value ? 1 : 0);
        } else if (v instanceof TinyIntVector t) {
            t.setSafe(row, (Byte) value);
        } else if (v instanceof SmallIntVector t) {
            t.setSafe(row, (Short) value);
        } else if (v instanceof IntVector t) {
            t.setSafe(row, (Integer) value);
        } else if (v instanceof BigIntVector t) {
            t.setSafe(row, (Long) value);
        } else if (v instanceof Float4Vector t) {
            t.setSafe(row, (Float) value);
        } else if (v instanceof Float8Vector t) {
            t.setSafe(row, (Double) value);
        } else if (v instanceof DecimalVector t) {
            t.setSafe(row, new BigDecimal((String) value).setScale(t.getScale()));
        } else if (v instanceof VarCharVector t) {
            t.setSafe(row, ((String) value).getBytes(StandardCharsets.UTF_8));
        } else if (v instanceof VarBinaryVector t) {
            t.setSafe(row, (byte[]) value);
        } else if (v instanceof DateDayVector t) {
            t.setSafe(row, (int) LocalDate.parse((String) value).toEpochDay());
        } else if (v instanceof TimeMilliVector t) {
            t.setSafe(row, (int) (LocalTime.parse((String) value).toNanoOfDay() / 1_000_000));
        } else if (v instanceof TimeStampMicroTZVector t) {
            Instant i = Instant.parse((String) value);
            t.setSafe(row, Math.addExact(Math.multiplyExact(i.getEpochSecond(), 1_000_000L), i.getNano() / 1000));
        } else if (v instanceof TimeStampMicroVector t) {
            LocalDateTime d = LocalDateTime.parse((String) value);
            t.setSafe(row, d.toEpochSecond(ZoneOffset.UTC) * 1_000_000L + d.getNano() / 1000);
        } else {
            throw new IllegalArgumentException("No setter for " + v.getField());
        }
    }

    /** The ids a query returned and what the scan counted. */
    private record Scan(List<Integer> ids, long rowsScanned, long rowsEmitted) {}

    private Scan scan(String sql) throws Exception {
        TableResult result = env.executeSql(sql);
        List<Integer> ids = new ArrayList<>();
        try (CloseableIterator<Row> it = result.collect()) {
            it.forEachRemaining(r -> ids.add((Integer) r.getField(0)));
        }
        ids.sort(null);
        JobID job = result.getJobClient().orElseThrow().getJobID();
        return new Scan(ids, counter(job, ScanMetrics.ROWS_SCANNED), counter(job, ScanMetrics.ROWS_EMITTED));
    }

    private long counter(JobID job, String name) {
        Map<String, Metric> found = REPORTER.findMetrics(job, ScanMetrics.GROUP + "\\." + name + "$");
        assertThat(found)
                .as(
                        "metric %s of job %s among %s",
                        name, job, REPORTER.getMetricsByIdentifiers(job).keySet())
                .hasSize(1);
        return ((Counter) found.values().iterator().next()).getCount();
    }

    /**
     * {@code condition} is evaluated in the scan of table {@code table}, its rows are
     * {@code expected}, and Flink evaluating it itself returns the same.
     */
    private void pushed(String table, String condition, Integer... expected) throws Exception {
        String sql = "SELECT id FROM " + table + " WHERE " + condition;
        assertThat(env.explainSql(sql)).as("plan of %s", sql).doesNotContain("where=[");
        Scan inScan = scan(sql);
        Scan byFlink =
                scan("SELECT id FROM flink_filters" + (table.endsWith("_ms") ? "_ms" : "") + " WHERE " + condition);
        assertThat(inScan.ids()).as(condition).containsExactly(expected);
        assertThat(byFlink.ids()).as("Flink's own result for " + condition).isEqualTo(inScan.ids());
        assertThat(inScan.rowsScanned()).as("rows scanned for " + condition).isEqualTo(ROW_COUNT);
        assertThat(inScan.rowsEmitted()).as("rows emitted for " + condition).isEqualTo(expected.length);
        assertThat(byFlink.rowsEmitted()).as("rows emitted without push-down").isEqualTo(ROW_COUNT);
    }

    /** {@code condition} stays with Flink, and its rows are {@code expected} as without push-down. */
    private void kept(String condition, Integer... expected) throws Exception {
        String sql = "SELECT id FROM t WHERE " + condition;
        assertThat(env.explainSql(sql)).as("plan of %s", sql).contains("where=[");
        Scan scan = scan(sql);
        assertThat(scan.ids()).as(condition).containsExactly(expected);
        assertThat(scan(" SELECT id FROM flink_filters WHERE " + condition).ids())
                .isEqualTo(scan.ids());
        assertThat(scan.rowsEmitted()).as("rows emitted for " + condition).isEqualTo(ROW_COUNT);
    }

    private void pushed(String condition, Integer... expected) throws Exception {
        pushed("t", condition, expected);
    }

    @Test
    void booleans() throws Exception {
        pushed("b", 0, 3, 5);
        pushed("NOT b", 1, 4, 7);
        pushed("b IS NOT FALSE", 0, 2, 3, 5, 6);
        pushed("b IS FALSE", 1, 4, 7);
    }

    @Test
    void integersOfEveryWidth() throws Exception {
        pushed("i8 > 1", 3, 4, 6);
        pushed("i16 <= -1", 0, 7);
        pushed("i64 > 1.5", 3, 4, 6);
        pushed("i8 < i16", 4, 6);
        // As Flink compares an INT with a FLOAT: as floats, where 16777217 rounds to 16777216.
        pushed("i32 = CAST(16777216 AS FLOAT)", 3);
        // A BIGINT against a DOUBLE: as doubles, where 2^53 + 1 rounds to 2^53.
        pushed("i64 = 9007199254740992E0", 3);
    }

    @Test
    void floats() throws Exception {
        pushed("f32 > 1", 0, 5, 7); // NaN is not greater than anything
        // = and <> with zero stay with Flink: it evaluates IN lists with a hash set, where -0.0 <> 0.
        kept("f32 = 0", 3, 6);
        pushed("f32 <> CAST(1.5 AS FLOAT)", 1, 3, 4, 5, 6, 7); // NaN <> 1.5
        // Against a DECIMAL literal Flink compares with Double.compare: NaN is the largest, -0.0 < 0.0.
        pushed("f32 > 1.5", 1, 5, 7);
        pushed("f32 < 0.0", 3);
    }

    @Test
    void doubles() throws Exception {
        pushed("f64 > 1", 0);
        pushed("f64 <= 0", 3, 5, 6);
        pushed("f64 = 1E-1", 4);
        pushed("f64 <> 0.30000000000000004E0", 0, 1, 3, 4, 5, 6);
        pushed("f64 > 1.0", 0, 1);
        pushed("f64 < 0.0", 3, 5);
    }

    @Test
    void shortDecimals() throws Exception {
        pushed("d10 > 1.2", 0, 4, 6);
        pushed("d10 = 1", 5);
        pushed("d10 >= 1.251", 4, 6);
        pushed("d10 < 5E-1", 1, 3, 7);
        pushed("d10 < f64", 0, 1, 7); // NaN is the largest double; 0.00 is not below -0.0
    }

    @Test
    void longDecimals() throws Exception {
        pushed("d38 > CAST('12345678901234567890123456789012.123456' AS DECIMAL(38, 6))", 4);
        pushed("d38 <= 0.000001", 1, 3, 7);
        pushed("d38 = 1", 5);
        pushed("d38 > 1E31", 0, 4);
    }

    @Test
    void strings() throws Exception {
        pushed("s = 'bob'", 5);
        pushed("s > 'z'", 1, 3); // by UTF-8 bytes: 'é' after 'z'
        pushed("s < 'alicf'", 0, 4, 6);
        pushed("s <> ''", 0, 1, 3, 5, 6, 7);
        pushed("c = 'abc'", 0, 4);
    }

    @Test
    void binary() throws Exception {
        pushed("vb = X'0102'", 5);
        pushed("vb > X'00'", 1, 3, 5, 6, 7);
        pushed("vb < X'01'", 0, 3, 4, 7);
    }

    @Test
    void dates() throws Exception {
        pushed("d > DATE '2024-01-01'", 3, 4, 6);
        pushed("d <= DATE '1970-01-01'", 0, 5, 7);
        pushed("d BETWEEN DATE '1969-12-31' AND DATE '2024-01-01'", 0, 1, 7);
    }

    @Test
    void times() throws Exception {
        pushed("tm >= TIME '10:00:00.001'", 1, 3, 4, 6, 7);
        pushed("tm = TIME '10:00:00'", 5);
        pushed("tm < TIME '10:00:00.1234'", 0, 5, 6);
    }

    @Test
    void timestamps() throws Exception {
        pushed("ts > TIMESTAMP '2024-01-01 00:00:00'", 1, 3, 6, 7);
        pushed("ts <= TIMESTAMP '2024-01-01 00:00:00.0009'", 0, 1, 4, 5, 7);
        pushed("ts = TIMESTAMP '2024-01-01 00:00:00.000999'", 3);
        pushed("ts < TIMESTAMP '2024-01-01 00:00:00.0000015'", 0, 1, 4, 5);
    }

    @Test
    void timestampsDeclaredWithFewerDigitsCompareAsFlinkReadsThem() throws Exception {
        pushed("t_ms", "ts = TIMESTAMP '2024-01-01 00:00:00'", 1, 3, 4, 7);
        pushed("t_ms", "ts < TIMESTAMP '1970-01-01 00:00:00'", 0, 5);
        pushed("t_ms", "ts > TIMESTAMP '2024-01-01 00:00:00.0005'", 6);
    }

    @Test
    void timestampsWithLocalTimeZone() throws Exception {
        pushed("ltz > TO_TIMESTAMP_LTZ(1704067200000, 3)", 1, 3, 6, 7);
        pushed("ltz < TO_TIMESTAMP_LTZ(0, 3)", 0);
        pushed("ltz = TO_TIMESTAMP_LTZ(1704067200001, 3)", 6);
        // Against a TIMESTAMP Flink converts in the session time zone: that stays with Flink.
        String kept = "SELECT id FROM t WHERE ltz > TIMESTAMP '2024-01-01 00:00:00'";
        assertThat(env.explainSql(kept)).contains("where=[");
        Scan scan = scan(kept);
        assertThat(scan.ids()).containsExactly(1, 3, 6, 7);
        assertThat(scan.rowsEmitted()).isEqualTo(ROW_COUNT);
    }

    @Test
    void inLists() throws Exception {
        pushed("i32 IN (1, 3, 16777217)", 1, 3, 6);
        pushed("s IN ('bob', 'Bob', 'zz')", 3, 5, 6);
        pushed("d10 IN (1.25, 2.5)", 0, 6);
        pushed("f64 IN (1.5, 0.30000000000000004E0)", 0, 7);
        kept("f64 IN (0.0, 1.5)", 0, 6);
        kept("f64 <> 0", 0, 1, 4, 5, 7); // here Flink compares as IEEE doubles
        pushed("f32 IN (0.1, 1.5)", 0, 4); // as FLOAT literals: 0.1 is the float nearest to it
        pushed("i32 NOT IN (1, 3)", 0, 3, 4, 5, 7);
    }

    @Test
    void isNull() throws Exception {
        pushed("s IS NULL", 2);
        pushed("c IS NULL", 2, 6);
        pushed("ts IS NOT NULL", 0, 1, 3, 4, 5, 6, 7);
    }

    @Test
    void andOrNot() throws Exception {
        pushed("i8 > 0 AND s IS NOT NULL", 1, 3, 4, 6);
        pushed("i8 < 0 OR s = 'zz'", 0, 3, 7);
        pushed("NOT (i8 > 0 OR s = 'bob')", 0, 7);
        pushed("(i8 > 100 OR b) AND NOT (s = 'alice')", 3, 4, 5);
        pushed("f64 > 1 OR d38 < 0", 0, 1, 7);
    }

    @Test
    void withoutPushDownTheScanEmitsEveryRow() throws Exception {
        String sql = "SELECT id FROM flink_filters WHERE i8 > 1";
        assertThat(env.explainSql(sql)).contains("where=[");
        Scan scan = scan(sql);
        assertThat(scan.ids()).isEqualTo(Arrays.asList(3, 4, 6));
        assertThat(scan.rowsScanned()).isEqualTo(ROW_COUNT);
        assertThat(scan.rowsEmitted()).isEqualTo(ROW_COUNT);
    }
}
