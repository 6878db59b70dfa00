package dev.lanceflink.table;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.OptionalInt;

/**
 * Where a file referenced by a manifest lives (table-format.md §1.1): under the dataset root, or
 * under one of the table's base paths.
 *
 * @param baseUri null for the dataset root; otherwise the base path's absolute URI (open an
 *     object store rooted there)
 * @param path the path relative to that root, e.g. {@code data/<file>.lance}
 */
public record FileLocation(String baseUri, String path) {
    public FileLocation {
        requireNonNull(path, "path is null");
    }

    public boolean isUnderDatasetRoot() {
        return baseUri == null;
    }

    /** A data file (or overlay value file) of the table. */
    public static FileLocation ofDataFile(DataFile file, List<BasePath> bases) {
        return resolve(file.baseId(), "data", file.path(), bases, "data file " + file.path());
    }

    /**
     * The deletion file of fragment {@code fragmentId}: {@code _deletions/<name>} under the
     * dataset root or under a base path that is a dataset root. Lance has no layout for deletion
     * files in a plain directory base and refuses them; so does this.
     */
    public static FileLocation ofDeletionFile(long fragmentId, DeletionFile file, List<BasePath> bases) {
        String what = "deletion file " + file.fileName(fragmentId) + " of fragment " + fragmentId;
        FileLocation loc = resolve(file.baseId(), DeletionFile.DELETIONS_DIR, file.fileName(fragmentId), bases, what);
        if (!loc.isUnderDatasetRoot() && !loc.path().startsWith(DeletionFile.DELETIONS_DIR + "/")) {
            throw new IllegalStateException("The " + what + " refers to base path id "
                    + file.baseId().getAsInt()
                    + " (" + loc.baseUri() + "), which is not a dataset root; Lance keeps deletion files only under"
                    + " a dataset root's _deletions/, so the manifest is inconsistent");
        }
        return loc;
    }

    private static FileLocation resolve(
            OptionalInt baseId, String dir, String name, List<BasePath> bases, String what) {
        if (baseId.isEmpty()) {
            return new FileLocation(null, dir + "/" + name);
        }
        for (BasePath b : bases) {
            if (b.id() == baseId.getAsInt()) {
                return new FileLocation(b.path(), b.isDatasetRoot() ? dir + "/" + name : name);
            }
        }
        throw new IllegalStateException("The " + what + " refers to base path id " + baseId.getAsInt()
                + ", which the manifest does not list (known ids: "
                + bases.stream().map(BasePath::id).toList() + "); the manifest is inconsistent");
    }
}
