package dev.lanceflink.table;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RowAddressTest {
    @Test
    void splitsIntoFragmentAndOffsetUnsigned() {
        long a = RowAddress.of(0xFFFF_FFFEL, 0xFFFF_FFFFL);
        assertThat(a).isEqualTo(0xFFFF_FFFE_FFFF_FFFFL);
        assertThat(RowAddress.fragmentId(a)).isEqualTo(0xFFFF_FFFEL);
        assertThat(RowAddress.offset(a)).isEqualTo(0xFFFF_FFFFL);
        assertThat(RowAddress.offsetBits(a)).isEqualTo(-1);
        assertThat(RowAddress.firstOf(7)).isEqualTo(RowAddress.of(7, 0)).isEqualTo(7L << 32);
        assertThat(RowAddress.describe(RowAddress.of(3, 17))).isEqualTo("fragment 3, offset 17");
    }

    @Test
    void offsetNeverSpillsIntoTheFragment() {
        assertThat(RowAddress.of(2, -1L))
                .as("an offset is 32 bits; higher bits are not the fragment's")
                .isEqualTo(RowAddress.of(2, 0xFFFF_FFFFL));
    }
}
