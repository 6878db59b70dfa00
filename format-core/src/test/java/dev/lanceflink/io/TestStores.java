package dev.lanceflink.io;

import java.nio.file.Path;

/**
 * Where a store-agnostic test suite ({@link StoreBackedSuite}) puts its tables. format-core runs
 * the suites on the local file system; s3-store runs the very same suites on an S3 server through
 * an implementation of this interface (format-core cannot see s3-store, so the backend is
 * injected from outside instead of being a parameter of the tests).
 */
public interface TestStores {

    /** Short name of the backend for messages, e.g. {@code local} or {@code s3}. */
    String kind();

    /**
     * A new location that nothing has been written to and no other test uses.
     *
     * @param name a readable hint put into the location's name (letters, digits, '-')
     */
    TestLocation fresh(String name);

    /** Locations below {@code root} (typically a JUnit {@code @TempDir}), one directory each. */
    static TestStores local(Path root) {
        return new LocalTestStores(root);
    }
}
