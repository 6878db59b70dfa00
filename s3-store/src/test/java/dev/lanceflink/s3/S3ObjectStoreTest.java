package dev.lanceflink.s3;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.io.ObjectInfo;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.io.ObjectStores;
import dev.lanceflink.io.RangeReader;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.SdkHttpMethod;

/** S3-specific behaviour on S3Proxy: request counts, multipart debris, laziness, errors. */
class S3ObjectStoreTest {
    @RegisterExtension
    static final S3ProxyExtension S3 = new S3ProxyExtension();

    private static final String BUCKET = "store-test";

    private final RequestCounter counter = new RequestCounter();

    private S3ObjectStore open(S3StoreConfig config) {
        return S3TestClients.open(S3TestClients.freshUri(S3.server(), BUCKET), config, counter, null);
    }

    private static byte[] bytes(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    private String keyPrefix(S3ObjectStore store) {
        return store.location().prefix() + "/";
    }

    @Test
    void multipartUploadUsesPartsAndLeavesNoPendingUpload() throws IOException {
        S3StoreConfig config = S3.server().config().withPartSize(S3StoreConfig.MIN_PART_SIZE);
        try (S3ObjectStore store = open(config)) {
            byte[] content = bytes((int) (2.5 * S3StoreConfig.MIN_PART_SIZE), 1);
            try (OutputStream out = store.create("data/big.lance")) {
                out.write(content);
            }

            assertThat(counter.count("CreateMultipartUpload")).isEqualTo(1);
            assertThat(counter.count("UploadPart")).isEqualTo(3);
            assertThat(counter.count("CompleteMultipartUpload")).isEqualTo(1);
            assertThat(counter.count("PutObject")).isZero();
            assertThat(store.readAll("data/big.lance")).isEqualTo(content);
            assertThat(S3.server().pendingUploads(BUCKET, keyPrefix(store))).isEmpty();
        }
    }

    @Test
    void smallCreateIsOnePut() throws IOException {
        try (S3ObjectStore store = open(S3.server().config())) {
            try (OutputStream out = store.create("data/small.lance")) {
                out.write(bytes(300_000, 2));
            }

            assertThat(counter.count("PutObject")).isEqualTo(1);
            assertThat(counter.count("CreateMultipartUpload")).isZero();
            assertThat(store.readAll("data/small.lance")).isEqualTo(bytes(300_000, 2));
        }
    }

    @Test
    void abortedMultipartLeavesNoObjectAndNoParts() throws IOException {
        S3StoreConfig config = S3.server().config().withPartSize(S3StoreConfig.MIN_PART_SIZE);
        try (S3ObjectStore store = open(config)) {
            S3MultipartOutputStream out = (S3MultipartOutputStream) store.create("data/abandoned.lance");
            out.write(bytes((int) (1.5 * S3StoreConfig.MIN_PART_SIZE), 3));
            assertThat(S3.server().pendingUploads(BUCKET, keyPrefix(store))).hasSize(1);

            out.abort();

            assertThat(counter.count("AbortMultipartUpload")).isEqualTo(1);
            assertThat(S3.server().pendingUploads(BUCKET, keyPrefix(store))).isEmpty();
            assertThat(store.exists("data/abandoned.lance")).isFalse();
            assertThatThrownBy(() -> out.write(1))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("abandoned.lance");
            out.close(); // a no-op after abort, so try-with-resources around an aborted stream is fine
            assertThat(store.exists("data/abandoned.lance")).isFalse();
            assertThat(counter.count("CompleteMultipartUpload")).isZero();
        }
    }

    @Test
    void failedPartUploadAbortsTheUpload() throws IOException {
        S3StoreConfig config = S3.server()
                .config()
                .withPartSize(S3StoreConfig.MIN_PART_SIZE)
                .withRetries(2, Duration.ofMillis(1), Duration.ofMillis(5));
        String uri = S3TestClients.freshUri(S3.server(), BUCKET);
        FaultInjectingHttpClient http = new FaultInjectingHttpClient(S3ClientFactory.newHttpClient(config), 7)
                .failNext(FaultInjectingHttpClient.partUpload(1), FaultInjectingHttpClient.Fault.FAIL_BEFORE, 2);
        try (S3ObjectStore store = S3TestClients.open(uri, config, counter, http)) {
            OutputStream out = store.create("data/failing.lance");
            out.write(bytes((int) (2.5 * S3StoreConfig.MIN_PART_SIZE), 4));

            assertThatThrownBy(out::close)
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("UploadPart 1")
                    .hasMessageContaining("data/failing.lance");
            assertThat(counter.count("AbortMultipartUpload")).isEqualTo(1);
            assertThat(S3.server().pendingUploads(BUCKET, keyPrefix(store))).isEmpty();
            assertThat(store.exists("data/failing.lance")).isFalse();
        }
    }

    @Test
    void lostCompleteResponseStillCountsAsWritten() throws IOException {
        // No SDK retry (S3Proxy would simply complete again): the store must see by itself that
        // the upload completed although the response was lost.
        S3StoreConfig config = S3.server()
                .config()
                .withPartSize(S3StoreConfig.MIN_PART_SIZE)
                .withRetries(1, Duration.ofMillis(1), Duration.ofMillis(5));
        String uri = S3TestClients.freshUri(S3.server(), BUCKET);
        FaultInjectingHttpClient http = new FaultInjectingHttpClient(S3ClientFactory.newHttpClient(config), 8)
                .failNext(
                        r -> r.method() == SdkHttpMethod.POST
                                && r.rawQueryParameters().containsKey("uploadId"),
                        FaultInjectingHttpClient.Fault.LOSE_RESPONSE,
                        1);
        try (S3ObjectStore store = S3TestClients.open(uri, config, counter, http)) {
            byte[] content = bytes((int) (1.5 * S3StoreConfig.MIN_PART_SIZE), 9);
            try (OutputStream out = store.create("data/completed.lance")) {
                out.write(content);
            }

            assertThat(counter.count("CompleteMultipartUpload")).isEqualTo(1);
            assertThat(counter.count("HeadObject"))
                    .as("the completion was checked")
                    .isEqualTo(1);
            assertThat(counter.count("AbortMultipartUpload")).isZero();
            assertThat(store.readAll("data/completed.lance")).isEqualTo(content);
            assertThat(S3.server().pendingUploads(BUCKET, keyPrefix(store))).isEmpty();
        }
    }

    @Test
    void readRangesCoalescesNearbyRangesIntoOneGet() throws IOException {
        S3StoreConfig config = S3.server().config().withCoalescing(4096, 1 << 20);
        try (S3ObjectStore store = open(config)) {
            byte[] content = bytes(3 << 20, 5);
            store.put("data/r.lance", content);
            try (RangeReader reader = store.openReader("data/r.lance")) {
                counter.reset();
                // Three clusters: [0, 10k) with small gaps, [1 MiB, +100) alone, [2 MiB - 50, 2 MiB + 4000).
                long[] offsets = {1 << 20, 9000, 0, 4000, 6000, (2 << 20) - 50, (2 << 20) + 3000};
                int[] lengths = {100, 1000, 1000, 2000, 2500, 60, 1000};
                ByteBuffer[] got = reader.readRanges(offsets, lengths);

                assertThat(counter.count("GetObject")).as(counter.toString()).isEqualTo(3);
                for (int i = 0; i < offsets.length; i++) {
                    byte[] b = new byte[lengths[i]];
                    got[i].get(b);
                    byte[] expected = new byte[lengths[i]];
                    System.arraycopy(content, (int) offsets[i], expected, 0, lengths[i]);
                    assertThat(b).as("range %d", i).isEqualTo(expected);
                }
            }
        }
    }

    @Test
    void readerFailsWhenTheObjectIsReplaced() throws IOException {
        try (S3ObjectStore store = open(S3.server().config())) {
            store.put("data/r.lance", bytes(1000, 6));
            try (RangeReader reader = store.openReader("data/r.lance")) {
                store.put("data/r.lance", bytes(1000, 7));

                assertThatThrownBy(() -> reader.read(0, 10))
                        .isInstanceOf(IOException.class)
                        .hasMessageContaining("was replaced while being read");
            }
        }
    }

    @Test
    void listFetchesPagesOnlyAsTheCallerAdvances() throws IOException {
        try (S3ObjectStore store = open(S3.server().config().withListPageSize(5))) {
            for (int i = 0; i < 23; i++) {
                store.put(String.format("_versions/%03d.manifest", i), new byte[] {(byte) i});
            }
            counter.reset();

            Iterator<ObjectInfo> it = store.list("_versions");
            assertThat(it.next().path()).isEqualTo("_versions/000.manifest");
            assertThat(counter.count("ListObjectsV2")).isEqualTo(1);
            for (int i = 1; i < 5; i++) {
                it.next();
            }
            assertThat(counter.count("ListObjectsV2")).isEqualTo(1);
            assertThat(it.hasNext()).isTrue();
            assertThat(counter.count("ListObjectsV2")).isEqualTo(2);
            int rest = 0;
            while (it.hasNext()) {
                assertThat(it.next().path()).isEqualTo(String.format("_versions/%03d.manifest", 5 + rest++));
            }
            assertThat(rest).isEqualTo(18);
            assertThat(counter.count("ListObjectsV2")).isEqualTo(5);
        }
    }

    @Test
    void conditionalPutTagsTheObjectWithACreationId() throws IOException {
        try (S3ObjectStore store = open(S3.server().config())) {
            assertThat(store.putIfAbsent("_versions/1.manifest", "m".getBytes(UTF_8)))
                    .isTrue();

            Map<String, String> metadata = S3.server()
                    .client()
                    .headObject(b -> b.bucket(BUCKET).key(store.location().key("_versions/1.manifest")))
                    .metadata();
            assertThat(metadata.get(S3ConditionalPut.CREATION_ID)).matches("[0-9a-f-]{36}");
        }
    }

    @Test
    void conditionalPutLosesToAnObjectWrittenByAnotherTool() throws IOException {
        try (S3ObjectStore store = open(S3.server().config())) {
            String key = store.location().key("_versions/1.manifest");
            S3.server().client().putObject(b -> b.bucket(BUCKET).key(key), RequestBody.fromString("lance"));

            assertThat(store.putIfAbsent("_versions/1.manifest", "ours".getBytes(UTF_8)))
                    .isFalse();
            assertThat(new String(store.readAll("_versions/1.manifest"), UTF_8)).isEqualTo("lance");
        }
    }

    @Test
    void wrongSecretKeyIsReportedAsSuch() throws IOException {
        // Retries stay on: S3Proxy answers a refused PUT before reading its body and drops the
        // connection, which the next request may find broken. A 403 itself is never retried.
        S3StoreConfig bad = S3.server()
                .config()
                .withCredentials(S3ProxyServer.ACCESS_KEY, "wrong-secret")
                .withRetries(3, Duration.ofMillis(1), Duration.ofMillis(5));
        try (S3ObjectStore store = open(bad)) {
            assertThatThrownBy(() -> store.put("a", new byte[1]))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("secret key does not match")
                    .hasMessageContaining(S3StoreConfig.SECRET_ACCESS_KEY)
                    .hasMessageContaining("SignatureDoesNotMatch");
            assertThatThrownBy(() -> store.list("_versions"))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("secret key does not match");
            // HEAD answers carry no error code; the message names both possible causes.
            assertThatThrownBy(() -> store.head("_versions/1.manifest"))
                    .isInstanceOf(IOException.class)
                    .isNotInstanceOf(FileNotFoundException.class)
                    .hasMessageContaining("Access denied")
                    .hasMessageContaining("credentials are wrong");
        }
    }

    @Test
    void unknownAccessKeyIsReportedAsSuch() throws IOException {
        S3StoreConfig bad = S3.server()
                .config()
                .withCredentials("no-such-key", "whatever")
                .withRetries(1, Duration.ofMillis(1), Duration.ofMillis(1));
        try (S3ObjectStore store = open(bad)) {
            assertThatThrownBy(() -> store.readAll("a"))
                    .isInstanceOf(IOException.class)
                    .isNotInstanceOf(FileNotFoundException.class)
                    .hasMessageContaining("access key id is not known")
                    .hasMessageContaining(S3StoreConfig.ACCESS_KEY_ID);
        }
    }

    @Test
    void missingBucketIsReportedAsSuchByEveryCall() throws IOException {
        try (S3ObjectStore store =
                S3ObjectStore.open("s3://no-such-bucket/table", S3.server().config())) {
            assertThatThrownBy(() -> store.list("_versions"))
                    .isInstanceOf(IOException.class)
                    .isNotInstanceOf(FileNotFoundException.class)
                    .hasMessageContaining("bucket 'no-such-bucket' does not exist");
            assertThatThrownBy(() -> store.head("_versions/1.manifest"))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("bucket 'no-such-bucket' does not exist");
            assertThatThrownBy(() -> store.readAll("_versions/1.manifest"))
                    .isInstanceOf(IOException.class)
                    .isNotInstanceOf(FileNotFoundException.class)
                    .hasMessageContaining("bucket 'no-such-bucket' does not exist");
            assertThatThrownBy(() -> store.putIfAbsent("_versions/1.manifest", new byte[1]))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("bucket 'no-such-bucket' does not exist");
        }
    }

    @Test
    void unreachableEndpointFailsWithinTheRetryBound() throws IOException {
        Map<String, String> options = new HashMap<>(S3.server().storageOptions());
        options.put(S3StoreConfig.ENDPOINT, "http://127.0.0.1:1");
        options.put(S3StoreConfig.CLIENT_MAX_RETRIES, "2");
        options.put(S3StoreConfig.RETRY_BASE_DELAY, "5ms");
        options.put(S3StoreConfig.CONNECT_TIMEOUT, "1s");
        try (S3ObjectStore store = S3ObjectStore.open("s3://b/t", S3StoreConfig.fromOptions(options))) {
            assertThatThrownBy(() -> store.readAll("x"))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("after 3 attempts")
                    .hasMessageContaining("http://127.0.0.1:1");
        }
    }

    @Test
    void storeAtTheBucketRootMapsPathsToKeysUnchanged() throws IOException {
        String bucket = S3.server().createBucket("root-store");
        try (S3ObjectStore store =
                S3ObjectStore.open("s3://" + bucket + "/", S3.server().config())) {
            store.put("top", new byte[] {1});
            store.put("dir/a", new byte[] {2});
            store.put("dir/sub/b", new byte[] {3});

            assertThat(store.rootUri()).isEqualTo("s3://root-store");
            assertThat(S3.server().keys(bucket, "")).containsExactly("dir/a", "dir/sub/b", "top");
            assertThat(store.list("")).toIterable().extracting(ObjectInfo::path).containsExactly("top");
            assertThat(store.list("dir"))
                    .toIterable()
                    .extracting(ObjectInfo::path)
                    .containsExactly("dir/a");
            assertThat(store.listRecursive(""))
                    .toIterable()
                    .extracting(ObjectInfo::path)
                    .containsExactlyInAnyOrder("top", "dir/a", "dir/sub/b");
        }
    }

    @Test
    void storesOpenThroughTheServiceLoaderForS3Uris() throws IOException {
        String uri = S3TestClients.freshUri(S3.server(), BUCKET);
        try (ObjectStore store = ObjectStores.open(uri, S3.server().storageOptions())) {
            assertThat(store).isInstanceOf(S3ObjectStore.class);
            assertThat(store.rootUri()).isEqualTo(uri);
            store.put("x", "y".getBytes(UTF_8));
            assertThat(S3.server().keys(BUCKET, S3Location.parse(uri).prefix() + "/"))
                    .containsExactly(S3Location.parse(uri).prefix() + "/x");
        }
        assertThatThrownBy(() -> ObjectStores.open("s3://b/t", Map.of(S3StoreConfig.ENDPOINT, "http://127.0.0.1:9")))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("allow_http");
    }
}
