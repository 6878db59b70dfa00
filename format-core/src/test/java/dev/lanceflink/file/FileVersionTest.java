package dev.lanceflink.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The names of data storage versions mean what they mean to Lance (pylance 14). */
class FileVersionTest {

    @Test
    void numbersAndTheTwoZeroFooterAlias() {
        assertThat(FileVersion.parse("2.0")).isEqualTo(FileVersion.V2_0);
        assertThat(FileVersion.parse("0.3"))
                .as("Lance's alias of 2.0 (its footer numbers)")
                .isEqualTo(FileVersion.V2_0);
        assertThat(FileVersion.parse("2.1")).isEqualTo(FileVersion.V2_1);
        assertThat(FileVersion.parse("2.2")).isEqualTo(FileVersion.V2_2);
    }

    @Test
    void stableIsTwoTwoAsInLance14AndNamesIgnoreCase() {
        assertThat(FileVersion.parse("stable")).isEqualTo(FileVersion.V2_2);
        assertThat(FileVersion.parse("STABLE")).isEqualTo(FileVersion.V2_2);
        assertThat(FileVersion.parse("Stable")).isEqualTo(FileVersion.V2_2);
    }

    @Test
    void legacyAndNextAreNamedInTheRefusal() {
        assertThatThrownBy(() -> FileVersion.parse("legacy"))
                .isInstanceOf(FileVersion.UnsupportedFileVersionException.class)
                .hasMessageContaining("'legacy'")
                .hasMessageContaining("0.1");
        assertThatThrownBy(() -> FileVersion.parse("0.1"))
                .isInstanceOf(FileVersion.UnsupportedFileVersionException.class)
                .hasMessageContaining("legacy");
        assertThatThrownBy(() -> FileVersion.parse("next"))
                .isInstanceOf(FileVersion.UnsupportedFileVersionException.class)
                .hasMessageContaining("'next'")
                .hasMessageContaining("2.3")
                .hasMessageContaining("unstable");
        assertThatThrownBy(() -> FileVersion.parse("NEXT")).hasMessageContaining("2.3");
        assertThatThrownBy(() -> FileVersion.parse("2.3")).hasMessageContaining("unstable");
    }

    @Test
    void unknownNamesListWhatIsAccepted() {
        assertThatThrownBy(() -> FileVersion.parse("2.4"))
                .isInstanceOf(FileVersion.UnsupportedFileVersionException.class)
                .hasMessageContaining("'2.4'")
                .hasMessageContaining("stable");
        assertThatThrownBy(() -> FileVersion.parse("v2.1"))
                .isInstanceOf(FileVersion.UnsupportedFileVersionException.class);
    }
}
