package dev.lanceflink.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class FeatureFlagsTest {

    @Test
    void computesWordsFromContent() {
        assertThat(FeatureFlags.compute(false, false, false, false, false, false))
                .isEqualTo(new FeatureFlags.Words(0, 0));
        assertThat(FeatureFlags.compute(true, true, true, true, true, true))
                .isEqualTo(new FeatureFlags.Words(1 | 2 | 16 | 64, 1 | 2 | 8 | 16 | 32 | 64));
        assertThat(FeatureFlags.compute(false, false, true, false, false, false))
                .isEqualTo(new FeatureFlags.Words(0, 8));
        assertThat(FeatureFlags.compute(false, false, false, false, false, true))
                .isEqualTo(new FeatureFlags.Words(64, 64));
    }

    @Test
    void acceptsEveryKnownBit() {
        assertThatCode(() -> FeatureFlags.checkReadable(127, "m")).doesNotThrowAnyException();
        assertThatCode(() -> FeatureFlags.checkWritable(127, "m")).doesNotThrowAnyException();
    }

    @Test
    void refusesUnknownReaderBitNamingBitAndManifest() {
        assertThatThrownBy(() -> FeatureFlags.checkReadable(1 | 128, "/t/_versions/1.manifest"))
                .isInstanceOf(UnsupportedTableFeatureException.class)
                .hasMessageContaining("reader feature flag bit(s) 128")
                .hasMessageContaining("/t/_versions/1.manifest")
                .hasMessageNotContaining("bit(s) 1,");
    }

    @Test
    void refusesUnknownWriterBits() {
        assertThatThrownBy(() -> FeatureFlags.checkWritable(256 | 1024 | 2, "x.manifest"))
                .isInstanceOf(UnsupportedTableFeatureException.class)
                .hasMessageContaining("Cannot write to the table")
                .hasMessageContaining("bit(s) 256, 1024");
        assertThatThrownBy(() -> FeatureFlags.checkWritable(Long.MIN_VALUE, "x.manifest"))
                .hasMessageContaining("9223372036854775808");
    }
}
