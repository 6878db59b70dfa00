package dev.lanceflink.it.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.io.ObjectInfo;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.read.ScanOptions;
import dev.lanceflink.read.Scanner;
import dev.lanceflink.table.DataFile;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.DeletionFile;
import dev.lanceflink.table.FileLocation;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.txn.Transaction;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The {@code users} table of this package's tests: created from model rows, read back and
 * compared with the model cell by cell, and its files listed for cleanup checks.
 */
final class UsersTable {
    static final Schema SCHEMA = new Schema(List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
            new Field("name", FieldType.nullable(new ArrowType.Utf8()), null),
            new Field("age", FieldType.nullable(new ArrowType.Int(32, true)), null),
            new Field("score", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), null)));

    private UsersTable() {}

    /** Writes {@code rows} as version 1, {@code rowsPerFile} rows per fragment. */
    static void create(String uri, Map<String, String> storage, Map<Long, UpsertChangelog.Row> rows, int rowsPerFile)
            throws IOException {
        try (BufferAllocator allocator = new RootAllocator();
                VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator)) {
            root.allocateNew();
            BigIntVector id = (BigIntVector) root.getVector("id");
            VarCharVector name = (VarCharVector) root.getVector("name");
            IntVector age = (IntVector) root.getVector("age");
            Float8Vector score = (Float8Vector) root.getVector("score");
            int i = 0;
            for (Map.Entry<Long, UpsertChangelog.Row> e : rows.entrySet()) {
                UpsertChangelog.Row r = e.getValue();
                id.setSafe(i, e.getKey());
                if (r.name() == null) {
                    name.setNull(i);
                } else {
                    name.setSafe(i, r.name().getBytes(StandardCharsets.UTF_8));
                }
                if (r.age() == null) {
                    age.setNull(i);
                } else {
                    age.setSafe(i, r.age());
                }
                if (r.score() == null) {
                    score.setNull(i);
                } else {
                    score.setSafe(i, r.score());
                }
                i++;
            }
            root.setRowCount(i);
            Dataset.write(uri, storage, List.of(root), SCHEMA,
                    WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(rowsPerFile)).close();
        }
    }

    /** Every live row of {@code ds}'s version by key; fails on a key that appears twice. */
    static TreeMap<Long, UpsertChangelog.Row> read(Dataset ds) throws IOException {
        TreeMap<Long, UpsertChangelog.Row> rows = new TreeMap<>();
        try (Scanner s = ds.scan(ScanOptions.all())) {
            while (s.hasNext()) {
                try (VectorSchemaRoot b = s.next()) {
                    BigIntVector id = (BigIntVector) b.getVector("id");
                    VarCharVector name = (VarCharVector) b.getVector("name");
                    IntVector age = (IntVector) b.getVector("age");
                    Float8Vector score = (Float8Vector) b.getVector("score");
                    for (int i = 0; i < b.getRowCount(); i++) {
                        UpsertChangelog.Row row = new UpsertChangelog.Row(
                                name.isNull(i) ? null : new String(name.get(i), StandardCharsets.UTF_8),
                                age.isNull(i) ? null : age.get(i), score.isNull(i) ? null : score.get(i));
                        UpsertChangelog.Row previous = rows.put(id.get(i), row);
                        assertThat(previous).as("key %s appears twice in version %s of %s (second: %s)", id.get(i),
                                ds.version(), ds.uri(), row).isNull();
                    }
                }
            }
        }
        return rows;
    }

    /** The latest version equals {@code expected}: same keys, every cell equal, no duplicate key. */
    static void assertLatestEquals(String uri, Map<String, String> storage, TreeMap<Long, UpsertChangelog.Row> expected)
            throws IOException {
        TreeMap<Long, UpsertChangelog.Row> actual;
        long version;
        try (Dataset ds = Dataset.open(uri, storage)) {
            actual = read(ds);
            version = ds.version();
        }
        List<String> diffs = new ArrayList<>();
        for (Map.Entry<Long, UpsertChangelog.Row> e : expected.entrySet()) {
            UpsertChangelog.Row got = actual.get(e.getKey());
            if (!e.getValue().equals(got) && diffs.size() < 20) {
                diffs.add("id " + e.getKey() + ": model " + e.getValue() + ", table " + got);
            }
        }
        for (Map.Entry<Long, UpsertChangelog.Row> e : actual.entrySet()) {
            if (!expected.containsKey(e.getKey()) && diffs.size() < 20) {
                diffs.add("id " + e.getKey() + ": model has no row, table " + e.getValue());
            }
        }
        assertThat(diffs).as("rows of version %s of %s that differ from the model (first 20)", version, uri)
                .isEmpty();
        assertThat(actual).hasSameSizeAs(expected);
    }

    /**
     * The files (relative to the table root) that {@code m} references under the root: base data
     * files, overlay value files, deletion files and its transaction file. Computed here from the
     * manifest, independently of the cleanup code under test.
     */
    static Set<String> referencedFiles(Manifest m) {
        Set<String> out = new TreeSet<>();
        for (Fragment f : m.fragments()) {
            for (DataFile d : f.files()) {
                out.add(FileLocation.ofDataFile(d, m.basePaths()).path());
            }
            for (DataOverlayFile o : f.overlays()) {
                out.add(FileLocation.ofDataFile(o.dataFile(), m.basePaths()).path());
            }
            DeletionFile del = f.deletionFile();
            if (del != null) {
                out.add(FileLocation.ofDeletionFile(f.id(), del, m.basePaths()).path());
            }
        }
        if (!m.transactionFile().isEmpty()) {
            out.add(Transaction.TRANSACTIONS_DIR + "/" + m.transactionFile());
        }
        return out;
    }

    /** Every file under {@code data/}, {@code _deletions/} and {@code _transactions/}. */
    static Set<String> managedFiles(ObjectStore store) throws IOException {
        Set<String> out = new TreeSet<>();
        for (String dir : List.of("data", DeletionFile.DELETIONS_DIR, Transaction.TRANSACTIONS_DIR)) {
            Iterator<ObjectInfo> it = store.list(dir);
            it.forEachRemaining(o -> out.add(o.path()));
        }
        return out;
    }
}
