package dev.lanceflink.s3;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.io.TestLocation;
import dev.lanceflink.io.TestStores;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs format-core's store-agnostic suites on S3: every location is a fresh prefix of one bucket
 * on the test JVM's S3Proxy server, reached with the storage options a user would give
 * ({@code aws_endpoint}, keys, {@code allow_http}, path-style), so the suites go through
 * {@link dev.lanceflink.io.ObjectStores#open} and the {@code s3} provider exactly like user code.
 * Use it from an {@code S3*Test} subclass of a format-core suite:
 * <pre>{@code
 * @RegisterExtension static final S3ProxyExtension S3 = new S3ProxyExtension();
 * @Override protected TestStores stores() { return S3TestStores.on(S3.server()); }
 * }</pre>
 */
public final class S3TestStores implements TestStores {
    /** The bucket of all suite tables; prefixes keep the tests apart. */
    public static final String BUCKET = "lance-suites";

    /** JVM-wide so that two instances never hand out the same prefix. */
    private static final AtomicInteger LOCATIONS = new AtomicInteger();
    /** Servers whose bucket exists already: suites ask for their stores once per location. */
    private static final Set<S3ProxyServer> READY = ConcurrentHashMap.newKeySet();

    private final S3ProxyServer server;

    private S3TestStores(S3ProxyServer server) {
        this.server = requireNonNull(server, "server is null");
    }

    /** Locations on {@code server}; creates the bucket if needed. */
    public static S3TestStores on(S3ProxyServer server) {
        if (!READY.contains(server)) {
            server.createBucket(BUCKET);
            READY.add(server);
        }
        return new S3TestStores(server);
    }

    @Override
    public String kind() {
        return "s3";
    }

    @Override
    public TestLocation fresh(String name) {
        return new TestLocation(
                "s3://" + BUCKET + "/" + name + "-" + LOCATIONS.incrementAndGet() + ".lance", server.storageOptions());
    }
}
