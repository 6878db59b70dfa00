package dev.lanceflink.s3;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Predicate;
import software.amazon.awssdk.http.AbortableInputStream;
import software.amazon.awssdk.http.ExecutableHttpRequest;
import software.amazon.awssdk.http.HttpExecuteRequest;
import software.amazon.awssdk.http.HttpExecuteResponse;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.SdkHttpResponse;

/**
 * An HTTP client wrapper that makes requests fail on the wire the way networks do, below the
 * SDK's retry logic: so tests see the SDK's real retries and the store's real recovery.
 * <ul>
 *   <li>{@link Fault#FAIL_BEFORE}: connection reset before the request reached the server;
 *   <li>{@link Fault#LOSE_RESPONSE}: the server applied the request, then the connection broke
 *       before the response arrived;
 *   <li>{@link Fault#APPLY_THEN_500}: the server applied it but the client saw a 500;
 *   <li>{@link Fault#SLOW_DOWN_503}: throttled without being applied;
 *   <li>{@link Fault#BREAK_BODY}: the response body breaks off midway.
 * </ul>
 * Faults are queued for requests matching a predicate, or drawn at random from a seed.
 *
 * <p>Independently, {@link #randomDelays} makes a fraction of the requests slow, at one of two
 * points: {@link Delay#DELAY_REQUEST} holds the request before it is sent (a slow upload or a
 * congested link: a concurrent writer may get its request in first), {@link Delay#DELAY_RESPONSE}
 * holds the response after the server applied the request (the effect is visible to others while
 * the caller still waits). Delays have their own seeded sequence, so switching them on does not
 * change which requests fail. Thread-safe.
 */
public final class FaultInjectingHttpClient implements SdkHttpClient {

    public enum Fault {
        /** Connection reset before the request reached the server: not applied. */
        FAIL_BEFORE,
        /** Applied, then the connection broke before the response arrived. */
        LOSE_RESPONSE,
        /** Applied, but the client sees 500 InternalError. */
        APPLY_THEN_500,
        /** Not applied: the client sees 503 SlowDown (throttling). */
        SLOW_DOWN_503,
        /** Applied; the response body breaks off after half its bytes. */
        BREAK_BODY
    }

    /** Where a delayed request is held. */
    public enum Delay {
        /** Before the request is sent: the server sees it late. */
        DELAY_REQUEST,
        /** After the server answered: the caller hears of it late. */
        DELAY_RESPONSE
    }

    private record Scripted(Predicate<SdkHttpRequest> matches, Fault fault) {}

    private final SdkHttpClient delegate;
    private final Random random;
    private final List<Scripted> scripted = new ArrayList<>();
    private final List<String> log = new ArrayList<>();
    private double randomFailBefore;
    private double randomLoseResponse;
    private Predicate<SdkHttpRequest> randomScope = r -> false;
    private final Random delayRandom;
    private final Map<Delay, Integer> delayed = new EnumMap<>(Delay.class);
    private Predicate<SdkHttpRequest> delayScope = r -> false;
    private double delayProbability;
    private Duration delay = Duration.ZERO;

    public FaultInjectingHttpClient(SdkHttpClient delegate, long seed) {
        this.delegate = delegate;
        this.random = new Random(seed);
        this.delayRandom = new Random(~seed);
    }

    public static Predicate<SdkHttpRequest> method(SdkHttpMethod m) {
        return r -> r.method() == m;
    }

    /** PUT of a whole object (not a multipart part). */
    public static Predicate<SdkHttpRequest> objectPut() {
        return r -> r.method() == SdkHttpMethod.PUT && !r.rawQueryParameters().containsKey("partNumber");
    }

    /** Upload of multipart part {@code n} (1-based). */
    public static Predicate<SdkHttpRequest> partUpload(int n) {
        return r -> r.method() == SdkHttpMethod.PUT
                && List.of(Integer.toString(n)).equals(r.rawQueryParameters().get("partNumber"));
    }

    public static Predicate<SdkHttpRequest> partUpload() {
        return r -> r.method() == SdkHttpMethod.PUT && r.rawQueryParameters().containsKey("partNumber");
    }

    /** The next {@code times} requests matching {@code matches} get {@code fault}. */
    public synchronized FaultInjectingHttpClient failNext(Predicate<SdkHttpRequest> matches, Fault fault, int times) {
        for (int i = 0; i < times; i++) {
            scripted.add(new Scripted(matches, fault));
        }
        return this;
    }

    /** Every request in {@code scope} fails before or loses its response with these probabilities. */
    public synchronized FaultInjectingHttpClient randomFaults(
            Predicate<SdkHttpRequest> scope, double failBefore, double loseResponse) {
        this.randomScope = scope;
        this.randomFailBefore = failBefore;
        this.randomLoseResponse = loseResponse;
        return this;
    }

    /**
     * Every request in {@code scope} is held for {@code delay} with {@code probability}, before it
     * is sent or after its response arrived (chosen at random, half and half).
     */
    public synchronized FaultInjectingHttpClient randomDelays(
            Predicate<SdkHttpRequest> scope, double probability, Duration delay) {
        if (probability < 0 || probability > 1 || delay.isNegative()) {
            throw new IllegalArgumentException("delay probability must be in [0, 1] and the delay not negative, were "
                    + probability + " and " + delay);
        }
        this.delayScope = scope;
        this.delayProbability = probability;
        this.delay = delay;
        return this;
    }

    /** How many requests were held at {@code point} so far (a failed request's response is not held). */
    public synchronized int delayedCount(Delay point) {
        return delayed.getOrDefault(point, 0);
    }

    public synchronized List<String> log() {
        return List.copyOf(log);
    }

