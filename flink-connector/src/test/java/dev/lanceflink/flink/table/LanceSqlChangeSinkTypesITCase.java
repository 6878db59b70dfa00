package dev.lanceflink.flink.table;

import static dev.lanceflink.flink.table.SqlTestSupport.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.testkit.flink.MiniClusters;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float2Vector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt2Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The change sinks (upsert into a PRIMARY KEY table, SQL UPDATE) against column types whose
 * Flink declaration differs from the type they read as: an {@code ARRAY<TIMESTAMP(3)>} declaration
 * of a microsecond list column, and tables with unsigned integer and half-float columns the
 * statement does not write. Values are checked cell by cell after each write.
 */
class LanceSqlChangeSinkTypesITCase {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = MiniClusters.oneTaskManager(2);

    @TempDir
    Path dir;

    private static TableEnvironment batch(String ddl) {
        TableEnvironment t = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        t.getConfig().set("parallelism.default", "1");
        t.executeSql(ddl);
        return t;
    }

    // ------------------------------------------------------------------------------------------
    // ARRAY<TIMESTAMP(3)> over list<timestamp[us]>
    // ------------------------------------------------------------------------------------------

    private String createTimestampList() throws Exception {
        String uri = dir.resolve("ts.lance").toString();
        Field element =
                new Field("item", FieldType.nullable(new ArrowType.Timestamp(TimeUnit.MICROSECOND, null)), null);
        Schema schema = new Schema(List.of(
                new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
                new Field("ts", FieldType.nullable(ArrowType.List.INSTANCE), List.of(element))));
        Dataset.write(uri, Map.of(), List.of(), schema, WriteParams.of(WriteMode.CREATE))
                .close();
        return uri;
    }

    private static String tsDdl(String uri, String elementType, String primaryKey) {
        return "CREATE TABLE t (id BIGINT NOT NULL, ts ARRAY<" + elementType + ">" + primaryKey + ")"
                + " WITH ('connector' = 'lance', 'path' = '" + uri + "')";
    }

    private static final String PK = ", PRIMARY KEY (id) NOT ENFORCED";

