package dev.lanceflink.encoding.compression;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class FastLanesBitPackingTest {

    private static long mask(int width) {
        return width == 64 ? -1L : (1L << width) - 1;
    }

    private static long[] randomValues(SplittableRandom random, int count, int width) {
        long[] values = new long[count];
        for (int i = 0; i < count; i++) {
            values[i] = random.nextLong() & mask(width);
        }
        return values;
    }

    /** Raw little-endian T-bit values, as Arrow holds them. */
    private static ByteBuffer raw(int t, long[] values) {
        ByteBuffer b = ByteBuffer.allocate(values.length * t / 8).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < values.length; i++) {
            switch (t) {
                case 8 -> b.put(i, (byte) values[i]);
                case 16 -> b.putShort(2 * i, (short) values[i]);
                case 32 -> b.putInt(4 * i, (int) values[i]);
                default -> b.putLong(8 * i, values[i]);
            }
        }
        return b;
    }

    private static long rawAt(int t, ByteBuffer b, int i) {
        return switch (t) {
            case 8 -> b.get(i) & 0xFFL;
            case 16 -> b.getShort(2 * i) & 0xFFFFL;
            case 32 -> b.getInt(4 * i) & 0xFFFFFFFFL;
            default -> b.getLong(8 * i);
        };
    }

    private static byte[] bytes(ByteBuffer b, int offset, int length) {
        byte[] out = new byte[length];
        b.get(offset, out);
        return out;
    }

    /** Packs with the typed API for T and returns the bytes at offset 3 of a larger buffer. */
    private static byte[] packTyped(int t, long[] values, int count, int width) {
        ByteBuffer dst = ByteBuffer.allocate(128 * width + 10);
        switch (t) {
            case 8 -> {
                byte[] v = new byte[count + 2];
                for (int i = 0; i < count; i++) {
                    v[i + 2] = (byte) values[i];
                }
                FastLanesBitPacking.pack(v, 2, count, width, dst, 3);
            }
            case 16 -> {
                short[] v = new short[count + 2];
                for (int i = 0; i < count; i++) {
                    v[i + 2] = (short) values[i];
                }
                FastLanesBitPacking.pack(v, 2, count, width, dst, 3);
            }
            case 32 -> {
                int[] v = new int[count + 2];
                for (int i = 0; i < count; i++) {
                    v[i + 2] = (int) values[i];
                }
                FastLanesBitPacking.pack(v, 2, count, width, dst, 3);
            }
            default -> {
                long[] v = new long[count + 2];
                System.arraycopy(values, 0, v, 2, count);
                FastLanesBitPacking.pack(v, 2, count, width, dst, 3);
            }
        }
        return bytes(dst, 3, 128 * width);
    }

    /** Unpacks with the typed API and widens to unsigned longs. */
    private static long[] unpackTyped(int t, byte[] packed, int width, int count) {
        ByteBuffer src = ByteBuffer.allocate(packed.length + 5);
        src.put(5, packed);
        long[] out = new long[count];
        switch (t) {
            case 8 -> {
                byte[] v = new byte[count + 1];
                FastLanesBitPacking.unpack(src, 5, width, v, 1, count);
                for (int i = 0; i < count; i++) {
                    out[i] = v[i + 1] & 0xFFL;
                }
            }
            case 16 -> {
                short[] v = new short[count + 1];
                FastLanesBitPacking.unpack(src, 5, width, v, 1, count);
                for (int i = 0; i < count; i++) {
                    out[i] = v[i + 1] & 0xFFFFL;
                }
            }
            case 32 -> {
                int[] v = new int[count + 1];
                FastLanesBitPacking.unpack(src, 5, width, v, 1, count);
                for (int i = 0; i < count; i++) {
                    out[i] = v[i + 1] & 0xFFFFFFFFL;
                }
            }
            default -> {
                long[] v = new long[count + 1];
                FastLanesBitPacking.unpack(src, 5, width, v, 1, count);
                System.arraycopy(v, 1, out, 0, count);
            }
        }
        return out;
    }

    @ParameterizedTest
    @ValueSource(ints = {8, 16, 32, 64})
    void everyWidthMatchesTheReferenceLayoutAndRoundTrips(int t) {
        SplittableRandom random = new SplittableRandom(t);
        for (int width = 0; width <= t; width++) {
            long[] values = randomValues(random, 1024, width);
            byte[] expected = FastLanesReference.pack(t, width, values);

            assertThat(packTyped(t, values, 1024, width))
                    .as("typed pack T=%d W=%d", t, width)
                    .isEqualTo(expected);
            ByteBuffer dst = ByteBuffer.allocate(128 * width + 7).order(ByteOrder.BIG_ENDIAN);
            FastLanesBitPacking.pack(t, raw(t, values), 0, 1024, width, dst, 7);
            assertThat(bytes(dst, 7, 128 * width))
                    .as("generic pack T=%d W=%d", t, width)
                    .isEqualTo(expected);

            assertThat(unpackTyped(t, expected, width, 1024))
                    .as("typed unpack T=%d W=%d", t, width)
                    .isEqualTo(values);
            ByteBuffer out = ByteBuffer.allocate(1024 * t / 8 + 8).order(ByteOrder.LITTLE_ENDIAN);
            FastLanesBitPacking.unpack(t, ByteBuffer.wrap(expected), 0, width, out, 8, 1024);
            long[] generic = new long[1024];
            for (int i = 0; i < 1024; i++) {
                generic[i] = rawAt(t, out.slice(8, 1024 * t / 8).order(ByteOrder.LITTLE_ENDIAN), i);
            }
            assertThat(generic).as("generic unpack T=%d W=%d", t, width).isEqualTo(values);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {8, 16, 32, 64})
    void shortBlocksAreZeroPaddedAndUnpackOnlyTheRequestedPrefix(int t) {
        SplittableRandom random = new SplittableRandom(100 + t);
        for (int count : new int[] {0, 1, 15, 16, 17, 100, 127, 128, 129, 500, 1000, 1023}) {
            int width = Math.max(1, t - 3);
            long[] values = randomValues(random, count, width);
            byte[] expected = FastLanesReference.pack(t, width, values);
            assertThat(packTyped(t, values, count, width))
                    .as("T=%d n=%d", t, count)
                    .isEqualTo(expected);

            long[] unpacked = unpackTyped(t, expected, width, count);
            assertThat(unpacked).isEqualTo(values);

            // The generic unpack must not write past count values.
            ByteBuffer out = ByteBuffer.allocate(count * t / 8 + 4);
            out.put(count * t / 8, new byte[] {9, 9, 9, 9});
            FastLanesBitPacking.unpack(t, ByteBuffer.wrap(expected), 0, width, out, 0, count);
            assertThat(bytes(out, count * t / 8, 4)).containsExactly(9, 9, 9, 9);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {8, 16, 32, 64})
    void fullWidthIsAPermutationOfAllBitPatterns(int t) {
        long[] values = new long[1024];
        for (int i = 0; i < 1024; i++) {
            values[i] = (i % 2 == 0 ? -1L : i * 0x9E3779B97F4A7C15L) & mask(t);
        }
        byte[] packed = packTyped(t, values, 1024, t);
        assertThat(packed).isEqualTo(FastLanesReference.pack(t, t, values));
        assertThat(unpackTyped(t, packed, t, 1024)).isEqualTo(values);
    }

    @Test
    void bitsAboveTheWidthAreIgnoredWhenPacking() {
        int[] values = new int[1024];
        for (int i = 0; i < 1024; i++) {
            values[i] = 0xFFFF_FF00 | (i & 0xF);
        }
        ByteBuffer dst = ByteBuffer.allocate(128 * 4);
        FastLanesBitPacking.pack(values, 0, 1024, 4, dst, 0);
        int[] back = new int[1024];
        FastLanesBitPacking.unpack(dst, 0, 4, back, 0, 1024);
        for (int i = 0; i < 1024; i++) {
            assertThat(back[i]).isEqualTo(i & 0xF);
        }
    }

    @Test
    void workedExampleT32W4FromTheSpec() {
        // compression.md §3.2: value[i] = i % 13, lane 0 word 0 = b0 79 35 c1.
        int[] values = new int[1024];
        for (int i = 0; i < 1024; i++) {
            values[i] = i % 13;
        }
        assertThat(FastLanesBitPacking.bitWidth(values, 0, 1024)).isEqualTo(4);
        ByteBuffer dst = ByteBuffer.allocate(512);
        FastLanesBitPacking.pack(values, 0, 1024, 4, dst, 0);
        assertThat(bytes(dst, 0, 4)).containsExactly(0xb0, 0x79, 0x35, 0xc1);
    }

    @Test
    void workedExampleT16W1FromTheSpec() {
        // compression.md §3.2: def levels 1 where i % 3 == 1 → lane 0 word = 24 49.
        short[] levels = new short[1024];
        for (int i = 0; i < 1024; i++) {
            levels[i] = (short) (i % 3 == 1 ? 1 : 0);
        }
        ByteBuffer dst = ByteBuffer.allocate(128);
        FastLanesBitPacking.pack(levels, 0, 1024, 1, dst, 0);
        assertThat(bytes(dst, 0, 6)).containsExactly(0x24, 0x49, 0x49, 0x92, 0x92, 0x24);
    }

    @Test
    void bitWidthOfRawBuffersMatchesTheTypedOverloads() {
        SplittableRandom random = new SplittableRandom(7);
        for (int t : new int[] {8, 16, 32, 64}) {
            for (int width = 0; width <= t; width++) {
                for (int count : new int[] {0, 1, 3, 9, 1024}) {
                    long[] values = randomValues(random, count, width);
                    if (count > 0 && width > 0) {
                        values[count / 2] |= 1L << (width - 1);
                    }
                    int expected = count == 0 ? 0 : 64 - Long.numberOfLeadingZeros(or(values));
                    assertThat(FastLanesBitPacking.bitWidth(t, raw(t, values), 0, count))
                            .as("T=%d W=%d n=%d", t, width, count)
                            .isEqualTo(expected);
                }
            }
        }
        assertThat(FastLanesBitPacking.bitWidth(new byte[] {(byte) 0x80, 1}, 0, 2))
                .isEqualTo(8);
        assertThat(FastLanesBitPacking.bitWidth(new short[] {-1}, 0, 1)).isEqualTo(16);
        assertThat(FastLanesBitPacking.bitWidth(new int[] {-5}, 0, 1)).isEqualTo(32);
        assertThat(FastLanesBitPacking.bitWidth(new long[] {0, 0}, 0, 2)).isZero();
    }

    private static long or(long[] values) {
        long or = 0;
        for (long v : values) {
            or |= v;
        }
        return or;
    }

    @Test
    void rejectsWidthsAboveTAndTruncatedBlocks() {
        int[] out = new int[1024];
        assertThatThrownBy(() -> FastLanesBitPacking.unpack(ByteBuffer.allocate(128 * 33), 0, 33, out, 0, 1024))
                .isInstanceOf(CompressedDataException.class)
                .hasMessageContaining("bit width 33");
        assertThatThrownBy(() -> FastLanesBitPacking.unpack(ByteBuffer.allocate(100), 0, 1, out, 0, 1024))
                .isInstanceOf(CompressedDataException.class)
                .hasMessageContaining("only 100 bytes");
        assertThatThrownBy(() -> FastLanesBitPacking.unpack(ByteBuffer.allocate(128), 0, 1, out, 0, 1025))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
