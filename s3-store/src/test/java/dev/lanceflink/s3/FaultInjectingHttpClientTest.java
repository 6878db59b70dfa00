package dev.lanceflink.s3;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanceflink.s3.FaultInjectingHttpClient.Delay;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.http.AbortableInputStream;
import software.amazon.awssdk.http.ExecutableHttpRequest;
import software.amazon.awssdk.http.HttpExecuteRequest;
import software.amazon.awssdk.http.HttpExecuteResponse;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.SdkHttpResponse;

/** The delay injection of {@link FaultInjectingHttpClient}, against a fake server that records when it answered. */
class FaultInjectingHttpClientTest {

    /** Answers every request with 200 and records the time it did. */
    private static final class RecordingServer implements SdkHttpClient {
        final AtomicLong answeredAt = new AtomicLong();
        int requests;

        @Override
        public ExecutableHttpRequest prepareRequest(HttpExecuteRequest request) {
            return new ExecutableHttpRequest() {
                @Override
                public HttpExecuteResponse call() {
                    synchronized (RecordingServer.this) {
                        requests++;
                    }
                    answeredAt.set(System.nanoTime());
                    return HttpExecuteResponse.builder()
                            .response(SdkHttpResponse.builder().statusCode(200).build())
                            .responseBody(AbortableInputStream.create(new ByteArrayInputStream(new byte[0])))
                            .build();
                }

                @Override
                public void abort() {}
            };
        }

        @Override
        public String clientName() {
            return "recording";
        }

        @Override
        public void close() {}
    }

    private static HttpExecuteRequest request(SdkHttpMethod method, String path) {
        return HttpExecuteRequest.builder()
                .request(SdkHttpRequest.builder()
                        .method(method)
                        .uri(URI.create("http://localhost:9000/bucket/" + path))
                        .build())
                .build();
    }

    @Test
    void delayedRequestsAreHeldBeforeTheServerOrAfterItsAnswer() throws IOException {
        RecordingServer server = new RecordingServer();
        long delay = Duration.ofMillis(100).toNanos();
        FaultInjectingHttpClient client = new FaultInjectingHttpClient(server, 1)
                .randomDelays(r -> r.method() == SdkHttpMethod.GET, 1.0, Duration.ofNanos(delay));
        List<long[]> timings = new ArrayList<>(); // start, answered, end
        for (int i = 0; i < 8; i++) {
            long start = System.nanoTime();
            client.prepareRequest(request(SdkHttpMethod.GET, "k" + i)).call();
            timings.add(new long[] {start, server.answeredAt.get(), System.nanoTime()});
        }
        int before = client.delayedCount(Delay.DELAY_REQUEST);
        int after = client.delayedCount(Delay.DELAY_RESPONSE);
        assertThat(before + after).isEqualTo(8);
        assertThat(before).isPositive();
        assertThat(after).isPositive();
        int heldBefore = 0;
        int heldAfter = 0;
        for (long[] t : timings) {
            assertThat(t[2] - t[0]).as("every call was held").isGreaterThanOrEqualTo(delay);
            if (t[1] - t[0] >= delay) {
                heldBefore++;
            }
            if (t[2] - t[1] >= delay) {
                heldAfter++;
            }
        }
        // A call held before the server may also look held after under load, never the reverse.
        assertThat(heldBefore).isGreaterThanOrEqualTo(before);
        assertThat(heldAfter).isGreaterThanOrEqualTo(after);

        // Out of scope: never delayed.
        long start = System.nanoTime();
        client.prepareRequest(request(SdkHttpMethod.PUT, "p")).call();
        assertThat(client.delayedCount(Delay.DELAY_REQUEST) + client.delayedCount(Delay.DELAY_RESPONSE))
                .isEqualTo(8);
        assertThat(server.requests).isEqualTo(9);
        assertThat(System.nanoTime() - start).isLessThan(Duration.ofSeconds(5).toNanos());
    }

    @Test
    void delaysDoNotChangeWhichRequestsFail() throws IOException {
        List<String> plain =
                run(new FaultInjectingHttpClient(new RecordingServer(), 5).randomFaults(r -> true, 0.2, 0));
        List<String> delayed = run(new FaultInjectingHttpClient(new RecordingServer(), 5)
                .randomFaults(r -> true, 0.2, 0)
                .randomDelays(r -> true, 0.3, Duration.ZERO));
        assertThat(delayed).isEqualTo(plain).anyMatch(l -> l.startsWith("FAIL_BEFORE"));
    }

    private static List<String> run(FaultInjectingHttpClient client) {
        for (int i = 0; i < 100; i++) {
            try {
                client.prepareRequest(request(SdkHttpMethod.GET, "k" + i)).call();
            } catch (IOException expected) {
                // injected reset
            }
        }
        return client.log();
    }
}
