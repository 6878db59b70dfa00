package dev.lanceflink.s3;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.core.sync.RequestBody;

/** The harness other modules reuse, here through {@code @ExtendWith} and parameter injection. */
@ExtendWith(S3ProxyExtension.class)
class S3ProxyExtensionTest {
    private static S3ProxyServer fromBeforeAll;

    @BeforeAll
    static void remember(S3ProxyServer server) {
        fromBeforeAll = server;
    }

    @Test
    void injectsOneSharedRunningServer(S3ProxyServer server) {
        assertThat(server).isSameAs(fromBeforeAll);
        assertThat(server.endpoint().getHost()).isEqualTo("127.0.0.1");
        assertThat(server.storageOptions())
                .containsEntry(S3StoreConfig.ALLOW_HTTP, "true")
                .containsEntry(S3StoreConfig.VIRTUAL_HOSTED_STYLE, "false");

        String bucket = server.createBucket("harness");
        assertThat(server.createBucket("harness")).isEqualTo(bucket);
        server.client()
                .putObject(b -> b.bucket(bucket).key("k/one"), RequestBody.fromString("1", StandardCharsets.UTF_8));
        assertThat(server.keys(bucket, "k/")).containsExactly("k/one");
        assertThat(server.pendingUploads(bucket, "k/")).isEmpty();
    }
}
