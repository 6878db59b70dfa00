package dev.lanceflink.table;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.io.ObjectStore;
import java.io.IOException;
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
 */
public final class TableFiles implements AutoCloseable {
    private final ObjectStore root;
    private final List<BasePath> bases;
    private final Map<String, ObjectStore> opened = new HashMap<>();

    /**
     * A file at {@code path} in {@code store} (the root store or a base path's store).
     *
     * @param uri where the file is, for messages
     */
    public record StoredFile(ObjectStore store, String path, String uri) {}

    public TableFiles(ObjectStore root, List<BasePath> bases) {
        this.root = requireNonNull(root, "root is null");
        this.bases = List.copyOf(bases);
    }

    /** The files of {@code manifest}'s version of the table in {@code root}. */
    public static TableFiles of(ObjectStore root, Manifest manifest) {
        return new TableFiles(root, manifest.basePaths());
    }

    /** The table's own store: where new files are written. */
    public ObjectStore root() {
        return root;
    }

    /** A data file of fragment {@code fragmentId}. */
    public StoredFile dataFile(long fragmentId, DataFile file) throws IOException {
        return open(locate(() -> FileLocation.ofDataFile(file, bases)), file.baseId().orElse(-1),
                "data file " + file.path() + " of fragment " + fragmentId);
    }

    /** The value file of a data overlay of fragment {@code fragmentId}. */
    public StoredFile overlayFile(long fragmentId, DataOverlayFile overlay) throws IOException {
        DataFile file = overlay.dataFile();
        return open(locate(() -> FileLocation.ofDataFile(file, bases)), file.baseId().orElse(-1),
                "overlay file " + file.path() + " of fragment " + fragmentId);
    }

    /** The deletion file of fragment {@code fragmentId}. */
    public StoredFile deletionFile(long fragmentId, DeletionFile file) throws IOException {
        return open(locate(() -> FileLocation.ofDeletionFile(fragmentId, file, bases)), file.baseId().orElse(-1),
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
            return new StoredFile(root, loc.path(), root.rootUri() + "/" + loc.path());
        }
        ObjectStore store = storeAt(loc.baseUri(), baseId, what);
        return new StoredFile(store, loc.path(), loc.baseUri() + "/" + loc.path());
    }

    private synchronized ObjectStore storeAt(String uri, int baseId, String what) throws IOException {
        ObjectStore store = opened.get(uri);
        if (store == null) {
            try {
                store = root.openAt(uri);
            } catch (IOException | RuntimeException e) {
                throw new IOException("Cannot read the " + what + " of table " + root.rootUri() + ": it lives under"
                        + " base path id " + baseId + " ('" + uri + "'), which cannot be opened here (" + e.getMessage()
                        + "). The table references files of another location (e.g. it is a shallow clone); make that"
                        + " location readable with the table's storage options, or use a deep copy of the table", e);
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
