package dev.lanceflink.s3;

import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.io.ObjectStoreContractTest;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The store contract on a real S3 server (S3Proxy), with the smallest part size S3 allows (5 MiB) so "large" objects
 * are multipart uploads of several parts, and a listing page of 2 keys so listings span pages.
 */
class S3ObjectStoreContractTest extends ObjectStoreContractTest {
    @RegisterExtension
    static final S3ProxyExtension S3 = new S3ProxyExtension();

    private static final AtomicInteger TABLES = new AtomicInteger();

    @Override
    protected ObjectStore newStore() {
        String bucket = S3.server().createBucket("contract");
        S3StoreConfig config =
                S3.server().config().withPartSize(S3StoreConfig.MIN_PART_SIZE).withListPageSize(2);
        return S3ObjectStore.open("s3://" + bucket + "/run/t" + TABLES.incrementAndGet(), config);
    }

    @Override
    protected int largeObjectSize() {
        return 11 << 20; // two full 5 MiB parts and a tail
    }

    @Override
    protected int raceRounds() {
        return 20;
    }
}
