package dev.lanceflink.overlay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.read.FragmentReader;
import dev.lanceflink.read.ScanOptions;
import dev.lanceflink.read.Scanner;
import dev.lanceflink.schema.LanceField;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.txn.CommitOptions;
import java.io.FileNotFoundException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.LongStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The read path's overlay resolution on one 40-row fragment of {@link SmallTable} with three
 * overlays that shadow each other partly, so value rows of older overlays are not consecutive:
 *
 * <ol>
 *   <li>v2, sparse: {@code a} at offsets 0..29 ({@code 1000 + o}), {@code s} at 5, 15, 25, 35 ({@code "x<o>"});
 *   <li>v3, sparse with only {@code a}: offsets 10..20, {@code a = 3000 + o};
 *   <li>v4, dense: every third offset, {@code a = 2000 + o} (NULL at 9), {@code s = "y<o>"};
 *   <li>v5: offsets 4, 17 and 33 deleted.
 * </ol>
 *
 * Every way of reading (batch sizes cutting the overlays anywhere, filters selecting gapped rows,
 * takes of a few far-apart rows, projections of one overlaid field of a file that carries two)
 * must give the values of the model.
 */
class OverlayResolverTest {
    private static final int ROWS = 40;
    private static final long[] DELETED = {4, 17, 33};

    private final BufferAllocator allocator = new RootAllocator();
    private MemoryObjectStore store;
    private Dataset ds;

    @BeforeEach
    void buildHistory() throws Exception {
        store = new MemoryObjectStore("memory://overlay-resolver");
        try (Dataset base = SmallTable.create(store, allocator, ROWS)) {
            Manifest m = base.manifest();
            m = commitSparse(m, LongStream.range(0, 30).toArray(), new long[] {5, 15, 25, 35});
            m = commitSparse(m, LongStream.rangeClosed(10, 20).toArray(), null);
        }
        ds = Dataset.open(store, allocator);
        long[] every3 = LongStream.iterate(0, o -> o < ROWS, o -> o + 3).toArray();
        Long[] a = new Long[every3.length];
        String[] s = new String[every3.length];
        for (int i = 0; i < every3.length; i++) {
            a[i] = every3[i] == 9 ? null : 2000 + every3[i];
            s[i] = "y" + every3[i];
        }
        try (VectorSchemaRoot values =
                SmallTable.root(SmallTable.longs(allocator, "a", a), SmallTable.strings(allocator, "s", s))) {
            Dataset v4 = ds.update(every3, values);
            ds.close();
            ds = v4;
        }
        Dataset v5 = ds.deleteRows(DELETED);
        ds.close();
        ds = v5;
    }

    @AfterEach
    void close() throws Exception {
        ds.close();
        allocator.close();
    }

    /** One overlay on fragment 0: {@code a = 1000 + o} (with {@code s = "x<o>"}) or {@code a = 3000 + o}. */
    private Manifest commitSparse(Manifest m, long[] aOffsets, long[] sOffsets) throws Exception {
        int aId = m.schema().fieldByName("a").orElseThrow().id();
        int sId = m.schema().fieldByName("s").orElseThrow().id();
        long add = sOffsets == null ? 3000 : 1000;
        int[] ids = sOffsets == null ? new int[] {aId} : new int[] {aId, sId};
        try (OverlayWriter w = OverlayWriter.create(store, m, 0, ids, allocator)) {
            Long[] a = Arrays.stream(aOffsets).map(o -> add + o).boxed().toArray(Long[]::new);
            try (FieldVector v = SmallTable.longs(allocator, "a", a)) {
                w.writeField(aId, aOffsets, v);
            }
            if (sOffsets != null) {
                String[] s = Arrays.stream(sOffsets).mapToObj(o -> "x" + o).toArray(String[]::new);
                try (FieldVector v = SmallTable.strings(allocator, "s", s)) {
                    w.writeField(sId, sOffsets, v);
                }
            }
            List<String> written = new ArrayList<>();
            w.writtenPath().ifPresent(written::add);
            DataOverlayFile o = w.finish().orElseThrow();
            StagedWrite staged = new StagedWrite(OverlayCommits.operation(Map.of(0L, List.of(o))), written);
            return OverlayCommits.commit(store, m.version(), staged, Map.of(), CommitOptions.defaults());
        }
    }

