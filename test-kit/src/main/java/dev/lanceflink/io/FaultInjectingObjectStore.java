package dev.lanceflink.io;

import static java.util.Objects.requireNonNull;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;

/**
 * A test wrapper that makes store calls fail the way remote stores do, reproducibly from a seed:
 * <ul>
 *   <li>{@link Fault#FAIL_BEFORE}: the call fails and was not applied (connection refused, 503
 *       before processing);
 *   <li>{@link Fault#FAIL_AFTER}: the call was applied but its response was lost. For
 *       {@link #putIfAbsent} this is {@link PutOutcomeUnknownException}, as the store contract
 *       prescribes when a store cannot tell; for other calls an {@link InjectedFaultException}.
 * </ul>
 * Faults are drawn per call with the given probabilities for the selected operations, or queued
 * exactly with {@link #failNext}. Every injected fault is logged ({@link #injected()}) so a test
 * can print the seed and the faults when it fails.
 *
 * <p>Independently of faults, {@link #withDelays} makes a fraction of the calls slow: the calling
 * thread sleeps either before the call reaches the store ({@link DelayPoint#BEFORE_CALL}: a slow
 * request, so concurrent writers may overtake it) or after the store applied it
 * ({@link DelayPoint#AFTER_CALL}: a slow response, so others already see its effect while the
 * caller still waits). Delays are drawn from their own seeded sequence, so switching them on
 * does not change which calls fail. Thread-safe.
 */
public final class FaultInjectingObjectStore implements ObjectStore {

    public enum Fault {
        FAIL_BEFORE,
        FAIL_AFTER
    }

    /** Where an injected delay happens, relative to the store applying the call. */
    public enum DelayPoint {
        /** The request is slow: the call reaches the store only after the delay. */
        BEFORE_CALL,
        /** The response is slow: the store applied the call, the caller hears of it after the delay. */
        AFTER_CALL
    }

    /** One injected fault. */
    public record Injected(StoreOperation operation, String path, Fault fault) {}

    /** One injected delay. */
    public record Delayed(StoreOperation operation, String path, DelayPoint point) {}

    private final ObjectStore delegate;
    private final long seed;
    private final Random random;
    private final double failBefore;
    private final double failAfter;
    private final Set<StoreOperation> operations;
    private final Map<StoreOperation, ArrayDeque<Fault>> scripted = new EnumMap<>(StoreOperation.class);
    private final List<Injected> injected = new ArrayList<>();
    private final Random delayRandom;
    private final List<Delayed> delayed = new ArrayList<>();
    private double delayProbability;
    private long delayNanos;
    private Set<StoreOperation> delayOperations = EnumSet.noneOf(StoreOperation.class);
    private Set<DelayPoint> delayPoints = EnumSet.noneOf(DelayPoint.class);

    /**
     * @param failBeforeProbability chance that a selected call fails without being applied
     * @param failAfterProbability chance that a selected call is applied and then fails
     * @param operations the calls that may fail at random; others only by {@link #failNext}
     */
    public FaultInjectingObjectStore(
            ObjectStore delegate,
            long seed,
            double failBeforeProbability,
            double failAfterProbability,
            Set<StoreOperation> operations) {
        if (failBeforeProbability < 0 || failAfterProbability < 0 || failBeforeProbability + failAfterProbability > 1) {
            throw new IllegalArgumentException("fault probabilities must be >= 0 and sum to <= 1, were "
                    + failBeforeProbability + " and " + failAfterProbability);
        }
        this.delegate = requireNonNull(delegate, "delegate is null");
        this.seed = seed;
        this.random = new Random(seed);
        this.delayRandom = new Random(~seed);
        this.failBefore = failBeforeProbability;
        this.failAfter = failAfterProbability;
        this.operations = operations.isEmpty() ? EnumSet.noneOf(StoreOperation.class) : EnumSet.copyOf(operations);
    }

    /** A wrapper that injects only the faults queued with {@link #failNext}. */
    public static FaultInjectingObjectStore scripted(ObjectStore delegate) {
        return new FaultInjectingObjectStore(delegate, 0, 0, 0, Set.of());
    }

