package dev.lanceflink.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.io.ForwardingObjectStore;
import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.io.ObjectStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Files of a multi-base table, laid out as pylance 14 branches are: base 0 is the main table's
 * root, base 1 a parent branch's root (both dataset roots), and a plain directory base holds files
 * directly.
 */
class TableFilesTest {
    @TempDir
    Path dir;

    private static DataFile file(String name, OptionalInt base) {
        return new DataFile(name, new int[] {0}, new int[] {0}, 2, 1, 3, base);
    }

    /** A root store that records the base stores it opened, and whether they were closed. */
    private static final class Recording extends ForwardingObjectStore {
        final List<String> openedAt = new ArrayList<>();
        final List<ObjectStore> closed = new ArrayList<>();

        Recording(Path root) {
            super(new LocalObjectStore(root));
        }

        @Override
        public ObjectStore openAt(String uri) throws IOException {
            openedAt.add(uri);
            return new ForwardingObjectStore(super.openAt(uri)) {
                @Override
                public void close() throws IOException {
                    closed.add(this);
                    super.close();
                }
            };
        }
    }

    @Test
    void eachFileIsReadUnderItsBaseAndEachBaseIsOpenedOnce() throws Exception {
        Path main = Files.createDirectories(dir.resolve("main"));
        Path parent = Files.createDirectories(dir.resolve("main/tree/dev"));
        Path loose = Files.createDirectories(dir.resolve("imported"));
        Path branch = Files.createDirectories(dir.resolve("main/tree/dev/tree/x"));
        Files.createDirectories(main.resolve("data"));
        Files.write(main.resolve("data/a.lance"), new byte[] {1});
        Files.createDirectories(parent.resolve("data"));
        Files.write(parent.resolve("data/b.lance"), new byte[] {2});
        Files.createDirectories(parent.resolve("_deletions"));
        Files.write(loose.resolve("c.lance"), new byte[] {3});
        Files.createDirectories(branch.resolve("data"));
        Files.write(branch.resolve("data/d.lance"), new byte[] {4});
        List<BasePath> bases = List.of(
                new BasePath(0, null, true, main.toString()),
                new BasePath(1, "dev", true, parent.toString()),
                new BasePath(2, null, false, loose.toString()));
        Recording root = new Recording(branch);

        try (TableFiles files = new TableFiles(root, bases)) {
            TableFiles.StoredFile a = files.dataFile(0, file("a.lance", OptionalInt.of(0)));
            TableFiles.StoredFile a2 = files.dataFile(3, file("a.lance", OptionalInt.of(0)));
            TableFiles.StoredFile b = files.dataFile(1, file("b.lance", OptionalInt.of(1)));
            TableFiles.StoredFile c = files.dataFile(2, file("c.lance", OptionalInt.of(2)));
            TableFiles.StoredFile d = files.dataFile(4, file("d.lance", OptionalInt.empty()));
            assertThat(a.store().readAll(a.path())).containsExactly(1);
            assertThat(a2.store()).isSameAs(a.store());
            assertThat(b.store().readAll(b.path())).containsExactly(2);
            assertThat(c.path())
                    .as("a plain directory holds its files directly")
                    .isEqualTo("c.lance");
            assertThat(c.store().readAll(c.path())).containsExactly(3);
            assertThat(d.store()).isSameAs(root);
            assertThat(d.uri()).isEqualTo(branch + "/data/d.lance");
            DeletionFile del = new DeletionFile(DeletionFileType.ARROW_ARRAY, 2, 9, 1, OptionalInt.of(1));
            assertThat(files.deletionFile(1, del).path()).isEqualTo("_deletions/1-2-9.arrow");
            assertThat(files.deletionFile(1, del).uri()).isEqualTo(parent + "/_deletions/1-2-9.arrow");
            assertThat(root.openedAt).containsExactly(main.toString(), parent.toString(), loose.toString());
        }
        assertThat(root.closed)
                .as("base stores closed, the root store left to its owner")
                .hasSize(3);
    }

    @Test
    void aBaseIdTheManifestDoesNotListIsACorruptTable() {
        ObjectStore root = new LocalObjectStore(dir);
        try (TableFiles files = new TableFiles(root, List.of(new BasePath(0, null, true, "/elsewhere")))) {
            assertThatThrownBy(() -> files.dataFile(5, file("z.lance", OptionalInt.of(7))))
                    .isInstanceOf(CorruptTableException.class)
                    .hasMessageContaining("Table " + dir)
                    .hasMessageContaining("data file z.lance refers to base path id 7")
                    .hasMessageContaining("known ids: [0]");
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}
