package dev.lanceflink.flink.table;

import static dev.lanceflink.flink.table.SqlTestSupport.USERS;
import static dev.lanceflink.flink.table.SqlTestSupport.rows;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.testkit.flink.MiniClusters;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * How often an UPDATE and a row-level DELETE read a manifest of their table, from planning to
 * commit ({@link ManifestReadsStoreProvider} records every manifest read): a statement pins one
 * view of the table when it is planned and carries it to its writers and committer, so the count
 * stays small and cannot creep back.
 *
 * <p>Before the statement snapshot, an UPDATE and a row-level DELETE each read 16 manifests
 * (10 while planning: the factory, the scan's runtime provider three times with a second read of
 * the same version each, the sink's wiring; then the split reader, the writer's schema and
 * fragments, and the committer's checks). Now: the factories' one read each while planning, the
 * split reader, the writer's read of the fragments at the read version, and the committer's
 * latest-version and history reads.
 */
class StatementManifestReadsITCase {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = MiniClusters.oneTaskManager(2);

    @TempDir
    Path dir;

    String uri;

    @BeforeEach
    void createUsers() throws Exception {
        uri = ManifestReadsStoreProvider.SCHEME + "://" + dir.resolve("users.lance");
        Dataset.write(uri, Map.of(), List.of(), USERS, WriteParams.of(WriteMode.CREATE))
                .close();
        environment()
                .executeSql("INSERT INTO users VALUES (1, 'Alice', 30), (2, 'Bob', 25), (3, 'Carol', 40)")
                .await();
    }

    private TableEnvironment environment() {
        TableEnvironment t = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        t.getConfig().set("parallelism.default", "1");
        t.executeSql("CREATE TABLE users (id BIGINT NOT NULL, name STRING, age INT) WITH ('connector' = 'lance',"
                + " 'path' = '" + uri + "')");
        return t;
    }

    /** At most this many manifest reads per UPDATE or row-level DELETE of a table with one version committed since its creation. */
    static final int MAX_MANIFEST_READS = 8;

    /** At most this many of them while the statement is planned (on the caller's thread). */
    static final int MAX_PLANNING_MANIFEST_READS = 3;

    /** The manifest reads of running {@code sql}, by path, with a summary printed for the report. */
    private List<ManifestReadsStoreProvider.Read> manifestReadsOf(String sql) throws Exception {
        TableEnvironment t = environment();
        ManifestReadsStoreProvider.reset();
        t.executeSql(sql).await();
        List<ManifestReadsStoreProvider.Read> reads = ManifestReadsStoreProvider.reads();
        Map<String, Integer> byPath = new TreeMap<>();
        reads.forEach(r -> byPath.merge(r.path(), 1, Integer::sum));
        System.out.println("MANIFEST READS of " + sql + ": " + reads.size() + " " + byPath);
        reads.forEach(r -> System.out.println("  " + r));
        return reads;
    }

    @Test
    void anUpdateReadsFewManifests() throws Exception {
        List<ManifestReadsStoreProvider.Read> reads = manifestReadsOf("UPDATE users SET age = 31 WHERE id = 1");
        assertThat(rows(environment(), "SELECT * FROM users ORDER BY id"))
                .containsExactly("+I[1, Alice, 31]", "+I[2, Bob, 25]", "+I[3, Carol, 40]");
        assertFew(reads);
    }

    @Test
    void aRowLevelDeleteReadsFewManifests() throws Exception {
        // A function the filter translator cannot push down makes it a row-level DELETE.
        List<ManifestReadsStoreProvider.Read> reads = manifestReadsOf("DELETE FROM users WHERE CHAR_LENGTH(name) = 3");
        assertThat(rows(environment(), "SELECT * FROM users ORDER BY id"))
                .containsExactly("+I[1, Alice, 30]", "+I[3, Carol, 40]");
        assertFew(reads);
    }

    private static void assertFew(List<ManifestReadsStoreProvider.Read> reads) {
        assertThat(reads).as("manifest reads of the statement").hasSizeLessThanOrEqualTo(MAX_MANIFEST_READS);
        assertThat(reads.stream()
                        .filter(r -> r.thread().equals(Thread.currentThread().getName())))
                .as("manifest reads while planning")
                .hasSizeLessThanOrEqualTo(MAX_PLANNING_MANIFEST_READS);
    }
}
