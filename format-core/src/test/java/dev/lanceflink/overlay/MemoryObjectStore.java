package dev.lanceflink.overlay;

import dev.lanceflink.io.AbortableOutputStream;
import dev.lanceflink.io.ObjectInfo;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.io.RangeReader;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * An object store held in memory, for tests that create thousands of tiny tables: it keeps the
 * {@link ObjectStore} contracts (atomic {@code putIfAbsent}, objects visible only once their
 * stream is closed, sorted listings, {@link FileNotFoundException} for missing objects) without
 * the file-system and fsync cost of a local directory per table.
 */
final class MemoryObjectStore implements ObjectStore {
    private final String rootUri;
    private final ConcurrentSkipListMap<String, byte[]> objects = new ConcurrentSkipListMap<>();

    MemoryObjectStore(String rootUri) {
        this.rootUri = rootUri;
    }

    @Override
    public String rootUri() {
        return rootUri;
    }

    private byte[] get(String path) throws FileNotFoundException {
        byte[] b = objects.get(path);
        if (b == null) {
            throw new FileNotFoundException("Object not found: " + rootUri + "/" + path);
        }
        return b;
    }

    @Override
    public byte[] readAll(String path) throws IOException {
        return get(path).clone();
    }

    @Override
    public RangeReader openReader(String path) throws IOException {
        byte[] content = get(path);
        return new RangeReader() {
            @Override
            public long size() {
                return content.length;
            }

            @Override
            public ByteBuffer read(long offset, int length) throws IOException {
                if (offset < 0 || length < 0 || offset + length > content.length) {
                    throw new EOFException("Read of " + length + " bytes at offset " + offset + " is outside " + rootUri
                            + "/" + path + " (" + content.length + " bytes)");
                }
                // A private copy at position 0, like a read from a file.
                return ByteBuffer.wrap(Arrays.copyOfRange(content, (int) offset, (int) offset + length));
            }
        };
    }

    @Override
    public Optional<ObjectInfo> head(String path) {
        byte[] b = objects.get(path);
        return b == null ? Optional.empty() : Optional.of(new ObjectInfo(path, b.length, 0));
    }

    @Override
    public OutputStream create(String path) {
        return new Upload(path);
    }

    /** Buffers the object and publishes it on a successful close only. */
    private final class Upload extends ByteArrayOutputStream implements AbortableOutputStream {
        private final String path;
        private boolean closed;

        Upload(String path) {
            this.path = path;
        }

        @Override
        public void close() {
            if (!closed) {
                closed = true;
                objects.put(path, toByteArray());
            }
        }

        @Override
        public void abort() {
            closed = true;
        }
    }

    @Override
    public void put(String path, byte[] content) {
        objects.put(path, content.clone());
    }

    @Override
    public boolean putIfAbsent(String path, byte[] content) {
        return objects.putIfAbsent(path, content.clone()) == null;
    }

    @Override
    public Iterator<ObjectInfo> list(String directory) {
        String prefix = directory.isEmpty() ? "" : directory + "/";
        List<ObjectInfo> out = new ArrayList<>();
        for (Map.Entry<String, byte[]> e : objects.tailMap(prefix).entrySet()) {
            String key = e.getKey();
            if (!key.startsWith(prefix)) {
                break;
            }
            if (key.indexOf('/', prefix.length()) < 0) {
                out.add(new ObjectInfo(key, e.getValue().length, 0));
            }
        }
        return out.iterator();
    }

    @Override
    public Iterator<ObjectInfo> listRecursive(String prefix) {
        List<ObjectInfo> out = new ArrayList<>();
        for (Map.Entry<String, byte[]> e : objects.tailMap(prefix).entrySet()) {
            if (!e.getKey().startsWith(prefix)) {
                break;
            }
            out.add(new ObjectInfo(e.getKey(), e.getValue().length, 0));
        }
        return out.iterator();
    }

    @Override
    public void delete(String path) {
        objects.remove(path);
    }
}
