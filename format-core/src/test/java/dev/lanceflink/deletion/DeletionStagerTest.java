package dev.lanceflink.deletion;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.overlay.SmallTable;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.TableFiles;
import java.nio.file.Path;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.roaringbitmap.RoaringBitmap;

/** {@link DeletionStager}: merging with the current vector, no-op deletions, fragments removed when emptied. */
class DeletionStagerTest {
    @TempDir
    Path dir;

    private final BufferAllocator allocator = new RootAllocator();
    private ObjectStore store;
    private Dataset ds;
    private TableFiles files;

    @BeforeEach
    void setUp() throws Exception {
        store = new LocalObjectStore(dir.resolve("t.lance"));
        ds = SmallTable.create(store, allocator, 10);
        files = TableFiles.of(store, ds.manifest());
    }

    @AfterEach
    void tearDown() throws Exception {
        files.close();
        ds.close();
        allocator.close();
    }

    private Fragment fragment() {
        return ds.manifest().fragments().get(0);
    }

    private DeletionStager.Staged stage(Fragment f, int... offsets) throws Exception {
        return DeletionStager.stage(
                store, files, Map.of(f.id(), f), 7, Map.of(f.id(), RoaringBitmap.bitmapOf(offsets)));
    }

    @Test
    void newDeletionsAreMergedIntoTheFragmentsVector() throws Exception {
        DeletionStager.Staged first = stage(fragment(), 1, 3);
        assertThat(first.deletesRows()).isTrue();
        assertThat(first.removed()).isEmpty();
        Fragment once = first.updated().get(fragment().id());
        assertThat(first.writtenPaths()).containsExactly(once.deletionFile().rootRelativePath(once.id()));
        assertThat(store.exists(first.writtenPaths().get(0))).isTrue();
        assertThat(DeletionFiles.read(files, once.id(), once.deletionFile())).isEqualTo(DeletionVector.of(1, 3));

        DeletionStager.Staged second = stage(once, 3, 5);
        Fragment twice = second.updated().get(once.id());
        assertThat(twice.deletionFile().type()).isEqualTo(once.deletionFile().type());
        assertThat(DeletionFiles.read(files, twice.id(), twice.deletionFile())).isEqualTo(DeletionVector.of(1, 3, 5));
    }

    @Test
    void deletingDeletedRowsChangesNothingAndDeletingEveryRowRemovesTheFragment() throws Exception {
        Fragment once = stage(fragment(), 1, 3).updated().get(fragment().id());
        DeletionStager.Staged again = stage(once, 3);
        assertThat(again.deletesRows()).isFalse();
        assertThat(again.updated()).isEmpty();
        assertThat(again.writtenPaths()).isEmpty();

        DeletionStager.Staged all = stage(once, 0, 2, 4, 5, 6, 7, 8, 9);
        assertThat(all.removed()).containsExactly(once.id());
        assertThat(all.updated()).isEmpty();
        assertThat(all.writtenPaths()).isEmpty();
        assertThat(all.deletesRows()).isTrue();
    }

