package dev.lanceflink.flink.table;

import static dev.lanceflink.flink.table.SqlTestSupport.USERS;
import static dev.lanceflink.flink.table.SqlTestSupport.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.VersionInfo;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.testkit.flink.MiniClusters;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * INSERT INTO and DELETE through Flink SQL on a MiniCluster, and what users see for bad input:
 * each failure names the problem and leaves the table's version unchanged.
 */
class LanceTableSinkITCase {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = MiniClusters.oneTaskManager(2);

    private static final String COLUMNS = "id BIGINT NOT NULL, name STRING, age INT";
    private static final String FIVE_USERS =
            "INSERT INTO users VALUES (1, 'ann', 29), (2, 'bob', 25), (3, CAST(NULL AS STRING), 39), "
                    + "(4, 'dan', 22), (5, 'eve', CAST(NULL AS INT))";

    @TempDir
    Path dir;

    String uri;

    @BeforeEach
    void createEmptyTable() throws Exception {
        uri = dir.resolve("users.lance").toString();
        Dataset.write(uri, Map.of(), List.of(), USERS, WriteParams.of(WriteMode.CREATE))
                .close();
    }

    private TableEnvironment batch(String columns, String extraOptions) {
        TableEnvironment t = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        t.getConfig().set("parallelism.default", "1");
        create(t, columns, extraOptions);
        return t;
    }

    private void create(TableEnvironment t, String columns, String extraOptions) {
        t.executeSql("CREATE TABLE users (" + columns + ") WITH ('connector' = 'lance', 'path' = '" + uri + "'"
                + extraOptions + ")");
    }

    private long latestVersion() throws Exception {
        try (Dataset d = Dataset.open(uri, Map.of())) {
            return d.version();
        }
    }

    // ---- INSERT INTO --------------------------------------------------------------------------

    @Test
    void batchInsertCommitsOneAppendThatSelectReads() throws Exception {
        TableEnvironment t = batch(COLUMNS, "");
        t.executeSql(FIVE_USERS).await();

        assertThat(rows(t, "SELECT * FROM users ORDER BY id"))
                .containsExactly(
                        "+I[1, ann, 29]", "+I[2, bob, 25]", "+I[3, null, 39]", "+I[4, dan, 22]", "+I[5, eve, null]");
        try (Dataset d = Dataset.open(uri, Map.of())) {
            assertThat(d.version()).isEqualTo(2);
            assertThat(d.fragments()).hasSize(1);
            assertThat(d.versions().get(1).operation()).isEqualTo("Append");
        }
    }

    @Test
    void sinkOptionsReachTheWriters() throws Exception {
        TableEnvironment t = batch(
                COLUMNS,
                ", 'sink.rows-per-file' = '2', 'sink.parallelism' = '1',"
                        + " 'sink.batch-rows' = '1', 'sink.commit-retries' = '3', 'sink.commit-retry-backoff' = '10ms',"
                        + " 'sink.uid-suffix' = 'users'");
        t.executeSql(FIVE_USERS).await();

        try (Dataset d = Dataset.open(uri, Map.of())) {
            assertThat(d.fragments()).extracting(Fragment::physicalRows).containsExactly(2L, 2L, 1L);
            assertThat(d.countRows()).isEqualTo(5);
        }
    }

    @Test
    void streamingInsertCommitsAtCheckpoints() throws Exception {
        TableEnvironment s = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        s.getConfig().set("parallelism.default", "2");
        s.getConfig().set("execution.checkpointing.interval", "100ms");
        create(s, COLUMNS, "");
        s.executeSql(FIVE_USERS).await();
        s.executeSql("INSERT INTO users SELECT id + 10, name, age FROM (VALUES (CAST(1 AS BIGINT), 'x', 1),"
                        + " (CAST(2 AS BIGINT), 'y', 2)) AS v(id, name, age)")
                .await();

        assertThat(rows(batch(COLUMNS, ""), "SELECT id, name, age FROM users ORDER BY id"))
                .containsExactly(
                        "+I[1, ann, 29]",
                        "+I[2, bob, 25]",
                        "+I[3, null, 39]",
                        "+I[4, dan, 22]",
                        "+I[5, eve, null]",
                        "+I[11, x, 1]",
                        "+I[12, y, 2]");
        try (Dataset d = Dataset.open(uri, Map.of())) {
            List<VersionInfo> versions = d.versions();
            assertThat(versions.subList(1, versions.size()))
                    .extracting(VersionInfo::operation)
                    .containsOnly("Append");
            assertThat(d.countRows()).isEqualTo(7);
        }
    }

