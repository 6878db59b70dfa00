package dev.lanceflink.overlay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.file.writer.FileWriterOptions;
import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.read.ScanOptions;
import dev.lanceflink.read.Scanner;
import dev.lanceflink.table.OverlayCoverage;
import dev.lanceflink.txn.CommitOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.roaringbitmap.RoaringBitmap;

/**
 * {@link OverlayStager#open}: the streaming, per-field form used by the overlay merge and the
 * relocation (batches of offsets and values in offset order, reused offset buffers, the same file
 * as the one-shot stager for the same cells, partial files removed).
 */
class OverlayStagerStreamTest {
    @TempDir
    Path dir;

    private final BufferAllocator allocator = new RootAllocator();
    private ObjectStore store;
    private Dataset ds;
    private int a;
    private int s;

    @BeforeEach
    void setUp() throws Exception {
        store = new LocalObjectStore(dir.resolve("t.lance"));
        ds = SmallTable.create(store, allocator, 10);
        a = ds.manifest().schema().fieldByName("a").orElseThrow().id();
        s = ds.manifest().schema().fieldByName("s").orElseThrow().id();
    }

    @AfterEach
    void tearDown() throws Exception {
        ds.close();
        allocator.close();
    }

    private OverlayStager.FieldStream open(OverlayStager.Target target, int... fieldIds) {
        return OverlayStager.open(store, ds.manifest(), target, fieldIds, allocator, FileWriterOptions.defaults());
    }

    private List<String> dataFiles() throws Exception {
        List<String> out = new ArrayList<>();
        store.list("data").forEachRemaining(i -> out.add(i.toString()));
        return out;
    }

    /** Commits {@code o} on fragment 0 and returns columns {@code a} and {@code s} as strings per row. */
    private List<String> commitAndRead(OverlayStager.StagedOverlay o) throws Exception {
        OverlayCommits.commit(
                store,
                ds.version(),
                new StagedWrite(OverlayCommits.operation(Map.of(0L, List.of(o.overlay()))), List.of(o.writtenPath())),
                Map.of(),
                CommitOptions.defaults());
        List<String> out = new ArrayList<>();
        try (Dataset d = Dataset.open(store, allocator);
                Scanner sc = d.scan(new ScanOptions(List.of("a", "s"), (String) null, -1, false, 100))) {
            while (sc.hasNext()) {
                try (VectorSchemaRoot b = sc.next()) {
                    for (int r = 0; r < b.getRowCount(); r++) {
                        out.add(b.getVector("a").getObject(r) + "/"
                                + b.getVector("s").getObject(r));
                    }
                }
            }
        }
        return out;
    }

    @Test
    void batchesThroughOneReusedOffsetBufferWriteTheSameFileAsTheOneShotStager() throws Exception {
        OverlayStager.StagedOverlay oneShot;
        try (BigIntVector av = SmallTable.longs(allocator, "a", 12L, 15L, 18L);
                VarCharVector sv = SmallTable.strings(allocator, "s", "y2", "y5", "y8")) {
            oneShot = OverlayStager.stage(
                            store,
                            ds.manifest(),
                            OverlayStager.Target.fragment(0),
                            new long[] {2, 5, 8},
                            3,
                            List.of(av, sv),
                            null,
                            allocator,
                            FileWriterOptions.defaults())
                    .orElseThrow();
        }
        OverlayStager.StagedOverlay streamed;
        long[] buffer = new long[4]; // longer than any batch: only the first count offsets count
        try (OverlayStager.FieldStream out = open(OverlayStager.Target.fragment(0), a, s)) {
            try (BigIntVector first = SmallTable.longs(allocator, "a", 12L, 15L);
                    BigIntVector second = SmallTable.longs(allocator, "a", 18L)) {
                buffer[0] = 2;
                buffer[1] = 5;
                buffer[2] = 99; // beyond count: ignored
                out.add(a, buffer, 2, first);
                buffer[0] = 8;
                out.add(a, buffer, 1, second);
            }
            try (VarCharVector sv = SmallTable.strings(allocator, "s", "y2", "y5", "y8")) {
                out.add(s, new long[] {2, 5, 8}, 3, sv);
            }
            streamed = out.finish().orElseThrow();
        }
        assertThat(streamed.overlay().coverage()).isInstanceOf(OverlayCoverage.Dense.class);
        assertThat(streamed.overlay().coverage()).isEqualTo(oneShot.overlay().coverage());
        assertThat(streamed.overlay().dataFile().fields())
                .isEqualTo(oneShot.overlay().dataFile().fields());
        assertThat(streamed.writtenPath()).isNotEqualTo(oneShot.writtenPath());
        assertThat(store.readAll(streamed.writtenPath())).isEqualTo(store.readAll(oneShot.writtenPath()));
        assertThat(commitAndRead(streamed))
                .containsExactly(
                        "0/s0", "10/s1", "12/y2", "30/s3", "40/s4", "15/y5", "60/s6", "70/s7", "18/y8", "90/s9");
    }

