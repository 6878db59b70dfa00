package dev.lanceflink.it.interop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.file.FileVersion;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.IntPredicate;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A table with a {@code map<utf8, int32>} column written by us in data storage version 2.2 is
 * read by the official SDK. The oracle's dump cannot render maps (its type grammar has none),
 * so the SDK proves it decodes the values by evaluating predicates over keys, values, value
 * nulls, empty and null maps: each predicate runs as a delete on its own copy of the table, and
 * the number of rows it deleted must be the number of rows our model of the data matches. The
 * same for maps written by Flink SQL into a table a Lance catalog created.
 */
class MapColumnInteropITCase {
    private static final int ROWS = 3000;

    @TempDir
    Path dir;

    static Schema schema() {
        return new Schema(List.of(
                new Field("id", FieldType.notNullable(new ArrowType.Int(32, true)), null),
                mapField("m"),
                // Always NULL: its pages are all-null (constant layout) pages of a map.
                mapField("none")));
    }

    private static Field mapField(String name) {
        Field entries = new Field(
                "entries",
                FieldType.notNullable(ArrowType.Struct.INSTANCE),
                List.of(
                        new Field("key", FieldType.notNullable(ArrowType.Utf8.INSTANCE), null),
                        new Field("value", FieldType.nullable(new ArrowType.Int(32, true)), null)));
        return new Field(name, FieldType.nullable(new ArrowType.Map(false)), List.of(entries));
    }

    // The model of row r (the writer below follows it).
    static boolean isNullMap(int r) {
        return r % 7 == 3;
    }

    /** Entries of row r: {"k0" -> r*10, "k1" -> r*10+1, "k2" -> null, "k3" -> r*10+3}, cut to size. */
    static int size(int r) {
        return isNullMap(r) ? 0 : r % 5 == 1 ? 0 : r % 4 + 1;
    }

    static VectorSchemaRoot rows(BufferAllocator allocator) {
        VectorSchemaRoot root = VectorSchemaRoot.create(schema(), allocator);
        IntVector id = (IntVector) root.getVector("id");
        MapVector m = (MapVector) root.getVector("m");
        StructVector e = (StructVector) m.getDataVector();
        VarCharVector keys = (VarCharVector) e.getChildrenFromFields().get(0);
        IntVector values = (IntVector) e.getChildrenFromFields().get(1);
        id.allocateNew(ROWS);
        m.allocateNew();
        for (int r = 0; r < ROWS; r++) {
            id.set(r, r);
            if (isNullMap(r)) {
                m.setNull(r);
                continue;
            }
            int n = size(r);
            int start = m.startNewValue(r);
            for (int j = 0; j < n; j++) {
                e.setIndexDefined(start + j);
                keys.setSafe(start + j, ("k" + j).getBytes(StandardCharsets.UTF_8));
                if (j == 2) {
                    values.setNull(start + j);
                } else {
                    values.setSafe(start + j, r * 10 + j);
                }
            }
            m.endValue(r, n);
        }
        e.setValueCount(m.getOffsetBuffer().getInt(4L * ROWS));
        MapVector none = (MapVector) root.getVector("none");
        none.allocateNew();
        for (int r = 0; r < ROWS; r++) {
            none.setNull(r);
        }
        root.setRowCount(ROWS);
        return root;
    }

    private static long count(IntPredicate rowMatches) {
        return IntStream.range(0, ROWS).filter(rowMatches).count();
    }

