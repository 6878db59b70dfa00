package dev.lanceflink.flink.table;

import static dev.lanceflink.flink.table.SqlTestSupport.USERS;
import static dev.lanceflink.flink.table.SqlTestSupport.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.VersionInfo;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.deletion.DeletionFiles;
import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.table.FeatureFlags;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.testkit.flink.MiniClusters;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code 'sink.update-mode' = 'rewrite-rows'} through Flink SQL on the worked {@code users} table
 * ({@code (1, Alice, 30) (2, Bob, 25) (3, Carol, 40) (4, Dan, 22)}, one fragment): an UPDATE
 * deletes the updated rows from fragment 0 and appends them whole to a new fragment, in one Lance
 * {@code Update} version, with no overlay and no reader flag 64 in any version; upserts into a
 * PRIMARY KEY table, also of only some columns, move the rows and keep the other columns; a bad
 * option value and a table with stable row ids are refused when the statement is planned.
 */
class LanceSqlRewriteRowsITCase {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = MiniClusters.oneTaskManager(2);

    private static final String REWRITE_ROWS = ", 'sink.update-mode' = 'rewrite-rows'";

    @TempDir
    Path dir;

    String uri;

    @BeforeEach
    void createUsers() throws Exception {
        uri = dir.resolve("users.lance").toString();
        Dataset.write(uri, Map.of(), List.of(), USERS, WriteParams.of(WriteMode.CREATE))
                .close();
        batch("", "")
                .executeSql("INSERT INTO users VALUES (1, 'Alice', 30), (2, 'Bob', 25), (3, 'Carol', 40),"
                        + " (4, 'Dan', 22)")
                .await();
    }

    private TableEnvironment batch(String primaryKey, String options) {
        TableEnvironment t = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        t.getConfig().set("parallelism.default", "1");
        create(t, primaryKey, options);
        return t;
    }

    private void create(TableEnvironment t, String primaryKey, String options) {
        t.executeSql("CREATE TABLE users (id BIGINT NOT NULL, name STRING, age INT" + primaryKey
                + ") WITH ('connector' = 'lance', 'path' = '" + uri + "'" + options + ")");
    }

    private Manifest manifest() throws Exception {
        try (Dataset d = Dataset.open(uri, Map.of())) {
            return d.manifest();
        }
    }

    /** Every row as {@code +I[id, name, age, fragment id]}, ordered by id. */
    private List<String> rowsWithFragment(TableEnvironment t) throws Exception {
        t.executeSql("CREATE TEMPORARY TABLE users_at (id BIGINT NOT NULL, name STRING, age INT,"
                + " addr BIGINT METADATA FROM '_rowaddr' VIRTUAL) WITH ('connector' = 'lance', 'path' = '" + uri
                + "')");
        try {
            return rows(t, "SELECT id, name, age, addr / 4294967296 FROM users_at ORDER BY id");
        } finally {
            t.executeSql("DROP TEMPORARY TABLE users_at");
        }
    }

    /** No version has an overlay file or the reader flag that released Lance refuses; returns the operations. */
    private List<String> operationsOfOverlayFreeVersions() throws Exception {
        try (Dataset latest = Dataset.open(uri, Map.of())) {
            for (long v = 1; v <= latest.version(); v++) {
                try (Dataset at = latest.checkoutVersion(v)) {
                    assertThat(at.manifest().fragments())
                            .as("fragments of version %s", v)
                            .allSatisfy(f -> assertThat(f.overlays()).isEmpty());
                    assertThat(at.manifest().readerFeatureFlags() & FeatureFlags.UNSTABLE_DATA_OVERLAY_FILES)
                            .as("reader flag 64 of version %s", v)
                            .isZero();
                }
            }
            return latest.versions().stream().map(VersionInfo::operation).toList();
        }
    }

    private long[] deletedOffsets(Fragment f) throws Exception {
        try (LocalObjectStore store = new LocalObjectStore(Path.of(uri))) {
            return java.util.Arrays.stream(
                            DeletionFiles.read(store, f.id(), f.deletionFile()).toArray())
                    .asLongStream()
                    .toArray();
        }
    }

