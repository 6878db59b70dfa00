package dev.lanceflink.flink.catalog;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.io.ObjectInfo;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.io.ObjectStores;
import java.io.IOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The directory layout of a Lance catalog's warehouse, on any object store:
 *
 * <pre>
 * &lt;warehouse&gt;/&lt;database&gt;/.lance-database        marker: the database exists (holds its comment/properties)
 * &lt;warehouse&gt;/&lt;database&gt;/&lt;table&gt;.lance/_versions/  a Lance dataset, Lance's naming convention
 * </pre>
 *
 * <p>Object stores have no directories, so a database is made visible by its marker object (an
 * empty database exists on S3 too), and a table exists as soon as it has a committed manifest. A
 * directory holding Lance tables but no marker (tables written by other tools) still counts as a
 * database, so a warehouse filled outside Flink is browsable.
 *
 * <p>Listing goes one level at a time ({@link ObjectStore#listDirectories}: a directory read
 * locally, a delimiter listing on S3), then checks each candidate: a database by its marker (one
 * HEAD) or else its tables, a table by the first page of its {@code _versions/}. The cost grows
 * with the number of databases and tables, never with the number of data files below them.
 */
final class Warehouse implements AutoCloseable {
    /** The marker object of a database, directly inside its directory. */
    static final String DATABASE_MARKER = ".lance-database";
    /** Lance's suffix of dataset directories. */
    static final String TABLE_SUFFIX = ".lance";

    private static final String VERSIONS_DIR = "_versions";
    private static final String MANIFEST_SUFFIX = ".manifest";

    private final String rootUri;
    private final Map<String, String> storageOptions;
    private final ObjectStore store;

    private Warehouse(String rootUri, Map<String, String> storageOptions, ObjectStore store) {
        this.rootUri = rootUri;
        this.storageOptions = Map.copyOf(storageOptions);
        this.store = store;
    }

    /** Opens the warehouse at {@code uri} (local directory, {@code file:} or {@code s3://} URI). */
    static Warehouse open(String uri, Map<String, String> storageOptions) throws IOException {
        requireNonNull(uri, "uri is null");
        String root = stripTrailingSlashes(uri.trim());
        if (root.isEmpty()) {
            throw new IllegalArgumentException("The Lance catalog option 'warehouse' is empty; set it to a local "
                    + "directory or an s3://bucket/prefix URI");
        }
        return new Warehouse(root, storageOptions, ObjectStores.open(root, storageOptions));
    }

    /** A warehouse on an already open store rooted at {@code rootUri} (tests count its requests); closes it. */
    static Warehouse on(String rootUri, Map<String, String> storageOptions, ObjectStore store) {
        return new Warehouse(stripTrailingSlashes(rootUri), storageOptions, requireNonNull(store, "store is null"));
    }

    private static String stripTrailingSlashes(String uri) {
        int end = uri.length();
        // Keep the slashes of a bare scheme root such as "s3://bucket/" -> "s3://bucket".
        while (end > 1 && uri.charAt(end - 1) == '/' && !uri.substring(0, end).endsWith("://")) {
            end--;
        }
        return uri.substring(0, end);
    }

    String rootUri() {
        return rootUri;
    }

    Map<String, String> storageOptions() {
        return storageOptions;
    }

    /** The URI of a table's dataset directory, as the table factory's {@code 'path'} option takes it. */
    String tableUri(String database, String table) {
        return rootUri + "/" + database + "/" + table + TABLE_SUFFIX;
    }

    // ---- databases ----------------------------------------------------------------------------

    Optional<byte[]> readDatabaseMarker(String database) throws IOException {
        String key = database + "/" + DATABASE_MARKER;
        if (store.head(key).isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(store.readAll(key));
    }

    /** Creates the marker; false if it existed already (atomic: of two racing creators one wins). */
    boolean createDatabaseMarker(String database, byte[] content) throws IOException {
        return store.putIfAbsent(database + "/" + DATABASE_MARKER, content);
    }

    boolean databaseExists(String database) throws IOException {
        return store.exists(database + "/" + DATABASE_MARKER)
                || !listTables(database).isEmpty();
    }

    /** Database names, sorted. */
    List<String> listDatabases() throws IOException {
        List<String> out = new ArrayList<>();
        for (String name : store.listDirectories("")) {
            if (databaseExists(name)) {
                out.add(name);
            }
        }
        return out;
    }

    void deleteDatabaseMarker(String database) throws IOException {
        store.delete(database + "/" + DATABASE_MARKER);
        if (store instanceof LocalObjectStore local) {
            deleteIfEmpty(local.root().resolve(database));
        }
    }

    // ---- tables -------------------------------------------------------------------------------

    /** Whether {@code database/table.lance} has a committed version. */
    boolean tableExists(String database, String table) throws IOException {
        Iterator<ObjectInfo> it = store.list(database + "/" + table + TABLE_SUFFIX + "/" + VERSIONS_DIR);
        while (it.hasNext()) {
            if (it.next().name().endsWith(MANIFEST_SUFFIX)) {
                return true;
            }
        }
        return false;
    }

    /** Names (without {@code .lance}) of the tables of a database that have a committed version, sorted. */
    List<String> listTables(String database) throws IOException {
        List<String> out = new ArrayList<>();
        for (String name : store.listDirectories(database)) {
            if (name.endsWith(TABLE_SUFFIX) && name.length() > TABLE_SUFFIX.length()) {
                String table = name.substring(0, name.length() - TABLE_SUFFIX.length());
                if (tableExists(database, table)) {
                    out.add(table);
                }
            }
        }
        out.sort(null); // "a-b.lance" < "a.lance" but "a" < "a-b": sort the stripped names again
        return out;
    }

    /**
     * Deletes every object of a table. The manifests go first, so that the table stops existing
     * (readers get "not a Lance dataset") before its data files disappear under a reader.
     */
    void deleteTable(String database, String table) throws IOException {
        String prefix = database + "/" + table + TABLE_SUFFIX + "/";
        List<String> keys = new ArrayList<>();
        for (Iterator<ObjectInfo> it = store.listRecursive(prefix); it.hasNext(); ) {
            keys.add(it.next().path());
        }
        String versions = prefix + VERSIONS_DIR + "/";
        keys.sort(Comparator.comparing((String k) -> !k.startsWith(versions)).thenComparing(Comparator.naturalOrder()));
        for (String key : keys) {
            store.delete(key);
        }
        if (store instanceof LocalObjectStore local) {
            deleteEmptyTree(local.root().resolve(database).resolve(table + TABLE_SUFFIX));
        }
    }

    // ---- local directories --------------------------------------------------------------------

    /** Removes the now empty directories a local table leaves behind (object deletes remove files only). */
    private static void deleteEmptyTree(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return;
        }
        List<Path> dirs;
        try (Stream<Path> s = Files.walk(dir)) {
            dirs = s.filter(Files::isDirectory)
                    .sorted(Comparator.reverseOrder())
                    .toList();
        }
        for (Path d : dirs) {
            deleteIfEmpty(d);
        }
    }

    private static void deleteIfEmpty(Path dir) throws IOException {
        try {
            Files.deleteIfExists(dir);
        } catch (DirectoryNotEmptyException | NoSuchFileException e) {
            // Something else lives there (or a concurrent delete won): keep it.
        }
    }

    @Override
    public void close() throws IOException {
        store.close();
    }
}
