package dev.lanceflink.dataset;

import dev.lanceflink.io.TestStores;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** {@link ShallowCloneSuite} on the local file system. */
class ShallowCloneTest extends ShallowCloneSuite {
    @TempDir
    Path dir;

    @Override
    protected TestStores stores() {
        return TestStores.local(dir);
    }
}
