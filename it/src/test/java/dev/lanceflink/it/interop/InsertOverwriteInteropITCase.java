package dev.lanceflink.it.interop;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.table.FeatureFlags;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.testkit.users.UsersTable;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #6's interop acceptance: a table that released Lance (SDK 7.0.0) cannot read, because it
 * holds live overlays (feature flag 64), becomes readable again after a Flink SQL
 * {@code INSERT OVERWRITE}, and the SDK reads exactly the new rows that our reader reads.
 */
class InsertOverwriteInteropITCase {
    private static final Schema USERS = UsersTable.EXAMPLE_SCHEMA;

    @TempDir
    Path dir;

    @Test
    void sdkReadsTheOverwrittenTableExactlyOnceItsOverlaysAreGone() throws Exception {
        String uri = dir.resolve("users.lance").toString();
        Dataset.write(uri, Map.of(), List.of(), USERS, WriteParams.of(WriteMode.CREATE))
                .close();
        TableEnvironment t = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        t.getConfig().set("parallelism.default", "1");
        t.executeSql("CREATE TABLE users (id BIGINT NOT NULL, name STRING, age INT) WITH ('connector' = 'lance',"
                + " 'path' = '" + uri + "')");
        t.executeSql("INSERT INTO users VALUES (1, 'Alice', 30), (2, 'Bob', 25), (3, 'Carol', 40)")
                .await();
        t.executeSql("UPDATE users SET age = age + 1 WHERE id = 2").await();
        assertThat(manifest(uri).readerFeatureFlags() & FeatureFlags.UNSTABLE_DATA_OVERLAY_FILES)
                .isNotZero();

        t.executeSql("INSERT OVERWRITE users SELECT id + 10, UPPER(name), age FROM users WHERE id <> 3")
                .await();

        Manifest after = manifest(uri);
        assertThat(after.readerFeatureFlags() & FeatureFlags.UNSTABLE_DATA_OVERLAY_FILES)
                .isZero();
        assertThat(after.writerFeatureFlags() & FeatureFlags.UNSTABLE_DATA_OVERLAY_FILES)
                .isZero();
        JsonNode ours = OurCli.run("dump", uri);
        assertThat(ours.get("rows")).hasSize(2);
        JsonNode sdk = OracleProcess.fromBuild().run("dump", uri);
        DumpComparator.exact().assertSame("the SDK's read of the overwritten table vs ours", ours, sdk);
    }

    private static Manifest manifest(String uri) throws Exception {
        try (Dataset d = Dataset.open(uri, Map.of())) {
            return d.manifest();
        }
    }
}
