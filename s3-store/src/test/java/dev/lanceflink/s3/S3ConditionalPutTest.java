package dev.lanceflink.s3;

import static dev.lanceflink.s3.FaultInjectingHttpClient.Fault.APPLY_THEN_500;
import static dev.lanceflink.s3.FaultInjectingHttpClient.Fault.FAIL_BEFORE;
import static dev.lanceflink.s3.FaultInjectingHttpClient.Fault.LOSE_RESPONSE;
import static dev.lanceflink.s3.FaultInjectingHttpClient.method;
import static dev.lanceflink.s3.FaultInjectingHttpClient.objectPut;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.io.PutOutcomeUnknownException;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;

/**
 * putIfAbsent under wire faults on a real S3 server: lost responses, failures before the server
 * saw the request, 500s after it applied it, with and without the SDK's own retries. In every
 * case a commit is reported exactly once (never doubled, never lost).
 */
class S3ConditionalPutTest {
    @RegisterExtension
    static final S3ProxyExtension S3 = new S3ProxyExtension();

    private static final String BUCKET = "cond-put";
    private static final String PATH = "_versions/18446744073709551614.manifest";

    private final RequestCounter counter = new RequestCounter();
    private final List<S3ObjectStore> opened = new ArrayList<>();

    @AfterEach
    void closeStores() {
        opened.forEach(S3ObjectStore::close);
    }

    private S3StoreConfig config(int attempts) {
        return S3.server().config().withRetries(attempts, Duration.ofMillis(1), Duration.ofMillis(10));
    }

    private S3ObjectStore open(String uri, S3StoreConfig config, FaultInjectingHttpClient http) {
        S3ObjectStore store = S3TestClients.open(uri, config, counter, http);
        opened.add(store);
        return store;
    }

    private FaultInjectingHttpClient http(S3StoreConfig config, long seed) {
        return new FaultInjectingHttpClient(S3ClientFactory.newHttpClient(config), seed);
    }

    private String creationIdOf(S3ObjectStore store) {
        HeadObjectResponse h = S3.server()
                .client()
                .headObject(b -> b.bucket(BUCKET).key(store.location().key(PATH)));
        return h.metadata().get(S3ConditionalPut.CREATION_ID);
    }

    @Test
    void lostResponseIsRecognisedAsOurCommitAfterTheSdkRetry() throws IOException {
        S3StoreConfig config = config(5);
        FaultInjectingHttpClient http = http(config, 1).failNext(objectPut(), LOSE_RESPONSE, 1);
        S3ObjectStore store = open(S3TestClients.freshUri(S3.server(), BUCKET), config, http);

        assertThat(store.putIfAbsent(PATH, "ours".getBytes(UTF_8))).isTrue();

        // First PUT applied (response lost), the SDK's retry got 412, the HEAD found our id.
        assertThat(counter.count("PutObject")).isEqualTo(2);
        assertThat(counter.count("HeadObject")).isEqualTo(1);
        assertThat(new String(store.readAll(PATH), UTF_8)).isEqualTo("ours");
        assertThat(store.putIfAbsent(PATH, "again".getBytes(UTF_8))).isFalse();
    }

    @Test
    void serverErrorAfterApplyingIsRecognisedAsOurCommit() throws IOException {
        S3StoreConfig config = config(5);
        FaultInjectingHttpClient http = http(config, 2).failNext(objectPut(), APPLY_THEN_500, 2);
        S3ObjectStore store = open(S3TestClients.freshUri(S3.server(), BUCKET), config, http);

        assertThat(store.putIfAbsent(PATH, "ours".getBytes(UTF_8))).isTrue();
        assertThat(counter.count("PutObject")).isEqualTo(3);
        assertThat(new String(store.readAll(PATH), UTF_8)).isEqualTo("ours");
    }

    @Test
    void lostResponseWithoutSdkRetriesIsResolvedByReadingTheCreationIdBack() throws IOException {
        S3StoreConfig config = config(1);
        FaultInjectingHttpClient http = http(config, 3).failNext(objectPut(), LOSE_RESPONSE, 1);
        S3ObjectStore store = open(S3TestClients.freshUri(S3.server(), BUCKET), config, http);

        assertThat(store.putIfAbsent(PATH, "ours".getBytes(UTF_8))).isTrue();
        assertThat(counter.count("PutObject")).isEqualTo(1);
        assertThat(counter.count("HeadObject")).isEqualTo(1);
        assertThat(creationIdOf(store)).isNotBlank();
    }

