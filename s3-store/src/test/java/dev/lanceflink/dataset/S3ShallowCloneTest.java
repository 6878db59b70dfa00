package dev.lanceflink.dataset;

import dev.lanceflink.io.TestStores;
import dev.lanceflink.s3.S3ProxyExtension;
import dev.lanceflink.s3.S3TestStores;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link ShallowCloneSuite} on S3 (S3Proxy): the source's files are reached with the clone's
 * storage options (endpoint, keys), which the base path URI alone does not carry.
 */
class S3ShallowCloneTest extends ShallowCloneSuite {
    @RegisterExtension
    static final S3ProxyExtension S3 = new S3ProxyExtension();

    @Override
    protected TestStores stores() {
        return S3TestStores.on(S3.server());
    }
}
