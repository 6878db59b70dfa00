package dev.lanceflink.compact;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.file.writer.FileWriterOptions;
import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.overlay.OverlayTestSupport;
import dev.lanceflink.overlay.SmallTable;
import dev.lanceflink.overlay.StagedWrite;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.txn.CommitOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A fragment with a long history of small overlays, the shape a streaming sink leaves (issue
 * #15): {@link OverlayCompactor#mergeOverlays} of all of them, or of a run in the middle, and
 * {@link OverlayCompactor#fold} must give every cell the value the history last wrote to it (a
 * model kept while writing; the read path through the overlays is checked against it too): the
 * newest overlay covering a cell wins, a NULL it sets included, over int64 and string columns,
 * dense and sparse overlays, hot cells rewritten dozens of times.
 */
class OverlayCompactorManyOverlaysTest {
    private static final int ROWS = 300;
    private static final int COMMITS = 100;
    private static final List<String> COLUMNS = List.of("k", "a", "s");

    @TempDir
    Path dir;

    private final BufferAllocator allocator = new RootAllocator();
    private ObjectStore store;
    private Dataset latest;
    /** What every row must read after the history, kept alongside it (not read back through overlays). */
    private final Map<Long, List<Object>> model = new TreeMap<>();

    @BeforeEach
    void setUp() throws Exception {
        store = new LocalObjectStore(dir);
        SplittableRandom random = new SplittableRandom(7);
        Dataset ds = SmallTable.create(store, allocator, ROWS);
        for (int k = 0; k < ROWS; k++) {
            model.put((long) k, Arrays.asList(k, 10L * k, "s" + k));
        }
        for (int c = 0; c < COMMITS; c++) {
            // Hot rows: a third of the changes go to the first 20 rows, so cells are rewritten often.
            TreeSet<Long> rows = new TreeSet<>();
            int n = 1 + random.nextInt(12);
            while (rows.size() < n) {
                rows.add(random.nextInt(3) == 0 ? random.nextLong(20) : random.nextLong(ROWS));
            }
            long[] addresses = rows.stream().mapToLong(Long::longValue).toArray();
            Long[] a = new Long[n];
            String[] s = new String[n];
            for (int i = 0; i < n; i++) {
                a[i] = random.nextInt(6) == 0 ? null : c * 1000L + addresses[i];
                s[i] = random.nextInt(6) == 0 ? null : "c" + c + "-" + addresses[i];
            }
            // Both columns (a dense overlay) or one of them.
            int shape = random.nextInt(3);
            List<FieldVector> vectors = new ArrayList<>();
            if (shape != 2) {
                vectors.add(SmallTable.longs(allocator, "a", a));
            }
            if (shape != 1) {
                vectors.add(SmallTable.strings(allocator, "s", s));
            }
            for (int i = 0; i < n; i++) {
                List<Object> row = model.get(addresses[i]);
                if (shape != 2) {
                    row.set(1, a[i]);
                }
                if (shape != 1) {
                    row.set(2, s[i]);
                }
            }
            try (VectorSchemaRoot r = SmallTable.root(vectors.toArray(FieldVector[]::new))) {
                Dataset next = ds.update(addresses, r);
                ds.close();
                ds = next;
            }
        }
        latest = ds;
        assertThat(latest.manifest().fragment(0).orElseThrow().overlays()).hasSize(COMMITS);
        assertThat(OverlayTestSupport.rows(latest, COLUMNS)).isEqualTo(model);
    }

    @AfterEach
    void tearDown() throws Exception {
        latest.close();
        store.close();
        allocator.close();
    }

    @Test
    void mergingAllOverlaysKeepsEveryCellAndLeavesOneStampedWithTheNewestVersion() throws Exception {
        Map<Long, List<Object>> expected = model;
        Manifest planned = latest.manifest();
        int[] all = new int[COMMITS];
        for (int i = 0; i < COMMITS; i++) {
            all[i] = i;
        }
        StagedWrite merge =
                OverlayCompactor.mergeOverlays(store, planned, 0, all, allocator, FileWriterOptions.defaults());
        Manifest merged = OverlayCompactor.commit(store, planned, 0, merge, Map.of(), CommitOptions.defaults());

        List<DataOverlayFile> overlays = merged.fragment(0).orElseThrow().overlays();
        assertThat(overlays)
                .singleElement()
                .satisfies(o -> assertThat(o.committedVersion()).isEqualTo(planned.version()));
        try (Dataset after = latest.checkoutVersion(merged.version())) {
            assertThat(OverlayTestSupport.rows(after, COLUMNS)).isEqualTo(expected);
            // Some cells were last set to NULL and some rows kept their base value: both survive.
            assertThat(expected.values()).anySatisfy(r -> assertThat(r.get(1)).isNull());
            assertThat(expected.values()).anySatisfy(r -> assertThat(r.get(2)).isNull());
            assertThat(expected.values())
                    .anySatisfy(r -> assertThat(r).containsExactly(r.get(0), 10L * (Integer) r.get(0), "s" + r.get(0)));

            StagedWrite fold =
                    OverlayCompactor.fold(store, after.manifest(), 0, allocator, FileWriterOptions.defaults());
            Manifest folded =
                    OverlayCompactor.commit(store, after.manifest(), 0, fold, Map.of(), CommitOptions.defaults());
            assertThat(folded.fragment(0).orElseThrow().overlays()).isEmpty();
            try (Dataset f = latest.checkoutVersion(folded.version())) {
                assertThat(OverlayTestSupport.rows(f, COLUMNS)).isEqualTo(expected);
            }
        }
    }

    @Test
    void mergingARunInTheMiddleKeepsItBelowTheNewerOverlays() throws Exception {
        Map<Long, List<Object>> expected = model;
        Manifest planned = latest.manifest();
        List<DataOverlayFile> before = planned.fragment(0).orElseThrow().overlays();
        int[] run = new int[60];
        for (int i = 0; i < run.length; i++) {
            run[i] = 30 + i;
        }
        StagedWrite merge =
                OverlayCompactor.mergeOverlays(store, planned, 0, run, allocator, FileWriterOptions.defaults());
        Manifest merged = OverlayCompactor.commit(store, planned, 0, merge, Map.of(), CommitOptions.defaults());

        Fragment f = merged.fragment(0).orElseThrow();
        assertThat(f.overlays()).hasSize(COMMITS - run.length + 1);
        assertThat(f.overlays().subList(0, 30)).isEqualTo(before.subList(0, 30));
        assertThat(f.overlays().get(30).committedVersion())
                .isEqualTo(before.get(89).committedVersion());
        assertThat(f.overlays().subList(31, f.overlays().size())).isEqualTo(before.subList(90, COMMITS));
        try (Dataset after = latest.checkoutVersion(merged.version())) {
            assertThat(OverlayTestSupport.rows(after, COLUMNS)).isEqualTo(expected);
        }
    }

    @Test
    void theFoldOfManyUnmergedOverlaysKeepsEveryCell() throws Exception {
        Map<Long, List<Object>> expected = model;
        StagedWrite fold = OverlayCompactor.fold(store, latest.manifest(), 0, allocator, FileWriterOptions.defaults());
        Manifest folded =
                OverlayCompactor.commit(store, latest.manifest(), 0, fold, Map.of(), CommitOptions.defaults());
        assertThat(folded.fragment(0).orElseThrow().overlays()).isEmpty();
        try (Dataset f = latest.checkoutVersion(folded.version())) {
            assertThat(OverlayTestSupport.rows(f, COLUMNS)).isEqualTo(expected);
        }
    }
}
