package dev.lanceflink.committer.core;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@link RowTarget}'s description: a pending file by its id as the file name spells it. */
class RowTargetTest {
    @Test
    void aPendingFileIsNamedByItsSixteenHexDigits() {
        assertThat(RowTarget.pending(0xabL).toString()).isEqualTo("uncommitted file 00000000000000ab");
        assertThat(RowTarget.pending(-2L).toString()).isEqualTo("uncommitted file fffffffffffffffe");
        assertThat(RowTarget.pending(0x0123456789abcdefL).toString())
                .isEqualTo("uncommitted file "
                        + PendingFiles.fileName(0x0123456789abcdefL, "t").substring(0, 16));
        assertThat(RowTarget.committed(7).toString()).isEqualTo("fragment 7");
    }
}
