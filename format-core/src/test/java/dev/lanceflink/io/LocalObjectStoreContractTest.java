package dev.lanceflink.io;

import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The store contract on the local file system. */
class LocalObjectStoreContractTest extends ObjectStoreContractTest {

    @TempDir
    Path root;

    @Override
    protected ObjectStore newStore() {
        return new LocalObjectStore(root.resolve("table"));
    }
}
