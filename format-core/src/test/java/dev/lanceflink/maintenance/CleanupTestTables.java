package dev.lanceflink.maintenance;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.io.ObjectInfo;
import dev.lanceflink.read.ScanOptions;
import dev.lanceflink.read.Scanner;
import dev.lanceflink.table.ManifestIO;
import dev.lanceflink.table.VersionResolver;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/** Small tables and file-system probes for the cleanup tests. */
final class CleanupTestTables {
    static final Schema SCHEMA = new Schema(List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Int(32, true)), null),
            new Field("name", FieldType.nullable(new ArrowType.Utf8()), null)));
    static final String USER_KEY = "flink.commit-user";
    /**
     * The cleanup clock runs 30 days ahead of the wall clock: every version and file the test
     * writes is then "old" unless a test dates a file later on purpose.
     */
    static final Instant NOW = Instant.now().plus(Duration.ofDays(30));

    private CleanupTestTables() {}

    static VectorSchemaRoot rows(BufferAllocator allocator, int from, int to) {
        VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
        IntVector id = (IntVector) root.getVector("id");
        VarCharVector name = (VarCharVector) root.getVector("name");
        for (int i = from; i < to; i++) {
            id.setSafe(i - from, i);
            name.setSafe(i - from, ("n" + i).getBytes(StandardCharsets.UTF_8));
        }
        root.setRowCount(to - from);
        return root;
    }

    /** A one-column {@code name} batch, for overlay updates. */
    static VectorSchemaRoot names(BufferAllocator allocator, String... values) {
        VarCharVector name = new VarCharVector("name", allocator);
        name.allocateNew();
        for (int i = 0; i < values.length; i++) {
            name.setSafe(i, values[i].getBytes(StandardCharsets.UTF_8));
        }
        name.setValueCount(values.length);
        VectorSchemaRoot root = new VectorSchemaRoot(List.of(name));
        root.setRowCount(values.length);
        return root;
    }

    static Dataset create(LocalObjectStore store, BufferAllocator allocator, int rows, long rowsPerFile)
            throws IOException {
        try (VectorSchemaRoot r = rows(allocator, 0, rows)) {
            Dataset.write(
                    store,
                    allocator,
                    List.of(r),
                    SCHEMA,
                    WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(rowsPerFile));
        }
        return Dataset.open(store, allocator);
    }

    static Dataset append(Dataset ds, int from, int to, Map<String, String> properties) throws IOException {
        try (VectorSchemaRoot r = rows(ds.allocator(), from, to)) {
            return ds.append(List.of(r), WriteParams.of(WriteMode.APPEND).withTransactionProperties(properties));
        }
    }

    /** Every row of {@code version} as "id|name", in scan order. */
    static List<String> scan(Dataset any, long version) throws IOException {
        Dataset ds = any.checkoutVersion(version);
        List<String> out = new ArrayList<>();
        try (Scanner s = ds.scan(ScanOptions.all())) {
            while (s.hasNext()) {
                try (VectorSchemaRoot b = s.next()) {
                    for (int r = 0; r < b.getRowCount(); r++) {
                        out.add(b.getVector("id").getObject(r) + "|"
                                + b.getVector("name").getObject(r));
                    }
                }
            }
        }
        return out;
    }

    /** Rows of each version, keyed by version. */
    static Map<Long, List<String>> scanAll(Dataset any, long... versions) throws IOException {
        Map<Long, List<String>> out = new TreeMap<>();
        for (long v : versions) {
            out.put(v, scan(any, v));
        }
        return out;
    }

    /** Every file of the table (path relative to the root, size). */
    static Map<String, Long> files(LocalObjectStore store) throws IOException {
        Map<String, Long> out = new TreeMap<>();
        Iterator<ObjectInfo> it = store.listRecursive("");
        while (it.hasNext()) {
            ObjectInfo i = it.next();
            out.put(i.path(), i.size());
        }
        return out;
    }

    /** Paths in {@code before} but not in {@code after}. */
    static Set<String> gone(Map<String, Long> before, Map<String, Long> after) {
        Set<String> out = new java.util.TreeSet<>(before.keySet());
        out.removeAll(after.keySet());
        return out;
    }

    static String manifestPath(LocalObjectStore store, long version) throws IOException {
        return VersionResolver.version(store, version).path();
    }

    static String transactionPath(LocalObjectStore store, long version) throws IOException {
        String name =
                ManifestIO.read(store, VersionResolver.version(store, version)).transactionFile();
        return name.isEmpty() ? null : "_transactions/" + name;
    }

    static void writeFile(LocalObjectStore store, String path, String content) throws IOException {
        Path p = store.root().resolve(path);
        Files.createDirectories(p.getParent());
        Files.writeString(p, content);
    }

    static void setModified(LocalObjectStore store, String path, Instant when) throws IOException {
        Files.setLastModifiedTime(store.root().resolve(path), FileTime.from(when));
    }

    static CleanupPolicy keepLast(int n) {
        return new CleanupPolicy(Duration.ofDays(1), n, Duration.ofDays(1), NOW, null, Set.of());
    }
}
