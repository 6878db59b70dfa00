package dev.lanceflink.io;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The default methods of {@link ObjectStore}, as a store sees them that implements only the
 * abstract ones (third-party stores and test wrappers): they must give the answers of the
 * overriding stores, built from the primitive operations alone.
 */
class ObjectStoreDefaultsTest {

    @TempDir
    Path root;

    /** Forwards only the abstract methods, so every default method runs as written. */
    private record PrimitivesOnly(ObjectStore d) implements ObjectStore {
        @Override
        public String rootUri() {
            return d.rootUri();
        }

        @Override
        public byte[] readAll(String path) throws IOException {
            return d.readAll(path);
        }

        @Override
        public RangeReader openReader(String path) throws IOException {
            return d.openReader(path);
        }

        @Override
        public Optional<ObjectInfo> head(String path) throws IOException {
            return d.head(path);
        }

        @Override
        public OutputStream create(String path) throws IOException {
            return d.create(path);
        }

        @Override
        public void put(String path, byte[] content) throws IOException {
            d.put(path, content);
        }

        @Override
        public boolean putIfAbsent(String path, byte[] c) throws IOException {
            return d.putIfAbsent(path, c);
        }

        @Override
        public Iterator<ObjectInfo> list(String directory) throws IOException {
            return d.list(directory);
        }

        @Override
        public Iterator<ObjectInfo> listRecursive(String p) throws IOException {
            return d.listRecursive(p);
        }

        @Override
        public void delete(String path) throws IOException {
            d.delete(path);
        }
    }

    @Test
    void defaultListDirectoriesMatchesTheLocalOverride() throws IOException {
        LocalObjectStore local = new LocalObjectStore(root);
        ObjectStore plain = new PrimitivesOnly(local);
        for (String p : List.of(
                "db1/.lance-database",
                "db1/t.lance/_versions/1.manifest",
                "db1/u.lance/data/b.lance",
                "db2/x",
                "B/e",
                "a/b/c/d",
                "root-file",
                "dbx")) {
            local.put(p, new byte[] {1});
        }

        assertThat(plain.listDirectories("")).containsExactly("B", "a", "db1", "db2");
        assertThat(plain.listDirectories("db1")).containsExactly("t.lance", "u.lance");
        assertThat(plain.listDirectories("a/b")).containsExactly("c");
        assertThat(plain.listDirectories("db2")).isEmpty();
        assertThat(plain.listDirectories("db")).isEmpty();
        for (String dir : List.of("", "db1", "a/b", "db2", "db")) {
            assertThat(plain.listDirectories(dir)).as(dir).isEqualTo(local.listDirectories(dir));
        }
    }

    @Test
    void defaultReaderWithKnownSizeIgnoresTheHint() throws IOException {
        LocalObjectStore local = new LocalObjectStore(root);
        local.put("data/f.lance", new byte[] {1, 2, 3, 4, 5});
        ObjectStore plain = new PrimitivesOnly(local);

        // The default trusts only the store: even a wrong hint reads the real object.
        try (RangeReader r = plain.openReader("data/f.lance", 999)) {
            assertThat(r.size()).isEqualTo(5);
            assertThat(r.read(3, 2).get(1)).isEqualTo((byte) 5);
        }
    }
}
