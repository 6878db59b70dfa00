package dev.lanceflink.io;

import static java.util.Objects.requireNonNull;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.EnumMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A test wrapper that counts calls per {@link StoreOperation}, bytes read and written, and listed
 * entries actually consumed; for tests that pin I/O cost, e.g. "opening the latest version reads
 * one manifest and lists one page". Thread-safe.
 */
public final class CountingObjectStore implements ObjectStore {
    private final ObjectStore delegate;
    private final AtomicLongArray calls = new AtomicLongArray(StoreOperation.values().length);
    private final AtomicLong bytesRead = new AtomicLong();
    private final AtomicLong bytesWritten = new AtomicLong();
    private final AtomicLong entriesListed = new AtomicLong();

    public CountingObjectStore(ObjectStore delegate) {
        this.delegate = requireNonNull(delegate, "delegate is null");
    }

    public ObjectStore delegate() {
        return delegate;
    }

    /** Calls of {@code operation} so far. */
    public long count(StoreOperation operation) {
        return calls.get(operation.ordinal());
    }

    /** All counts, for assertion messages. */
    public Map<StoreOperation, Long> counts() {
        Map<StoreOperation, Long> m = new EnumMap<>(StoreOperation.class);
        for (StoreOperation op : StoreOperation.values()) {
            if (count(op) > 0) {
                m.put(op, count(op));
            }
        }
        return m;
    }

    /** Bytes returned by readAll and range reads. */
    public long bytesRead() {
        return bytesRead.get();
    }

    /** Bytes given to put, putIfAbsent and create streams. */
    public long bytesWritten() {
        return bytesWritten.get();
    }

    /** Entries the callers took from list and listRecursive iterators. */
    public long entriesListed() {
        return entriesListed.get();
    }

    public void reset() {
        for (int i = 0; i < calls.length(); i++) {
            calls.set(i, 0);
        }
        bytesRead.set(0);
        bytesWritten.set(0);
        entriesListed.set(0);
    }

    private void count(StoreOperation op, long n) {
        calls.addAndGet(op.ordinal(), n);
    }

    @Override
    public String toString() {
        return "CountingObjectStore" + counts() + "[read=" + bytesRead + " B, written=" + bytesWritten + " B, listed="
                + entriesListed + "]";
    }

    @Override
    public String rootUri() {
        return delegate.rootUri();
    }

    @Override
    public byte[] readAll(String path) throws IOException {
        count(StoreOperation.READ_ALL, 1);
        byte[] b = delegate.readAll(path);
        bytesRead.addAndGet(b.length);
        return b;
    }

    @Override
    public RangeReader openReader(String path) throws IOException {
        return openReader(path, 0);
    }

    /** Passes the known size on, so a wrapped remote store reads as it does unwrapped (no HEAD). */
    @Override
    public RangeReader openReader(String path, long knownSize) throws IOException {
        count(StoreOperation.OPEN_READER, 1);
        RangeReader reader = delegate.openReader(path, knownSize);
        return new RangeReader() {
            @Override
            public long size() throws IOException {
                return reader.size();
            }

            @Override
            public ByteBuffer read(long offset, int length) throws IOException {
                count(StoreOperation.RANGE_READ, 1);
                ByteBuffer b = reader.read(offset, length);
                bytesRead.addAndGet(b.remaining());
                return b;
            }

            @Override
            public ByteBuffer[] readRanges(long[] offsets, int[] lengths) throws IOException {
                count(StoreOperation.RANGES_READ, 1);
                ByteBuffer[] out = reader.readRanges(offsets, lengths);
                for (ByteBuffer b : out) {
                    bytesRead.addAndGet(b.remaining());
                }
                return out;
            }

            @Override
            public ByteBuffer readTail(int length) throws IOException {
                count(StoreOperation.RANGE_READ, 1);
                ByteBuffer b = reader.readTail(length);
                bytesRead.addAndGet(b.remaining());
                return b;
            }

            @Override
            public void close() throws IOException {
                reader.close();
            }
        };
    }

    @Override
    public Optional<ObjectInfo> head(String path) throws IOException {
        count(StoreOperation.HEAD, 1);
        return delegate.head(path);
    }

    @Override
    public OutputStream create(String path) throws IOException {
        count(StoreOperation.CREATE, 1);
        OutputStream out = delegate.create(path);
        return new FilterOutputStream(out) {
            @Override
            public void write(int b) throws IOException {
                out.write(b);
                bytesWritten.incrementAndGet();
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                out.write(b, off, len);
                bytesWritten.addAndGet(len);
            }
        };
    }

    @Override
    public void put(String path, byte[] content) throws IOException {
        count(StoreOperation.PUT, 1);
        delegate.put(path, content);
        bytesWritten.addAndGet(content.length);
    }

    @Override
    public boolean putIfAbsent(String path, byte[] content) throws IOException {
        count(StoreOperation.PUT_IF_ABSENT, 1);
        boolean created = delegate.putIfAbsent(path, content);
        bytesWritten.addAndGet(content.length);
        return created;
    }

    @Override
    public Iterator<ObjectInfo> list(String directory) throws IOException {
        count(StoreOperation.LIST, 1);
        return counted(delegate.list(directory));
    }

    @Override
    public Iterator<ObjectInfo> listRecursive(String prefix) throws IOException {
        count(StoreOperation.LIST_RECURSIVE, 1);
        return counted(delegate.listRecursive(prefix));
    }

    /** Counted as one {@link StoreOperation#LIST}; its names are not entries of objects. */
    @Override
    public List<String> listDirectories(String directory) throws IOException {
        count(StoreOperation.LIST, 1);
        return delegate.listDirectories(directory);
    }

    private Iterator<ObjectInfo> counted(Iterator<ObjectInfo> it) {
        return new Iterator<>() {
            @Override
            public boolean hasNext() {
                return it.hasNext();
            }

            @Override
            public ObjectInfo next() {
                ObjectInfo o = it.next();
                entriesListed.incrementAndGet();
                return o;
            }
        };
    }

    @Override
    public void delete(String path) throws IOException {
        count(StoreOperation.DELETE, 1);
        delegate.delete(path);
    }

    @Override
    public void close() throws IOException {
        delegate.close();
    }
}
