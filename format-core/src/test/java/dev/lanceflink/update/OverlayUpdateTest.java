package dev.lanceflink.update;

import dev.lanceflink.io.TestStores;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** {@link OverlayUpdateSuite} on the local file system. */
class OverlayUpdateTest extends OverlayUpdateSuite {
    @TempDir
    Path dir;

    @Override
    protected TestStores stores() {
        return TestStores.local(dir);
    }
}
