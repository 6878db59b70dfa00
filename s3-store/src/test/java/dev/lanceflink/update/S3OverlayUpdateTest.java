package dev.lanceflink.update;

import dev.lanceflink.io.TestStores;
import dev.lanceflink.s3.S3ProxyExtension;
import dev.lanceflink.s3.S3TestStores;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link OverlayUpdateSuite} on S3 (S3Proxy). */
class S3OverlayUpdateTest extends OverlayUpdateSuite {
    @RegisterExtension
    static final S3ProxyExtension S3 = new S3ProxyExtension();

    @Override
    protected TestStores stores() {
        return S3TestStores.on(S3.server());
    }
}
