package dev.lanceflink.overlay;

import dev.lanceflink.io.TestStores;
import dev.lanceflink.s3.S3ProxyExtension;
import dev.lanceflink.s3.S3TestStores;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link OverlayModelSuite} on S3 (S3Proxy), with a short sequence seeded to reach every kind of
 * commit (append, delete, dense and sparse overlays, row rewrites, merges, folds); the local run
 * covers the depth.
 */
class S3OverlayModelTest extends OverlayModelSuite {
    @RegisterExtension
    static final S3ProxyExtension S3 = new S3ProxyExtension();

    @Override
    protected TestStores stores() {
        return S3TestStores.on(S3.server());
    }

    @Override
    protected int longSequenceOperations() {
        return 20;
    }

    /** Reaches every kind of commit at least twice within 20 operations. */
    @Override
    protected long longSequenceSeed() {
        return 18;
    }
}
