package dev.lanceflink.overlay;

import dev.lanceflink.io.TestStores;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** {@link OverlayRowLineageSuite} on the local file system. */
class OverlayRowLineageTest extends OverlayRowLineageSuite {
    @TempDir
    Path dir;

    @Override
    protected TestStores stores() {
        return TestStores.local(dir);
    }
}
