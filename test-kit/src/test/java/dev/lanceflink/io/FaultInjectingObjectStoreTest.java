package dev.lanceflink.io;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.io.FaultInjectingObjectStore.DelayPoint;
import dev.lanceflink.io.FaultInjectingObjectStore.Fault;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FaultInjectingObjectStoreTest {
    @TempDir
    Path root;

    @Test
    void failBeforeDoesNotApplyTheCall() throws IOException {
        LocalObjectStore local = new LocalObjectStore(root);
        FaultInjectingObjectStore store = FaultInjectingObjectStore.scripted(local)
                .failNext(StoreOperation.PUT_IF_ABSENT, Fault.FAIL_BEFORE)
                .failNext(StoreOperation.PUT, Fault.FAIL_BEFORE)
                .failNext(StoreOperation.CREATE, Fault.FAIL_BEFORE);

        assertThatThrownBy(() -> store.putIfAbsent("_versions/1.manifest", new byte[] {1}))
                .isInstanceOfSatisfying(
                        InjectedFaultException.class,
                        e -> assertThat(e.applied()).isFalse())
                .hasMessageContaining("PUT_IF_ABSENT _versions/1.manifest failed before the store applied it");
        assertThatThrownBy(() -> store.put("hint", new byte[] {1})).isInstanceOf(InjectedFaultException.class);
        assertThatThrownBy(() -> store.create("data/a.lance")).isInstanceOf(InjectedFaultException.class);

        assertThat(local.exists("_versions/1.manifest")).isFalse();
        assertThat(local.exists("hint")).isFalse();
        assertThat(local.exists("data/a.lance")).isFalse();
        // Faults are used up: the next calls go through.
        assertThat(store.putIfAbsent("_versions/1.manifest", new byte[] {1})).isTrue();
    }

    @Test
    void failAfterAppliesTheCallAndLosesTheResponse() throws IOException {
        LocalObjectStore local = new LocalObjectStore(root);
        FaultInjectingObjectStore store = FaultInjectingObjectStore.scripted(local)
                .failNext(StoreOperation.PUT_IF_ABSENT, Fault.FAIL_AFTER)
                .failNext(StoreOperation.CREATE, Fault.FAIL_AFTER)
                .failNext(StoreOperation.DELETE, Fault.FAIL_AFTER);

        assertThatThrownBy(() -> store.putIfAbsent("_versions/1.manifest", "ours".getBytes(UTF_8)))
                .isInstanceOf(PutOutcomeUnknownException.class)
                .hasMessageContaining("created=true");
        OutputStream out = store.create("data/a.lance");
        out.write(new byte[] {7});
        assertThatThrownBy(out::close)
                .isInstanceOfSatisfying(
                        InjectedFaultException.class,
                        e -> assertThat(e.applied()).isTrue());
        assertThatThrownBy(() -> store.delete("data/a.lance")).isInstanceOf(InjectedFaultException.class);

        assertThat(new String(local.readAll("_versions/1.manifest"), UTF_8)).isEqualTo("ours");
        assertThat(local.exists("data/a.lance"))
                .as("deleted despite the lost response")
                .isFalse();
        assertThat(store.injected())
                .extracting(FaultInjectingObjectStore.Injected::operation)
                .containsExactly(StoreOperation.PUT_IF_ABSENT, StoreOperation.CREATE, StoreOperation.DELETE);
    }

    @Test
    void randomFaultsAreReproducibleFromTheSeed() throws IOException {
        List<FaultInjectingObjectStore.Injected> first = runRandom(42, root.resolve("a"));
        List<FaultInjectingObjectStore.Injected> second = runRandom(42, root.resolve("b"));
        List<FaultInjectingObjectStore.Injected> other = runRandom(43, root.resolve("c"));

        assertThat(first).isNotEmpty().isEqualTo(second).isNotEqualTo(other);
    }

    private static List<FaultInjectingObjectStore.Injected> runRandom(long seed, Path dir) {
        FaultInjectingObjectStore store = new FaultInjectingObjectStore(
                new LocalObjectStore(dir), seed, 0.2, 0.2, Set.of(StoreOperation.PUT, StoreOperation.READ_ALL));
        for (int i = 0; i < 40; i++) {
            try {
                store.put("f" + i, new byte[] {(byte) i});
                store.readAll("f" + i);
            } catch (IOException expected) {
                // injected
            }
        }
        return store.injected();
    }

    /** Records when each call of {@code store} returned, by "method path", to see where a delay happened. */
    private static ObjectStore timed(ObjectStore store, Map<String, Long> returnedAt) {
        return (ObjectStore) Proxy.newProxyInstance(
                ObjectStore.class.getClassLoader(), new Class<?>[] {ObjectStore.class}, (proxy, method, args) -> {
                    try {
                        return method.invoke(store, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    } finally {
                        if (args != null && args.length > 0 && args[0] instanceof String path) {
                            returnedAt.put(method.getName() + " " + path, System.nanoTime());
                        }
                    }
                });
    }

    @Test
    void aDelayBeforeTheCallHoldsTheRequestAndOneAfterItHoldsTheResponse() throws IOException {
        Map<String, Long> appliedAt = new ConcurrentHashMap<>();
        ObjectStore local = timed(new LocalObjectStore(root), appliedAt);
        long delay = Duration.ofMillis(150).toNanos();

        FaultInjectingObjectStore slowRequests = FaultInjectingObjectStore.scripted(local)
                .withDelays(
                        1.0,
                        Duration.ofNanos(delay),
                        Set.of(StoreOperation.PUT_IF_ABSENT),
                        Set.of(DelayPoint.BEFORE_CALL));
        long start = System.nanoTime();
        assertThat(slowRequests.putIfAbsent("a", new byte[] {1})).isTrue();
        assertThat(appliedAt.get("putIfAbsent a") - start)
                .as("request held before the store")
                .isGreaterThanOrEqualTo(delay);
        assertThat(slowRequests.delayed())
                .containsExactly(new FaultInjectingObjectStore.Delayed(
                        StoreOperation.PUT_IF_ABSENT, "a", DelayPoint.BEFORE_CALL));

        FaultInjectingObjectStore slowResponses = FaultInjectingObjectStore.scripted(local)
                .withDelays(
                        1.0,
                        Duration.ofNanos(delay),
                        Set.of(StoreOperation.PUT, StoreOperation.CREATE),
                        Set.of(DelayPoint.AFTER_CALL));
        start = System.nanoTime();
        slowResponses.put("b", new byte[] {2});
        long end = System.nanoTime();
        assertThat(end - appliedAt.get("put b"))
                .as("response held after the store applied it")
                .isGreaterThanOrEqualTo(delay);
        try (OutputStream out = slowResponses.create("c")) {
            out.write(3);
        }
        assertThat(slowResponses.delayedCount(DelayPoint.AFTER_CALL)).isEqualTo(2);
        assertThat(slowResponses.delayedCount(DelayPoint.BEFORE_CALL)).isZero();
        // Operations not selected are never delayed.
        slowResponses.readAll("b");
        assertThat(slowResponses.delayed()).hasSize(2);
        assertThat(local.readAll("c")).containsExactly(3);
    }

    @Test
    void delaysHitTheirFractionAndLeaveTheFaultSequenceUnchanged() throws IOException {
        FaultInjectingObjectStore plain = new FaultInjectingObjectStore(
                new LocalObjectStore(root.resolve("plain")), 7, 0.1, 0.1, Set.of(StoreOperation.PUT));
        FaultInjectingObjectStore delayed = new FaultInjectingObjectStore(
                        new LocalObjectStore(root.resolve("delayed")), 7, 0.1, 0.1, Set.of(StoreOperation.PUT))
                .withDelays(0.25, Duration.ZERO, Set.of(StoreOperation.PUT), EnumSet.allOf(DelayPoint.class));
        for (FaultInjectingObjectStore store : List.of(plain, delayed)) {
            for (int i = 0; i < 400; i++) {
                try {
                    store.put("f" + i, new byte[] {(byte) i});
                } catch (InjectedFaultException expected) {
                    // injected
                }
            }
        }
        assertThat(delayed.injected()).isNotEmpty().isEqualTo(plain.injected());
        assertThat(plain.delayed()).isEmpty();
        assertThat(delayed.delayed()).hasSizeBetween(60, 140);
        assertThat(delayed.delayedCount(DelayPoint.BEFORE_CALL)).isPositive();
        assertThat(delayed.delayedCount(DelayPoint.AFTER_CALL)).isPositive();
        assertThatThrownBy(() -> plain.withDelays(0.5, Duration.ofMillis(1), Set.of(StoreOperation.PUT), Set.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("BEFORE_CALL, AFTER_CALL");
    }

    /**
     * The commit protocol a caller of putIfAbsent follows under faults: retry on a failure that
     * was not applied, resolve an unknown outcome by reading the object back (content carries a
     * unique writer tag). With 8 racing writers per version, every version gets exactly one
     * writer that believes it committed, and that writer's bytes are what is stored.
     */
    @Test
    void commitLoopUnderFaultsNeverDoublesNorLosesACommit() throws Exception {
        LocalObjectStore local = new LocalObjectStore(root);
        int writers = 8;
        int versions = 15;
        List<FaultInjectingObjectStore> stores = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            stores.add(new FaultInjectingObjectStore(
                    local, 100 + w, 0.2, 0.2, Set.of(StoreOperation.PUT_IF_ABSENT, StoreOperation.READ_ALL)));
        }
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        try {
            for (int v = 0; v < versions; v++) {
                String path = "_versions/" + v + ".manifest";
                CyclicBarrier start = new CyclicBarrier(writers);
                List<Future<Boolean>> results = new ArrayList<>();
                for (int w = 0; w < writers; w++) {
                    ObjectStore store = stores.get(w);
                    byte[] content = ("writer-" + w).getBytes(UTF_8);
                    results.add(pool.submit(() -> {
                        start.await(30, TimeUnit.SECONDS);
                        return commit(store, path, content);
                    }));
                }
                List<Integer> committed = new ArrayList<>();
                for (int w = 0; w < writers; w++) {
                    if (results.get(w).get(60, TimeUnit.SECONDS)) {
                        committed.add(w);
                    }
                }
                assertThat(committed).as("writers that committed version %d", v).hasSize(1);
                assertThat(new String(local.readAll(path), UTF_8)).isEqualTo("writer-" + committed.get(0));
            }
        } finally {
            pool.shutdownNow();
        }
        long unknowns = stores.stream()
                .mapToLong(s -> s.injectedCount(StoreOperation.PUT_IF_ABSENT, Fault.FAIL_AFTER))
                .sum();
        assertThat(unknowns).as("lost putIfAbsent responses were injected").isPositive();
    }

    private static boolean commit(ObjectStore store, String path, byte[] content) throws IOException {
        for (int attempt = 0; attempt < 100; attempt++) {
            try {
                return store.putIfAbsent(path, content);
            } catch (PutOutcomeUnknownException e) {
                return resolve(store, path, content);
            } catch (InjectedFaultException e) {
                // not applied: try again
            }
        }
        throw new IOException("gave up on " + path);
    }

    private static boolean resolve(ObjectStore store, String path, byte[] content) throws IOException {
        for (int attempt = 0; attempt < 100; attempt++) {
            try {
                return java.util.Arrays.equals(store.readAll(path), content);
            } catch (InjectedFaultException e) {
                // read failed: try again
            }
        }
        throw new IOException("could not resolve " + path);
    }
}
