package dev.lanceflink.deletion;

import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.table.CorruptTableException;
import dev.lanceflink.table.DeletionFile;
import dev.lanceflink.table.DeletionFileType;
import dev.lanceflink.table.TableFiles;
import java.io.IOException;
import java.io.OutputStream;
import java.security.SecureRandom;
import java.util.OptionalInt;

/**
 * Writes deletion files under a table root's {@code _deletions/} directory, and reads them from
 * there or from the base path the manifest names for them.
 */
public final class DeletionFiles {
    private static final SecureRandom RANDOM = new SecureRandom();

    private DeletionFiles() {}

    /**
     * Writes {@code dv} as a new deletion file of fragment {@code fragmentId} and returns its
     * reference. The encoding follows Lance's rule ({@link DeletionFileCodec#chooseType}); the id is
     * random, so concurrent writers never collide.
     *
     * @param readVersion the table version the delete was computed against
     * @param previous type of the fragment's current deletion file, or null
     * @throws IllegalArgumentException if {@code dv} is empty (remove the deletion file instead)
     */
    public static DeletionFile write(
            ObjectStore store, long fragmentId, long readVersion, DeletionVector dv, DeletionFileType previous)
            throws IOException {
        if (dv.isEmpty()) {
            throw new IllegalArgumentException(
                    "Fragment " + fragmentId + ": an empty deletion vector is written as no deletion file at all");
        }
        DeletionFileType type = DeletionFileCodec.chooseType(dv.cardinality(), previous);
        DeletionFile file =
                new DeletionFile(type, readVersion, RANDOM.nextLong(), dv.cardinality(), OptionalInt.empty());
        byte[] bytes = DeletionFileCodec.encode(dv, type);
        try (OutputStream out = store.create(file.rootRelativePath(fragmentId))) {
            out.write(bytes);
        }
        return file;
    }

    /**
     * Reads the deletion vector of fragment {@code fragmentId} wherever its file lives: under the
     * table root, or under the base path its {@code base_id} names (e.g. a shallow clone's source).
     */
    public static DeletionVector read(TableFiles files, long fragmentId, DeletionFile file) throws IOException {
        TableFiles.StoredFile stored = files.deletionFile(fragmentId, file);
        return decode(stored.readAll(), stored.uri(), file);
    }

    /**
     * Reads the deletion vector of fragment {@code fragmentId} from under the dataset root of
     * {@code store}: only for files without a {@code base_id} (those this library wrote).
     *
     * @throws IllegalArgumentException for a file with a {@code base_id}; read it through
     *     {@link #read(TableFiles, long, DeletionFile)}, which knows the manifest's base paths
     */
    public static DeletionVector read(ObjectStore store, long fragmentId, DeletionFile file) throws IOException {
        if (file.baseId().isPresent()) {
            throw new IllegalArgumentException("The deletion file " + file.fileName(fragmentId) + " of fragment "
                    + fragmentId + " lives under base path id " + file.baseId().getAsInt() + ", not under "
                    + store.rootUri() + "; read it with the manifest's base paths (TableFiles)");
        }
        return read(store, file.rootRelativePath(fragmentId), file);
    }

    /** Reads a deletion file at an explicit path and checks its count against the manifest. */
    public static DeletionVector read(ObjectStore store, String path, DeletionFile file) throws IOException {
        return decode(store.readAll(path), store.rootUri() + "/" + path, file);
    }

    /** Decodes the bytes of a deletion file read from {@code where} and checks its count against the manifest. */
    private static DeletionVector decode(byte[] bytes, String where, DeletionFile file) throws IOException {
        DeletionVector dv = DeletionFileCodec.decode(bytes, file.type(), where);
        if (file.numDeletedRows() != 0 && dv.cardinality() != file.numDeletedRows()) {
            throw new CorruptTableException("Deletion file " + where + " holds " + dv.cardinality()
                    + " offsets but the manifest records num_deleted_rows = " + file.numDeletedRows());
        }
        return dv;
    }
}
