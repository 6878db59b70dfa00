package dev.lanceflink.flink.table;

import static dev.lanceflink.flink.table.SqlTestSupport.USERS;
import static dev.lanceflink.flink.table.SqlTestSupport.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.OverlayCoverage;
import dev.lanceflink.testkit.flink.MiniClusters;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.roaringbitmap.RoaringBitmap;

/**
 * UPDATE, row-level DELETE and upserts through Flink SQL: the worked {@code users} example
 * (one dense overlay of {@code age} on fragment 0 covering offsets 1 and 3, nothing else),
 * multi-column updates as one overlay, interleaved UPDATE and DELETE, and a streaming
 * {@code INSERT INTO t (id, age)} into a primary-key table writing overlays of {@code age} only.
 */
class LanceSqlUpdateDeleteITCase {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = MiniClusters.oneTaskManager(2);

    @TempDir
    Path dir;

    String uri;

    @BeforeEach
    void createUsers() throws Exception {
        uri = dir.resolve("users.lance").toString();
        Dataset.write(uri, Map.of(), List.of(), USERS, WriteParams.of(WriteMode.CREATE))
                .close();
        TableEnvironment t = batch("");
        t.executeSql("INSERT INTO users VALUES (1, 'Alice', 30), (2, 'Bob', 25), (3, 'Carol', 40), (4, 'Dan', 22)")
                .await();
    }

    private TableEnvironment batch(String primaryKey) {
        TableEnvironment t = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        t.getConfig().set("parallelism.default", "1");
        t.executeSql("CREATE TABLE users (id BIGINT NOT NULL, name STRING, age INT" + primaryKey
                + ") WITH ('connector' = 'lance', 'path' = '" + uri + "')");
        return t;
    }

    private Manifest manifest() throws Exception {
        try (Dataset d = Dataset.open(uri, Map.of())) {
            return d.manifest();
        }
    }

    @Test
    void usersExampleUpdateIsOneDenseOverlayOfAgeOnFragmentZero() throws Exception {
        TableEnvironment t = batch("");
        t.executeSql("UPDATE users SET age = age + 1 WHERE id IN (2, 4)").await();

        Manifest m = manifest();
        assertThat(m.fragments()).hasSize(1);
        Fragment f = m.fragments().get(0);
        assertThat(f.id()).isZero();
        assertThat(f.deletionFile()).isNull();
        assertThat(f.overlays()).hasSize(1);
        DataOverlayFile o = f.overlays().get(0);
        assertThat(o.committedVersion()).isEqualTo(m.version());
        assertThat(o.dataFile().fields())
                .containsExactly(m.schema().fields().get(2).id());
        assertThat(o.coverage()).isInstanceOf(OverlayCoverage.Dense.class);
        assertThat(o.coverage().union()).isEqualTo(RoaringBitmap.bitmapOf(1, 3));
        assertThat(rows(t, "SELECT age FROM users")).containsExactly("+I[30]", "+I[26]", "+I[40]", "+I[23]");
    }

    /**
     * BATCH upserts into a primary-key table: Flink's batch keyed state keeps only the current
     * key, so the key map bootstrapped from the table must live elsewhere, or every existing key
     * looks new and gets a second row.
     */
    @Test
    void batchUpsertsFindExistingKeysAcrossStatementsAndParallelism() throws Exception {
        TableEnvironment t = batch(", PRIMARY KEY (id) NOT ENFORCED");
        t.getConfig().set("parallelism.default", "3");
        t.executeSql("INSERT INTO users (id, age) VALUES (2, 26), (5, 50)").await();
        t.executeSql("INSERT INTO users VALUES (1, 'Alicia', 31), (6, 'Eve', 60), (2, 'Robert', 27)")
                .await();
        t.executeSql("INSERT INTO users (id, age) SELECT id, age + 100 FROM users WHERE id > 3")
                .await();

        assertThat(rows(t, "SELECT * FROM users ORDER BY id"))
                .containsExactly(
                        "+I[1, Alicia, 31]",
                        "+I[2, Robert, 27]",
                        "+I[3, Carol, 40]",
                        "+I[4, Dan, 122]",
                        "+I[5, null, 150]",
                        "+I[6, Eve, 160]");
        assertThat(rows(t, "SELECT COUNT(*) FROM users")).containsExactly("+I[6]");
        long physical = 0;
        for (Fragment f : manifest().fragments()) {
            physical += f.physicalRows();
        }
        assertThat(physical)
                .as("one physical row per key: existing keys were overlaid, not appended")
                .isEqualTo(6);
    }

    @Test
    void multiColumnUpdateIsOneOverlayOfThoseColumnsAndDeletesInterleave() throws Exception {
        TableEnvironment t = batch("");
        t.executeSql("UPDATE users SET name = UPPER(name), age = age * 2 WHERE age < 35")
                .await();
        Manifest m = manifest();
        DataOverlayFile o = m.fragments().get(0).overlays().get(0);
        assertThat(o.dataFile().fields())
                .containsExactly(
                        m.schema().fields().get(1).id(),
                        m.schema().fields().get(2).id());

        // Not expressible in Lance: runs as a row-level DELETE of the rows' addresses.
        t.executeSql("DELETE FROM users WHERE UPPER(name) = 'BOB'").await();
        t.executeSql("UPDATE users SET age = 1 WHERE id = 4").await();
        t.executeSql("DELETE FROM users WHERE id = 1").await(); // pushed down
        assertThat(rows(t, "SELECT * FROM users ORDER BY id")).containsExactly("+I[3, Carol, 40]", "+I[4, DAN, 1]");
        assertThat(manifest().fragments()).hasSize(1);
    }

    @Test
    void updatingThePrimaryKeyIsRefused() {
        TableEnvironment t = batch(", PRIMARY KEY (id) NOT ENFORCED");
        assertThatThrownBy(() ->
                        t.executeSql("UPDATE users SET id = 7 WHERE id = 1").await())
                .satisfies(
                        e -> assertThat(ExceptionUtils.stringifyException(e)).contains("sets primary key column 'id'"));
    }

    @Test
    void streamingInsertOfSomeColumnsIntoAPrimaryKeyTableOverlaysOnlyThem() throws Exception {
        TableEnvironment s = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        s.getConfig().set("parallelism.default", "2");
        s.getConfig().set("execution.checkpointing.interval", "200ms");
        s.executeSql("CREATE TABLE users (id BIGINT NOT NULL, name STRING, age INT, PRIMARY KEY (id) NOT ENFORCED)"
                + " WITH ('connector' = 'lance', 'path' = '" + uri + "')");
        s.executeSql("INSERT INTO users (id, age) SELECT id, age FROM (VALUES (CAST(2 AS BIGINT), 52),"
                        + " (CAST(3 AS BIGINT), 53), (CAST(9 AS BIGINT), 59)) AS v(id, age)")
                .await();

        Manifest m = manifest();
        int ageId = m.schema().fields().get(2).id();
        assertThat(m.fragments())
                .flatMap(Fragment::overlays)
                .isNotEmpty()
                .allSatisfy(o -> assertThat(o.dataFile().fields()).containsExactly(ageId));
        TableEnvironment t = batch("");
        assertThat(rows(t, "SELECT * FROM users ORDER BY id"))
                .containsExactly(
                        "+I[1, Alice, 30]", "+I[2, Bob, 52]", "+I[3, Carol, 53]", "+I[4, Dan, 22]", "+I[9, null, 59]");
    }
}
