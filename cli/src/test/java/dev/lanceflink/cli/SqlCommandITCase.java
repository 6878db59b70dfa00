package dev.lanceflink.cli;

import static dev.lanceflink.cli.SqlRun.sql;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code lance-flink sql} in-process, on the embedded MiniCluster it starts per job; the runs that start none are {@link SqlCommandTest}. */
class SqlCommandITCase {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Schema SCHEMA = new Schema(List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
            new Field("name", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
            new Field("price", FieldType.nullable(new ArrowType.Decimal(10, 2, 128)), null),
            new Field("day", FieldType.nullable(new ArrowType.Date(DateUnit.DAY)), null),
            new Field("ts", FieldType.nullable(new ArrowType.Timestamp(TimeUnit.MICROSECOND, null)), null),
            new Field("raw", FieldType.nullable(ArrowType.Binary.INSTANCE), null),
            new Field(
                    "vec",
                    FieldType.nullable(new ArrowType.FixedSizeList(2)),
                    List.of(new Field(
                            "item",
                            FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
                            null)))));
    /** 2026-01-01T00:00:00Z in microseconds. */
    private static final long TS0 = 1_767_225_600_000_000L;

    @TempDir
    static Path dir;

    static String uri;

    /** Rows id 0..3: name "n<id>" (null for 2), price id + 0.5, day 2026-01-01 + id, ts TS0 + id s + id us. */
    @BeforeAll
    static void writeTable() throws Exception {
        uri = dir.resolve("items.lance").toString();
        try (BufferAllocator allocator = new RootAllocator();
                VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator)) {
            root.allocateNew();
            FixedSizeListVector vec = (FixedSizeListVector) root.getVector("vec");
            Float4Vector items = (Float4Vector) vec.getDataVector();
            for (int i = 0; i < 4; i++) {
                ((BigIntVector) root.getVector("id")).setSafe(i, i);
                if (i == 2) {
                    ((VarCharVector) root.getVector("name")).setNull(i);
                } else {
                    ((VarCharVector) root.getVector("name")).setSafe(i, ("n" + i).getBytes(StandardCharsets.UTF_8));
                }
                ((DecimalVector) root.getVector("price")).setSafe(i, new BigDecimal(i + ".50"));
                ((DateDayVector) root.getVector("day")).setSafe(i, 20454 + i);
                ((TimeStampMicroVector) root.getVector("ts")).setSafe(i, TS0 + i * 1_000_000L + i);
                ((VarBinaryVector) root.getVector("raw")).setSafe(i, new byte[] {(byte) i, (byte) 0xab});
                vec.setNotNull(i);
                items.setSafe(2 * i, i);
                items.setSafe(2 * i + 1, -0.25f * i);
            }
            items.setValueCount(8);
            root.setRowCount(4);
            Dataset.write(uri, Map.of(), List.of(root), SCHEMA, WriteParams.of(WriteMode.CREATE))
                    .close();
        }
    }

    private static String itemsDdl() {
        return "CREATE TABLE items (id BIGINT NOT NULL, name STRING, price DECIMAL(10, 2), `day` DATE, "
                + "ts TIMESTAMP(6), `raw` BYTES, vec ARRAY<FLOAT>) WITH ('connector' = 'lance', 'path' = '" + uri
                + "');\n";
    }

    @Test
    void selectPrintsOneJsonArrayLinePerQueryWithDumpConventions() throws Exception {
        SqlRun r = sql(
                "--format",
                "json",
                "-e",
                itemsDdl()
                        + "SELECT * FROM items WHERE id IN (1, 2) ORDER BY id;\n"
                        + "SELECT COUNT(*) AS n, 'a;b' AS s FROM items -- a comment; with a semicolon\n;");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.lines()).hasSize(2);
        assertThat(r.lines().get(0))
                .isEqualTo("[{\"id\":1,\"name\":\"n1\",\"price\":1.50,\"day\":\"2026-01-02\","
                        + "\"ts\":\"2026-01-01T00:00:01.000001\",\"raw\":\"0x01ab\",\"vec\":[1.0,-0.25]},"
                        + "{\"id\":2,\"name\":null,\"price\":2.50,\"day\":\"2026-01-03\","
                        + "\"ts\":\"2026-01-01T00:00:02.000002\",\"raw\":\"0x02ab\",\"vec\":[2.0,-0.5]}]");
        assertThat(MAPPER.readTree(r.lines().get(1))).isEqualTo(MAPPER.readTree("[{\"n\":4,\"s\":\"a;b\"}]"));
    }

    @Test
    void setStatementsChangeTheSessionAndTheRuntimeMode() throws Exception {
        SqlRun r = sql(
                "--format",
                "json",
                "-e",
                "SET 'parallelism.default' = '1';\n"
                        + "SET 'execution.runtime-mode' = 'streaming';\n" + itemsDdl()
                        + "SELECT id FROM items WHERE id < 2;\n"
                        + "SET 'execution.runtime-mode' = 'batch';\n"
                        + "SELECT name FROM items WHERE id = 3;\n"
                        + "SET;");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.lines()).hasSize(2);
        assertThat(MAPPER.readTree(r.lines().get(0)))
                .containsExactlyInAnyOrder(MAPPER.readTree("{\"id\":0}"), MAPPER.readTree("{\"id\":1}"));
        assertThat(r.lines().get(1)).isEqualTo("[{\"name\":\"n3\"}]");
        // The table declared in streaming mode is still there after the switch to batch.
        assertThat(r.err())
                .contains("execution.runtime-mode = BATCH: statements now run in a new environment")
                .contains("'parallelism.default' = '1'");
    }

    @Test
    void stateRecoveryPathIsHonoured() {
        // Streaming: batch jobs have no checkpoint coordinator and so never restore state.
        SqlRun r = sql(
                "--format",
                "json",
                "-e",
                "SET 'execution.runtime-mode' = 'streaming';\n" + itemsDdl()
                        + "SET 'execution.state-recovery.path' = '" + dir.resolve("no-such-savepoint") + "';\n"
                        + "SELECT id FROM items;");
        assertThat(r.code()).as(r.err()).isEqualTo(1);
        assertThat(r.out()).startsWith("{\"error\":").contains("no-such-savepoint");
    }

    @Test
    void aSyntaxErrorStopsTheRunWithAnErrorDocument() throws Exception {
        SqlRun r = sql("--format", "json", "-e", "SELECT 1 AS v;\nSELEC 2;\nSELECT 3;");
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.lines()).hasSize(2);
        assertThat(r.lines().get(0)).isEqualTo("[{\"v\":1}]");
        JsonNode error = MAPPER.readTree(r.lines().get(1));
        assertThat(error.get("error").asText())
                .startsWith("statement 2 (line 2): SqlParserException: SQL parse " + "failed.");
    }

    @Test
    void catalogStatementsThroughTheLanceCatalog() throws Exception {
        Path warehouse = dir.resolve("warehouse");
        Path script = dir.resolve("catalog.sql");
        Files.writeString(
                script,
                "CREATE CATALOG lake WITH ('type' = 'lance', 'warehouse' = '" + warehouse + "');\n"
                        + "USE CATALOG lake;\n"
                        + "CREATE DATABASE shop;\n"
                        + "CREATE TABLE shop.users (id BIGINT, age INT, PRIMARY KEY (id) NOT ENFORCED);\n"
                        + "CREATE TABLE shop.orders (id BIGINT NOT NULL, amount INT);\n"
                        + "SHOW TABLES FROM shop;\n"
                        + "SELECT COUNT(*) AS n FROM shop.users;\n"
                        + "INSERT INTO shop.orders VALUES (1, 10), (2, 20);\n"
                        + "SELECT id, amount FROM shop.orders ORDER BY id;\n");
        SqlRun r = sql("-f", script.toString(), "--format", "json");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.lines()).containsExactly("[{\"n\":0}]", "[{\"id\":1,\"amount\":10},{\"id\":2,\"amount\":20}]");
        assertThat(r.err())
                .contains("| users      |")
                .contains("| orders     |")
                .containsPattern("job \\S+ finished");
        try (Dataset d = Dataset.open(warehouse.resolve("shop/users.lance").toString(), Map.of())) {
            assertThat(d.version()).isEqualTo(1);
            assertThat(d.schema().fieldByName("id").orElseThrow().isUnenforcedPrimaryKey())
                    .isTrue();
        }
    }

    @Test
    void tableFormatPrintsABoxedTable() {
        SqlRun r = sql("-e", itemsDdl() + "SELECT id, name FROM items WHERE id < 3 ORDER BY id");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out())
                .isEqualTo(String.join(
                        "\n",
                        "+----+------+",
                        "| id | name |",
                        "+----+------+",
                        "| 0  | n0   |",
                        "| 1  | n1   |",
                        "| 2  | NULL |",
                        "+----+------+",
                        "3 rows in set",
                        ""));
    }
}