    public synchronized long count(String prefix) {
        return log.stream().filter(l -> l.startsWith(prefix)).count();
    }

    private synchronized Fault decide(SdkHttpRequest r) {
        Fault fault = null;
        for (int i = 0; i < scripted.size(); i++) {
            if (scripted.get(i).matches().test(r)) {
                fault = scripted.remove(i).fault();
                break;
            }
        }
        if (fault == null && randomScope.test(r)) {
            double x = random.nextDouble();
            fault = x < randomFailBefore
                    ? Fault.FAIL_BEFORE
                    : x < randomFailBefore + randomLoseResponse ? Fault.LOSE_RESPONSE : null;
        }
        log.add((fault == null ? "OK" : fault.name()) + " " + r.method() + " " + r.encodedPath()
                + (r.rawQueryParameters().isEmpty()
                        ? ""
                        : "?" + r.rawQueryParameters().keySet()));
        return fault;
    }

    private synchronized Delay decideDelay(SdkHttpRequest r) {
        if (delayProbability == 0 || !delayScope.test(r) || delayRandom.nextDouble() >= delayProbability) {
            return null;
        }
        return delayRandom.nextBoolean() ? Delay.DELAY_REQUEST : Delay.DELAY_RESPONSE;
    }

    private synchronized void countDelay(Delay point) {
        delayed.merge(point, 1, Integer::sum);
    }

    /** Sleeps in the calling (SDK) thread, outside the lock, so other requests proceed meanwhile. */
    private void hold(Duration d) throws IOException {
        try {
            Thread.sleep(d.toMillis(), d.toNanosPart() % 1_000_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("Interrupted during an injected delay of " + d);
        }
    }

    @Override
    public ExecutableHttpRequest prepareRequest(HttpExecuteRequest request) {
        ExecutableHttpRequest faulted = prepareFaulted(request);
        Delay point = decideDelay(request.httpRequest());
        if (point == null) {
            return faulted;
        }
        Duration d;
        synchronized (this) {
            d = delay;
        }
        return new ExecutableHttpRequest() {
            @Override
            public HttpExecuteResponse call() throws IOException {
                if (point == Delay.DELAY_REQUEST) {
                    countDelay(point);
                    hold(d);
                    return faulted.call();
                }
                HttpExecuteResponse response = faulted.call(); // a failed call has no response to hold
                countDelay(point);
                hold(d);
                return response;
            }

            @Override
            public void abort() {
                faulted.abort();
            }
        };
    }

    private ExecutableHttpRequest prepareFaulted(HttpExecuteRequest request) {
        Fault fault = decide(request.httpRequest());
        if (fault == Fault.FAIL_BEFORE) {
            return new ExecutableHttpRequest() {
                @Override
                public HttpExecuteResponse call() throws IOException {
                    throw new IOException("Injected: connection reset before the request reached the server");
                }

                @Override
                public void abort() {}
            };
        }
        if (fault == Fault.SLOW_DOWN_503) {
            return new ExecutableHttpRequest() {
                @Override
                public HttpExecuteResponse call() {
                    return errorResponse(503, "SlowDown", "Injected: please reduce your request rate");
                }

                @Override
                public void abort() {}
            };
        }
        ExecutableHttpRequest real = delegate.prepareRequest(request);
        if (fault == null) {
            return real;
        }
        return new ExecutableHttpRequest() {
            @Override
            public HttpExecuteResponse call() throws IOException {
                HttpExecuteResponse response = real.call();
                int status = response.httpResponse().statusCode();
                byte[] body = new byte[0];
                if (response.responseBody().isPresent()) {
                    try (InputStream in = response.responseBody().get()) {
                        body = in.readAllBytes();
                    }
                }
                if (fault == Fault.LOSE_RESPONSE) {
                    throw new IOException("Injected: connection reset after the server answered " + status);
                }
                if (fault == Fault.BREAK_BODY) {
                    return HttpExecuteResponse.builder()
                            .response(response.httpResponse())
                            .responseBody(AbortableInputStream.create(new BreakingStream(body, body.length / 2)))
                            .build();
                }
                return errorResponse(500, "InternalError", "Injected 500 after the server answered " + status);
            }

            @Override
            public void abort() {
                real.abort();
            }
        };
    }

    private static HttpExecuteResponse errorResponse(int status, String code, String message) {
        byte[] xml = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>" + code + "</Code><Message>" + message
                        + "</Message></Error>")
                .getBytes(StandardCharsets.UTF_8);
        return HttpExecuteResponse.builder()
                .response(SdkHttpResponse.builder()
                        .statusCode(status)
                        .putHeader("Content-Type", "application/xml")
                        .putHeader("Content-Length", Integer.toString(xml.length))
                        .build())
                .responseBody(AbortableInputStream.create(new ByteArrayInputStream(xml)))
                .build();
    }

    /** Yields the first {@code breakAt} bytes, then fails like a reset connection. */
    private static final class BreakingStream extends InputStream {
        private final byte[] body;
        private final int breakAt;
        private int pos;

        BreakingStream(byte[] body, int breakAt) {
            this.body = body;
            this.breakAt = breakAt;
        }

        @Override
        public int read() throws IOException {
            if (pos >= breakAt) {
                throw new IOException("Injected: connection reset in the middle of the body");
            }
            return body[pos++] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (len == 0) {
                return 0;
            }
            if (pos >= breakAt) {
                throw new IOException("Injected: connection reset in the middle of the body");
            }
            int n = Math.min(len, breakAt - pos);
            System.arraycopy(body, pos, b, off, n);
            pos += n;
            return n;
        }
    }

    @Override
    public String clientName() {
        return "FaultInjecting(" + delegate.clientName() + ")";
    }

    @Override
    public void close() {
        delegate.close();
    }
}
