package dev.lanceflink.txn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.compact.FragmentRewriter;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.file.writer.FileWriterOptions;
import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.overlay.StagedWrite;
import dev.lanceflink.read.ScanOptions;
import dev.lanceflink.read.Scanner;
import dev.lanceflink.table.Manifest;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The row moves derived from a committed Rewrite equal where the rows really went: every live row
 * of the old fragments is found at its translated address, deleted rows have none.
 */
class RewriteMovesTest {
    private static final Schema SCHEMA = new Schema(List.of(Field.notNullable("k", new ArrowType.Int(32, true))));

    @TempDir
    Path dir;

    private BufferAllocator allocator;
    private ObjectStore store;

    @BeforeEach
    void setUp() {
        allocator = new RootAllocator();
        store = new LocalObjectStore(dir);
    }

    @AfterEach
    void tearDown() throws Exception {
        store.close();
        allocator.close();
    }

    @ParameterizedTest(name = "target {0} rows per fragment")
    @ValueSource(longs = {7, 16, 1000})
    void everyLiveRowIsWhereTheMovesSay(long targetRows) throws Exception {
        try (VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator)) {
            root.allocateNew();
            for (int k = 0; k < 50; k++) {
                ((IntVector) root.getVector("k")).setSafe(k, k);
            }
            root.setRowCount(50);
            Dataset.write(
                    store,
                    allocator,
                    List.of(root),
                    SCHEMA,
                    WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(10)); // fragments 0..4
        }
        try (Dataset ds = Dataset.open(store, allocator)) {
            ds.deleteRows(new long[] {0, 5, 9, 2L << 32, 2L << 32 | 1, 3L << 32 | 9})
                    .close();
        }
        Map<Integer, Long> before;
        Manifest read;
        try (Dataset ds = Dataset.open(store, allocator)) {
            before = addresses(ds);
            read = ds.manifest();
        }
        StagedWrite staged = FragmentRewriter.rewrite(
                store, read, List.of(0L, 2L, 3L), targetRows, allocator, FileWriterOptions.defaults());
        Operation.Rewrite rewrite = (Operation.Rewrite) staged.operation();
        Manifest committed = TableCommitter.commit(
                store, Transaction.of(read.version(), rewrite, Map.of()), CommitOptions.defaults());

        RewriteMoves moves = RewriteMoves.of(store, committed, rewrite);
        Map<Integer, Long> after;
        try (Dataset ds = Dataset.open(store, allocator)) {
            after = addresses(ds);
        }
        int moved = 0;
        for (Map.Entry<Integer, Long> e : before.entrySet()) {
            long fragment = e.getValue() >>> 32;
            if (!moves.moves(fragment)) {
                assertThat(after.get(e.getKey()))
                        .as("row %s outside the rewrite", e.getKey())
                        .isEqualTo(e.getValue());
                continue;
            }
            moved++;
            OptionalLong to = moves.newAddress(fragment, (int) (e.getValue() & 0xFFFFFFFFL));
            assertThat(to).as("row %s", e.getKey()).hasValue(after.get(e.getKey()));
        }
        assertThat(moved).isEqualTo(10 - 3 + 10 - 2 + 10 - 1);
        // Written and read back (as a holder keeps them once the version is cleaned up), the
        // moves translate every address alike.
        RewriteMoves copy = roundTrip(moves);
        assertThat(copy.movedFragmentIds()).containsExactlyInAnyOrder(0L, 2L, 3L);
        for (long fragment : List.of(0L, 2L, 3L)) {
            for (int offset = 0; offset < 10; offset++) {
                assertThat(copy.newAddress(fragment, offset))
                        .as("fragment %s offset %s", fragment, offset)
                        .isEqualTo(moves.newAddress(fragment, offset));
            }
        }
        assertThat(moves.newAddress(0, 5)).as("a deleted row").isEmpty();
        assertThat(moves.moves(1)).isFalse();
        assertThatThrownBy(() -> moves.newAddress(1, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> moves.newAddress(0, 10)).isInstanceOf(IllegalArgumentException.class);
    }

    private static RewriteMoves roundTrip(RewriteMoves moves) throws Exception {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        moves.writeTo(new java.io.DataOutputStream(bytes));
        return RewriteMoves.readFrom(
                new java.io.DataInputStream(new java.io.ByteArrayInputStream(bytes.toByteArray())));
    }

    /** Key → row address of every live row. */
    private static Map<Integer, Long> addresses(Dataset ds) throws Exception {
        Map<Integer, Long> out = new HashMap<>();
        try (Scanner s = ds.scan(ScanOptions.all().withRowAddress(true))) {
            while (s.hasNext()) {
                try (VectorSchemaRoot b = s.next()) {
                    IntVector k = (IntVector) b.getVector("k");
                    UInt8Vector addr = (UInt8Vector) b.getVector(ScanOptions.ROW_ADDRESS);
                    for (int i = 0; i < b.getRowCount(); i++) {
                        out.put(k.get(i), addr.get(i));
                    }
                }
            }
        }
        return out;
    }
}