    @Test
    void updateDeletesTheRowsAndAppendsThemWholeToANewFragmentInOneVersion() throws Exception {
        TableEnvironment t = batch("", REWRITE_ROWS);
        long before = manifest().version();

        t.executeSql("UPDATE users SET age = age + 1 WHERE id IN (2, 4)").await();

        Manifest m = manifest();
        assertThat(m.version()).as("one version").isEqualTo(before + 1);
        assertThat(m.fragments()).extracting(Fragment::id).containsExactly(0L, 1L);
        assertThat(deletedOffsets(m.fragments().get(0)))
                .as("offsets of ids 2 and 4 in fragment 0")
                .containsExactly(1, 3);
        assertThat(rowsWithFragment(t))
                .containsExactly(
                        "+I[1, Alice, 30, 0]", "+I[2, Bob, 26, 1]", "+I[3, Carol, 40, 0]", "+I[4, Dan, 23, 1]");

        // Moved rows move again; a SET of another column rewrites the whole row too.
        t.executeSql("UPDATE users SET name = UPPER(name) WHERE age > 25").await();
        assertThat(rowsWithFragment(t))
                .containsExactly(
                        "+I[1, ALICE, 30, 2]", "+I[2, BOB, 26, 2]", "+I[3, CAROL, 40, 2]", "+I[4, Dan, 23, 1]");
        assertThat(operationsOfOverlayFreeVersions()).containsExactly("Overwrite", "Append", "Update", "Update");
    }

    @Test
    void upsertsIntoAPrimaryKeyTableMoveTheRowsAndKeepUndeclaredColumns() throws Exception {
        TableEnvironment t = batch(", PRIMARY KEY (id) NOT ENFORCED", REWRITE_ROWS);
        t.getConfig().set("parallelism.default", "2");
        t.executeSql("INSERT INTO users (id, age) VALUES (2, 52), (5, 55)").await();
        // Without before-images an upsert of an existing key rewrites the row even when its values are equal (3).
        t.executeSql("INSERT INTO users VALUES (1, 'Alicia', 31), (3, 'Carol', 40)")
                .await();

        assertThat(rows(t, "SELECT * FROM users ORDER BY id"))
                .containsExactly(
                        "+I[1, Alicia, 31]", "+I[2, Bob, 52]", "+I[3, Carol, 40]", "+I[4, Dan, 22]", "+I[5, null, 55]");
        Manifest m = manifest();
        assertThat(deletedOffsets(m.fragments().get(0)))
                .as("old versions of ids 1, 2 and 3")
                .containsExactly(0, 1, 2);
        assertThat(operationsOfOverlayFreeVersions()).containsExactly("Overwrite", "Append", "Update", "Update");
    }

    @Test
    void streamingPartialUpsertRewritesRowsWithTheirOtherColumns() throws Exception {
        TableEnvironment s = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        s.getConfig().set("parallelism.default", "2");
        s.getConfig().set("execution.checkpointing.interval", "200ms");
        create(s, ", PRIMARY KEY (id) NOT ENFORCED", REWRITE_ROWS);
        s.executeSql("INSERT INTO users (id, age) SELECT id, age FROM (VALUES (CAST(2 AS BIGINT), 52),"
                        + " (CAST(3 AS BIGINT), 53), (CAST(9 AS BIGINT), 59)) AS v(id, age)")
                .await();

        assertThat(rows(batch("", ""), "SELECT * FROM users ORDER BY id"))
                .containsExactly(
                        "+I[1, Alice, 30]", "+I[2, Bob, 52]", "+I[3, Carol, 53]", "+I[4, Dan, 22]", "+I[9, null, 59]");
        assertThat(operationsOfOverlayFreeVersions())
                .doesNotContain("DataOverlay")
                .contains("Update");
    }

    @Test
    void aTableWithStableRowIdsIsRefusedWhenAnUpdateIsPlanned() throws Exception {
        uri = dir.resolve("stable.lance").toString();
        Dataset.write(
                        uri,
                        Map.of(),
                        List.of(),
                        USERS,
                        WriteParams.of(WriteMode.CREATE).withStableRowIds(true))
                .close();
        TableEnvironment t = batch("", REWRITE_ROWS);
        t.executeSql("INSERT INTO users VALUES (1, 'Alice', 30)").await(); // appends are fine

        assertThatThrownBy(() ->
                        t.executeSql("UPDATE users SET age = 31 WHERE id = 1").await())
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining("uses stable row ids, which a rewritten row would not keep")
                .hasMessageContaining("Use 'overlay' for this table");
    }

    @Test
    void aBadUpdateModeIsRefusedWhenTheStatementIsPlanned() throws Exception {
        TableEnvironment t = batch("", ", 'sink.update-mode' = 'rewrite'");
        long before = manifest().version();

        assertThatThrownBy(() ->
                        t.executeSql("UPDATE users SET age = 1 WHERE id = 1").await())
                .isInstanceOf(ValidationException.class)
                .satisfies(e -> assertThat(ExceptionUtils.stringifyException(e))
                        .contains("Table "
                                + "default_catalog.default_database.users sets 'sink.update-mode' = 'rewrite', which is not an"
                                + " update mode; use 'overlay' (data overlay files, the default) or 'rewrite-rows'"));
        assertThat(manifest().version()).isEqualTo(before);
    }
}
