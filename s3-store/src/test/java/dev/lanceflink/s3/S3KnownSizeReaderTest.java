package dev.lanceflink.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.io.RangeReader;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Readers opened with a known size (a data file's size from the manifest) and directory
 * listings, on S3Proxy, with the requests they cost.
 */
class S3KnownSizeReaderTest {
    @RegisterExtension
    static final S3ProxyExtension S3 = new S3ProxyExtension();

    private final RequestCounter counter = new RequestCounter();

    private S3ObjectStore open(S3StoreConfig config) {
        return S3TestClients.open(S3TestClients.freshUri(S3.server(), "known-size"), config, counter, null);
    }

    private static byte[] bytes(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static byte[] array(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    @Test
    void knownSizeSavesTheHeadAndTheFirstGetPinsTheETag() throws IOException {
        try (S3ObjectStore store = open(S3.server().config())) {
            byte[] content = bytes(1000, 1);
            store.put("data/f.lance", content);
            counter.reset();

            try (RangeReader r = store.openReader("data/f.lance", 1000)) {
                assertThat(counter.total()).isZero(); // opening costs nothing
                assertThat(array(r.read(990, 10))).isEqualTo(Arrays.copyOfRange(content, 990, 1000));
                assertThat(counter.snapshot()).isEqualTo(Map.of("GetObject", 1, RequestCounter.RANGED_GET, 1));

                // The first GET's ETag guards the later ones, as a HEAD's would.
                store.put("data/f.lance", bytes(1000, 2));
                assertThatThrownBy(() -> r.read(0, 10))
                        .isInstanceOf(IOException.class)
                        .hasMessageContaining("was replaced while being read");
            }
        }
    }

    @Test
    void unknownSizeStillHeads() throws IOException {
        try (S3ObjectStore store = open(S3.server().config())) {
            store.put("data/f.lance", bytes(100, 3));
            counter.reset();

            try (RangeReader r = store.openReader("data/f.lance", 0)) {
                assertThat(r.size()).isEqualTo(100);
                assertThat(counter.snapshot()).isEqualTo(Map.of("HeadObject", 1));
            }
        }
    }

    @Test
    void listDirectoriesReadsCommonPrefixesPageByPage() throws IOException {
        try (S3ObjectStore store = open(S3.server().config().withListPageSize(2))) {
            for (String db : List.of("a", "b", "c", "d", "e")) {
                for (int i = 0; i < 4; i++) {
                    store.put(db + "/t" + i + ".lance/data/f.lance", new byte[] {1});
                }
            }
            store.put("marker-at-root", new byte[] {1});
            counter.reset();

            assertThat(store.listDirectories("")).containsExactly("a", "b", "c", "d", "e");
            // Five prefixes and one key, two entries a page: three pages, whatever lies below.
            assertThat(counter.snapshot()).isEqualTo(Map.of("ListObjectsV2", 3));
            assertThat(store.listDirectories("c")).containsExactly("t0.lance", "t1.lance", "t2.lance", "t3.lance");
        }
    }
}
