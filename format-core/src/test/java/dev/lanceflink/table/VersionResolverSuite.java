package dev.lanceflink.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.io.StoreBackedSuite;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * Version resolution (latest by listing and by hint, V1 and V2 naming, mixed schemes, missing
 * tables and versions, as-of timestamps) on a real store. Runs locally as
 * {@link VersionResolverTest} and on S3 as s3-store's {@code S3VersionResolverTest}.
 */
public abstract class VersionResolverSuite extends StoreBackedSuite {

    private static void commit(ObjectStore store, ManifestNamingScheme scheme, long version, long epochSecond)
            throws Exception {
        Manifest m = Manifest.builder()
                .version(version)
                .timestamp(Instant.ofEpochSecond(epochSecond))
                .writerVersion(WriterVersion.thisLibrary())
                .build();
        assertThat(store.putIfAbsent(scheme.path(version), ManifestIO.serialize(m)))
                .isTrue();
    }

    @Test
    void latestV2ByListingAndByHint() throws Exception {
        ObjectStore store = newStore();
        for (long v = 1; v <= 12; v++) {
            commit(store, ManifestNamingScheme.V2, v, 1000 + v);
        }
        store.put("_versions/18446744073709551573.manifest-cee4fbbb-1c2d-4e5f-8a9b-0c1d2e3f4a5b", new byte[3]);
        assertThat(VersionResolver.latestByListing(store).version()).isEqualTo(12);
        assertThat(VersionResolver.latest(store).version()).isEqualTo(12);
        // stale hint: probing forward finds the real latest
        VersionResolver.writeHint(store, 4);
        assertThat(new String(store.readAll(VersionResolver.HINT_PATH), StandardCharsets.UTF_8))
                .isEqualTo("{\"version\":4}");
        assertThat(VersionResolver.latest(store).version()).isEqualTo(12);
        // hint past the end or garbage: falls back to listing
        VersionResolver.writeHint(store, 99);
        assertThat(VersionResolver.latest(store).version()).isEqualTo(12);
        store.put(VersionResolver.HINT_PATH, "not json".getBytes(StandardCharsets.UTF_8));
        assertThat(VersionResolver.latest(store).version()).isEqualTo(12);
    }

    @Test
    void latestV1ScansEverything() throws Exception {
        ObjectStore store = newStore();
        for (long v : new long[] {1, 2, 10, 9}) {
            commit(store, ManifestNamingScheme.V1, v, v);
        }
        ManifestLocation latest = VersionResolver.latestByListing(store);
        assertThat(latest.version()).isEqualTo(10);
        assertThat(latest.scheme()).isEqualTo(ManifestNamingScheme.V1);
        assertThat(VersionResolver.list(store))
                .extracting(ManifestLocation::version)
                .containsExactly(1L, 2L, 9L, 10L);
        assertThat(VersionResolver.version(store, 9).path()).isEqualTo("_versions/9.manifest");
    }

    @Test
    void mixedSchemesAreAnError() throws Exception {
        ObjectStore store = newStore();
        commit(store, ManifestNamingScheme.V1, 1, 1);
        commit(store, ManifestNamingScheme.V2, 2, 2);
        assertThatThrownBy(() -> VersionResolver.list(store))
                .isInstanceOf(CorruptTableException.class)
                .hasMessageContaining("mixes manifest naming schemes");
        assertThatThrownBy(() -> VersionResolver.latestByListing(store))
                .hasMessageContaining("_versions/1.manifest is V1 but _versions/18446744073709551613.manifest is V2");
    }

    @Test
    void missingTableAndVersion() throws Exception {
        ObjectStore store = newStore();
        assertThatThrownBy(() -> VersionResolver.latest(store))
                .isInstanceOf(VersionNotFoundException.class)
                .hasMessageContaining("contains no manifest");
        commit(store, ManifestNamingScheme.V2, 1, 1);
        assertThatThrownBy(() -> VersionResolver.version(store, 5))
                .isInstanceOf(VersionNotFoundException.class)
                .hasMessageContaining(
                        "has no version 5 (its latest version is 1; bin/lance-flink versions lists" + " them)")
                .hasMessageNotContaining(".manifest");
    }

    @Test
    void asOfTimestamp() throws Exception {
        ObjectStore store = newStore();
        for (long v = 1; v <= 7; v++) {
            commit(store, ManifestNamingScheme.V2, v, 100 * v);
        }
        assertThat(VersionResolver.asOf(store, Instant.ofEpochSecond(450)).version())
                .isEqualTo(4);
        assertThat(VersionResolver.asOf(store, Instant.ofEpochSecond(700)).version())
                .isEqualTo(7);
        assertThat(VersionResolver.asOf(store, Instant.ofEpochSecond(100)).version())
                .isEqualTo(1);
        assertThatThrownBy(() -> VersionResolver.asOf(store, Instant.ofEpochSecond(99)))
                .isInstanceOf(VersionNotFoundException.class)
                .hasMessageContaining("oldest remaining version is 1");
    }
}
