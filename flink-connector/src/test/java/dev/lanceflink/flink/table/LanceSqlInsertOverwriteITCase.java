package dev.lanceflink.flink.table;

import static dev.lanceflink.flink.table.SqlTestSupport.USERS;
import static dev.lanceflink.flink.table.SqlTestSupport.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.table.DataFile;
import dev.lanceflink.table.FeatureFlags;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.testkit.flink.MiniClusters;
import dev.lanceflink.txn.Operation;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code INSERT OVERWRITE} through Flink SQL: the query's rows replace the table's as one Lance
 * {@code Overwrite} version, with three writers of which some get no rows, an empty result
 * empties the table, overlays and deletion files of the old content go with it, a failed job
 * leaves the table as it was, and streaming mode is refused.
 */
class LanceSqlInsertOverwriteITCase {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = MiniClusters.oneTaskManager(3);

    @TempDir
    Path dir;

    String uri;

    /** Version 1: the empty table; version 2: four users in one fragment. */
    @BeforeEach
    void createUsers() throws Exception {
        uri = dir.resolve("users.lance").toString();
        Dataset.write(uri, Map.of(), List.of(), USERS, WriteParams.of(WriteMode.CREATE))
                .close();
        batch("", 1)
                .executeSql("INSERT INTO users VALUES (1, 'Alice', 30), (2, 'Bob', 25), (3, 'Carol', 40),"
                        + " (4, 'Dan', 22)")
                .await();
    }

    /** A batch environment whose {@code users} table is written by {@code writers} parallel writers. */
    private TableEnvironment batch(String primaryKey, int writers) {
        TableEnvironment t = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        t.getConfig().set("parallelism.default", Integer.toString(writers));
        t.executeSql("CREATE TABLE users (id BIGINT NOT NULL, name STRING, age INT" + primaryKey
                + ") WITH ('connector' = 'lance', 'path' = '" + uri + "', 'sink.parallelism' = '" + writers + "')");
        return t;
    }

    private Manifest manifest() throws Exception {
        try (Dataset d = Dataset.open(uri, Map.of())) {
            return d.manifest();
        }
    }

    private Operation lastOperation() throws Exception {
        try (Dataset d = Dataset.open(uri, Map.of())) {
            return d.transaction().orElseThrow().operation();
        }
    }

    private static Set<String> dataFiles(Manifest m) {
        Set<String> out = new HashSet<>();
        for (Fragment f : m.fragments()) {
            for (DataFile d : f.files()) {
                out.add(d.path());
            }
        }
        return out;
    }

    @Test
    void overwriteReplacesEveryRowAndOldVersionsStayReadable() throws Exception {
        Manifest before = manifest();
        TableEnvironment t = batch("", 3);
        t.executeSql("INSERT OVERWRITE users VALUES (10, 'Xena', 31), (11, 'Yann', 32)")
                .await();

        Manifest after = manifest();
        assertThat(after.version()).isEqualTo(before.version() + 1);
        assertThat(lastOperation()).isInstanceOf(Operation.Overwrite.class);
        assertThat(rows(t, "SELECT * FROM users ORDER BY id")).containsExactly("+I[10, Xena, 31]", "+I[11, Yann, 32]");
        assertThat(dataFiles(after)).as("only the new fragments").doesNotContainAnyElementsOf(dataFiles(before));
        assertThat(after.fragments())
                .as("two of the three writers got a row, the third none")
                .hasSize(2);
        assertThat(after.schema().toProto()).isEqualTo(before.schema().toProto());

        t.executeSql("CREATE TABLE users_before (id BIGINT NOT NULL, name STRING, age INT) WITH ('connector' = 'lance',"
                + " 'path' = '" + uri + "', 'version' = '" + before.version() + "')");
        assertThat(rows(t, "SELECT id FROM users_before ORDER BY id"))
                .containsExactly("+I[1]", "+I[2]", "+I[3]", "+I[4]");
    }

    @Test
    void emptyResultEmptiesTheTable() throws Exception {
        Manifest before = manifest();
        TableEnvironment t = batch("", 3);
        t.executeSql("INSERT OVERWRITE users SELECT * FROM users WHERE age > 100")
                .await();

        Manifest after = manifest();
        assertThat(after.version()).isEqualTo(before.version() + 1);
        assertThat(lastOperation()).isInstanceOf(Operation.Overwrite.class);
        assertThat(after.fragments()).isEmpty();
        assertThat(rows(t, "SELECT * FROM users")).isEmpty();
    }

