package dev.lanceflink.table;

import dev.lanceflink.io.TestStores;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** {@link ManifestStoreSuite} on the local file system. */
class ManifestStoreTest extends ManifestStoreSuite {
    @TempDir
    Path dir;

    @Override
    protected TestStores stores() {
        return TestStores.local(dir);
    }
}
