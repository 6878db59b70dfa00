package dev.lanceflink.encoding.compression;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class VariableBlockTest {
    private static final String FRUITS = "applebananacherrydurianelderberryfiggrape";
    private static final long[] OFFSETS = {0, 5, 11, 17, 23, 33, 36, 41};

    @Test
    void writesTheSpecExampleAndParsesItBack() {
        byte[] data = FRUITS.getBytes(StandardCharsets.US_ASCII);
        ByteBuffer dst = ByteBuffer.allocate(90);
        assertThat(VariableBlock.write(32, data, OFFSETS, 7, dst, 3)).isEqualTo(81);
        byte[] head = new byte[12];
        dst.get(3, head);
        // compression.md §3.6: 20 00 00 00 28 00 00 00 | 00000000 …
        assertThat(head).containsExactly(0x20, 0, 0, 0, 0x28, 0, 0, 0, 0, 0, 0, 0);

        VariableBlock block = VariableBlock.parse(dst, 3, 81, 7);
        assertThat(block.offsetBits()).isEqualTo(32);
        assertThat(block.dataStart()).isEqualTo(3 + 40);
        assertThat(block.dataLength()).isEqualTo(41);
        assertThat(block.itemLength(4)).isEqualTo(10);
        byte[] elder = new byte[10];
        dst.get(block.itemStart(4), elder);
        assertThat(new String(elder, StandardCharsets.US_ASCII)).isEqualTo("elderberry");
        int[] offsets = new int[8];
        block.copyOffsets(offsets, 0);
        assertThat(offsets).containsExactly(0, 5, 11, 17, 23, 33, 36, 41);
    }

    @Test
    void sixtyFourBitBlocksWithArrowOffsetsNotStartingAtZero() {
        byte[] data = ("xx" + FRUITS).getBytes(StandardCharsets.US_ASCII);
        long[] shifted = new long[OFFSETS.length];
        for (int i = 0; i < shifted.length; i++) {
            shifted[i] = OFFSETS[i] + 2;
        }
        ByteBuffer dst = ByteBuffer.allocate((int) VariableBlock.encodedSize(64, 7, 41));
        VariableBlock.write(64, data, shifted, 7, dst, 0);
        VariableBlock block = VariableBlock.parse(dst, 0, dst.capacity(), 7);
        assertThat(block.dataStart()).isEqualTo(16 + 64);
        long[] offsets = new long[8];
        block.copyOffsets(offsets, 0);
        assertThat(offsets).containsExactly(OFFSETS);
    }

    @Test
    void rejectsInconsistentBlocks() {
        ByteBuffer dst = ByteBuffer.allocate(81);
        VariableBlock.write(32, FRUITS.getBytes(StandardCharsets.US_ASCII), OFFSETS, 7, dst, 0);
        assertThatThrownBy(() -> VariableBlock.parse(dst, 0, 81, 6))
                .isInstanceOf(CompressedDataException.class)
                .hasMessageContaining("data start S = 40");
        assertThatThrownBy(() -> VariableBlock.parse(dst, 0, 70, 7))
                .isInstanceOf(CompressedDataException.class)
                .hasMessageContaining("offset 5 = 33");
        ByteBuffer legacy = ByteBuffer.allocate(16);
        legacy.put(0, (byte) 4).put(1, (byte) 3);
        assertThatThrownBy(() -> VariableBlock.parse(legacy, 0, 16, 1))
                .isInstanceOf(CompressedDataException.class)
                .hasMessageContaining("obsolete");
    }
}
