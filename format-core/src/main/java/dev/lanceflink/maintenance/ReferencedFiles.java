package dev.lanceflink.maintenance;

import dev.lanceflink.table.BasePath;
import dev.lanceflink.table.DataFile;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.DeletionFile;
import dev.lanceflink.table.FileLocation;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.IndexEntry;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.RowIdMeta;
import dev.lanceflink.table.SequenceSource;
import dev.lanceflink.txn.Operation;
import dev.lanceflink.txn.Transaction;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;

/**
 * The files a set of manifests references, as paths relative to the table root: data files,
 * overlay value files, deletion files, external row-id/version sequences, the transaction file,
 * and index directories (by uuid, since an index owns every file under {@code _indices/<uuid>/}).
 *
 * <p>Files that live under another base path (multi-location tables) are outside this table's
 * root, so cleanup never lists or deletes them; they are skipped here.
 */
final class ReferencedFiles {
    static final String INDICES_DIR = "_indices";

    private final String rootUri;
    private final Set<String> paths = new HashSet<>();
    private final Set<String> indexUuids = new HashSet<>();

    ReferencedFiles(String rootUri) {
        this.rootUri = normalize(rootUri);
    }

    /**
     * Adds every file {@code manifest} references.
     *
     * @param where the manifest's path, for errors
     * @throws CleanupAbortedException if the manifest refers to a base path it does not list
     */
    void addManifest(Manifest manifest, String where) throws CleanupAbortedException {
        List<BasePath> bases = manifest.basePaths();
        for (Fragment f : manifest.fragments()) {
            for (DataFile d : f.files()) {
                addLocation(locate(() -> FileLocation.ofDataFile(d, bases), where));
            }
            for (DataOverlayFile o : f.overlays()) {
                addLocation(locate(() -> FileLocation.ofDataFile(o.dataFile(), bases), where));
            }
            DeletionFile del = f.deletionFile();
            if (del != null) {
                addLocation(locate(() -> FileLocation.ofDeletionFile(f.id(), del, bases), where));
            }
            RowIdMeta meta = f.rowIdMeta();
            addSequence(meta.rowIds());
            addSequence(meta.lastUpdatedAtVersions());
            addSequence(meta.createdAtVersions());
        }
        if (!manifest.transactionFile().isEmpty()) {
            paths.add(Transaction.TRANSACTIONS_DIR + "/" + manifest.transactionFile());
        }
        for (IndexEntry index : manifest.indices()) {
            String uuid;
            try {
                uuid = index.uuid().toString();
            } catch (IllegalStateException e) {
                throw new CleanupAbortedException(
                        "Manifest " + where + " lists an index whose uuid is malformed ("
                                + e.getMessage()
                                + "); cleanup cannot tell which _indices/ directory it uses, so it deletes"
                                + " nothing",
                        e);
            }
            if (isUnderRoot(index.baseId(), bases, where)) {
                indexUuids.add(uuid);
            }
        }
    }

    /**
     * Adds the deletion files a kept version's {@code Rewrite} names for its old fragments: a reader
     * of the history (the upsert sink's key map) derives the compaction's row moves from them. They
     * are usually also the previous version's, but a compaction that carried deletions other
     * writers committed after it read the fragments names files that only older versions reference.
     */
    void addRewriteSources(Manifest manifest, Transaction txn, String where) throws CleanupAbortedException {
        if (!(txn.operation() instanceof Operation.Rewrite rw)) {
            return;
        }
        List<BasePath> bases = manifest.basePaths();
        for (Operation.RewriteGroup g : rw.groups()) {
            for (Fragment old : g.oldFragments()) {
                DeletionFile del = old.deletionFile();
                if (del != null) {
                    addLocation(locate(() -> FileLocation.ofDeletionFile(old.id(), del, bases), where));
                }
            }
        }
    }

    /** True if {@code path} (relative to the table root) is referenced. */
    boolean contains(String path) {
        if (path.startsWith(INDICES_DIR + "/")) {
            int end = path.indexOf('/', INDICES_DIR.length() + 1);
            String uuid = path.substring(INDICES_DIR.length() + 1, end < 0 ? path.length() : end);
            return indexUuids.contains(uuid);
        }
        return paths.contains(path);
    }

    private void addSequence(SequenceSource s) {
        if (s instanceof SequenceSource.External e) {
            paths.add(e.path());
        }
    }

    private void addLocation(FileLocation loc) {
        if (loc.isUnderDatasetRoot()) {
            paths.add(loc.path());
        } else if (normalize(loc.baseUri()).equals(rootUri)) {
            paths.add(loc.path()); // a base path that names this very root
        }
    }

    private boolean isUnderRoot(OptionalInt baseId, List<BasePath> bases, String where) throws CleanupAbortedException {
        if (baseId.isEmpty()) {
            return true;
        }
        for (BasePath b : bases) {
            if (b.id() == baseId.getAsInt()) {
                return b.isDatasetRoot() && normalize(b.path()).equals(rootUri);
            }
        }
        throw new CleanupAbortedException("Manifest " + where + " lists an index under base path id "
                + baseId.getAsInt() + ", which the manifest does not define; cleanup cannot tell where that index"
                + " lives, so it deletes nothing. Repair the manifest first");
    }

    private interface Locator {
        FileLocation get();
    }

    private static FileLocation locate(Locator l, String where) throws CleanupAbortedException {
        try {
            return l.get();
        } catch (IllegalStateException e) {
            throw new CleanupAbortedException(
                    "Manifest " + where + " is inconsistent: " + e.getMessage()
                            + ". Cleanup cannot tell which files it needs, so it deletes nothing",
                    e);
        }
    }

    /** A root URI without a {@code file://} scheme and trailing slashes, for comparing base paths. */
    static String normalize(String uri) {
        String s = uri;
        if (s.startsWith("file://")) {
            s = s.substring("file://".length());
        } else if (s.startsWith("file:")) {
            s = s.substring("file:".length());
        }
        while (s.length() > 1 && s.endsWith("/")) {
            s = s.substring(0, s.length() - 1);
        }
        return s;
    }
}
