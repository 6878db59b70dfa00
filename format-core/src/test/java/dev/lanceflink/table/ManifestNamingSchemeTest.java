package dev.lanceflink.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ManifestNamingSchemeTest {

    @Test
    void v2InvertsTheVersionWithTwentyDigits() {
        assertThat(ManifestNamingScheme.V2.fileName(1)).isEqualTo("18446744073709551614.manifest");
        assertThat(ManifestNamingScheme.V2.fileName(42)).isEqualTo("18446744073709551573.manifest");
        // a large version still has 20 digits thanks to zero padding
        assertThat(ManifestNamingScheme.V2.fileName(8446744073709551615L)).isEqualTo("10000000000000000000.manifest");
        assertThat(ManifestNamingScheme.V2.fileName(9_000_000_000_000_000_000L >>> 1))
                .hasSize(29);
    }

    @Test
    void v1IsPlainDecimal() {
        assertThat(ManifestNamingScheme.V1.fileName(1)).isEqualTo("1.manifest");
        assertThat(ManifestNamingScheme.V1.path(42)).isEqualTo("_versions/42.manifest");
    }

    @Test
    void detectAndParseRoundTrip() {
        for (long v : new long[] {1, 2, 9, 10, 42, 1_000_000, Long.MAX_VALUE - 1}) {
            for (ManifestNamingScheme s : ManifestNamingScheme.values()) {
                String name = s.fileName(v);
                assertThat(ManifestNamingScheme.detect(name)).contains(s);
                assertThat(s.parseVersion(name)).isEqualTo(v);
                assertThat(ManifestNamingScheme.parse(name, 7).orElseThrow())
                        .isEqualTo(new ManifestLocation(v, s, "_versions/" + name, 7));
            }
        }
    }

    @Test
    void ignoresNonManifestNames() {
        assertThat(ManifestNamingScheme.detect("latest_version_hint.json")).isEmpty();
        assertThat(ManifestNamingScheme.detect("18446744073709551573.manifest-cee4fbbb-1c2d-4e5f-8a9b-0c1d2e3f4a5b"))
                .isEmpty();
        assertThat(ManifestNamingScheme.detect("d9223372036854775809.manifest")).isEmpty();
        assertThat(ManifestNamingScheme.detect(".tmp_1.manifest")).isEmpty();
        assertThat(ManifestNamingScheme.detect("99999999999999999999.manifest")).isEmpty(); // > 2^64-1
        assertThat(ManifestNamingScheme.detect(".manifest")).isEmpty();
    }

    @Test
    void parseVersionRejectsOtherScheme() {
        assertThatThrownBy(() -> ManifestNamingScheme.V1.parseVersion("18446744073709551614.manifest"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("is not a V1 manifest file name");
    }
}