    /**
     * Delays a fraction of the calls of {@code operations}: each such call sleeps {@code delay} with
     * probability {@code probability}, at one of {@code points} chosen at random.
     */
    public synchronized FaultInjectingObjectStore withDelays(
            double probability, Duration delay, Set<StoreOperation> operations, Set<DelayPoint> points) {
        if (probability < 0 || probability > 1) {
            throw new IllegalArgumentException("delay probability must be in [0, 1], was " + probability);
        }
        if (delay.isNegative()) {
            throw new IllegalArgumentException("delay must not be negative, was " + delay);
        }
        if (probability > 0 && points.isEmpty()) {
            throw new IllegalArgumentException("delay points must name BEFORE_CALL, AFTER_CALL or both");
        }
        this.delayProbability = probability;
        this.delayNanos = delay.toNanos();
        this.delayOperations = operations.isEmpty() ? EnumSet.noneOf(StoreOperation.class) : EnumSet.copyOf(operations);
        this.delayPoints = points.isEmpty() ? EnumSet.noneOf(DelayPoint.class) : EnumSet.copyOf(points);
        return this;
    }

    /** The delays injected so far, in order. */
    public synchronized List<Delayed> delayed() {
        return List.copyOf(delayed);
    }

    public synchronized long delayedCount(DelayPoint point) {
        return delayed.stream().filter(d -> d.point() == point).count();
    }

    public long seed() {
        return seed;
    }

    public ObjectStore delegate() {
        return delegate;
    }

    /** Makes the next call of {@code operation} fail with {@code fault} (queued in order). */
    public synchronized FaultInjectingObjectStore failNext(StoreOperation operation, Fault fault) {
        scripted.computeIfAbsent(operation, o -> new ArrayDeque<>()).add(fault);
        return this;
    }

    /** The faults injected so far, in order. */
    public synchronized List<Injected> injected() {
        return List.copyOf(injected);
    }

    public synchronized long injectedCount(StoreOperation operation, Fault fault) {
        return injected.stream()
                .filter(i -> i.operation() == operation && i.fault() == fault)
                .count();
    }

    private synchronized Fault draw(StoreOperation op, String path) {
        ArrayDeque<Fault> queue = scripted.get(op);
        Fault fault = queue == null ? null : queue.poll();
        if (fault == null && operations.contains(op)) {
            double r = random.nextDouble();
            fault = r < failBefore ? Fault.FAIL_BEFORE : r < failBefore + failAfter ? Fault.FAIL_AFTER : null;
        }
        if (fault != null) {
            injected.add(new Injected(op, path, fault));
        }
        return fault;
    }

    /** Whether and where this call is delayed; null for no delay. */
    private synchronized DelayPoint drawDelay(StoreOperation op, String path) {
        if (delayProbability == 0 || !delayOperations.contains(op) || delayRandom.nextDouble() >= delayProbability) {
            return null;
        }
        DelayPoint[] points = delayPoints.toArray(new DelayPoint[0]);
        DelayPoint point = points[delayRandom.nextInt(points.length)];
        delayed.add(new Delayed(op, path, point));
        return point;
    }

    /** Sleeps outside the lock, so that delayed calls of other threads proceed meanwhile. */
    private void delayIf(DelayPoint drawn, DelayPoint here) throws IOException {
        if (drawn != here) {
            return;
        }
        long nanos;
        synchronized (this) {
            nanos = delayNanos;
        }
        try {
            Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("Interrupted during an injected delay (seed " + seed + ")");
        }
    }

    private InjectedFaultException before(StoreOperation op, String path) {
        return new InjectedFaultException(
                "Injected fault (seed " + seed + "): " + op + " " + path + " failed before the store applied it",
                false);
    }

    private InjectedFaultException after(StoreOperation op, String path) {
        return new InjectedFaultException(
                "Injected fault (seed " + seed + "): " + op + " " + path + " was applied but its response was lost",
                true);
    }

    @FunctionalInterface
    private interface Call<T> {
        T run() throws IOException;
    }

    private <T> T call(StoreOperation op, String path, Call<T> call) throws IOException {
        DelayPoint d = drawDelay(op, path);
        delayIf(d, DelayPoint.BEFORE_CALL);
        Fault f = draw(op, path);
        if (f == Fault.FAIL_BEFORE) {
            throw before(op, path);
        }
        T result = call.run();
        delayIf(d, DelayPoint.AFTER_CALL);
        if (f == Fault.FAIL_AFTER) {
            throw after(op, path);
        }
        return result;
    }

