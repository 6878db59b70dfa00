package dev.lanceflink.read;

import dev.lanceflink.io.TestStores;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** {@link MissingTableFilesSuite} on the local file system. */
class MissingTableFilesTest extends MissingTableFilesSuite {
    @TempDir
    Path dir;

    @Override
    protected TestStores stores() {
        return TestStores.local(dir);
    }
}