    @Test
    void theSdkReadsKeysValuesAndNullsOfAMapColumnWeWroteInVersion22() throws Exception {
        String uri = dir.resolve("t.lance").toString();
        try (BufferAllocator allocator = new RootAllocator();
                VectorSchemaRoot root = rows(allocator)) {
            // Three data files, so the SDK also stitches maps across fragments.
            Dataset.write(
                            uri,
                            Map.of(),
                            List.of(root),
                            schema(),
                            WriteParams.of(WriteMode.CREATE)
                                    .withFileVersion(FileVersion.V2_2)
                                    .withMaxRowsPerFile(1000))
                    .close();
        }
        // SQL predicate -> rows of the model it must match.
        Map<String, Long> predicates = new java.util.LinkedHashMap<>();
        predicates.put("m IS NULL", count(MapColumnInteropITCase::isNullMap));
        predicates.put("cardinality(m) = 0", count(r -> !isNullMap(r) && size(r) == 0));
        predicates.put("cardinality(m) = 3", count(r -> size(r) == 3));
        predicates.put("array_has(map_keys(m), 'k3')", count(r -> size(r) == 4));
        predicates.put("map_extract(m, 'k1')[1] % 20 = 11", count(r -> size(r) >= 2 && r % 2 == 1));
        predicates.put("array_has(map_keys(m), 'k2') AND map_extract(m, 'k2')[1] IS NULL", count(r -> size(r) >= 3));
        predicates.put("array_has(map_values(m), 29971)", count(r -> r == 2997 && size(r) >= 2));
        predicates.put("none IS NULL", (long) ROWS);
        // The model's counts, spelled out so that a change of the model shows here.
        assertThat(predicates.values()).containsExactly(429L, 515L, 514L, 514L, 1028L, 1028L, 1L, 3000L);

        List<String> filters = new ArrayList<>(predicates.keySet());
        List<List<String>> commands = new ArrayList<>();
        commands.add(List.of("inspect", uri));
        for (int i = 0; i < filters.size(); i++) {
            Path copy = dir.resolve("copy-" + i);
            copyTree(Path.of(uri), copy);
            commands.add(List.of("delete", copy.toString(), "--filter", filters.get(i)));
        }
        List<JsonNode> results = OracleProcess.fromBuild().batch(dir, commands);

        JsonNode inspect = OracleProcess.requireOk(commands.get(0), results.get(0));
        assertThat(inspect.get("data_storage_version").asText()).isEqualTo("2.2");
        assertThat(inspect.get("num_rows").asLong()).isEqualTo(ROWS);
        assertThat(inspect.get("fields").toString())
                .isEqualTo(
                        "["
                                + "{\"id\":0,\"parent_id\":-1,\"name\":\"id\",\"logical_type\":\"int32\",\"nullable\":false},"
                                + "{\"id\":1,\"parent_id\":-1,\"name\":\"m\",\"logical_type\":\"map\",\"nullable\":true},"
                                + "{\"id\":2,\"parent_id\":1,\"name\":\"entries\",\"logical_type\":\"struct\",\"nullable\":false},"
                                + "{\"id\":3,\"parent_id\":2,\"name\":\"key\",\"logical_type\":\"string\",\"nullable\":false},"
                                + "{\"id\":4,\"parent_id\":2,\"name\":\"value\",\"logical_type\":\"int32\",\"nullable\":true},"
                                + "{\"id\":5,\"parent_id\":-1,\"name\":\"none\",\"logical_type\":\"map\",\"nullable\":true},"
                                + "{\"id\":6,\"parent_id\":5,\"name\":\"entries\",\"logical_type\":\"struct\",\"nullable\":false},"
                                + "{\"id\":7,\"parent_id\":6,\"name\":\"key\",\"logical_type\":\"string\",\"nullable\":false},"
                                + "{\"id\":8,\"parent_id\":6,\"name\":\"value\",\"logical_type\":\"int32\",\"nullable\":true}]");
        assertThat(inspect.get("fragments")).hasSize(3);
        for (JsonNode fragment : inspect.get("fragments")) {
            assertThat(fragment.get("files").get(0).get("file_version").asText())
                    .isEqualTo("2.2");
            assertThat(fragment.get("files").get(0).get("fields").toString()).isEqualTo("[0,3,4,7,8]");
        }
        for (int i = 0; i < filters.size(); i++) {
            JsonNode deleted = OracleProcess.requireOk(commands.get(i + 1), results.get(i + 1));
            assertThat(deleted.get("rows_deleted").asLong())
                    .as("rows the SDK matched with %s", filters.get(i))
                    .isEqualTo(predicates.get(filters.get(i)));
        }
    }