    /**
     * The column reads as {@code ARRAY<TIMESTAMP(6)>}; declared {@code ARRAY<TIMESTAMP(3)>} it
     * appends and reads, but the change sinks re-lay out only top-level timestamps, so an upsert
     * or UPDATE is refused at planning (when the statement is submitted, nothing written), naming
     * the column and what to declare. So declared, both write the values.
     */
    @Test
    void upsertAndUpdateOfAnArrayOfTimestamp3DeclarationAreRefusedAtPlanningAndWorkAsTheColumnReads() throws Exception {
        String uri = createTimestampList();
        batch(tsDdl(uri, "TIMESTAMP(3)", ""))
                .executeSql("INSERT INTO t VALUES (1, ARRAY[TIMESTAMP '2024-01-02 03:04:05.678']),"
                        + " (2, ARRAY[TIMESTAMP '2024-05-06 07:08:09.123', CAST(NULL AS TIMESTAMP(3))])")
                .await();
        List<String> before = List.of("+I[1, [2024-01-02T03:04:05.678]]", "+I[2, [2024-05-06T07:08:09.123, null]]");

        TableEnvironment declared3 = batch(tsDdl(uri, "TIMESTAMP(3)", PK));
        // The stream's type is the statement's (e.g. NOT NULL elements of a literal array).
        String column = "Column 'ts' of " + uri + " is ARRAY<TIMESTAMP(6)>, but field 1 ('ts') of the stream's rows is"
                + " ARRAY<TIMESTAMP(3)";
        String what = "; declare the column ARRAY<TIMESTAMP(6)> in the table's DDL, as the table reads it";
        assertThatThrownBy(() ->
                        declared3.executeSql("INSERT INTO t VALUES (1, ARRAY[TIMESTAMP '1999-12-31 23:59:59.999'])"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(column)
                .hasMessageContaining(what);
        assertThatThrownBy(() -> declared3.executeSql(
                        "UPDATE t SET ts = ARRAY[TIMESTAMP '2030-03-03 03:03:03.333'] WHERE id = 2"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(column)
                .hasMessageContaining(what);
        assertThat(rows(declared3, "SELECT id, ts FROM t ORDER BY id")).containsExactlyElementsOf(before);

        TableEnvironment declared6 = batch(tsDdl(uri, "TIMESTAMP(6)", PK));
        // Upsert: one existing key, one new key.
        declared6
                .executeSql("INSERT INTO t VALUES (1, ARRAY[TIMESTAMP '1999-12-31 23:59:59.999999']),"
                        + " (3, ARRAY[TIMESTAMP '1969-12-31 23:59:59.000001', TIMESTAMP '2000-01-01 00:00:00.5'])")
                .await();
        // SQL UPDATE.
        declared6
                .executeSql("UPDATE t SET ts = ARRAY[TIMESTAMP '2030-03-03 03:03:03.333333'] WHERE id = 2")
                .await();
        assertThat(rows(declared6, "SELECT id, ts FROM t ORDER BY id"))
                .containsExactly(
                        "+I[1, [1999-12-31T23:59:59.999999]]",
                        "+I[2, [2030-03-03T03:03:03.333333]]",
                        "+I[3, [1969-12-31T23:59:59.000001, 2000-01-01T00:00:00.500]]");
        // Read with the declaration the table was written with: truncated to milliseconds.
        assertThat(rows(batch(tsDdl(uri, "TIMESTAMP(3)", "")), "SELECT id, ts FROM t ORDER BY id"))
                .containsExactly(
                        "+I[1, [1999-12-31T23:59:59.999]]",
                        "+I[2, [2030-03-03T03:03:03.333]]",
                        "+I[3, [1969-12-31T23:59:59, 2000-01-01T00:00:00.500]]");
    }

    // ------------------------------------------------------------------------------------------
    // Unsigned integers and half floats, not written by the statement
    // ------------------------------------------------------------------------------------------

    private String createUnsigned() throws Exception {
        String uri = dir.resolve("unsigned.lance").toString();
        Schema schema = new Schema(List.of(
                new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
                new Field("u8", FieldType.nullable(new ArrowType.Int(8, false)), null),
                new Field("u16", FieldType.nullable(new ArrowType.Int(16, false)), null),
                new Field("u32", FieldType.nullable(new ArrowType.Int(32, false)), null),
                new Field("h", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.HALF)), null),
                new Field("name", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));
        try (BufferAllocator allocator = new RootAllocator();
                VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
            root.allocateNew();
            BigIntVector id = (BigIntVector) root.getVector("id");
            UInt1Vector u8 = (UInt1Vector) root.getVector("u8");
            UInt2Vector u16 = (UInt2Vector) root.getVector("u16");
            UInt4Vector u32 = (UInt4Vector) root.getVector("u32");
            Float2Vector h = (Float2Vector) root.getVector("h");
            VarCharVector name = (VarCharVector) root.getVector("name");
            // Row 1: the largest unsigned values; row 2: NULLs and a negative half float.
            id.setSafe(0, 1);
            u8.setSafe(0, 255);
            u16.setSafe(0, 65535);
            u32.setSafe(0, -1); // 4294967295
            h.setSafeWithPossibleTruncate(0, 1.5f);
            name.setSafe(0, "a".getBytes(java.nio.charset.StandardCharsets.UTF_8));
            id.setSafe(1, 2);
            u8.setNull(1);
            u16.setSafe(1, 7);
            u32.setNull(1);
            h.setSafeWithPossibleTruncate(1, -0.25f);
            name.setSafe(1, "b".getBytes(java.nio.charset.StandardCharsets.UTF_8));
            root.setRowCount(2);
            Dataset.write(uri, Map.of(), List.of(root), schema, WriteParams.of(WriteMode.CREATE))
                    .close();
        }
        return uri;
    }

    private static String unsignedDdl(String uri) {
        return unsignedDdl(uri, "");
    }

    private static String unsignedDdl(String uri, String options) {
        return "CREATE TABLE t (id BIGINT NOT NULL, u8 SMALLINT, u16 INT, u32 BIGINT, h FLOAT, name STRING,"
                + " PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'lance', 'path' = '" + uri + "'" + options
                + ")";
    }

    @Test
    void updateAndUpsertOfOtherColumnsOfATableWithUnsignedAndHalfFloatColumnsWork() throws Exception {
        updateAndUpsertOtherColumns("");
    }

    /** Rewrite-rows moves the updated rows: their unsigned and half-float values are written back. */
    @Test
    void rewriteRowsWritesTheUnsignedAndHalfFloatValuesOfTheRowsItMovesBack() throws Exception {
        updateAndUpsertOtherColumns(", 'sink.update-mode' = 'rewrite-rows'");
    }

    private void updateAndUpsertOtherColumns(String options) throws Exception {
        String uri = createUnsigned();
        TableEnvironment t = batch(unsignedDdl(uri, options));

        t.executeSql("UPDATE t SET name = 'a2' WHERE id = 1").await();
        assertThat(rows(t, "SELECT * FROM t ORDER BY id"))
                .containsExactly("+I[1, 255, 65535, 4294967295, 1.5, a2]", "+I[2, null, 7, null, -0.25, b]");

        // Upsert writing only id and name: an existing key and a new one (its other columns NULL).
        t.executeSql("INSERT INTO t (id, name) VALUES (2, 'b2'), (3, 'c')").await();
        assertThat(rows(t, "SELECT * FROM t ORDER BY id"))
                .containsExactly(
                        "+I[1, 255, 65535, 4294967295, 1.5, a2]",
                        "+I[2, null, 7, null, -0.25, b2]",
                        "+I[3, null, null, null, null, c]");
    }

    @Test
    void writingAnUnsignedColumnIsRefusedAtPlanningNamingIt() throws Exception {
        String uri = createUnsigned();
        TableEnvironment t = batch(unsignedDdl(uri));

        assertThatThrownBy(() -> t.executeSql("UPDATE t SET u8 = CAST(3 AS SMALLINT) WHERE id = 1"))
                .satisfies(e -> assertThat(ExceptionUtils.stringifyException(e))
                        .contains("column 'u8'")
                        .contains("Flink cannot write this column"));
        assertThat(rows(t, "SELECT u8 FROM t ORDER BY id")).containsExactly("+I[255]", "+I[null]");
    }
}
