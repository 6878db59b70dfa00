package dev.lanceflink.encoding.compression;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

class ByteStreamSplitTest {

    @Test
    void planesHoldByteJOfValueIAtJTimesNPlusI() {
        ByteBuffer src = ByteBuffer.allocate(12)
                .order(ByteOrder.LITTLE_ENDIAN)
                .putInt(0, 0x44332211)
                .putInt(4, 0x88776655)
                .putInt(8, 0xCCBBAA99);
        ByteBuffer split = ByteBuffer.allocate(12);
        ByteStreamSplit.encode(32, src, 0, 3, split, 0);
        assertThat(split.array())
                .containsExactly(0x11, 0x55, 0x99, 0x22, 0x66, 0xAA, 0x33, 0x77, 0xBB, 0x44, 0x88, 0xCC);
        ByteBuffer back = ByteBuffer.allocate(14);
        ByteStreamSplit.decode(32, split, 0, 3, back, 2);
        assertThat(back.order(ByteOrder.LITTLE_ENDIAN).getInt(2)).isEqualTo(0x44332211);
        assertThat(back.getInt(10)).isEqualTo(0xCCBBAA99);
    }

    @Test
    void sixtyFourBitRoundTrip() {
        int n = 512;
        ByteBuffer src = ByteBuffer.allocate(8 * n).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < n; i++) {
            src.putDouble(8 * i, i / 16.0);
        }
        ByteBuffer split = ByteBuffer.allocate(8 * n);
        ByteStreamSplit.encode(64, src, 0, n, split, 0);
        assertThat(split.get(0)).isZero();
        ByteBuffer back = ByteBuffer.allocate(8 * n);
        ByteStreamSplit.decode(64, split, 0, n, back, 0);
        assertThat(back.array()).isEqualTo(src.array());
    }

    @Test
    void rejectsOtherWidthsAndShortInput() {
        assertThatThrownBy(() -> ByteStreamSplit.decode(16, ByteBuffer.allocate(8), 0, 4, ByteBuffer.allocate(8), 0))
                .isInstanceOf(CompressedDataException.class)
                .hasMessageContaining("32 or 64");
        assertThatThrownBy(() -> ByteStreamSplit.decode(32, ByteBuffer.allocate(7), 0, 2, ByteBuffer.allocate(8), 0))
                .isInstanceOf(CompressedDataException.class)
                .hasMessageContaining("only 7 bytes");
    }
}