    /** Newest wins: the v4 dense overlay beats v3 at 12, 15 and 18, and both beat v2. */
    private static Long expectedA(long o) {
        if (o % 3 == 0) {
            return o == 9 ? null : 2000 + o;
        }
        if (o >= 10 && o <= 20) {
            return 3000 + o;
        }
        return o < 30 ? 1000 + o : 10 * o;
    }

    private static String expectedS(long o) {
        if (o % 3 == 0) {
            return "y" + o;
        }
        return o % 10 == 5 ? "x" + o : "s" + o;
    }

    private static boolean deleted(long o) {
        return Arrays.stream(DELETED).anyMatch(d -> d == o);
    }

    /** Offset → [k, a, s] of every live row, from the model. */
    private static Map<Long, List<Object>> model(java.util.function.LongPredicate keep) {
        Map<Long, List<Object>> out = new TreeMap<>();
        for (long o = 0; o < ROWS; o++) {
            if (!deleted(o) && keep.test(o)) {
                out.put(o, Arrays.asList((int) o, expectedA(o), expectedS(o)));
            }
        }
        return out;
    }

    /** Offset → values of {@code columns} from a scan (fragment 0, so the address is the offset). */
    private Map<Long, List<Object>> scan(List<String> columns, String filter, int batchSize) throws Exception {
        Map<Long, List<Object>> out = new TreeMap<>();
        ScanOptions options = ScanOptions.all()
                .withColumns(columns)
                .withFilter(filter)
                .withRowAddress(true)
                .withBatchSize(batchSize);
        try (Scanner s = ds.scan(options)) {
            while (s.hasNext()) {
                try (VectorSchemaRoot b = s.next()) {
                    assertThat(b.getRowCount()).isLessThanOrEqualTo(batchSize);
                    UInt8Vector addr = (UInt8Vector) b.getVector(ScanOptions.ROW_ADDRESS);
                    for (int r = 0; r < b.getRowCount(); r++) {
                        List<Object> row = new ArrayList<>();
                        for (String c : columns) {
                            row.add(OverlayTestSupport.plain(b.getVector(c), r));
                        }
                        out.put(addr.get(r), row);
                    }
                }
            }
        }
        return out;
    }

    private static Map<Long, List<Object>> project(Map<Long, List<Object>> rows, int... columns) {
        Map<Long, List<Object>> out = new TreeMap<>();
        rows.forEach((o, row) -> {
            List<Object> p = new ArrayList<>();
            for (int c : columns) {
                p.add(row.get(c));
            }
            out.put(o, p);
        });
        return out;
    }

    @Test
    void everyBatchSizeCutsTheOverlaysWithoutChangingAValue() throws Exception {
        Map<Long, List<Object>> all = model(o -> true);
        assertThat(all.get(9L)).containsExactly(9, null, "y9");
        assertThat(all.get(12L)).containsExactly(12, 2012L, "y12");
        assertThat(all.get(13L)).containsExactly(13, 3013L, "s13");
        assertThat(all.get(25L)).containsExactly(25, 1025L, "x25");
        assertThat(all.get(35L)).containsExactly(35, 350L, "x35");
        for (int batch : new int[] {1, 2, 3, 5, 7, 16, 39, 40, 8192}) {
            assertThat(scan(List.of("k", "a", "s"), null, batch))
                    .as("batch size %d", batch)
                    .isEqualTo(all);
        }
    }

    @Test
    void projectingOneOverlaidFieldOfAFileThatCarriesTwoReadsOnlyItsCells() throws Exception {
        Map<Long, List<Object>> all = model(o -> true);
        for (int batch : new int[] {3, 11, 64}) {
            assertThat(scan(List.of("s"), null, batch)).as("s, batch %d", batch).isEqualTo(project(all, 2));
            assertThat(scan(List.of("a"), null, batch)).as("a, batch %d", batch).isEqualTo(project(all, 1));
            assertThat(scan(List.of("s", "k"), null, batch)).isEqualTo(project(all, 2, 0));
        }
    }

