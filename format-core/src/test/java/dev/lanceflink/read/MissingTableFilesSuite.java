package dev.lanceflink.read;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.io.StoreBackedSuite;
import dev.lanceflink.io.TestLocation;
import dev.lanceflink.table.DataFile;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.MissingTableFileException;
import java.io.UncheckedIOException;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A table whose data file or deletion file was deleted outside the table's own cleanup: a read
 * fails with one message that names the file, its fragment, the table version and what to do,
 * and the older versions that do not use the file still read. Runs on the local file system as
 * {@link MissingTableFilesTest} and on S3 (where a data file's absence shows only at its first
 * ranged read) as s3-store's {@code S3MissingTableFilesTest}.
 */
public abstract class MissingTableFilesSuite extends StoreBackedSuite {
    private static final Schema SCHEMA =
            new Schema(List.of(new Field("id", FieldType.notNullable(new ArrowType.Int(32, true)), null)));

    private BufferAllocator allocator;

    @BeforeEach
    void setUp() {
        allocator = new RootAllocator();
    }

    @AfterEach
    void tearDown() {
        allocator.close();
    }

    private VectorSchemaRoot batch(int from, int to) {
        VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
        IntVector id = (IntVector) root.getVector("id");
        for (int i = from; i < to; i++) {
            id.setSafe(i - from, i);
        }
        root.setRowCount(to - from);
        return root;
    }

    private static long count(Dataset ds) throws Exception {
        long n = 0;
        try (Scanner s = ds.scan(ScanOptions.all())) {
            while (s.hasNext()) {
                try (VectorSchemaRoot b = s.next()) {
                    n += b.getRowCount();
                }
            }
        }
        return n;
    }

    /** The exception a scan of {@code ds} fails with, unwrapped from the iterator's UncheckedIOException. */
    private static MissingTableFileException scanFailure(Dataset ds) {
        ThrowingCallable scan = () -> count(ds);
        Throwable thrown = org.assertj.core.api.Assertions.catchThrowable(scan);
        assertThat(thrown).as("the scan fails").isNotNull();
        Throwable t = thrown instanceof UncheckedIOException u ? u.getCause() : thrown;
        assertThat(t).isInstanceOf(MissingTableFileException.class);
        return (MissingTableFileException) t;
    }

    @Test
    void aMissingDataFileIsNamedWithItsFragmentAndVersion() throws Exception {
        TestLocation table = newLocation("t");
        ObjectStore store = openStore(table);
        try (VectorSchemaRoot b1 = batch(0, 10);
                VectorSchemaRoot b2 = batch(10, 15);
                Dataset v1 = Dataset.write(
                        table.uri(), table.storageOptions(), List.of(b1), SCHEMA, WriteParams.of(WriteMode.CREATE));
                Dataset v2 = v1.append(List.of(b2), WriteParams.of(WriteMode.APPEND))) {
            Fragment added = v2.fragments().get(1);
            DataFile file = added.files().get(0);
            store.delete(file.rootRelativePath());

            MissingTableFileException e = scanFailure(v2);
            assertThat(e.getMessage())
                    .startsWith("Version 2 of table " + table.uri() + " references the data file " + file.path()
                            + " of fragment " + added.id() + ", but ")
                    .contains(file.rootRelativePath() + " does not exist")
                    .contains("Restore the file")
                    .contains("`lance-flink versions " + table.uri() + "`")
                    .doesNotContain("\n");
            assertThat(e.getCause()).as("the store's own report").isInstanceOf(java.io.FileNotFoundException.class);
            // What the message suggests: the version before the file was added still reads.
            try (Dataset old = v2.checkoutVersion(1)) {
                assertThat(count(old)).isEqualTo(10);
            }
        }
    }

    @Test
    void aMissingDeletionFileIsNamedWithItsFragmentAndVersion() throws Exception {
        TestLocation table = newLocation("t");
        ObjectStore store = openStore(table);
        try (VectorSchemaRoot b1 = batch(0, 10);
                Dataset v1 = Dataset.write(
                        table.uri(), table.storageOptions(), List.of(b1), SCHEMA, WriteParams.of(WriteMode.CREATE));
                Dataset v2 = v1.delete("id < 3")) {
            Fragment f = v2.fragments().get(0);
            String path = f.deletionFile().rootRelativePath(f.id());
            store.delete(path);

            MissingTableFileException e = scanFailure(v2);
            assertThat(e.getMessage())
                    .startsWith("Version 2 of table " + table.uri() + " references the deletion file "
                            + f.deletionFile().fileName(f.id()) + " of fragment " + f.id() + ", but ")
                    .contains(path + " does not exist")
                    .contains("Restore the file");
            try (Dataset old = v2.checkoutVersion(1)) {
                assertThat(count(old)).isEqualTo(10);
            }
        }
    }
}
