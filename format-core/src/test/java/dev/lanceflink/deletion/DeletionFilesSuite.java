package dev.lanceflink.deletion;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.io.StoreBackedSuite;
import dev.lanceflink.table.CorruptTableException;
import dev.lanceflink.table.DeletionFile;
import dev.lanceflink.table.DeletionFileType;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.roaringbitmap.RoaringBitmap;

/**
 * Deletion files written to and read from a real store: naming, the choice between Arrow array
 * and bitmap files, and the cross-check against the manifest's row count. The codec itself is
 * tested byte by byte in {@link DeletionFileCodecTest}.
 *
 * <p>Runs locally as {@link DeletionFilesTest} and on S3 as s3-store's {@code S3DeletionFilesTest}.
 */
public abstract class DeletionFilesSuite extends StoreBackedSuite {

    @Test
    void writeAndReadThroughStore() throws Exception {
        ObjectStore store = newStore();
        DeletionFile small = DeletionFiles.write(store, 42, 10, DeletionVector.of(3, 1, 2), null);
        assertThat(small.type()).isEqualTo(DeletionFileType.ARROW_ARRAY);
        assertThat(small.readVersion()).isEqualTo(10);
        assertThat(small.numDeletedRows()).isEqualTo(3);
        assertThat(small.rootRelativePath(42))
                .isEqualTo("_deletions/42-10-" + Long.toUnsignedString(small.id()) + ".arrow");
        assertThat(store.exists(small.rootRelativePath(42))).isTrue();
        assertThat(DeletionFiles.read(store, 42, small)).isEqualTo(DeletionVector.of(1, 2, 3));

        RoaringBitmap big = new RoaringBitmap();
        big.add(0L, 6000L);
        DeletionFile bin = DeletionFiles.write(store, 1, 2, DeletionVector.of(big), null);
        assertThat(bin.type()).isEqualTo(DeletionFileType.BITMAP);
        assertThat(bin.rootRelativePath(1)).endsWith(".bin");
        assertThat(DeletionFiles.read(store, 1, bin).cardinality()).isEqualTo(6000);

        DeletionFile lying = new DeletionFile(DeletionFileType.ARROW_ARRAY, 10, small.id(), 4, OptionalInt.empty());
        assertThatThrownBy(() -> DeletionFiles.read(store, 42, lying))
                .isInstanceOf(CorruptTableException.class)
                .hasMessageContaining("holds 3 offsets but the manifest records num_deleted_rows = 4");
        assertThatThrownBy(() -> DeletionFiles.write(store, 1, 2, DeletionVector.EMPTY, null))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
