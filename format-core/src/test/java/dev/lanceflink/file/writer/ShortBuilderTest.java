package dev.lanceflink.file.writer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** Trailing zeros are only counted until read, and then read as zeros even over stale entries. */
class ShortBuilderTest {
    @Test
    void zerosAreCountedLazilyAndReadAsZeros() {
        ShortBuilder b = new ShortBuilder();
        b.addRepeated(0, 3);
        b.add(5);
        b.add(0);
        b.addRepeated(0, 2000); // beyond the initial capacity while pending
        assertThat(b.size()).isEqualTo(2005);
        assertThat(b.get(1)).isEqualTo((short) 0);
        assertThat(b.get(3)).isEqualTo((short) 5);
        assertThat(b.get(2004)).isEqualTo((short) 0);
        b.add(7);
        b.addRepeated(2, 2);
        short[] expected = new short[2008];
        expected[3] = 5;
        expected[2005] = 7;
        expected[2006] = 2;
        expected[2007] = 2;
        assertThat(Arrays.copyOf(b.array(), b.size())).isEqualTo(expected);
    }

    @Test
    void clearedEntriesNeverShowThroughLaterZeros() {
        ShortBuilder b = new ShortBuilder();
        b.addRepeated(9, 50);
        b.clear();
        b.addRepeated(0, 40);
        b.add(0);
        assertThat(b.get(10)).isEqualTo((short) 0);
        assertThat(Arrays.copyOf(b.array(), b.size())).isEqualTo(new short[41]);
        b.clear();
        b.add(0);
        b.add(3);
        assertThat(Arrays.copyOf(b.array(), b.size())).containsExactly((short) 0, (short) 3);
    }
}