    @Test
    void fieldsWithDifferentCellsMakeASparseOverlay() throws Exception {
        OverlayStager.StagedOverlay staged;
        try (OverlayStager.FieldStream out = open(OverlayStager.Target.fragment(0), a, s);
                VarCharVector sv = SmallTable.strings(allocator, "s", (String) null);
                BigIntVector av = SmallTable.longs(allocator, "a", 11L, 99L)) {
            out.add(s, new long[] {4}, 1, sv); // fields in any order; a NULL sets the cell to NULL
            out.add(a, new long[] {1, 9}, 2, av);
            staged = out.finish().orElseThrow();
        }
        OverlayCoverage.PerField cov =
                (OverlayCoverage.PerField) staged.overlay().coverage();
        assertThat(cov.union()).isEqualTo(RoaringBitmap.bitmapOf(1, 4, 9));
        assertThat(commitAndRead(staged))
                .containsExactly(
                        "0/s0", "11/s1", "20/s2", "30/s3", "40/null", "50/s5", "60/s6", "70/s7", "80/s8", "99/s9");
    }

    @Test
    void aDeclaredFieldWithoutCellsStillMakesTheOverlaySparse() throws Exception {
        try (OverlayStager.FieldStream out = open(OverlayStager.Target.fragment(0), a, s);
                BigIntVector av = SmallTable.longs(allocator, "a", 1L)) {
            out.add(a, new long[] {3}, 1, av);
            assertThat(out.finish().orElseThrow().overlay().coverage()).isInstanceOf(OverlayCoverage.PerField.class);
        }
    }

    @Test
    void nothingAddedWritesNoFile() throws Exception {
        List<String> before = dataFiles();
        try (OverlayStager.FieldStream out = open(OverlayStager.Target.fragment(0), a)) {
            assertThat(out.finish()).isEmpty();
        }
        assertThat(dataFiles()).isEqualTo(before);
    }

    @Test
    void offsetsOutOfOrderAcrossBatchesAreRefusedAndThePartialFileIsRemoved() throws Exception {
        List<String> before = dataFiles();
        try (OverlayStager.FieldStream out = open(OverlayStager.Target.fragment(0), a);
                BigIntVector first = SmallTable.longs(allocator, "a", 1L, 2L);
                BigIntVector again = SmallTable.longs(allocator, "a", 3L)) {
            out.add(a, new long[] {4, 6}, 2, first);
            assertThatThrownBy(() -> out.add(a, new long[] {6}, 1, again))
                    .isInstanceOfSatisfying(
                            OverlayWriteException.class,
                            e -> assertThat(e.kind()).isEqualTo(OverlayWriteException.Kind.OFFSET_NOT_ASCENDING));
        }
        assertThat(dataFiles()).isEqualTo(before);
    }

    @Test
    void offsetsAreCheckedAgainstTheTarget() throws Exception {
        try (OverlayStager.FieldStream out = open(OverlayStager.Target.fragment(0), a);
                BigIntVector one = SmallTable.longs(allocator, "a", 1L)) {
            assertThatThrownBy(() -> out.add(a, new long[] {10}, 1, one))
                    .isInstanceOfSatisfying(
                            OverlayWriteException.class,
                            e -> assertThat(e.kind()).isEqualTo(OverlayWriteException.Kind.OFFSET_OUT_OF_RANGE));
        }
        try (OverlayStager.FieldStream out = open(OverlayStager.Target.fragment(0), a);
                BigIntVector one = SmallTable.longs(allocator, "a", 1L)) {
            assertThatThrownBy(() -> out.add(a, new long[] {-3}, 1, one))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("Offset -3 (cell 0 of field id");
            assertThatThrownBy(() -> out.add(a, new long[] {1}, 2, one))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("2 cells")
                    .hasMessageContaining("only 1 offsets");
        }
        Optional<OverlayStager.StagedOverlay> far;
        try (OverlayStager.FieldStream out = open(OverlayStager.Target.uncommitted(), a);
                BigIntVector one = SmallTable.longs(allocator, "a", 1L)) {
            out.add(a, new long[] {200_000}, 1, one); // rows of an uncommitted file are not known here
            far = out.finish();
        }
        assertThat(far.orElseThrow().overlay().coverage().union()).isEqualTo(RoaringBitmap.bitmapOf(200_000));
    }

    @Test
    void valuesOfTheWrongTypeAreRefused() throws Exception {
        try (OverlayStager.FieldStream out = open(OverlayStager.Target.fragment(0), a);
                VarCharVector text = SmallTable.strings(allocator, "a", "x")) {
            assertThatThrownBy(() -> out.add(a, new long[] {1}, 1, (FieldVector) text))
                    .isInstanceOfSatisfying(
                            OverlayWriteException.class,
                            e -> assertThat(e.kind()).isEqualTo(OverlayWriteException.Kind.VALUE_MISMATCH));
        }
    }
}
