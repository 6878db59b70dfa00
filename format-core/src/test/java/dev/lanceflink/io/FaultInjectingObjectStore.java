package dev.lanceflink.io;

import static java.util.Objects.requireNonNull;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
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
 * can print the seed and the faults when it fails. Thread-safe.
 */
public final class FaultInjectingObjectStore implements ObjectStore {

    public enum Fault {
        FAIL_BEFORE,
        FAIL_AFTER
    }

    /** One injected fault. */
    public record Injected(StoreOperation operation, String path, Fault fault) {}

    private final ObjectStore delegate;
    private final long seed;
    private final Random random;
    private final double failBefore;
    private final double failAfter;
    private final Set<StoreOperation> operations;
    private final Map<StoreOperation, ArrayDeque<Fault>> scripted = new EnumMap<>(StoreOperation.class);
    private final List<Injected> injected = new ArrayList<>();

    /**
     * @param failBeforeProbability chance that a selected call fails without being applied
     * @param failAfterProbability chance that a selected call is applied and then fails
     * @param operations the calls that may fail at random; others only by {@link #failNext}
     */
    public FaultInjectingObjectStore(ObjectStore delegate, long seed, double failBeforeProbability,
            double failAfterProbability, Set<StoreOperation> operations) {
        if (failBeforeProbability < 0 || failAfterProbability < 0 || failBeforeProbability + failAfterProbability > 1) {
            throw new IllegalArgumentException("fault probabilities must be >= 0 and sum to <= 1, were "
                    + failBeforeProbability + " and " + failAfterProbability);
        }
        this.delegate = requireNonNull(delegate, "delegate is null");
        this.seed = seed;
        this.random = new Random(seed);
        this.failBefore = failBeforeProbability;
        this.failAfter = failAfterProbability;
        this.operations = operations.isEmpty() ? EnumSet.noneOf(StoreOperation.class) : EnumSet.copyOf(operations);
    }

    /** A wrapper that injects only the faults queued with {@link #failNext}. */
    public static FaultInjectingObjectStore scripted(ObjectStore delegate) {
        return new FaultInjectingObjectStore(delegate, 0, 0, 0, Set.of());
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
        return injected.stream().filter(i -> i.operation() == operation && i.fault() == fault).count();
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

    private InjectedFaultException before(StoreOperation op, String path) {
        return new InjectedFaultException("Injected fault (seed " + seed + "): " + op + " " + path
                + " failed before the store applied it", false);
    }

    private InjectedFaultException after(StoreOperation op, String path) {
        return new InjectedFaultException("Injected fault (seed " + seed + "): " + op + " " + path
                + " was applied but its response was lost", true);
    }

    @FunctionalInterface
    private interface Call<T> {
        T run() throws IOException;
    }

    private <T> T call(StoreOperation op, String path, Call<T> call) throws IOException {
        Fault f = draw(op, path);
        if (f == Fault.FAIL_BEFORE) {
            throw before(op, path);
        }
        T result = call.run();
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
        RangeReader reader = call(StoreOperation.OPEN_READER, path, () -> delegate.openReader(path));
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
        Fault f = draw(StoreOperation.PUT_IF_ABSENT, path);
        if (f == Fault.FAIL_BEFORE) {
            throw before(StoreOperation.PUT_IF_ABSENT, path);
        }
        boolean created = delegate.putIfAbsent(path, content);
        if (f == Fault.FAIL_AFTER) {
            throw new PutOutcomeUnknownException("Injected fault (seed " + seed + "): PUT_IF_ABSENT " + path
                    + " was applied (created=" + created + ") but its response was lost", after(StoreOperation.PUT_IF_ABSENT, path));
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
