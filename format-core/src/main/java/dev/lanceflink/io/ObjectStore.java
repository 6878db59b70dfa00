package dev.lanceflink.io;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The only storage interface format-core knows. One store is rooted at one location (a local
 * directory or an {@code s3://bucket/prefix}); every path given to it is a '/'-separated key
 * relative to that root, e.g. {@code _versions/18446744073709551614.manifest}.
 *
 * <p>Contracts that the table format relies on:
 * <ul>
 *   <li>{@link #putIfAbsent} is atomic: of several concurrent callers for one path exactly one
 *       gets {@code true}. It is the commit point of a table version, so it never overwrites.
 *   <li>{@link #create} makes the object visible only when the stream is closed successfully;
 *       a failed or abandoned write leaves nothing under {@code path} (local: temp file; S3:
 *       the multipart upload is aborted). It is meant for new, uniquely named files.
 *   <li>{@link #list} returns the objects directly under a directory prefix, sorted
 *       ascending by name (byte order), lazily where the backend pages.
 *   <li>A missing object is reported as {@link java.io.FileNotFoundException} naming the path.
 * </ul>
 */
public interface ObjectStore extends AutoCloseable {

    /** The URI of the root, as the user wrote it (for messages and for resolving base paths). */
    String rootUri();

    /** Reads a whole object. */
    byte[] readAll(String path) throws IOException;

    /** Opens an object for random-access reads. */
    RangeReader openReader(String path) throws IOException;

    /**
     * Opens an object whose size the caller already knows, typically from table metadata (a data
     * file's {@code file_size_bytes}), so that a remote store can skip the request that would
     * learn it. A {@code knownSize} of 0 or less means unknown: then this is {@link #openReader(String)}.
     *
     * <p>Implementations that trust {@code knownSize} must still detect a wrong one no later than
     * the first read and fail with an error naming the object and both sizes, never return bytes
     * of the wrong range. The default ignores the hint, which is always correct.
     */
    default RangeReader openReader(String path, long knownSize) throws IOException {
        return openReader(path);
    }

    /** Size and modification time of an object, or empty if it does not exist. */
    Optional<ObjectInfo> head(String path) throws IOException;

    default boolean exists(String path) throws IOException {
        return head(path).isPresent();
    }

    /** Writes a new object; see the class contract for visibility. */
    OutputStream create(String path) throws IOException;

    /** Writes (or replaces) a small object in one request; only for best-effort files such as hints. */
    void put(String path, byte[] content) throws IOException;

    /**
     * Creates {@code path} with {@code content} only if nothing exists there yet.
     *
     * @return true if this call created it, false if an object already existed
     * @throws PutOutcomeUnknownException if the store cannot tell whether this call created it
     *     (for example a lost response that could not be resolved); the caller must re-check
     */
    boolean putIfAbsent(String path, byte[] content) throws IOException;

    /** Objects directly under {@code directory} (a prefix without trailing '/'), sorted by name. */
    Iterator<ObjectInfo> list(String directory) throws IOException;

    /** Every object whose path starts with {@code prefix}, at any depth, in no promised order. */
    Iterator<ObjectInfo> listRecursive(String prefix) throws IOException;

    /**
     * Names (last segment only, no '/') of the immediate sub-directories of {@code directory} (a
     * prefix without trailing '/'; "" is the root), sorted by {@link String#compareTo}. On an
     * object store a sub-directory is the common prefix of the keys below it, so it exists only
     * while it holds an object; a file system may also list empty directories. Callers that need
     * particular content (a marker, a manifest) check for it.
     *
     * <p>The default derives the names from {@link #listRecursive}, which reads every key below
     * {@code directory}; stores that can list one level override it (local: one directory read;
     * S3: a delimiter listing whose common prefixes are the answer, one request per page).
     */
    default List<String> listDirectories(String directory) throws IOException {
        String prefix = directory.isEmpty() ? "" : directory + "/";
        TreeSet<String> names = new TreeSet<>();
        for (Iterator<ObjectInfo> it = listRecursive(prefix); it.hasNext(); ) {
            String key = it.next().path();
            if (!key.startsWith(prefix)) {
                continue;
            }
            int slash = key.indexOf('/', prefix.length());
            if (slash > prefix.length()) {
                names.add(key.substring(prefix.length(), slash));
            }
        }
        return new ArrayList<>(names);
    }

    /**
     * Opens a store rooted at another location with this store's settings (credentials, endpoint,
     * region): how a table reaches files kept under its base paths, e.g. the source of a shallow
     * clone. The caller closes the returned store. The default opens {@code uri} as
     * {@link ObjectStores#open} does without storage options; stores whose settings matter (S3)
     * override it.
     *
     * @throws IOException if no store can be opened for {@code uri} (e.g. an unknown URI scheme)
     */
    default ObjectStore openAt(String uri) throws IOException {
        return ObjectStores.open(uri, Map.of());
    }

    /** Deletes an object; deleting a missing object is not an error. */
    void delete(String path) throws IOException;

    @Override
    default void close() throws IOException {}
}
