package dev.lanceflink.committer.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PendingFilesTest {

    @Test
    void fileNameStartsWithSixteenLowercaseHexDigitsThatReadBack() {
        assertThat(PendingFiles.fileName(0xABL, "c3-s1-a0")).isEqualTo("00000000000000ab-c3-s1-a0.lance");
        for (long id : new long[] {1L, -1L, Long.MIN_VALUE, 0x0123456789abcdefL}) {
            assertThat(PendingFiles.fileIdOf("data/" + PendingFiles.fileName(id, "t")))
                    .isEqualTo(id);
        }
    }

    @Test
    void namesNotWrittenByTheSinkHaveNoFileId() {
        assertThat(PendingFiles.fileIdOf("00000000000000AB-t.lance")).isZero();
        assertThat(PendingFiles.fileIdOf("00000000000000g1-t.lance")).isZero();
        assertThat(PendingFiles.fileIdOf("101100001111000010101010abcdef0123456789abcdef01.lance"))
                .isZero();
        assertThat(PendingFiles.fileIdOf("short-t.lance")).isZero();
        assertThatThrownBy(() -> PendingFiles.fileName(0, "t")).isInstanceOf(IllegalArgumentException.class);
    }
}
