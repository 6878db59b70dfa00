package dev.lanceflink.table;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.io.RangeReader;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Where the files a manifest references are read from: under the table's root, or under one of
 * the manifest's base paths ({@code base_id}), as in a shallow clone, whose files stay in the
 * source table. A store is opened per base path URI on first use, with the root store's settings
 * ({@link ObjectStore#openAt}), and closed by {@link #close()}; the root store stays the caller's.
 *
 * <p>Only reads go through here: new files are always written under the table's own root (no
 * {@code base_id}), as Lance does, while the files kept by a commit keep their {@code base_id}.
 *
 * <p>Every read of a data, overlay or deletion file goes through a {@link StoredFile}, so this is
 * the one place where a file the version references but storage no longer holds is reported: as
 * a {@link MissingTableFileException} naming the file, its fragment, the table version and what to
 * do, instead of the store's bare "object not found".
 */
public final class TableFiles implements AutoCloseable {
    private final ObjectStore root;
    private final List<BasePath> bases;
    /** The table version whose files these are, for messages; -1 if not known. */
    private final long version;

    private final Map<String, ObjectStore> opened = new HashMap<>();

    /**
     * A file at {@code path} in {@code store} (the root store or a base path's store). Read it with
     * {@link #readAll()} or {@link #openReader(long)}, which report a missing file as a
     * {@link MissingTableFileException}.
     */
    public static final class StoredFile {
        private final TableFiles owner;
        private final ObjectStore store;
        private final String path;
        private final String uri;
        private final String what;

        private StoredFile(TableFiles owner, ObjectStore store, String path, String uri, String what) {
            this.owner = owner;
            this.store = store;
            this.path = path;
            this.uri = uri;
            this.what = what;
        }

        /** The store that holds the file: the table's own, or the store of a base path. */
        public ObjectStore store() {
            return store;
        }

        /** The file's path in {@link #store()}. */
        public String path() {
            return path;
        }

        /** Where the file is, for messages. */
        public String uri() {
            return uri;
        }

        /** The whole file. */
        public byte[] readAll() throws IOException {
            try {
                return store.readAll(path);
            } catch (FileNotFoundException | NoSuchFileException e) {
                throw owner.missing(this, e);
            }
        }

        /**
         * Opens the file for random-access reads ({@link ObjectStore#openReader(String, long)}).
         * A remote store may learn that the file is missing only at the first read, so the reads
         * report it too.
         */
        public RangeReader openReader(long knownSize) throws IOException {
            try {
                return new MissingAwareReader(store.openReader(path, knownSize), this);
            } catch (FileNotFoundException | NoSuchFileException e) {
                throw owner.missing(this, e);
            }
        }
    }

    public TableFiles(ObjectStore root, List<BasePath> bases) {
        this(root, bases, -1);
    }

    /** @param version the table version whose files these are (named in messages), -1 if not known */
    public TableFiles(ObjectStore root, List<BasePath> bases, long version) {
        this.root = requireNonNull(root, "root is null");
        this.bases = List.copyOf(bases);
        this.version = version;
    }

    /** The files of {@code manifest}'s version of the table in {@code root}. */
    public static TableFiles of(ObjectStore root, Manifest manifest) {
        return new TableFiles(root, manifest.basePaths(), manifest.version());
    }

    /** The table's own store: where new files are written. */
    public ObjectStore root() {
        return root;
    }

    /** A data file of fragment {@code fragmentId}. */
    public StoredFile dataFile(long fragmentId, DataFile file) throws IOException {
        return open(
                locate(() -> FileLocation.ofDataFile(file, bases)),
                file.baseId().orElse(-1),
                "data file " + file.path() + " of fragment " + fragmentId);
    }

    /** The value file of a data overlay of fragment {@code fragmentId}. */
    public StoredFile overlayFile(long fragmentId, DataOverlayFile overlay) throws IOException {
        DataFile file = overlay.dataFile();
        return open(
                locate(() -> FileLocation.ofDataFile(file, bases)),
                file.baseId().orElse(-1),
                "overlay file " + file.path() + " of fragment " + fragmentId);
    }

    /** The deletion file of fragment {@code fragmentId}. */
    public StoredFile deletionFile(long fragmentId, DeletionFile file) throws IOException {
        return open(
                locate(() -> FileLocation.ofDeletionFile(fragmentId, file, bases)),
                file.baseId().orElse(-1),
                "deletion file " + file.fileName(fragmentId) + " of fragment " + fragmentId);
    }

    private interface Locator {
        FileLocation get();
    }

    private FileLocation locate(Locator locator) throws CorruptTableException {
        try {
            return locator.get();
        } catch (IllegalStateException e) {
            throw new CorruptTableException("Table " + root.rootUri() + ": " + e.getMessage(), e);
        }
    }

    private StoredFile open(FileLocation loc, int baseId, String what) throws IOException {
        if (loc.isUnderDatasetRoot()) {
            return new StoredFile(this, root, loc.path(), join(root.rootUri(), loc.path()), what);
        }
        ObjectStore store = storeAt(loc.baseUri(), baseId, what);
        return new StoredFile(this, store, loc.path(), join(loc.baseUri(), loc.path()), what);
    }

    private static String join(String base, String path) {
        return base.endsWith("/") ? base + path : base + "/" + path;
    }

    /**
     * The report of a referenced file that storage does not hold. Older versions may not use the
     * file (it may come from a later commit), so they are the way to read the table meanwhile.
     */
    private MissingTableFileException missing(StoredFile file, IOException cause) {
        if (cause instanceof MissingTableFileException m) {
            return m;
        }
        String table = root.rootUri();
        String at = version >= 0 ? "Version " + version + " of table " + table : "Table " + table;
        return new MissingTableFileException(
                at + " references the " + file.what + ", but " + file.uri
                        + " does not exist: it was deleted by hand or by a cleanup that should have kept it. Restore the"
                        + " file (e.g. from a backup), or read a version that does not use it (`lance-flink versions "
                        + table + "` lists the versions, `lance-flink inspect " + table
                        + " --version N` the files of one)",
                cause);
    }

    /** A reader that reports a missing object, which a remote store may learn only at a read. */
    private record MissingAwareReader(RangeReader delegate, StoredFile file) implements RangeReader {
        @Override
        public long size() throws IOException {
            try {
                return delegate.size();
            } catch (FileNotFoundException | NoSuchFileException e) {
                throw file.owner.missing(file, e);
            }
        }

        @Override
        public ByteBuffer read(long offset, int length) throws IOException {
            try {
                return delegate.read(offset, length);
            } catch (FileNotFoundException | NoSuchFileException e) {
                throw file.owner.missing(file, e);
            }
        }

        @Override
        public ByteBuffer[] readRanges(long[] offsets, int[] lengths) throws IOException {
            try {
                return delegate.readRanges(offsets, lengths);
            } catch (FileNotFoundException | NoSuchFileException e) {
                throw file.owner.missing(file, e);
            }
        }

        @Override
        public ByteBuffer readTail(int length) throws IOException {
            try {
                return delegate.readTail(length);
            } catch (FileNotFoundException | NoSuchFileException e) {
                throw file.owner.missing(file, e);
            }
        }

        @Override
        public void close() throws IOException {
            delegate.close();
        }
    }

    private synchronized ObjectStore storeAt(String uri, int baseId, String what) throws IOException {
        ObjectStore store = opened.get(uri);
        if (store == null) {
            try {
                store = root.openAt(uri);
            } catch (IOException | RuntimeException e) {
                throw new IOException(
                        "Cannot read the " + what + " of table " + root.rootUri() + ": it lives under"
                                + " base path id " + baseId + " ('" + uri + "'), which cannot be opened here ("
                                + e.getMessage()
                                + "). The table references files of another location (e.g. it is a shallow clone); make that"
                                + " location readable with the table's storage options, or use a deep copy of the table",
                        e);
            }
            opened.put(uri, store);
        }
        return store;
    }

    /** Closes the stores opened for base paths (not the root store). */
    @Override
    public synchronized void close() throws IOException {
        IOException first = null;
        for (ObjectStore s : new ArrayList<>(opened.values())) {
            try {
                s.close();
            } catch (IOException e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        opened.clear();
        if (first != null) {
            throw first;
        }
    }
}
