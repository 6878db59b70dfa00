package dev.lanceflink.overlay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.file.writer.FileWriterOptions;
import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.read.ScanOptions;
import dev.lanceflink.read.Scanner;
import dev.lanceflink.schema.ColumnSet;
import dev.lanceflink.table.DataOverlayFile;
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

/** {@link OverlayStager}: ordering, last write wins per cell, dense vs sparse, NULLs, uncommitted targets. */
class OverlayStagerTest {
    @TempDir
    Path dir;

    private final BufferAllocator allocator = new RootAllocator();
    private ObjectStore store;
    private Dataset ds;

    @BeforeEach
    void setUp() throws Exception {
        store = new LocalObjectStore(dir.resolve("t.lance"));
        ds = SmallTable.create(store, allocator, 10);
    }

    @AfterEach
    void tearDown() throws Exception {
        ds.close();
        allocator.close();
    }

    private Optional<OverlayStager.StagedOverlay> stage(
            OverlayStager.Target target, long[] offsets, List<FieldVector> values, ColumnSet[] set) throws Exception {
        return OverlayStager.stage(
                store,
                ds.manifest(),
                target,
                offsets,
                offsets.length,
                values,
                set,
                allocator,
                FileWriterOptions.defaults());
    }

    /** Commits {@code o} on fragment 0 and returns column {@code a} and {@code s} as strings per row. */
    private List<String> commitAndRead(OverlayStager.StagedOverlay o) throws Exception {
        OverlayCommits.commit(
                store,
                ds.version(),
                new StagedWrite(OverlayCommits.operation(Map.of(0L, List.of(o.overlay()))), List.of(o.writtenPath())),
                Map.of(),
                CommitOptions.defaults());
        List<String> out = new ArrayList<>();
        try (Dataset d = Dataset.open(store, allocator);
                Scanner s = d.scan(new ScanOptions(List.of("a", "s"), (String) null, -1, false, 100))) {
            while (s.hasNext()) {
                try (VectorSchemaRoot b = s.next()) {
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
    void unorderedChangesAreSortedAndTheLastOfAnOffsetWins() throws Exception {
        try (BigIntVector a = SmallTable.longs(allocator, "a", 70L, 20L, 71L, 50L);
                VarCharVector s = SmallTable.strings(allocator, "s", "x7", "x2", "y7", "x5")) {
            OverlayStager.StagedOverlay staged = stage(
                            OverlayStager.Target.fragment(0), new long[] {7, 2, 7, 5}, List.of(a, s), null)
                    .orElseThrow();
            assertThat(staged.overlay().coverage()).isInstanceOf(OverlayCoverage.Dense.class);
            assertThat(staged.overlay().coverage().union()).isEqualTo(RoaringBitmap.bitmapOf(2, 5, 7));
            assertThat(commitAndRead(staged))
                    .containsExactly(
                            "0/s0", "10/s1", "20/x2", "30/s3", "40/s4", "50/x5", "60/s6", "71/y7", "80/s8", "90/s9");
        }
    }

    @Test
    void changesSettingDifferentFieldsMakeASparseOverlayAndWinPerCell() throws Exception {
        ColumnSet both = ColumnSet.of(0, 1);
        ColumnSet onlyA = ColumnSet.of(0);
        ColumnSet onlyS = ColumnSet.of(1);
        try (BigIntVector a = SmallTable.longs(allocator, "a", 30L, null, 99L, 60L);
                VarCharVector s = SmallTable.strings(allocator, "s", "x3", "y3", null, "ignored")) {
            // offset 3: both cells, then s again (a keeps the first change's value); offset 6: a only.
            OverlayStager.StagedOverlay staged = stage(
                            OverlayStager.Target.fragment(0), new long[] {3, 3, 1, 6}, List.of(a, s), new ColumnSet[] {
                                both, onlyS, onlyA, onlyA
                            })
                    .orElseThrow();
            OverlayCoverage.PerField cov =
                    (OverlayCoverage.PerField) staged.overlay().coverage();
            assertThat(cov.bitmap(0)).isEqualTo(RoaringBitmap.bitmapOf(1, 3, 6));
            assertThat(cov.bitmap(1)).isEqualTo(RoaringBitmap.bitmapOf(3));
            assertThat(commitAndRead(staged))
                    .containsExactly(
                            "0/s0", "99/s1", "20/s2", "30/y3", "40/s4", "50/s5", "60/s6", "70/s7", "80/s8", "90/s9");
        }
    }

    @Test
    void nullsSetCellsToNullAndValueFieldsAllowThem() throws Exception {
        var k = ds.manifest().schema().fieldByName("k").orElseThrow();
        assertThat(k.toArrow().isNullable()).isFalse();
        assertThat(OverlayStager.valueField(k).isNullable()).isTrue();
        try (BigIntVector a = SmallTable.longs(allocator, "a", (Long) null)) {
            assertThat(commitAndRead(stage(OverlayStager.Target.fragment(0), new long[] {4}, List.of(a), null)
                            .orElseThrow()))
                    .element(4)
                    .isEqualTo("null/s4");
        }
    }

    @Test
    void nothingSetWritesNoFile() throws Exception {
        try (BigIntVector a = SmallTable.longs(allocator, "a", 1L)) {
            assertThat(stage(OverlayStager.Target.fragment(0), new long[] {1}, List.of(a), new ColumnSet[] {
                        ColumnSet.EMPTY
                    }))
                    .isEmpty();
            assertThat(stage(OverlayStager.Target.fragment(0), new long[0], List.of(a), null))
                    .isEmpty();
        }
        List<String> data = new ArrayList<>();
        store.list("data").forEachRemaining(i -> data.add(i.toString()));
        assertThat(data).hasSize(1); // the table's own data file
    }

    @Test
    void uncommittedTargetsTakeAnyOffsetAndFragmentsRefuseOffsetsPastTheirEnd() throws Exception {
        try (BigIntVector a = SmallTable.longs(allocator, "a", 1L, 2L)) {
            DataOverlayFile o = stage(OverlayStager.Target.uncommitted(), new long[] {100_000, 12}, List.of(a), null)
                    .orElseThrow()
                    .overlay();
            assertThat(o.coverage().union()).isEqualTo(RoaringBitmap.bitmapOf(12, 100_000));
            assertThatThrownBy(() -> stage(OverlayStager.Target.fragment(0), new long[] {10, 1}, List.of(a), null))
                    .isInstanceOfSatisfying(
                            OverlayWriteException.class,
                            e -> assertThat(e.kind()).isEqualTo(OverlayWriteException.Kind.OFFSET_OUT_OF_RANGE));
            assertThatThrownBy(() -> stage(OverlayStager.Target.fragment(0), new long[] {-1, 1}, List.of(a), null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("Offset -1 (change 0)");
        }
        try (BigIntVector wrong = SmallTable.longs(allocator, "nope", 1L)) {
            assertThatThrownBy(() -> stage(OverlayStager.Target.fragment(0), new long[] {1}, List.of(wrong), null))
                    .hasMessageContaining("Overlay column 'nope' is not a top-level column");
        }
    }
}