    @Test
    void failureBeforeTheServerSawThePutIsRetriedWithTheSameCreationId() throws IOException {
        S3StoreConfig config = config(1);
        FaultInjectingHttpClient http = http(config, 4).failNext(objectPut(), FAIL_BEFORE, 2);
        S3ObjectStore store = open(S3TestClients.freshUri(S3.server(), BUCKET), config, http);

        assertThat(store.putIfAbsent(PATH, "ours".getBytes(UTF_8))).isTrue();
        // Two failed rounds, each confirmed absent by a HEAD, then the third PUT landed.
        assertThat(counter.count("PutObject")).isEqualTo(3);
        assertThat(counter.count("HeadObject")).isEqualTo(2);
        assertThat(new String(store.readAll(PATH), UTF_8)).isEqualTo("ours");
    }

    @Test
    void anotherWritersObjectIsNeverTakenForOursEvenWhenOurResponseIsLost() throws IOException {
        String uri = S3TestClients.freshUri(S3.server(), BUCKET);
        S3ObjectStore winner = open(uri, config(5), null);
        assertThat(winner.putIfAbsent(PATH, "winner".getBytes(UTF_8))).isTrue();

        S3StoreConfig config = config(1);
        FaultInjectingHttpClient http = http(config, 5).failNext(objectPut(), LOSE_RESPONSE, 1);
        S3ObjectStore loser = open(uri, config, http);

        assertThat(loser.putIfAbsent(PATH, "loser".getBytes(UTF_8))).isFalse();
        assertThat(new String(loser.readAll(PATH), UTF_8)).isEqualTo("winner");
    }

    @Test
    void unreadableOutcomeIsReportedAsUnknownNeverGuessed() throws IOException {
        S3StoreConfig config = config(2);
        FaultInjectingHttpClient http = http(config, 6)
                .failNext(objectPut(), LOSE_RESPONSE, 2)
                .failNext(method(SdkHttpMethod.HEAD), FAIL_BEFORE, 2);
        S3ObjectStore store = open(S3TestClients.freshUri(S3.server(), BUCKET), config, http);

        assertThatThrownBy(() -> store.putIfAbsent(PATH, "ours".getBytes(UTF_8)))
                .isInstanceOf(PutOutcomeUnknownException.class)
                .hasMessageContaining(PATH)
                .hasMessageContaining("unknown outcome");
        // It did land; a later check by the caller finds it.
        assertThat(new String(store.readAll(PATH), UTF_8)).isEqualTo("ours");
    }

    @Test
    void racingWritersUnderRandomWireFaultsHaveExactlyOneWinnerPerRound() throws Exception {
        int writers = 8;
        int rounds = 12;
        String uri = S3TestClients.freshUri(S3.server(), BUCKET);
        S3StoreConfig config = config(8);
        List<S3ObjectStore> stores = new ArrayList<>();
        List<FaultInjectingHttpClient> clients = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            // Faults on the PUTs under test; the read-back HEADs stay clean so that no outcome is
            // ever unknown (unreadable read-backs have their own deterministic test above).
            FaultInjectingHttpClient http = http(config, 1000 + w).randomFaults(objectPut(), 0.15, 0.25);
            clients.add(http);
            stores.add(open(uri, config, http));
        }
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        try {
            for (int round = 0; round < rounds; round++) {
                String path = "_versions/" + round + ".manifest";
                CyclicBarrier start = new CyclicBarrier(writers);
                List<Future<Boolean>> results = new ArrayList<>();
                for (int w = 0; w < writers; w++) {
                    S3ObjectStore store = stores.get(w);
                    byte[] content = ("writer-" + w).getBytes(UTF_8);
                    results.add(pool.submit(() -> {
                        start.await(30, TimeUnit.SECONDS);
                        return store.putIfAbsent(path, content);
                    }));
                }
                List<Integer> winners = new ArrayList<>();
                for (int w = 0; w < writers; w++) {
                    if (results.get(w).get(120, TimeUnit.SECONDS)) {
                        winners.add(w);
                    }
                }
                assertThat(winners).as("winners of round %d", round).hasSize(1);
                byte[] stored = S3.server()
                        .client()
                        .getObjectAsBytes(b ->
                                b.bucket(BUCKET).key(stores.get(0).location().key(path)))
                        .asByteArray();
                assertThat(new String(stored, UTF_8)).as("round %d", round).isEqualTo("writer-" + winners.get(0));
            }
        } finally {
            pool.shutdownNow();
        }
        long lost =
                clients.stream().mapToLong(c -> c.count("LOSE_RESPONSE PUT")).sum();
        long before =
                clients.stream().mapToLong(c -> c.count("FAIL_BEFORE PUT")).sum();
        assertThat(lost).as("lost PUT responses injected").isPositive();
        assertThat(before).as("PUTs failed before reaching the server").isPositive();
    }
}