    // ---- bad input ----------------------------------------------------------------------------

    @Test
    void anUnknownOptionIsRefusedWithTheSupportedOnes() throws Exception {
        TableEnvironment t = batch(COLUMNS, ", 'sink.rows-per-fiel' = '10'");
        assertThatThrownBy(() -> t.executeSql(FIVE_USERS).await())
                .hasStackTraceContaining("Unsupported options found for 'lance'")
                .hasStackTraceContaining("sink.rows-per-fiel")
                .hasStackTraceContaining("sink.rows-per-file")
                .hasStackTraceContaining("sink.parallelism");
        assertThat(latestVersion()).isEqualTo(1);
    }

    @Test
    void aBadOptionValueIsRefused() throws Exception {
        TableEnvironment t = batch(COLUMNS, ", 'sink.rows-per-file' = '0'");
        assertThatThrownBy(() -> t.executeSql(FIVE_USERS).await())
                .hasStackTraceContaining("'sink.rows-per-file' must be positive, got 0");
        TableEnvironment v = batch(COLUMNS, ", 'version' = '1'");
        assertThatThrownBy(() -> v.executeSql(FIVE_USERS).await())
                .hasStackTraceContaining("sets 'version' (time travel), but INSERT INTO and DELETE always change the"
                        + " latest version");
        TableEnvironment k = batch(COLUMNS, ", 'sink.key-map' = 'rocks'");
        assertThatThrownBy(() -> k.executeSql(FIVE_USERS).await())
                .hasStackTraceContaining("sets 'sink.key-map' = 'rocks', which is not a key map mode; use"
                        + " 'in-memory' (a heap map built from the table at start, the default) or 'keyed-state'");
        assertThat(latestVersion()).isEqualTo(1);
    }

    @Test
    void aWrongTypeIsRefusedNamingTheColumn() throws Exception {
        TableEnvironment t = batch("id BIGINT NOT NULL, name STRING, age BIGINT", "");
        assertThatThrownBy(() -> t.executeSql(FIVE_USERS).await())
                .hasStackTraceContaining("Column 'age' is declared BIGINT but the Lance table stores it as INT");
        TableEnvironment n = batch("id BIGINT, name STRING, age INT", "");
        assertThatThrownBy(() -> n.executeSql(FIVE_USERS).await())
                .hasStackTraceContaining("column 'id' is NOT NULL in the Lance table but declared BIGINT; declare it"
                        + " BIGINT NOT NULL");
        TableEnvironment m = batch("name STRING, age INT", "");
        assertThatThrownBy(
                        () -> m.executeSql("INSERT INTO users VALUES ('a', 1)").await())
                .hasStackTraceContaining("INSERT INTO gives the columns the table does not declare NULL in new rows,"
                        + " but the Lance table's columns [id] are NOT NULL; declare them");
        assertThat(latestVersion()).isEqualTo(1);
    }

    @Test
    void nullIntoANotNullColumnFailsTheJobAndCommitsNothing() throws Exception {
        TableEnvironment t = batch(COLUMNS, "");
        assertThatThrownBy(() -> t.executeSql("INSERT INTO users SELECT * FROM (VALUES (CAST(1 AS BIGINT), 'a', 1),"
                                + " (CAST(NULL AS BIGINT), 'b', 2)) AS v(id, name, age)")
                        .await())
                .hasStackTraceContaining("Column 'id' is NOT NULL, however, a null value is being written into it");
        assertThat(latestVersion()).isEqualTo(1);
    }