    @Test
    void overwriteFromTheTableItselfReadsTheOldRows() throws Exception {
        TableEnvironment t = batch("", 2);
        t.executeSql("INSERT OVERWRITE users SELECT id, UPPER(name), age + 1 FROM users WHERE id <> 2")
                .await();

        assertThat(rows(t, "SELECT * FROM users ORDER BY id"))
                .containsExactly("+I[1, ALICE, 31]", "+I[3, CAROL, 41]", "+I[4, DAN, 23]");
    }

    @Test
    void overwriteDropsOverlaysAndDeletionFilesWithTheOldContent() throws Exception {
        TableEnvironment t = batch("", 1);
        t.executeSql("UPDATE users SET age = age + 1 WHERE id = 2").await();
        t.executeSql("DELETE FROM users WHERE UPPER(name) = 'CAROL'").await(); // row-level: a deletion file
        Manifest before = manifest();
        assertThat(before.readerFeatureFlags() & FeatureFlags.UNSTABLE_DATA_OVERLAY_FILES)
                .isNotZero();
        assertThat(before.readerFeatureFlags() & FeatureFlags.DELETION_FILES).isNotZero();

        t.executeSql("INSERT OVERWRITE users VALUES (7, 'Gus', 70)").await();

        Manifest after = manifest();
        assertThat(after.fragments()).singleElement().satisfies(f -> {
            assertThat(f.overlays()).isEmpty();
            assertThat(f.deletionFile()).isNull();
        });
        long oldContent = FeatureFlags.UNSTABLE_DATA_OVERLAY_FILES | FeatureFlags.DELETION_FILES;
        assertThat(after.readerFeatureFlags() & oldContent).isZero();
        assertThat(after.writerFeatureFlags() & oldContent).isZero();
        assertThat(rows(t, "SELECT * FROM users")).containsExactly("+I[7, Gus, 70]");
    }

    @Test
    void primaryKeyTableIsOverwrittenWithPlainRows() throws Exception {
        TableEnvironment t = batch(", PRIMARY KEY (id) NOT ENFORCED", 2);
        t.executeSql("INSERT OVERWRITE users VALUES (2, 'Bea', 50), (5, 'Eve', 55)")
                .await();

        assertThat(lastOperation()).isInstanceOf(Operation.Overwrite.class);
        assertThat(manifest().fragments())
                .allSatisfy(f -> assertThat(f.overlays()).isEmpty());
        assertThat(rows(t, "SELECT * FROM users ORDER BY id")).containsExactly("+I[2, Bea, 50]", "+I[5, Eve, 55]");
    }

    @Test
    void failedOverwriteLeavesTheTableUnchanged() throws Exception {
        Manifest before = manifest();
        TableEnvironment t = batch("", 3);

        assertThatThrownBy(() -> t.executeSql("INSERT OVERWRITE users SELECT CASE WHEN id = 3 THEN CAST(NULL AS"
                                + " BIGINT) ELSE id END, name, age FROM users")
                        .await())
                .satisfies(e -> assertThat(ExceptionUtils.stringifyException(e))
                        .contains("id")
                        .contains("NOT NULL"));

        assertThat(manifest().version()).isEqualTo(before.version());
        assertThat(rows(t, "SELECT id FROM users ORDER BY id")).containsExactly("+I[1]", "+I[2]", "+I[3]", "+I[4]");
    }

    @Test
    void streamingOverwriteIsRefused() throws Exception {
        Manifest before = manifest();
        TableEnvironment s = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        s.executeSql("CREATE TABLE users (id BIGINT NOT NULL, name STRING, age INT) WITH ('connector' = 'lance',"
                + " 'path' = '" + uri + "')");

        // Flink's planner accepts INSERT OVERWRITE in streaming mode; the sink refuses it.
        assertThatThrownBy(() -> s.executeSql("INSERT OVERWRITE users VALUES (10, 'Xena', 31)")
                        .await())
                .satisfies(e -> assertThat(ExceptionUtils.stringifyException(e))
                        .contains("INSERT OVERWRITE into default_catalog.default_database.users needs batch execution")
                        .contains("SET 'execution.runtime-mode' = 'batch'"));
        assertThat(manifest().version()).isEqualTo(before.version());
    }
}
