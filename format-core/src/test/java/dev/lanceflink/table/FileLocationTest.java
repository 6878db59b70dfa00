package dev.lanceflink.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class FileLocationTest {
    private static final List<BasePath> BASES =
            List.of(new BasePath(1, "root2", true, "s3://b/other.lance"), new BasePath(2, null, false, "s3://b/loose"));

    @Test
    void resolvesRootAndBasePaths() {
        DataFile root = new DataFile("x.lance", new int[] {0}, new int[] {0}, 2, 1, 1);
        assertThat(FileLocation.ofDataFile(root, BASES)).isEqualTo(new FileLocation(null, "data/x.lance"));
        DataFile inRoot2 = new DataFile("y.lance", new int[] {0}, new int[] {0}, 2, 1, 1, OptionalInt.of(1));
        assertThat(FileLocation.ofDataFile(inRoot2, BASES))
                .isEqualTo(new FileLocation("s3://b/other.lance", "data/y.lance"));
        DataFile loose = new DataFile("l.lance", new int[] {0}, new int[] {0}, 2, 1, 1, OptionalInt.of(2));
        assertThat(FileLocation.ofDataFile(loose, BASES)).isEqualTo(new FileLocation("s3://b/loose", "l.lance"));
        DeletionFile inRoot2Deletion = new DeletionFile(DeletionFileType.BITMAP, 3, 4, 1, OptionalInt.of(1));
        assertThat(FileLocation.ofDeletionFile(7, inRoot2Deletion, BASES))
                .isEqualTo(new FileLocation("s3://b/other.lance", "_deletions/7-3-4.bin"));
        DeletionFile plain = new DeletionFile(DeletionFileType.ARROW_ARRAY, 3, 4, 1);
        assertThat(FileLocation.ofDeletionFile(7, plain, BASES).path()).isEqualTo("_deletions/7-3-4.arrow");
    }

    @Test
    void aDeletionFileInABaseThatIsNoDatasetRootIsRefusedAsLanceDoes() {
        DeletionFile loose = new DeletionFile(DeletionFileType.BITMAP, 3, 4, 1, OptionalInt.of(2));
        assertThatThrownBy(() -> FileLocation.ofDeletionFile(7, loose, BASES))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("deletion file 7-3-4.bin of fragment 7 refers to base path id 2 (s3://b/loose)")
                .hasMessageContaining("not a dataset root");
    }

    @Test
    void unknownBaseIdIsAnError() {
        DataFile bad = new DataFile("z.lance", new int[] {0}, new int[] {0}, 2, 1, 1, OptionalInt.of(9));
        assertThatThrownBy(() -> FileLocation.ofDataFile(bad, BASES))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("data file z.lance refers to base path id 9")
                .hasMessageContaining("known ids: [1, 2]");
    }

    @Test
    void maxFieldIdCountsDataFiles() {
        DataFile old = new DataFile("x.lance", new int[] {0, 7}, new int[] {0, 1}, 2, 1, 1);
        Manifest m = Manifest.builder()
                .schemaFields(List.of(lance.file.Field.newBuilder()
                        .setId(3)
                        .setParentId(-1)
                        .setName("a")
                        .setLogicalType("int32")
                        .build()))
                .fragments(List.of(Fragment.of(0, List.of(old), 1)))
                .build();
        assertThat(m.maxFieldId()).isEqualTo(7);
        assertThat(Manifest.builder().build().maxFieldId()).isEqualTo(-1);
    }
}
