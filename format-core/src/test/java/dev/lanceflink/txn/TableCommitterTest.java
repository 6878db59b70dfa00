package dev.lanceflink.txn;

import dev.lanceflink.io.TestStores;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** {@link TableCommitterSuite} on the local file system. */
class TableCommitterTest extends TableCommitterSuite {
    @TempDir
    Path dir;

    @Override
    protected TestStores stores() {
        return TestStores.local(dir);
    }
}