    @Test
    void readingAPathWithoutATableFailsSayingAWriteCreatesIt() throws Exception {
        Path empty = Files.createDirectory(dir.resolve("not-a-table"));
        TableEnvironment t = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        t.executeSql("CREATE TABLE users (" + COLUMNS + ") WITH ('connector' = 'lance', 'path' = '" + empty + "')");
        assertThatThrownBy(() -> rows(t, "SELECT * FROM users"))
                .hasStackTraceContaining("There is no Lance table at '" + empty + "' for table"
                        + " `default_catalog`.`default_database`.`users`")
                .hasStackTraceContaining("A write (INSERT INTO) creates it");
        // The planner opens the table as a source for a DELETE too, so it fails the same way.
        assertThatThrownBy(() -> t.executeSql("DELETE FROM users WHERE id = 1").await())
                .hasStackTraceContaining("There is no Lance table at '" + empty + "'");
        assertThat(Files.list(empty)).isEmpty();
    }

    // ---- DELETE -------------------------------------------------------------------------------

    @Test
    void deleteWithAPushedFilterWritesADeletionFileAndNoFragment() throws Exception {
        TableEnvironment t = batch(COLUMNS, "");
        t.executeSql(FIVE_USERS).await();
        assertThat(rows(t, "DELETE FROM users WHERE id IN (2, 4)")).containsExactly("+I[2]"); // rows deleted

        try (Dataset d = Dataset.open(uri, Map.of())) {
            assertThat(d.version()).isEqualTo(3);
            assertThat(d.versions().get(2).operation()).isEqualTo("Delete");
            assertThat(d.fragments()).hasSize(1);
            Fragment f = d.fragments().get(0);
            assertThat(f.id()).isZero();
            assertThat(f.deletionFile()).isNotNull();
            assertThat(f.physicalRows()).isEqualTo(5);
            assertThat(f.numDeletedRows()).isEqualTo(2);
        }
        assertThat(rows(t, "SELECT id FROM users ORDER BY id")).containsExactly("+I[1]", "+I[3]", "+I[5]");
    }

    @Test
    void deleteOnADeclarationOfSomeColumnsAndDeleteOfAllRows() throws Exception {
        batch(COLUMNS, "").executeSql(FIVE_USERS).await();
        TableEnvironment t = batch("id BIGINT NOT NULL, name STRING", "");
        t.executeSql("DELETE FROM users WHERE name = 'ann' OR name IS NULL").await();
        assertThat(rows(t, "SELECT id FROM users ORDER BY id")).containsExactly("+I[2]", "+I[4]", "+I[5]");

        t.executeSql("DELETE FROM users").await();
        try (Dataset d = Dataset.open(uri, Map.of())) {
            assertThat(d.countRows()).isZero();
            assertThat(d.fragments()).isEmpty(); // a fragment with every row deleted is dropped
        }
    }

    @Test
    void deleteThatMatchesNothingCommitsNothing() throws Exception {
        TableEnvironment t = batch(COLUMNS, "");
        t.executeSql(FIVE_USERS).await();
        t.executeSql("DELETE FROM users WHERE id > 100").await();
        assertThat(latestVersion()).isEqualTo(2);
    }

    @Test
    void deleteWithAFilterLanceCannotEvaluateRunsAsARowLevelDelete() throws Exception {
        TableEnvironment t = batch(COLUMNS, "");
        t.executeSql(FIVE_USERS).await();
        t.executeSql("DELETE FROM users WHERE UPPER(name) = 'ANN'").await();

        assertThat(rows(t, "SELECT id FROM users ORDER BY id")).containsExactly("+I[2]", "+I[3]", "+I[4]", "+I[5]");
        try (Dataset d = Dataset.open(uri, Map.of())) {
            assertThat(d.version()).isEqualTo(3);
            assertThat(d.versions().get(2).operation()).isEqualTo("Delete");
            assertThat(d.fragments()).hasSize(1);
            assertThat(d.fragments().get(0).deletionFile()).isNotNull();
        }
    }
}
