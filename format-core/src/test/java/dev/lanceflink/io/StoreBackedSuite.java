package dev.lanceflink.io;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;

/**
 * Base of the table-level test suites that must pass on every object store. A suite is an
 * abstract class in format-core's test-jar; each backend runs it through a small concrete
 * subclass that only supplies {@link #stores()}: the local file system in format-core (the
 * {@code *Test} next to the suite), S3 in s3-store ({@code S3*Test}). Tests therefore never touch
 * {@code java.nio.file} for table contents: they go through the {@link ObjectStore} API, which is
 * what the code under test sees too.
 */
public abstract class StoreBackedSuite {
    private final List<ObjectStore> opened = new ArrayList<>();

    /** The backend of this run; called once or more per test, after JUnit injected fields. */
    protected abstract TestStores stores();

    /** A fresh, empty location named after {@code name}. */
    protected final TestLocation newLocation(String name) {
        return stores().fresh(name);
    }

    /** A store on a fresh, empty location; closed after the test. */
    protected final ObjectStore newStore() throws IOException {
        return openStore(newLocation("t"));
    }

    /** Opens (another) store on {@code location}; closed after the test. */
    protected final ObjectStore openStore(TestLocation location) throws IOException {
        ObjectStore store = location.openStore();
        synchronized (opened) {
            opened.add(store);
        }
        return store;
    }

    @AfterEach
    final void closeOpenedStores() throws IOException {
        IOException failure = null;
        synchronized (opened) {
            for (ObjectStore store : opened) {
                try {
                    store.close();
                } catch (IOException e) {
                    if (failure == null) {
                        failure = e;
                    } else {
                        failure.addSuppressed(e);
                    }
                }
            }
            opened.clear();
        }
        if (failure != null) {
            throw failure;
        }
    }
}
