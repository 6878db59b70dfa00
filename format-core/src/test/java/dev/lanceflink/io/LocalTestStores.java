package dev.lanceflink.io;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/** {@link TestStores} on the local file system: one new directory below a root per location. */
final class LocalTestStores implements TestStores {
    /** JVM-wide, so that several instances on one root never hand out the same directory. */
    private static final AtomicInteger LOCATIONS = new AtomicInteger();

    private final Path root;

    LocalTestStores(Path root) {
        this.root = requireNonNull(root, "root is null");
    }

    @Override
    public String kind() {
        return "local";
    }

    @Override
    public TestLocation fresh(String name) {
        return new TestLocation(
                root.resolve(name + "-" + LOCATIONS.incrementAndGet() + ".lance")
                        .toString(),
                Map.of());
    }
}
