package dev.lanceflink.dataset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.file.FileVersion;
import dev.lanceflink.io.StoreBackedSuite;
import dev.lanceflink.io.TestLocation;
import dev.lanceflink.read.ScanOptions;
import dev.lanceflink.read.Scanner;
import dev.lanceflink.txn.CommitHandler;
import dev.lanceflink.txn.CommitOptions;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The dataset API end to end (write, append, delete, scan with filter/projection/limit, take,
 * version checkout, error paths) on one object store. Runs on the local file system as
 * {@link DatasetTest} and on S3 as s3-store's {@code S3DatasetTest}.
 */
public abstract class DatasetSuite extends StoreBackedSuite {
    private static final Schema SCHEMA = new Schema(List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Int(32, true)), null),
            new Field("name", FieldType.nullable(new ArrowType.Utf8()), null)));

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
        VarCharVector name = (VarCharVector) root.getVector("name");
        for (int i = from; i < to; i++) {
            id.setSafe(i - from, i);
            if (i % 7 == 3) {
                name.setNull(i - from);
            } else {
                name.setSafe(i - from, ("name-" + i).getBytes(StandardCharsets.UTF_8));
            }
        }
        root.setRowCount(to - from);
        return root;
    }

    private static List<String> rows(Dataset ds, ScanOptions options) throws Exception {
        List<String> out = new ArrayList<>();
        try (Scanner s = ds.scan(options)) {
            while (s.hasNext()) {
                try (VectorSchemaRoot b = s.next()) {
                    for (int r = 0; r < b.getRowCount(); r++) {
                        StringBuilder sb = new StringBuilder();
                        for (int c = 0; c < b.getFieldVectors().size(); c++) {
                            if (c > 0) {
                                sb.append('|');
                            }
                            Object v = b.getVector(c).getObject(r);
                            sb.append(v);
                        }
                        out.add(sb.toString());
                    }
                }
            }
        }
        return out;
    }

    private static String expected(int i) {
        return i + "|" + (i % 7 == 3 ? "null" : "name-" + i);
    }

    @ParameterizedTest
    @EnumSource(
            value = FileVersion.class,
            names = {"V2_0", "V2_1"})
    void writeScanAppendDeleteAcrossVersions(FileVersion version) throws Exception {
        TestLocation table = newLocation("t");
        try (VectorSchemaRoot b1 = batch(0, 250);
                VectorSchemaRoot b2 = batch(250, 300)) {
            WriteParams create =
                    WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(100).withFileVersion(version);
            try (Dataset ds = Dataset.write(table.uri(), table.storageOptions(), List.of(b1), SCHEMA, create)) {
                assertThat(ds.version()).isEqualTo(1);
                assertThat(ds.fragments()).hasSize(3);
                assertThat(ds.manifest().dataFormat().version()).isEqualTo(version.label());
                List<String> want = new ArrayList<>();
                for (int i = 0; i < 250; i++) {
                    want.add(expected(i));
                }
                assertThat(rows(ds, ScanOptions.all())).isEqualTo(want);

                Dataset v2 = ds.append(List.of(b2), WriteParams.of(WriteMode.APPEND));
                assertThat(v2.version()).isEqualTo(2);
                assertThat(v2.countRows()).isEqualTo(300);

                Dataset v3 = v2.delete("id % 2 = 0 OR id >= 290");
                assertThat(v3.version()).isEqualTo(3);
                assertThat(v3.countRows()).isEqualTo(300 - 150 - 5);
                List<String> filtered = rows(v3, ScanOptions.all().withFilter("name IS NULL"));
                List<String> wantNull = new ArrayList<>();
                for (int i = 0; i < 290; i++) {
                    if (i % 2 == 1 && i % 7 == 3) {
                        wantNull.add(expected(i));
                    }
                }
                assertThat(filtered).isEqualTo(wantNull);
                assertThat(rows(v3, ScanOptions.all().withColumns(List.of("id")).withLimit(3)))
                        .containsExactly("1", "3", "5");

                // Old versions stay readable.
                assertThat(v3.checkoutVersion(1).countRows()).isEqualTo(250);
                assertThat(rows(v3.checkoutVersion(2), ScanOptions.all())).hasSize(300);
                assertThat(v3.versions())
                        .extracting(VersionInfo::operation)
                        .containsExactly("Overwrite", "Append", "Delete");
            }
            try (Dataset reopened = Dataset.open(table.uri(), table.storageOptions())) {
                assertThat(reopened.version()).isEqualTo(3);
            }
        }
    }

    @Test
    void takeByRowAddressKeepsRequestedOrder() throws Exception {
        TestLocation table = newLocation("t");
        try (VectorSchemaRoot b1 = batch(0, 30);
                Dataset ds = Dataset.write(
                        table.uri(),
                        table.storageOptions(),
                        List.of(b1),
                        SCHEMA,
                        WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(10))) {
            List<Long> addresses = new ArrayList<>();
            try (Scanner s = ds.scan(ScanOptions.all().withRowAddress(true).withFilter("id IN (25, 3, 14)"))) {
                while (s.hasNext()) {
                    try (VectorSchemaRoot b = s.next()) {
                        UInt8Vector a = (UInt8Vector) b.getVector(ScanOptions.ROW_ADDRESS);
                        for (int r = 0; r < b.getRowCount(); r++) {
                            addresses.add(a.get(r));
                        }
                    }
                }
            }
            assertThat(addresses).containsExactly(3L, (1L << 32) | 4, (2L << 32) | 5);
            try (VectorSchemaRoot t = ds.take(new long[] {(2L << 32) | 5, 3L, (1L << 32) | 4}, List.of("id"))) {
                assertThat(((IntVector) t.getVector("id")).get(0)).isEqualTo(25);
                assertThat(((IntVector) t.getVector("id")).get(1)).isEqualTo(3);
                assertThat(((IntVector) t.getVector("id")).get(2)).isEqualTo(14);
            }
            Dataset after = ds.deleteRows(new long[] {3L});
            assertThatThrownBy(() -> after.take(new long[] {3L}, null)).hasMessageContaining("deleted row");
        }
    }

    @Test
    void aMissingDataFileIsNamedInTheError() throws Exception {
        TestLocation table = newLocation("t");
        try (VectorSchemaRoot b1 = batch(0, 10);
                Dataset ds = Dataset.write(
                        table.uri(), table.storageOptions(), List.of(b1), SCHEMA, WriteParams.of(WriteMode.CREATE))) {
            String file = ds.fragments().get(0).files().get(0).path();
            openStore(table).delete("data/" + file);
            assertThatThrownBy(() -> rows(ds, ScanOptions.all()))
                    .hasStackTraceContaining(file)
                    .hasStackTraceContaining("not found");
        }
    }

    @Test
    void badInputCommitsNothing() throws Exception {
        TestLocation table = newLocation("t");
        try (VectorSchemaRoot b1 = batch(0, 10);
                Dataset ds = Dataset.write(
                        table.uri(), table.storageOptions(), List.of(b1), SCHEMA, WriteParams.of(WriteMode.CREATE))) {
            Schema other = new Schema(List.of(
                    new Field("id", FieldType.nullable(new ArrowType.Utf8()), null),
                    new Field("name", FieldType.nullable(new ArrowType.Utf8()), null)));
            try (VectorSchemaRoot wrong = VectorSchemaRoot.create(other, allocator)) {
                assertThatThrownBy(() -> ds.append(List.of(wrong), WriteParams.of(WriteMode.APPEND)))
                        .isInstanceOf(SchemaMismatchException.class)
                        .hasMessageContaining("Column 'id'");
            }
            try (VectorSchemaRoot nulls = batch(0, 3)) {
                ((IntVector) nulls.getVector("id")).setNull(1);
                assertThatThrownBy(() -> ds.append(List.of(nulls), WriteParams.of(WriteMode.APPEND)))
                        .isInstanceOf(SchemaMismatchException.class)
                        .hasMessageContaining("NOT NULL");
            }
            assertThatThrownBy(() -> Dataset.write(
                            table.uri(), table.storageOptions(), List.of(), SCHEMA, WriteParams.of(WriteMode.CREATE)))
                    .hasMessageContaining("already exists");
            assertThat(ds.checkoutLatest().version()).isEqualTo(1);
            assertThat(openStore(table).list("data")).toIterable().hasSize(1);
        }
        TestLocation nothing = newLocation("nothing");
        assertThatThrownBy(() -> Dataset.open(nothing.uri(), nothing.storageOptions()))
                .isInstanceOf(NotADatasetException.class)
                .hasMessageContaining("is not a Lance dataset");
    }

    /**
     * Two CREATEs of one location racing: the one that publishes version 1 second must fail as
     * {@link DatasetExistsException}, leaving the winner's version 1 (and its rows) alone. The
     * race is forced: the loser's commit handler lets the other creator commit first.
     */
    @Test
    void aCreateThatLosesTheRaceFailsAsExistingAndKeepsTheWinnersTable() throws Exception {
        TestLocation table = newLocation("t");
        CommitHandler otherCreatesFirst = (store, path, manifest) -> {
            try (VectorSchemaRoot b = batch(0, 5);
                    Dataset winner = Dataset.write(
                            table.uri(),
                            table.storageOptions(),
                            List.of(b),
                            SCHEMA,
                            WriteParams.of(WriteMode.CREATE))) {
                assertThat(winner.version()).isEqualTo(1);
            }
            return CommitHandler.PUT_IF_ABSENT.publish(store, path, manifest);
        };
        WriteParams loser = WriteParams.of(WriteMode.CREATE)
                .withCommitOptions(CommitOptions.defaults().withCommitHandler(otherCreatesFirst));
        assertThatThrownBy(() -> Dataset.write(table.uri(), table.storageOptions(), List.of(), SCHEMA, loser))
                .isInstanceOf(DatasetExistsException.class)
                .hasMessageContaining("created it first");
        try (Dataset ds = Dataset.open(table.uri(), table.storageOptions())) {
            assertThat(ds.version()).isEqualTo(1);
            assertThat(ds.countRows()).isEqualTo(5);
        }
    }
}
