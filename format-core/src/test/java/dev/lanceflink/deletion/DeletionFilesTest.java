package dev.lanceflink.deletion;

import dev.lanceflink.io.TestStores;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** {@link DeletionFilesSuite} on the local file system. */
class DeletionFilesTest extends DeletionFilesSuite {
    @TempDir
    Path dir;

    @Override
    protected TestStores stores() {
        return TestStores.local(dir);
    }
}
