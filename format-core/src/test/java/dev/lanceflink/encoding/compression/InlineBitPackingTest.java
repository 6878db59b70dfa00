package dev.lanceflink.encoding.compression;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class InlineBitPackingTest {

    @ParameterizedTest
    @ValueSource(ints = {8, 16, 32, 64})
    void genericRoundTripWithPerUnitWidths(int t) {
        SplittableRandom random = new SplittableRandom(t);
        for (int count : new int[] {0, 1, 5, 1023, 1024, 1025, 2048, 3000}) {
            ByteBuffer src = ByteBuffer.allocate(count * t / 8).order(ByteOrder.LITTLE_ENDIAN);
            long[] values = new long[count];
            for (int i = 0; i < count; i++) {
                int unit = i / 1024;
                int width = (unit * 7 + 3) % (t + 1); // a different width per unit, incl. 0 and T
                values[i] = width == 64 ? random.nextLong() : random.nextLong() & ((1L << width) - 1);
                put(t, src, i, values[i]);
            }
            ByteBuffer enc = ByteBuffer.allocate((int) InlineBitPacking.maxEncodedSize(t, count) + 4);
            int written = InlineBitPacking.encode(t, src, 0, count, enc, 4);

            long expectedSize = 0;
            for (int u = 0; u * 1024 < count; u++) {
                int n = Math.min(1024, count - u * 1024);
                int width = FastLanesBitPacking.bitWidth(t, src, u * 1024 * t / 8, n);
                expectedSize += InlineBitPacking.unitSize(t, width);
            }
            assertThat(written).isEqualTo(expectedSize);

            ByteBuffer out = ByteBuffer.allocate(count * t / 8);
            assertThat(InlineBitPacking.decode(t, enc, 4, written, count, out, 0))
                    .isEqualTo(written);
            assertThat(out.array()).isEqualTo(src.array());
        }
    }

    private static void put(int t, ByteBuffer b, int i, long v) {
        switch (t) {
            case 8 -> b.put(i, (byte) v);
            case 16 -> b.putShort(2 * i, (short) v);
            case 32 -> b.putInt(4 * i, (int) v);
            default -> b.putLong(8 * i, v);
        }
    }

    @Test
    void typedRoundTrips() {
        SplittableRandom random = new SplittableRandom(1);
        int count = 2500;
        byte[] b = new byte[count];
        short[] s = new short[count];
        int[] n = new int[count];
        long[] l = new long[count];
        for (int i = 0; i < count; i++) {
            b[i] = (byte) random.nextInt(1 << 5);
            s[i] = (short) random.nextInt(1 << 11);
            n[i] = random.nextInt(1 << 20);
            l[i] = random.nextLong() >>> 7;
        }
        ByteBuffer enc = ByteBuffer.allocate((int) InlineBitPacking.maxEncodedSize(64, count));

        int size = InlineBitPacking.encode(b, 0, count, enc, 0);
        byte[] b2 = new byte[count];
        assertThat(InlineBitPacking.decode(enc, 0, size, count, b2, 0)).isEqualTo(size);
        assertThat(b2).isEqualTo(b);

        size = InlineBitPacking.encode(s, 0, count, enc, 0);
        short[] s2 = new short[count];
        assertThat(InlineBitPacking.decode(enc, 0, size, count, s2, 0)).isEqualTo(size);
        assertThat(s2).isEqualTo(s);

        size = InlineBitPacking.encode(n, 0, count, enc, 0);
        assertThat(size).isEqualTo(3 * (4 + 128 * 20));
        int[] n2 = new int[count];
        assertThat(InlineBitPacking.decode(enc, 0, size, count, n2, 0)).isEqualTo(size);
        assertThat(n2).isEqualTo(n);

        size = InlineBitPacking.encode(l, 0, count, enc, 0);
        long[] l2 = new long[count];
        assertThat(InlineBitPacking.decode(enc, 0, size, count, l2, 0)).isEqualTo(size);
        assertThat(l2).isEqualTo(l);
    }

    @Test
    void workedChunkFromTheSpec() {
        // compression.md §3.3: int32 i % 13, chunk 0 value buffer = 516 bytes starting 04 00 00 00 b0 79 35 c1.
        int[] values = new int[1024];
        for (int i = 0; i < 1024; i++) {
            values[i] = i % 13;
        }
        ByteBuffer enc = ByteBuffer.allocate(600);
        assertThat(InlineBitPacking.encode(values, 0, 1024, enc, 0)).isEqualTo(516);
        byte[] head = new byte[8];
        enc.get(0, head);
        assertThat(head).containsExactly(0x04, 0, 0, 0, 0xb0, 0x79, 0x35, 0xc1);
    }

    @Test
    void allZeroChunkIsJustTheWidthWord() {
        ByteBuffer enc = ByteBuffer.allocate(16);
        assertThat(InlineBitPacking.encode(new long[700], 0, 700, enc, 0)).isEqualTo(8);
        long[] out = new long[700];
        out[3] = 5;
        assertThat(InlineBitPacking.decode(enc, 0, 8, 700, out, 0)).isEqualTo(8);
        assertThat(out).containsOnly(0L);
    }

    @Test
    void rejectsBadWidthWordsAndTruncation() {
        ByteBuffer bad =
                ByteBuffer.allocate(4 + 128 * 33).order(ByteOrder.LITTLE_ENDIAN).putInt(0, 33);
        assertThatThrownBy(() -> InlineBitPacking.decode(bad, 0, bad.capacity(), 10, new int[10], 0))
                .isInstanceOf(CompressedDataException.class)
                .hasMessageContaining("declares bit width 33");
        ByteBuffer truncated =
                ByteBuffer.allocate(4 + 100).order(ByteOrder.LITTLE_ENDIAN).putInt(0, 1);
        assertThatThrownBy(() -> InlineBitPacking.decode(truncated, 0, 104, 10, new int[10], 0))
                .isInstanceOf(CompressedDataException.class)
                .hasMessageContaining("exceeds the 104-byte buffer");
        ByteBuffer oneUnit = ByteBuffer.allocate(4);
        assertThatThrownBy(() -> InlineBitPacking.decode(oneUnit, 0, 4, 1500, new int[1500], 0))
                .isInstanceOf(CompressedDataException.class)
                .hasMessageContaining("fewer units than values");
    }
}
