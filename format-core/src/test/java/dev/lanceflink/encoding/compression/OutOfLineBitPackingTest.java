package dev.lanceflink.encoding.compression;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class OutOfLineBitPackingTest {

    @Test
    void tailRuleMatchesLance() {
        // Pack iff W·(1024 − r) < (T − W)·r.
        assertThat(OutOfLineBitPacking.packsTail(16, 1, 64)).isFalse(); // 960 < 960 is false
        assertThat(OutOfLineBitPacking.packsTail(16, 1, 65)).isTrue(); // 959 < 975
        assertThat(OutOfLineBitPacking.packsTail(64, 64, 1023)).isFalse(); // 64 < 0 is false
        assertThat(OutOfLineBitPacking.encodedSize(16, 1, 1100)).isEqualTo(128 + 128);
        assertThat(OutOfLineBitPacking.encodedSize(16, 1, 1050)).isEqualTo(128 + 26 * 2);
        assertThat(OutOfLineBitPacking.encodedSize(16, 0, 1050)).isZero();
    }

    @ParameterizedTest
    @ValueSource(ints = {8, 16, 32, 64})
    void genericRoundTripForEveryWidthAndBothTailForms(int t) {
        SplittableRandom random = new SplittableRandom(t);
        for (int width = 0; width <= t; width += (t == 8 ? 1 : 3)) {
            for (int count : new int[] {0, 1, 40, 1023, 1024, 1100, 2047, 3000}) {
                ByteBuffer src = ByteBuffer.allocate(count * t / 8).order(ByteOrder.LITTLE_ENDIAN);
                for (int i = 0; i < count; i++) {
                    long v = width == 64 ? random.nextLong() : random.nextLong() & ((1L << width) - 1);
                    switch (t) {
                        case 8 -> src.put(i, (byte) v);
                        case 16 -> src.putShort(2 * i, (short) v);
                        case 32 -> src.putInt(4 * i, (int) v);
                        default -> src.putLong(8 * i, v);
                    }
                }
                long size = OutOfLineBitPacking.encodedSize(t, width, count);
                ByteBuffer enc = ByteBuffer.allocate((int) size + 3);
                assertThat(OutOfLineBitPacking.encode(t, width, src, 0, count, enc, 3))
                        .isEqualTo(size);
                ByteBuffer out = ByteBuffer.allocate(count * t / 8);
                OutOfLineBitPacking.decode(t, width, enc, 3, (int) size, count, out, 0);
                assertThat(out.array()).as("T=%d W=%d n=%d", t, width, count).isEqualTo(src.array());
            }
        }
    }

    @Test
    void typedLevelsRoundTripAndSpecBytes() {
        // compression.md §3.4: 1100 def levels, null where i % 3 == 1, W = 1 → first block starts 24 49 49 92 92 24;
        // r = 76 → the tail is packed (1·948 < 15·76), 256 bytes in all.
        short[] levels = new short[1100];
        for (int i = 0; i < levels.length; i++) {
            levels[i] = (short) (i % 3 == 1 ? 1 : 0);
        }
        assertThat(OutOfLineBitPacking.packsTail(16, 1, 76)).isTrue();
        ByteBuffer enc = ByteBuffer.allocate(256);
        assertThat(OutOfLineBitPacking.encode(1, levels, 0, levels.length, enc, 0))
                .isEqualTo(256);
        byte[] head = new byte[6];
        enc.get(0, head);
        assertThat(head).containsExactly(0x24, 0x49, 0x49, 0x92, 0x92, 0x24);
        short[] back = new short[1100];
        OutOfLineBitPacking.decode(1, enc, 0, 256, 1100, back, 0);
        assertThat(back).isEqualTo(levels);

        // A raw tail: 1030 levels at W = 3 → 6 raw u16 after the block.
        short[] small = new short[1030];
        for (int i = 0; i < small.length; i++) {
            small[i] = (short) (i % 7 == 0 ? 5 : i % 4);
        }
        ByteBuffer enc2 = ByteBuffer.allocate(128 * 3 + 12);
        assertThat(OutOfLineBitPacking.encode(3, small, 0, small.length, enc2, 0))
                .isEqualTo(128 * 3 + 12);
        assertThat(enc2.order(ByteOrder.LITTLE_ENDIAN).getShort(128 * 3)).isEqualTo(small[1024]);
        short[] back2 = new short[1030];
        OutOfLineBitPacking.decode(3, enc2, 0, enc2.capacity(), 1030, back2, 0);
        assertThat(back2).isEqualTo(small);
    }

    @Test
    void sixtyFourBitDictionaryItemsAtFullWidth() {
        long[] items = new long[1500];
        SplittableRandom random = new SplittableRandom(3);
        for (int i = 0; i < items.length; i++) {
            items[i] = random.nextLong();
        }
        int size = (int) OutOfLineBitPacking.encodedSize(64, 64, items.length);
        assertThat(size).isEqualTo(128 * 64 + 476 * 8);
        ByteBuffer enc = ByteBuffer.allocate(size);
        OutOfLineBitPacking.encode(64, items, 0, items.length, enc, 0);
        long[] back = new long[items.length];
        OutOfLineBitPacking.decode(64, enc, 0, size, items.length, back, 0);
        assertThat(back).isEqualTo(items);
        int[] ints = new int[3];
        ByteBuffer three = ByteBuffer.allocate(12)
                .order(ByteOrder.LITTLE_ENDIAN)
                .putInt(0, 7)
                .putInt(4, -1)
                .putInt(8, 9);
        OutOfLineBitPacking.decode(32, three, 0, 12, 3, ints, 0);
        assertThat(ints).containsExactly(7, -1, 9);
    }

    @Test
    void rejectsSizesThatFitNeitherTailForm() {
        assertThatThrownBy(
                        () -> OutOfLineBitPacking.decode(1, ByteBuffer.allocate(200), 0, 200, 1100, new short[1100], 0))
                .isInstanceOf(CompressedDataException.class)
                .hasMessageContaining("take 280 bytes (raw tail) or 256 bytes (packed tail), but the buffer has 200");
    }
}