    @Override
    public String rootUri() {
        return delegate.rootUri();
    }

    @Override
    public byte[] readAll(String path) throws IOException {
        return call(StoreOperation.READ_ALL, path, () -> delegate.readAll(path));
    }

    @Override
    public RangeReader openReader(String path) throws IOException {
        return openReader(path, 0);
    }

    /** Passes the known size on, so a wrapped remote store reads as it does unwrapped (no HEAD). */
    @Override
    public RangeReader openReader(String path, long knownSize) throws IOException {
        RangeReader reader = call(StoreOperation.OPEN_READER, path, () -> delegate.openReader(path, knownSize));
        return new RangeReader() {
            @Override
            public long size() throws IOException {
                return reader.size();
            }

            @Override
            public ByteBuffer read(long offset, int length) throws IOException {
                return call(StoreOperation.RANGE_READ, path, () -> reader.read(offset, length));
            }

            @Override
            public ByteBuffer[] readRanges(long[] offsets, int[] lengths) throws IOException {
                return call(StoreOperation.RANGES_READ, path, () -> reader.readRanges(offsets, lengths));
            }

            @Override
            public void close() throws IOException {
                reader.close();
            }
        };
    }

    @Override
    public Optional<ObjectInfo> head(String path) throws IOException {
        return call(StoreOperation.HEAD, path, () -> delegate.head(path));
    }

    @Override
    public OutputStream create(String path) throws IOException {
        DelayPoint d = drawDelay(StoreOperation.CREATE, path);
        delayIf(d, DelayPoint.BEFORE_CALL);
        Fault f = draw(StoreOperation.CREATE, path);
        if (f == Fault.FAIL_BEFORE) {
            throw before(StoreOperation.CREATE, path);
        }
        OutputStream out = delegate.create(path);
        return new FilterOutputStream(out) {
            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                out.write(b, off, len);
            }

            @Override
            public void close() throws IOException {
                out.close();
                delayIf(d, DelayPoint.AFTER_CALL);
                if (f == Fault.FAIL_AFTER) {
                    throw after(StoreOperation.CREATE, path);
                }
            }
        };
    }

    @Override
    public void put(String path, byte[] content) throws IOException {
        call(StoreOperation.PUT, path, () -> {
            delegate.put(path, content);
            return null;
        });
    }

    @Override
    public boolean putIfAbsent(String path, byte[] content) throws IOException {
        DelayPoint d = drawDelay(StoreOperation.PUT_IF_ABSENT, path);
        delayIf(d, DelayPoint.BEFORE_CALL);
        Fault f = draw(StoreOperation.PUT_IF_ABSENT, path);
        if (f == Fault.FAIL_BEFORE) {
            throw before(StoreOperation.PUT_IF_ABSENT, path);
        }
        boolean created = delegate.putIfAbsent(path, content);
        delayIf(d, DelayPoint.AFTER_CALL);
        if (f == Fault.FAIL_AFTER) {
            throw new PutOutcomeUnknownException(
                    "Injected fault (seed " + seed + "): PUT_IF_ABSENT " + path + " was applied (created=" + created
                            + ") but its response was lost",
                    after(StoreOperation.PUT_IF_ABSENT, path));
        }
        return created;
    }

    @Override
    public Iterator<ObjectInfo> list(String directory) throws IOException {
        return call(StoreOperation.LIST, directory, () -> delegate.list(directory));
    }

    @Override
    public Iterator<ObjectInfo> listRecursive(String prefix) throws IOException {
        return call(StoreOperation.LIST_RECURSIVE, prefix, () -> delegate.listRecursive(prefix));
    }

    /** One listing, like {@link #list}: faults of {@link StoreOperation#LIST} hit it too. */
    @Override
    public List<String> listDirectories(String directory) throws IOException {
        return call(StoreOperation.LIST, directory, () -> delegate.listDirectories(directory));
    }

    @Override
    public void delete(String path) throws IOException {
        call(StoreOperation.DELETE, path, () -> {
            delegate.delete(path);
            return null;
        });
    }

    @Override
    public void close() throws IOException {
        delegate.close();
    }
}
