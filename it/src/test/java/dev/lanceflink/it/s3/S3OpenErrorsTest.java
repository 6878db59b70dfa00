package dev.lanceflink.it.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.NotADatasetException;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.s3.S3ProxyExtension;
import dev.lanceflink.s3.S3ProxyServer;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;

/**
 * What a user sees from {@link Dataset#open} when the S3 location is wrong: bad credentials, a
 * bucket that does not exist, or a prefix that holds no Lance table. Each error must name the
 * location and the setting or step that fixes it, and must not look like a missing table when
 * the real problem is access (or the other way round).
 */
class S3OpenErrorsTest {
    @RegisterExtension
    static final S3ProxyExtension S3 = new S3ProxyExtension();

    @TempDir
    static Path tmp;

    private static TableLocation table;

    @BeforeAll
    static void createTable() throws Exception {
        table = TableLocation.fresh(StoreKind.S3, S3.server(), tmp, "errors");
        try (BufferAllocator allocator = new RootAllocator();
                VectorSchemaRoot rows = TestRows.batch(allocator, TestRows.range(0, 10));
                Dataset ds = Dataset.write(
                        table.uri(),
                        table.storageOptions(),
                        List.of(rows),
                        TestRows.SCHEMA,
                        WriteParams.of(WriteMode.CREATE))) {
            assertThat(ds.countRows()).isEqualTo(10);
        }
    }

    private static Map<String, String> optionsWith(String key, String value) {
        Map<String, String> options = new HashMap<>(table.storageOptions());
        options.put(key, value);
        options.put("client_max_retries", "1"); // errors that are not retried must fail fast anyway
        return options;
    }

    @Test
    void wrongSecretKeyNamesTheSettingToCheck() {
        assertThatThrownBy(() -> Dataset.open(table.uri(), optionsWith("aws_secret_access_key", "wrong-secret")))
                .isInstanceOf(IOException.class)
                .isNotInstanceOf(NotADatasetException.class)
                .hasMessageContaining(table.uri().substring(0, table.uri().indexOf('/', 5)))
                .hasMessageContaining("aws_secret_access_key");
    }

    @Test
    void unknownAccessKeyIdNamesTheSettingToCheck() {
        assertThatThrownBy(() -> Dataset.open(table.uri(), optionsWith("aws_access_key_id", "no-such-key")))
                .isInstanceOf(IOException.class)
                .isNotInstanceOf(NotADatasetException.class)
                .hasMessageContaining("aws_access_key_id");
    }

    @Test
    void missingBucketSaysSoAndIsNotReportedAsAMissingTable() {
        String uri = "s3://no-such-bucket-lance-it/table.lance";
        assertThatThrownBy(() -> Dataset.open(uri, table.storageOptions()))
                .isInstanceOf(IOException.class)
                .isNotInstanceOf(NotADatasetException.class)
                .hasMessageContaining("no-such-bucket-lance-it")
                .hasMessageContaining("does not exist")
                .hasMessageContaining("Create the bucket or correct the table URI");
    }

    @Test
    void emptyPrefixIsNotADataset() {
        String uri = "s3://" + TableLocation.BUCKET + "/nothing-here-" + System.nanoTime();
        assertThatThrownBy(() -> Dataset.open(uri, table.storageOptions()))
                .isInstanceOf(NotADatasetException.class)
                .hasMessageContaining(uri)
                .hasMessageContaining("is not a Lance dataset");
    }

    @Test
    void prefixWithOtherFilesIsNotADataset() {
        S3ProxyServer server = S3.server();
        String prefix = "parquet-table-" + System.nanoTime();
        server.client()
                .putObject(
                        b -> b.bucket(TableLocation.BUCKET).key(prefix + "/part-0.parquet"),
                        RequestBody.fromString("PAR1"));
        server.client()
                .putObject(
                        b -> b.bucket(TableLocation.BUCKET).key(prefix + "/_versions/notes.txt"),
                        RequestBody.fromString("not a manifest"));
        String uri = "s3://" + TableLocation.BUCKET + "/" + prefix;
        assertThatThrownBy(() -> Dataset.open(uri, table.storageOptions()))
                .isInstanceOf(NotADatasetException.class)
                .hasMessageContaining(uri)
                .hasMessageContaining("_versions/*.manifest");
    }

    @Test
    void theTableItselfOpensWithTheRightSettings() throws Exception {
        try (Dataset ds = Dataset.open(table.uri(), table.storageOptions())) {
            assertThat(TestRows.contents(ds)).isEqualTo(TestRows.initial(TestRows.range(0, 10)));
        }
    }
}
