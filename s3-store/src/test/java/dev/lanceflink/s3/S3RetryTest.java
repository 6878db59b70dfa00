package dev.lanceflink.s3;

import static dev.lanceflink.s3.FaultInjectingHttpClient.Fault.BREAK_BODY;
import static dev.lanceflink.s3.FaultInjectingHttpClient.Fault.FAIL_BEFORE;
import static dev.lanceflink.s3.FaultInjectingHttpClient.Fault.SLOW_DOWN_503;
import static dev.lanceflink.s3.FaultInjectingHttpClient.method;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.io.RangeReader;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.http.SdkHttpMethod;

/** Bounded retries with backoff for throttling, server errors, connection failures and broken bodies. */
class S3RetryTest {
    @RegisterExtension
    static final S3ProxyExtension S3 = new S3ProxyExtension();

    private static final String BUCKET = "retry-test";

    private final RequestCounter counter = new RequestCounter();

    private static byte[] bytes(int n) {
        byte[] b = new byte[n];
        new Random(n).nextBytes(b);
        return b;
    }

    private S3ObjectStore open(int attempts, FaultInjectingHttpClient http, S3StoreConfig config) {
        return S3TestClients.open(
                S3TestClients.freshUri(S3.server(), BUCKET),
                config.withRetries(attempts, Duration.ofMillis(20), Duration.ofMillis(200)),
                counter,
                http);
    }

    @Test
    void throttlingIsRetriedWithBackoffUntilItPasses() throws IOException {
        S3StoreConfig config = S3.server().config();
        FaultInjectingHttpClient http = new FaultInjectingHttpClient(S3ClientFactory.newHttpClient(config), 1);
        try (S3ObjectStore store = open(5, http, config)) {
            store.put("a", bytes(100));
            http.failNext(method(SdkHttpMethod.GET), SLOW_DOWN_503, 3);
            counter.reset();
            long start = System.nanoTime();

            assertThat(store.readAll("a")).isEqualTo(bytes(100));

            assertThat(counter.count("GetObject")).isEqualTo(4);
            // Three backoffs with full jitter below 20, 40 and 80 ms: bounded, never a stall.
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        }
    }

    @Test
    void persistentThrottlingFailsAfterTheAttemptBound() throws IOException {
        S3StoreConfig config = S3.server().config();
        FaultInjectingHttpClient http = new FaultInjectingHttpClient(S3ClientFactory.newHttpClient(config), 2);
        try (S3ObjectStore store = open(3, http, config)) {
            store.put("a", bytes(100));
            http.failNext(method(SdkHttpMethod.GET), SLOW_DOWN_503, 10);
            counter.reset();

            assertThatThrownBy(() -> store.readAll("a"))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("S3 kept throttling after 3 attempts")
                    .hasMessageContaining(S3StoreConfig.CLIENT_MAX_RETRIES);
            assertThat(counter.count("GetObject")).isEqualTo(3);
        }
    }

    @Test
    void connectionFailuresAreRetried() throws IOException {
        S3StoreConfig config = S3.server().config();
        FaultInjectingHttpClient http = new FaultInjectingHttpClient(S3ClientFactory.newHttpClient(config), 3)
                .failNext(method(SdkHttpMethod.PUT), FAIL_BEFORE, 2);
        try (S3ObjectStore store = open(4, http, config)) {
            store.put("a", bytes(1000));

            assertThat(counter.count("PutObject")).isEqualTo(3);
            assertThat(store.readAll("a")).isEqualTo(bytes(1000));
        }
    }

    @Test
    void aBodyThatBreaksOffIsFetchedAgain() throws IOException {
        S3StoreConfig config = S3.server().config();
        FaultInjectingHttpClient http = new FaultInjectingHttpClient(S3ClientFactory.newHttpClient(config), 4);
        try (S3ObjectStore store = open(4, http, config)) {
            byte[] content = bytes(50_000);
            store.put("a", content);
            http.failNext(method(SdkHttpMethod.GET), BREAK_BODY, 1);
            counter.reset();

            assertThat(store.readAll("a")).isEqualTo(content);
            assertThat(counter.count("GetObject")).isEqualTo(2);

            http.failNext(method(SdkHttpMethod.GET), BREAK_BODY, 1);
            try (RangeReader r = store.openReader("a")) {
                ByteBuffer b = r.read(1000, 20_000);
                byte[] got = new byte[20_000];
                b.get(got);
                byte[] expected = new byte[20_000];
                System.arraycopy(content, 1000, expected, 0, 20_000);
                assertThat(got).isEqualTo(expected);
            }
            assertThat(counter.count("GetObject")).isEqualTo(4);
        }
    }
}
