package dev.lanceflink.overlay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.file.writer.FileWriterOptions;
import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.read.ScanOptions;
import dev.lanceflink.read.Scanner;
import dev.lanceflink.schema.ColumnSet;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.txn.CommitOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.roaringbitmap.RoaringBitmap;

/**
 * {@link OverlayRelocator}: a staged overlay's cells follow their rows to new fragments and
 * offsets (streamed through {@link OverlayStager#open}), each field keeping its own coverage,
 * dropped rows leaving their cells behind, across more cells than one batch.
 */
class OverlayRelocatorTest {
    @TempDir
    Path dir;

    private final BufferAllocator allocator = new RootAllocator();

    @AfterEach
    void tearDown() {
        allocator.close();
    }

    /** Column {@code a} and {@code s} per row, in scan order (fragment by fragment). */
    private List<String> read(ObjectStore store) throws Exception {
        List<String> out = new ArrayList<>();
        try (Dataset d = Dataset.open(store, allocator);
                Scanner sc = d.scan(new ScanOptions(List.of("a", "s"), (String) null, -1, false, 8192))) {
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

    private static void commit(ObjectStore store, Dataset on, Map<Long, DataOverlayFile> overlays, List<String> paths)
            throws Exception {
        Map<Long, List<DataOverlayFile>> groups = new LinkedHashMap<>();
        overlays.forEach((id, o) -> groups.put(id, List.of(o)));
        OverlayCommits.commit(
                store,
                on.version(),
                new StagedWrite(OverlayCommits.operation(groups), paths),
                Map.of(),
                CommitOptions.defaults());
    }

    @Test
    void cellsFollowTheirRowsToEveryDestinationWithTheirFieldsCoverage() throws Exception {
        ObjectStore store = new LocalObjectStore(dir.resolve("t.lance"));
        try (Dataset one = SmallTable.create(store, allocator, 10);
                VectorSchemaRoot more = SmallTable.rows(allocator, 10, 10);
                Dataset two = one.append(List.of(more), WriteParams.of(WriteMode.APPEND))) {
            DataOverlayFile staged;
            try (BigIntVector a = SmallTable.longs(allocator, "a", 101L, 103L, 106L);
                    VarCharVector s = SmallTable.strings(allocator, "s", "unused", "t3", "unused")) {
                ColumnSet onlyA = ColumnSet.of(0);
                staged = OverlayStager.stage(
                                store,
                                two.manifest(),
                                OverlayStager.Target.fragment(0),
                                new long[] {1, 3, 6},
                                3,
                                List.of(a, s),
                                new ColumnSet[] {onlyA, ColumnSet.of(0, 1), onlyA},
                                allocator,
                                FileWriterOptions.defaults())
                        .orElseThrow()
                        .overlay();
            }
            // Rows 1 and 3 went to fragment 1 (offsets 4 and 7), row 6 to offset 2 of fragment 0.
            Map<Long, RoaringBitmap> from = new LinkedHashMap<>();
            from.put(1L, RoaringBitmap.bitmapOf(1, 3));
            from.put(0L, RoaringBitmap.bitmapOf(6));
            Map<Long, RoaringBitmap> to = Map.of(1L, RoaringBitmap.bitmapOf(4, 7), 0L, RoaringBitmap.bitmapOf(2));
            OverlayRelocator.Relocated r =
                    OverlayRelocator.relocate(store, two.manifest(), 0, staged, from, to, allocator);

            assertThat(r.overlays().keySet()).containsExactly(1L, 0L);
            assertThat(r.writtenPaths())
                    .hasSize(2)
                    .allSatisfy(p -> assertThat(store.exists(p)).isTrue());
            DataOverlayFile one1 = r.overlays().get(1L);
            assertThat(one1.coverage().union()).isEqualTo(RoaringBitmap.bitmapOf(4, 7));
            assertThat(r.overlays().get(0L).coverage().union()).isEqualTo(RoaringBitmap.bitmapOf(2));
            commit(store, two, r.overlays(), r.writtenPaths());
            List<String> rows = read(store);
            assertThat(rows.get(2)).isEqualTo("106/s2");
            assertThat(rows.get(6)).isEqualTo("60/s6"); // the old cell stays behind
            assertThat(rows.get(10 + 4)).isEqualTo("101/s14");
            assertThat(rows.get(10 + 7)).isEqualTo("103/t3");
            assertThat(rows.get(10 + 1)).isEqualTo("110/s11");
        }
    }

    @Test
    void moreCellsThanOneBatchAreMappedInOrderAndDroppedRowsLoseTheirCells() throws Exception {
        ObjectStore store = new LocalObjectStore(dir.resolve("big.lance"));
        int rows = 100_000;
        int shift = 20_000;
        try (Dataset ds = SmallTable.create(store, allocator, rows)) {
            DataOverlayFile staged;
            try (OverlayStager.FieldStream out = OverlayStager.open(
                            store,
                            ds.manifest(),
                            OverlayStager.Target.fragment(0),
                            new int[] {
                                ds.manifest()
                                        .schema()
                                        .fieldByName("a")
                                        .orElseThrow()
                                        .id()
                            },
                            allocator,
                            FileWriterOptions.defaults());
                    BigIntVector a = new BigIntVector("a", allocator)) {
                a.allocateNew(rows);
                long[] offsets = new long[rows];
                for (int o = 0; o < rows; o++) {
                    offsets[o] = o;
                    a.set(o, 7_000_000L + o);
                }
                a.setValueCount(rows);
                out.add(ds.manifest().schema().fieldByName("a").orElseThrow().id(), offsets, rows, a);
                staged = out.finish().orElseThrow().overlay();
            }
            // Rows 0..79999 moved up by 20000 within the fragment; every tenth of them was dropped.
            RoaringBitmap origins = new RoaringBitmap();
            RoaringBitmap targets = new RoaringBitmap();
            for (int o = 0; o < rows - shift; o++) {
                if (o % 10 != 0) {
                    origins.add(o);
                    targets.add(o + shift);
                }
            }
            assertThat(origins.getCardinality()).isGreaterThan(OverlayRelocator.CHUNK_CELLS);
            OverlayRelocator.Relocated r = OverlayRelocator.relocate(
                    store, ds.manifest(), 0, staged, Map.of(0L, origins), Map.of(0L, targets), allocator);
            assertThat(r.overlays().get(0L).coverage().union()).isEqualTo(targets);
            commit(store, ds, r.overlays(), r.writtenPaths());
            List<String> all = read(store);
            for (int t = 0; t < rows; t++) {
                int o = t - shift;
                long expected = o >= 0 && o % 10 != 0 ? 7_000_000L + o : 10L * t;
                assertThat(all.get(t)).isEqualTo(expected + "/s" + t);
            }
        }
    }

    @Test
    void oldAndNewOffsetsMustPairUp() throws Exception {
        ObjectStore store = new LocalObjectStore(dir.resolve("t.lance"));
        try (Dataset ds = SmallTable.create(store, allocator, 10);
                BigIntVector a = SmallTable.longs(allocator, "a", 1L)) {
            DataOverlayFile staged = OverlayStager.stage(
                            store,
                            ds.manifest(),
                            OverlayStager.Target.fragment(0),
                            new long[] {1},
                            1,
                            List.of(a),
                            null,
                            allocator,
                            FileWriterOptions.defaults())
                    .orElseThrow()
                    .overlay();
            assertThatThrownBy(() -> OverlayRelocator.relocate(
                            store,
                            ds.manifest(),
                            0,
                            staged,
                            Map.of(0L, RoaringBitmap.bitmapOf(1, 2)),
                            Map.of(0L, RoaringBitmap.bitmapOf(5)),
                            allocator))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("2 old offsets but 1 new ones");
        }
    }
}
