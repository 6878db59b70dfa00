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

    /** An overlay of column {@code a} on {@code fragment}: {@code values[i]} at {@code offsets[i]} (ascending). */
    private DataOverlayFile overlayOfA(ObjectStore store, Dataset ds, long fragment, long[] offsets, long[] values)
            throws Exception {
        int a = ds.manifest().schema().fieldByName("a").orElseThrow().id();
        try (OverlayStager.FieldStream out = OverlayStager.open(
                        store,
                        ds.manifest(),
                        OverlayStager.Target.fragment(fragment),
                        new int[] {a},
                        allocator,
                        FileWriterOptions.defaults());
                BigIntVector v = new BigIntVector("a", allocator)) {
            v.allocateNew(values.length);
            for (int i = 0; i < values.length; i++) {
                v.set(i, values[i]);
            }
            v.setValueCount(values.length);
            out.add(a, offsets, offsets.length, v);
            return out.finish().orElseThrow().overlay();
        }
    }

    @Test
    void overlaysOfSeveralFragmentsMovingIntoOneFragmentBecomeOneOverlayTheNewestWinningPerCell() throws Exception {
        ObjectStore store = new LocalObjectStore(dir.resolve("t.lance"));
        try (Dataset one = SmallTable.create(store, allocator, 10);
                VectorSchemaRoot more = SmallTable.rows(allocator, 10, 10);
                VectorSchemaRoot most = SmallTable.rows(allocator, 20, 10);
                Dataset two = one.append(List.of(more), WriteParams.of(WriteMode.APPEND));
                Dataset three = two.append(List.of(most), WriteParams.of(WriteMode.APPEND))) {
            DataOverlayFile older;
            DataOverlayFile ofOne;
            try (BigIntVector a = SmallTable.longs(allocator, "a", 1001L, 1002L);
                    VarCharVector s = SmallTable.strings(allocator, "s", "unused", "x2")) {
                older = OverlayStager.stage(
                                store,
                                three.manifest(),
                                OverlayStager.Target.fragment(0),
                                new long[] {1, 2},
                                2,
                                List.of(a, s),
                                new ColumnSet[] {ColumnSet.of(0), ColumnSet.of(0, 1)},
                                allocator,
                                FileWriterOptions.defaults())
                        .orElseThrow()
                        .overlay();
            }
            DataOverlayFile newer = overlayOfA(store, three, 0, new long[] {2}, new long[] {2002});
            try (VarCharVector s = SmallTable.strings(allocator, "s", "y10", "y15")) {
                ofOne = OverlayStager.stage(
                                store,
                                three.manifest(),
                                OverlayStager.Target.fragment(1),
                                new long[] {0, 5},
                                2,
                                List.of(s),
                                null,
                                allocator,
                                FileWriterOptions.defaults())
                        .orElseThrow()
                        .overlay();
            }
            // Rows 0..4 of fragment 0 moved to offsets 0..4 of fragment 2, rows 0..4 of fragment 1
            // to offsets 5..9; row 5 of fragment 1 did not move (its cell stays behind).
            List<OverlayRelocator.Source> sources = List.of(
                    new OverlayRelocator.Source(
                            0,
                            older,
                            Map.of(2L, RoaringBitmap.bitmapOf(1, 2)),
                            Map.of(2L, RoaringBitmap.bitmapOf(1, 2))),
                    new OverlayRelocator.Source(
                            0, newer, Map.of(2L, RoaringBitmap.bitmapOf(2)), Map.of(2L, RoaringBitmap.bitmapOf(2))),
                    new OverlayRelocator.Source(
                            1, ofOne, Map.of(2L, RoaringBitmap.bitmapOf(0)), Map.of(2L, RoaringBitmap.bitmapOf(5))));
            OverlayRelocator.Relocated r = OverlayRelocator.relocate(store, three.manifest(), sources, allocator);

            assertThat(r.overlays().keySet()).containsExactly(2L);
            assertThat(r.writtenPaths()).hasSize(1);
            DataOverlayFile merged = r.overlays().get(2L);
            assertThat(merged.coverage().union()).isEqualTo(RoaringBitmap.bitmapOf(1, 2, 5));
            int aPos = OverlayFields.positionOf(
                    merged.dataFile(),
                    three.manifest().schema().fieldByName("a").orElseThrow());
            int sPos = OverlayFields.positionOf(
                    merged.dataFile(),
                    three.manifest().schema().fieldByName("s").orElseThrow());
            assertThat(merged.coverage().bitmap(aPos)).isEqualTo(RoaringBitmap.bitmapOf(1, 2));
            assertThat(merged.coverage().bitmap(sPos)).isEqualTo(RoaringBitmap.bitmapOf(2, 5));
            commit(store, three, r.overlays(), r.writtenPaths());
            List<String> rows = read(store);
            assertThat(rows.subList(20, 30))
                    .containsExactly(
                            "200/s20",
                            "1001/s21",
                            "2002/x2",
                            "230/s23",
                            "240/s24",
                            "250/y10",
                            "260/s26",
                            "270/s27",
                            "280/s28",
                            "290/s29");
            for (int k = 0; k < 20; k++) { // the old fragments are not touched
                assertThat(rows.get(k)).isEqualTo(10L * k + "/s" + k);
            }
        }
    }

    @Test
    void interleavedSourcesAcrossBatchesAreWrittenInOffsetOrder() throws Exception {
        ObjectStore store = new LocalObjectStore(dir.resolve("big.lance"));
        int rows = 100_000;
        int half = rows / 2;
        try (Dataset ds = SmallTable.create(store, allocator, rows)) {
            long[] offsets = new long[half];
            long[] first = new long[half];
            long[] second = new long[half];
            for (int o = 0; o < half; o++) {
                offsets[o] = o;
                first[o] = 1_000_000L + o;
                second[o] = 2_000_000L + o;
            }
            DataOverlayFile evens = overlayOfA(store, ds, 0, offsets, first);
            DataOverlayFile odds = overlayOfA(store, ds, 0, offsets, second);
            DataOverlayFile newest = overlayOfA(store, ds, 0, new long[] {0, 1, 2, 3}, new long[] {-1, -2, -3, -4});
            // Old row o of the first overlay's rows went to 2o, of the second's to 2o+1 (as if they
            // had been two fragments interleaved); the newest overlay's rows stayed where they were.
            RoaringBitmap origins = new RoaringBitmap();
            origins.add(0L, half);
            RoaringBitmap even = new RoaringBitmap();
            RoaringBitmap odd = new RoaringBitmap();
            for (int o = 0; o < half; o++) {
                even.add(2 * o);
                odd.add(2 * o + 1);
            }
            RoaringBitmap four = RoaringBitmap.bitmapOf(0, 1, 2, 3);
            OverlayRelocator.Relocated r = OverlayRelocator.relocate(
                    store,
                    ds.manifest(),
                    List.of(
                            new OverlayRelocator.Source(0, evens, Map.of(0L, origins), Map.of(0L, even)),
                            new OverlayRelocator.Source(0, odds, Map.of(0L, origins), Map.of(0L, odd)),
                            new OverlayRelocator.Source(0, newest, Map.of(0L, four), Map.of(0L, four))),
                    allocator);
            assertThat(r.overlays()).hasSize(1);
            assertThat(r.overlays().get(0L).coverage().union().getLongCardinality())
                    .isGreaterThan(OverlayRelocator.CHUNK_CELLS);
            commit(store, ds, r.overlays(), r.writtenPaths());
            List<String> all = read(store);
            for (int t = 0; t < rows; t++) {
                long expected = t < 4 ? -(t + 1) : (t % 2 == 0 ? 1_000_000L : 2_000_000L) + t / 2;
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
