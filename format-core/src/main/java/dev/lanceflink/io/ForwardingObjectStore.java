package dev.lanceflink.io;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.OutputStream;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;

/**
 * An object store that passes every call to another one: the base for wrappers that change a
 * few calls (fault injection, request counting, metrics, tracing) and leave the rest alone.
 *
 * <p>Why a base class rather than implementing {@link ObjectStore} directly: three of the
 * interface's default methods, {@link #openReader(String, long)}, {@link #listDirectories} and
 * {@link #openAt}, have better overrides in real stores. A wrapper that implements the interface
 * itself silently gets the defaults instead (a HEAD per data file on S3, a recursive listing for
 * a directory listing, base path stores opened without the credentials); this class forwards
 * them too. So a subclass that intercepts reads overrides both {@code openReader} methods, and
 * one that intercepts listings overrides {@code listDirectories} as well. {@link #exists} stays
 * the default, built on {@link #head}, so a subclass's {@code head} sees every existence check.
 * {@link #close()} closes the delegate: the wrapper owns it.
 */
public abstract class ForwardingObjectStore implements ObjectStore {
    private final ObjectStore delegate;

    protected ForwardingObjectStore(ObjectStore delegate) {
        this.delegate = requireNonNull(delegate, "delegate is null");
    }

    /** The store calls are passed to. */
    protected final ObjectStore delegate() {
        return delegate;
    }

    @Override
    public String rootUri() {
        return delegate.rootUri();
    }

    @Override
    public byte[] readAll(String path) throws IOException {
        return delegate.readAll(path);
    }

    @Override
    public RangeReader openReader(String path) throws IOException {
        return delegate.openReader(path);
    }

    @Override
    public RangeReader openReader(String path, long knownSize) throws IOException {
        return delegate.openReader(path, knownSize);
    }

    @Override
    public Optional<ObjectInfo> head(String path) throws IOException {
        return delegate.head(path);
    }

    @Override
    public OutputStream create(String path) throws IOException {
        return delegate.create(path);
    }

    @Override
    public void put(String path, byte[] content) throws IOException {
        delegate.put(path, content);
    }

    @Override
    public boolean putIfAbsent(String path, byte[] content) throws IOException {
        return delegate.putIfAbsent(path, content);
    }

    @Override
    public Iterator<ObjectInfo> list(String directory) throws IOException {
        return delegate.list(directory);
    }

    @Override
    public Iterator<ObjectInfo> listRecursive(String prefix) throws IOException {
        return delegate.listRecursive(prefix);
    }

    @Override
    public List<String> listDirectories(String directory) throws IOException {
        return delegate.listDirectories(directory);
    }

    @Override
    public ObjectStore openAt(String uri) throws IOException {
        return delegate.openAt(uri);
    }

    @Override
    public void delete(String path) throws IOException {
        delegate.delete(path);
    }

    @Override
    public void close() throws IOException {
        delegate.close();
    }
}
