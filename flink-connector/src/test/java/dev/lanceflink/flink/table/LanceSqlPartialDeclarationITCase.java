package dev.lanceflink.flink.table;

import static dev.lanceflink.flink.table.SqlTestSupport.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.testkit.flink.MiniClusters;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Flink tables declaring only some columns of a Lance table ({@code id BIGINT NOT NULL, name
 * STRING, age INT, embedding} a 768-float vector, declared as {@code (id, age)}): UPDATE writes an
 * overlay of its SET columns only, upserts update the declared columns of existing rows and give
 * new rows NULL elsewhere, INSERT appends with NULLs, and undeclared NOT NULL columns are refused
 * at planning, naming the statement and the columns.
 */
class LanceSqlPartialDeclarationITCase {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = MiniClusters.oneTaskManager(2);

    private static final String VECTOR = "ARRAY["
            + IntStream.range(0, 768).mapToObj(i -> "CAST(" + i + " AS FLOAT)").collect(Collectors.joining(", ")) + "]";

    @TempDir
    Path dir;

    String uri;

    @BeforeEach
    void createUsers() throws Exception {
        uri = dir.resolve("users.lance").toString();
        TableEnvironment t = batch(""); // full_users creates the Lance table at this first write
        t.executeSql("INSERT INTO full_users VALUES (1, 'Alice', 30, " + VECTOR + "), (2, 'Bob', 25, " + VECTOR
                        + "), (20, 'Zed', 50, " + VECTOR + ")")
                .await();
    }

    /** {@code users} declared as {@code (id, age)} plus {@code extra}; also {@code full_users}, every column. */
    private TableEnvironment batch(String extra) {
        TableEnvironment t = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        t.getConfig().set("parallelism.default", "1");
        t.executeSql("CREATE TABLE users (id BIGINT NOT NULL, age INT" + extra + ") WITH ('connector' = 'lance',"
                + " 'path' = '" + uri + "')");
        t.executeSql("CREATE TABLE full_users (id BIGINT NOT NULL, name STRING, age INT, embedding ARRAY<FLOAT>)"
                + " WITH ('connector' = 'lance', 'path' = '" + uri + "', 'vector-dimensions' = 'embedding:768')");
        return t;
    }

    private Manifest manifest() throws Exception {
        try (Dataset d = Dataset.open(uri, Map.of())) {
            return d.manifest();
        }
    }

    private static List<String> people(TableEnvironment t) throws Exception {
        return rows(t, "SELECT id, name, age, CARDINALITY(embedding), embedding[768] FROM full_users ORDER BY id");
    }

    @Test
    void updateOfAPartialDeclarationWritesOneOverlayOfTheSetColumnOnly() throws Exception {
        TableEnvironment t = batch("");
        long before = manifest().version();
        t.executeSql("UPDATE users SET age = age + 1 WHERE id < 10").await();

        Manifest m = manifest();
        assertThat(m.version()).isEqualTo(before + 1);
        List<DataOverlayFile> overlays =
                m.fragments().stream().flatMap(f -> f.overlays().stream()).toList();
        assertThat(overlays).hasSize(1);
        assertThat(overlays.get(0).dataFile().fields())
                .containsExactly(m.schema().fieldByName("age").orElseThrow().id());
        assertThat(m.fragments().stream().mapToLong(Fragment::physicalRows).sum())
                .as("no row moved")
                .isEqualTo(3);
        assertThat(people(t))
                .containsExactly(
                        "+I[1, Alice, 31, 768, 767.0]", "+I[2, Bob, 26, 768, 767.0]", "+I[20, Zed, 50, 768, 767.0]");
    }

    @Test
    void upsertIntoAPartialDeclarationUpdatesDeclaredColumnsAndGivesNewRowsNulls() throws Exception {
        TableEnvironment t = batch(", PRIMARY KEY (id) NOT ENFORCED");
        t.executeSql("INSERT INTO users VALUES (1, 41), (5, 55)").await();

        assertThat(people(t))
                .containsExactly(
                        "+I[1, Alice, 41, 768, 767.0]",
                        "+I[2, Bob, 25, 768, 767.0]",
                        "+I[5, null, 55, null, null]",
                        "+I[20, Zed, 50, 768, 767.0]");
        Manifest m = manifest();
        assertThat(m.fragments().stream().mapToLong(Fragment::physicalRows).sum())
                .as("the existing key was overlaid, only the new one appended")
                .isEqualTo(4);
        for (DataOverlayFile o :
                m.fragments().stream().flatMap(f -> f.overlays().stream()).toList()) {
            assertThat(o.dataFile().fields())
                    .doesNotContain(
                            m.schema().fieldByName("name").orElseThrow().id(),
                            m.schema().fieldByName("embedding").orElseThrow().id());
        }
    }

    @Test
    void insertIntoAPartialDeclarationAppendsNullsInUndeclaredColumns() throws Exception {
        TableEnvironment t = batch("");
        t.executeSql("INSERT INTO users VALUES (7, 70)").await();
        assertThat(people(t)).contains("+I[7, null, 70, null, null]").hasSize(4);
        // Declared in another order than the table's: placed by name.
        t.executeSql("CREATE TABLE swapped (age INT, id BIGINT NOT NULL) WITH ('connector' = 'lance', 'path' = '" + uri
                + "')");
        t.executeSql("INSERT INTO swapped VALUES (80, 8)").await();
        assertThat(people(t)).contains("+I[8, null, 80, null, null]").hasSize(5);
    }

    @Test
    void undeclaredNotNullColumnsAreRefusedAtPlanningNamingTheStatementAndColumns() throws Exception {
        TableEnvironment t = batch("");
        long before = manifest().version();
        t.executeSql("CREATE TABLE no_id (name STRING, age INT) WITH ('connector' = 'lance', 'path' = '" + uri + "')");
        assertThatThrownBy(
                        () -> t.executeSql("INSERT INTO no_id VALUES ('x', 1)").await())
                .hasStackTraceContaining("INSERT INTO gives the columns the table does not declare NULL in new rows,"
                        + " but the Lance table's columns [id] are NOT NULL; declare them");
        // An UPDATE adds no rows: the undeclared NOT NULL id stays as it is.
        t.executeSql("UPDATE no_id SET age = 99 WHERE name = 'Bob'").await();
        assertThat(people(t)).contains("+I[2, Bob, 99, 768, 767.0]");
        assertThat(manifest().version()).isEqualTo(before + 1);
    }
}
