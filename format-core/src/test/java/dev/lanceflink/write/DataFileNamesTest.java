package dev.lanceflink.write;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class DataFileNamesTest {

    @Test
    void nameIsTwentyFourBitsThenLowercaseHexOfAVersion4Uuid() {
        for (int i = 0; i < 200; i++) {
            String name = DataFileNames.newName();
            assertThat(name).matches("[01]{24}[0-9a-f]{26}\\.lance");
            // Bytes 6 and 8 of the 16 carry the UUID version and variant; hex starts at byte 3.
            assertThat(name.charAt(24 + 2 * (6 - 3))).isEqualTo('4');
            assertThat(name.charAt(24 + 2 * (8 - 3))).isIn('8', '9', 'a', 'b');
        }
    }
}
