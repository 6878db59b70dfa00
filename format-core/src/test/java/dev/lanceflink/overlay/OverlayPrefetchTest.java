package dev.lanceflink.overlay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.read.FragmentReader;
import dev.lanceflink.schema.LanceField;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.MissingTableFileException;
import dev.lanceflink.table.TableFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link OverlayResolver#prefetch} (through {@link FragmentReader#prefetchOverlays}): the files of
 * the overlays that supply a cell are read ahead, so reads after it need none of them from the
 * store (shown by deleting them before resolving), and a fully shadowed overlay is not read.
 */
class OverlayPrefetchTest {
    @TempDir
    Path dir;

    private final BufferAllocator allocator = new RootAllocator();
    private ObjectStore store;
    /** v2: a of rows 1, 2; v3: a of rows 1, 2 again (shadows v2 whole); v4: a of row 3; v5: s of row 4. */
    private Dataset v5;

    @BeforeEach
    void setUp() throws Exception {
        store = new LocalObjectStore(dir);
        Dataset ds = SmallTable.create(store, allocator, 8);
        ds = update(ds, new long[] {1, 2}, SmallTable.longs(allocator, "a", 11L, 21L));
        ds = update(ds, new long[] {1, 2}, SmallTable.longs(allocator, "a", 12L, null));
        ds = update(ds, new long[] {3}, SmallTable.longs(allocator, "a", 33L));
        v5 = update(ds, new long[] {4}, SmallTable.strings(allocator, "s", "four"));
    }

    private Dataset update(Dataset on, long[] addresses, FieldVector values) throws Exception {
        try (Dataset old = on;
                VectorSchemaRoot r = SmallTable.root(values)) {
            return old.update(addresses, r);
        }
    }

    @AfterEach
    void tearDown() throws Exception {
        v5.close();
        store.close();
        allocator.close();
    }

    private List<Object> read(FragmentReader reader, LanceField field) throws Exception {
        long[] offsets = {0, 1, 2, 3, 4, 5, 6, 7};
        List<Object> out = new ArrayList<>();
        try (FieldVector v = reader.read(field, offsets)) {
            for (int i = 0; i < offsets.length; i++) {
                out.add(OverlayTestSupport.plain(v, i));
            }
        }
        return out;
    }

    private Path file(DataOverlayFile o) {
        return dir.resolve("data").resolve(o.dataFile().path());
    }

    @Test
    void prefetchedOverlaysAreNotReadAgainAndAShadowedOneIsNotReadAtAll() throws Exception {
        Fragment f = v5.manifest().fragment(0).orElseThrow();
        List<DataOverlayFile> overlays = f.overlays();
        assertThat(overlays).hasSize(4);
        LanceField a = v5.schema().fieldByName("a").orElseThrow();
        LanceField s = v5.schema().fieldByName("s").orElseThrow();
        try (TableFiles files = TableFiles.of(store, v5.manifest());
                FragmentReader reader = new FragmentReader(files, f, allocator)) {
            // v2's values are all shadowed by v3: prefetch must not read its file (it fails if it does).
            Files.delete(file(overlays.get(0)));
            reader.prefetchOverlays(List.of(a, s), 4);
            for (DataOverlayFile o : overlays.subList(1, overlays.size())) {
                Files.delete(file(o)); // from here on, only what prefetch read can be resolved
            }
            assertThat(read(reader, a)).containsExactly(0L, 12L, null, 33L, 40L, 50L, 60L, 70L);
            assertThat(read(reader, s)).containsExactly("s0", "s1", "s2", "s3", "four", "s5", "s6", "s7");
        }
        // Without the read-ahead the deleted files are missed: the check above is not vacuous.
        try (TableFiles files = TableFiles.of(store, v5.manifest());
                FragmentReader reader = new FragmentReader(files, f, allocator)) {
            assertThatThrownBy(() -> read(reader, a)).isInstanceOf(MissingTableFileException.class);
        }
    }
}
