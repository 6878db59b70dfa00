package dev.lanceflink.flink.table;

import static dev.lanceflink.flink.table.SqlTestSupport.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.flink.testutil.SampleTable;
import dev.lanceflink.testkit.flink.MiniClusters;
import java.nio.file.Path;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** SQL over a Lance table written by format-core, on a MiniCluster (parallelism 1: results in physical order). */
class LanceTableSourceITCase {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = MiniClusters.oneTaskManager(2);

    @TempDir
    static Path dir;

    static String uri;

    @BeforeAll
    static void writeTable() throws Exception {
        uri = dir.resolve("items.lance").toString();
        SampleTable.write(uri);
    }

    private static TableEnvironment env(String columns) {
        TableEnvironment t = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        t.getConfig().set("parallelism.default", "1");
        t.executeSql("CREATE TABLE items (" + columns + ") WITH ('connector' = 'lance', 'path' = '" + uri
                + "', 'scan.batch-size' = '2')");
        return t;
    }

    @Test
    void selectsEveryTypeOfTheLatestVersion() throws Exception {
        TableEnvironment t = env("id BIGINT NOT NULL, name STRING, score DOUBLE, price DECIMAL(10, 2), "
                + "vec ARRAY<FLOAT>, ts TIMESTAMP(6)");
        assertThat(rows(t, "SELECT * FROM items WHERE id IN (0, 3, 7)"))
                .containsExactly(
                        "+I[0, n0, 0.0, 0.25, [0.0, 0.0], 2026-01-01T00:00]",
                        "+I[3, null, 1.5, 3.25, [3.0, -3.0], 2026-01-01T00:00:03.000003]",
                        "+I[7, n7, 3.5, 7.25, [7.0, -7.0], 2026-01-01T00:00:07.000007]");
        assertThat(rows(t, "SELECT COUNT(*), SUM(price) FROM items")).containsExactly("+I[8, 30.00]");
    }

    @Test
    void filterProjectionAndLimitArePushedAndExact() throws Exception {
        TableEnvironment t = env("id BIGINT NOT NULL, name STRING, score DOUBLE, price DECIMAL(10, 2)");
        assertThat(rows(t, "SELECT id, name FROM items WHERE score > 1.0 AND name IS NOT NULL LIMIT 2"))
                .containsExactly("+I[4, n4]", "+I[5, n5]");
        assertThat(rows(t, "SELECT name FROM items WHERE NOT (id < 6) OR name IS NULL"))
                .containsExactly("+I[null]", "+I[n6]", "+I[n7]");
        assertThat(rows(t, "SELECT id FROM items WHERE name = 'n2' OR price >= 7.25"))
                .containsExactly("+I[2]", "+I[7]");
        // Exact filters leave Flink's plan, so the limit reaches the scan too.
        String pushed = t.explainSql("SELECT id FROM items WHERE id > 1 AND name <> 'n4' LIMIT 2");
        assertThat(pushed)
                .contains("limit=[2]")
                .contains("project=[id")
                .doesNotContain("filter=[]")
                .doesNotContain("where=[");
        assertThat(rows(t, "SELECT id FROM items WHERE id > 1 AND name <> 'n4' LIMIT 2"))
                .containsExactly("+I[2]", "+I[5]");
        // Conditions the scan does not evaluate exactly as Flink does (LIKE): Flink keeps them.
        String kept = t.explainSql("SELECT id FROM items WHERE name LIKE 'n%'");
        assertThat(kept).contains("filter=[]").contains("where=[");
    }

    @Test
    void rowAddressIsReadableAsMetadata() throws Exception {
        TableEnvironment t = env("id BIGINT NOT NULL, addr BIGINT METADATA FROM '_rowaddr' VIRTUAL");
        assertThat(rows(t, "SELECT id, addr FROM items WHERE id >= 2 AND id <= 5"))
                .containsExactly("+I[2, 2]", "+I[3, 4294967296]", "+I[4, 4294967297]", "+I[5, 8589934592]");
    }

    @Test
    void timeTravelByVersionAndInstant() throws Exception {
        TableEnvironment t = env("id BIGINT NOT NULL");
        assertThat(rows(t, "SELECT COUNT(*) FROM items /*+ OPTIONS('version' = '1') */"))
                .containsExactly("+I[5]");
        assertThat(rows(t, "SELECT COUNT(*) FROM items")).containsExactly("+I[8]");
        assertThat(rows(t, "SELECT COUNT(*) FROM items /*+ OPTIONS('as-of' = '2099-01-01T00:00:00Z') */"))
                .containsExactly("+I[8]");
        assertThatThrownBy(() -> rows(t, "SELECT COUNT(*) FROM items /*+ OPTIONS('as-of' = '2000-01-01T00:00:00Z') */"))
                .hasStackTraceContaining("2000-01-01");
    }

    @Test
    void badDeclarationsFailWithClearErrors() {
        TableEnvironment t = env("id INT");
        assertThatThrownBy(() -> t.executeSql("SELECT * FROM items").collect())
                .hasStackTraceContaining(
                        "Column 'id' is declared INT but the Lance table stores it as BIGINT NOT NULL");
        TableEnvironment u = env("idx BIGINT");
        assertThatThrownBy(() -> u.executeSql("SELECT * FROM items").collect())
                .hasStackTraceContaining("Column 'idx' of table")
                .hasStackTraceContaining("[id, name, score, price, vec, ts]");
        TableEnvironment v = env("id BIGINT");
        assertThatThrownBy(() -> v.executeSql("SELECT * FROM items /*+ OPTIONS('verison' = '1') */")
                        .collect())
                .hasStackTraceContaining("Unsupported options")
                .hasStackTraceContaining("verison");
    }
}