    @Test
    void filtersSelectGappedRowsAndSeeCurrentValues() throws Exception {
        // Gapped offsets within each batch: the resolver maps cells to rows by search, not subtraction.
        assertThat(scan(List.of("k", "a", "s"), "k % 4 = 1 OR k = 30 OR k = 12", 9))
                .isEqualTo(model(o -> o % 4 == 1 || o == 30 || o == 12));
        // The filter column itself is overlaid: only current values may match.
        assertThat(scan(List.of("k", "a", "s"), "a >= 2000 AND a < 3000", 6))
                .isEqualTo(model(o -> o % 3 == 0 && o != 9));
        assertThat(scan(List.of("k", "a", "s"), "a IS NULL", 4)).isEqualTo(model(o -> o == 9));
        assertThat(scan(List.of("k", "a", "s"), "s = 'x25' OR s = 's13' OR s = 'x15'", 5))
                .isEqualTo(model(o -> o == 25 || o == 13));
    }

    @Test
    void takesOfFarApartRowsProbeTheOverlaysPerRow() throws Exception {
        long[] addresses = {39, 0, 9, 13, 25, 26};
        try (VectorSchemaRoot r = ds.take(addresses, List.of("k", "a", "s"))) {
            for (int i = 0; i < addresses.length; i++) {
                long o = addresses[i];
                assertThat(Arrays.asList(
                                OverlayTestSupport.plain(r.getVector("k"), i),
                                OverlayTestSupport.plain(r.getVector("a"), i),
                                OverlayTestSupport.plain(r.getVector("s"), i)))
                        .as("offset %d", o)
                        .containsExactly((int) o, expectedA(o), expectedS(o));
            }
        }
        // Two rows spanning the whole fragment: fewer requested rows than cells in the span.
        Fragment fragment = ds.fragments().get(0);
        LanceField a = ds.schema().fieldByName("a").orElseThrow();
        try (FragmentReader reader = new FragmentReader(ds.files(), fragment, allocator);
                FieldVector v = reader.read(a, new long[] {1, 38})) {
            assertThat(Arrays.asList(v.getObject(0), v.getObject(1))).containsExactly(1001L, 380L);
        }
    }

    @Test
    void oneReaderAnswersRepeatedAndOverlappingRequestsAlike() throws Exception {
        Fragment fragment = ds.fragments().get(0);
        LanceField a = ds.schema().fieldByName("a").orElseThrow();
        LanceField s = ds.schema().fieldByName("s").orElseThrow();
        try (FragmentReader reader = new FragmentReader(ds.files(), fragment, allocator)) {
            for (long[] offsets : new long[][] {
                {10, 11, 12, 13},
                {0, 1, 2, 3, 5, 6, 7, 8, 9},
                {10, 11, 12, 13},
                {15},
                {29, 30, 31},
                {12, 15, 18, 21, 24, 27}
            }) {
                try (FieldVector va = reader.read(a, offsets);
                        FieldVector vs = reader.read(s, offsets)) {
                    for (int i = 0; i < offsets.length; i++) {
                        Object text = OverlayTestSupport.plain(vs, i);
                        assertThat(Arrays.asList(va.getObject(i), text))
                                .as("offset %d", offsets[i])
                                .containsExactly(expectedA(offsets[i]), expectedS(offsets[i]));
                    }
                }
            }
        }
    }

    @Test
    void projectionWithoutOverlaidFieldsNeverOpensAnOverlayFile() throws Exception {
        List<String> overlayFiles = new ArrayList<>();
        for (DataOverlayFile o : ds.fragments().get(0).overlays()) {
            overlayFiles.add(o.dataFile().rootRelativePath());
        }
        assertThat(overlayFiles).hasSize(3);
        for (String path : overlayFiles) {
            store.delete(path);
        }

        assertThat(scan(List.of("k"), null, 7)).isEqualTo(project(model(o -> true), 0));
        assertThat(scan(List.of("k"), "k > 30", 7)).isEqualTo(project(model(o -> o > 30), 0));
        // The same scan of an overlaid column needs the (now missing) files: they really were skipped above.
        assertThatThrownBy(() -> scan(List.of("k", "a"), null, 7))
                .isInstanceOf(UncheckedIOException.class)
                .hasCauseInstanceOf(FileNotFoundException.class)
                .hasMessageContaining(overlayFiles.get(2));
    }
}