    /**
     * The whole Flink path: a Lance catalog creates the table (in version 2.2, for its MAP column),
     * INSERT INTO writes maps with a NULL map and a NULL value, and the SDK evaluates predicates
     * over them.
     */
    @Test
    void mapsInsertedThroughFlinkSqlIntoACatalogTableAreReadByTheSdk() throws Exception {
        Path warehouse = dir.resolve("warehouse");
        TableEnvironment t = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        t.getConfig().set("parallelism.default", "1");
        t.executeSql("CREATE CATALOG lake WITH ('type' = 'lance', 'warehouse' = '" + warehouse + "')");
        t.executeSql("USE CATALOG lake");
        t.executeSql("CREATE TABLE maps (id INT NOT NULL, m MAP<STRING, INT>)");
        t.executeSql("INSERT INTO maps VALUES (1, MAP['a', 1, 'b', CAST(NULL AS INT)]),"
                        + " (2, CAST(NULL AS MAP<STRING, INT>)), (3, MAP['c', 3]), (4, MAP['a', 40])")
                .await();
        Path table = warehouse.resolve("default/maps.lance");

        Map<String, Long> predicates = new java.util.LinkedHashMap<>();
        predicates.put("m IS NULL", 1L);
        predicates.put("cardinality(m) = 2", 1L);
        predicates.put("array_has(map_keys(m), 'a')", 2L);
        predicates.put("map_extract(m, 'a')[1] = 40", 1L);
        predicates.put("array_has(map_keys(m), 'b') AND map_extract(m, 'b')[1] IS NULL", 1L);
        predicates.put("map_extract(m, 'c')[1] = 3", 1L);
        List<String> filters = new ArrayList<>(predicates.keySet());
        List<List<String>> commands = new ArrayList<>();
        commands.add(List.of("inspect", table.toString()));
        for (int i = 0; i < filters.size(); i++) {
            Path copy = dir.resolve("flink-copy-" + i);
            copyTree(table, copy);
            commands.add(List.of("delete", copy.toString(), "--filter", filters.get(i)));
        }
        List<JsonNode> results = OracleProcess.fromBuild().batch(dir, commands);

        JsonNode inspect = OracleProcess.requireOk(commands.get(0), results.get(0));
        assertThat(inspect.get("data_storage_version").asText()).isEqualTo("2.2");
        assertThat(inspect.get("version").asLong()).isEqualTo(2);
        assertThat(inspect.get("num_rows").asLong()).isEqualTo(4);
        for (int i = 0; i < filters.size(); i++) {
            JsonNode deleted = OracleProcess.requireOk(commands.get(i + 1), results.get(i + 1));
            assertThat(deleted.get("rows_deleted").asLong())
                    .as("rows the SDK matched with %s", filters.get(i))
                    .isEqualTo(predicates.get(filters.get(i)));
        }
    }

    @Test
    void aMapColumnInAVersion21TableIsRefusedBeforeAnythingIsCommitted() throws Exception {
        String uri = dir.resolve("t21.lance").toString();
        try (BufferAllocator allocator = new RootAllocator();
                VectorSchemaRoot root = rows(allocator)) {
            assertThatThrownBy(() -> Dataset.write(
                            uri,
                            Map.of(),
                            List.of(root),
                            schema(),
                            WriteParams.of(WriteMode.CREATE).withFileVersion(FileVersion.V2_1)))
                    .hasStackTraceContaining("field 'm' (id 1) is a map, but maps need data storage version 2.2"
                            + " and this file is version 2.1");
        }
        assertThat(Path.of(uri).resolve("_versions"))
                .satisfiesAnyOf(
                        p -> assertThat(p).doesNotExist(), p -> assertThat(p).isEmptyDirectory());
    }

    private static void copyTree(Path from, Path to) throws Exception {
        try (Stream<Path> s = Files.walk(from)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target);
                }
            }
        }
    }
}