    @Test
    void anUnknownFragmentIsNamed() {
        assertThatThrownBy(() -> DeletionStager.stage(store, files, Map.of(), 7, Map.of(4L, RoaringBitmap.bitmapOf(1))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fragment 4, which version 7");
    }

    @Test
    void aFragmentWhoseVectorIsAlreadyReadIsMergedWithThatVector() throws Exception {
        Fragment once = stage(fragment(), 1, 3).updated().get(fragment().id());
        DeletionVector current = DeletionFiles.read(files, once.id(), once.deletionFile());

        DeletionStager.Staged merged = DeletionStager.stageFragment(store, once, current, DeletionVector.of(3, 8), 9);
        Fragment twice = merged.updated().get(once.id());
        assertThat(merged.writtenPaths()).containsExactly(twice.deletionFile().rootRelativePath(twice.id()));
        assertThat(twice.deletionFile().readVersion()).isEqualTo(9);
        assertThat(twice.deletionFile().type()).isEqualTo(once.deletionFile().type());
        assertThat(DeletionFiles.read(files, twice.id(), twice.deletionFile())).isEqualTo(DeletionVector.of(1, 3, 8));

        assertThat(DeletionStager.stageFragment(store, once, current, DeletionVector.of(1), 9))
                .isSameAs(DeletionStager.Staged.NOTHING);
        DeletionStager.Staged all =
                DeletionStager.stageFragment(store, once, current, DeletionVector.of(0, 2, 4, 5, 6, 7, 8, 9), 9);
        assertThat(all.removed()).containsExactly(once.id());
        assertThat(all.writtenPaths()).isEmpty();
    }

    @Test
    void aFreshFragmentStartsFromNoDeletionsAndIsDroppedWhenAllItsRowsAreDeleted() throws Exception {
        Fragment fresh = Fragment.of(42, fragment().files(), 4);
        DeletionStager.Staged some = DeletionStager.stageFresh(store, fresh, RoaringBitmap.bitmapOf(2), 5);
        Fragment withDeletions = some.updated().get(42L);
        assertThat(withDeletions.deletionFile().readVersion()).isEqualTo(5);
        assertThat(some.writtenPaths())
                .containsExactly(withDeletions.deletionFile().rootRelativePath(42));
        assertThat(DeletionFiles.read(store, 42, withDeletions.deletionFile())).isEqualTo(DeletionVector.of(2));

        DeletionStager.Staged all = DeletionStager.stageFresh(store, fresh, RoaringBitmap.bitmapOf(0, 1, 2, 3), 5);
        assertThat(all.removed()).containsExactly(42L);
        assertThat(all.writtenPaths()).isEmpty();
        assertThat(DeletionStager.stageFresh(store, fresh, new RoaringBitmap(), 5))
                .isSameAs(DeletionStager.Staged.NOTHING);

        assertThatThrownBy(() -> DeletionStager.stageFresh(store, withDeletions, RoaringBitmap.bitmapOf(1), 5))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Fragment 42 is not fresh");
    }

    @Test
    void aRewrittenFragmentIsKeptWhenAllItsRowsAreDeleted() throws Exception {
        Fragment fresh = Fragment.of(42, fragment().files(), 4);
        DeletionStager.Staged some = DeletionStager.stageRewritten(store, fresh, RoaringBitmap.bitmapOf(2), 5);
        Fragment withDeletions = some.updated().get(42L);
        assertThat(some.removed()).isEmpty();
        assertThat(withDeletions.deletionFile().readVersion()).isEqualTo(5);
        assertThat(some.writtenPaths())
                .containsExactly(withDeletions.deletionFile().rootRelativePath(42));
        assertThat(DeletionFiles.read(store, 42, withDeletions.deletionFile())).isEqualTo(DeletionVector.of(2));

        DeletionStager.Staged all = DeletionStager.stageRewritten(store, fresh, RoaringBitmap.bitmapOf(0, 1, 2, 3), 5);
        assertThat(all.removed()).isEmpty();
        Fragment emptied = all.updated().get(42L);
        assertThat(emptied.physicalRows()).isEqualTo(4);
        assertThat(all.writtenPaths()).containsExactly(emptied.deletionFile().rootRelativePath(42));
        assertThat(DeletionFiles.read(store, 42, emptied.deletionFile())).isEqualTo(DeletionVector.of(0, 1, 2, 3));
        assertThat(DeletionStager.stageRewritten(store, fresh, new RoaringBitmap(), 5))
                .isSameAs(DeletionStager.Staged.NOTHING);

        assertThatThrownBy(() -> DeletionStager.stageRewritten(store, withDeletions, RoaringBitmap.bitmapOf(1), 5))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Fragment 42 is not fresh");
    }
}
