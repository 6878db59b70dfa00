package dev.lanceflink.encoding.compression;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RleTest {

    private static ByteBuffer hex(String hex) {
        String h = hex.replace(" ", "").replace("|", "");
        ByteBuffer b = ByteBuffer.allocate(h.length() / 2);
        for (int i = 0; i < h.length(); i += 2) {
            b.put(i / 2, (byte) Integer.parseInt(h.substring(i, i + 2), 16));
        }
        return b;
    }

    @Test
    void workedMiniBlockChunkFromTheSpec() {
        // compression.md §2.1: int32 v = row / 300, 1100 rows, one chunk: 7 runs.
        ByteBuffer chunk = hex("0000 1c00 0700 fefe"
                + "00000000 00000000 01000000 01000000 02000000 02000000 03000000 fefefefe"
                + "ff2dff2dff2dc8 fe");
        int[] out = new int[1100];
        Rle.decode(chunk, 8, 28, chunk, 40, 7, 1100, out, 0);
        for (int i = 0; i < 1100; i++) {
            assertThat(out[i]).isEqualTo(i / 300);
        }

        // The encoder reproduces those exact buffers.
        ByteBuffer src = ByteBuffer.allocate(4400).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < 1100; i++) {
            src.putInt(4 * i, i / 300);
        }
        assertThat(Rle.countEntries(32, src, 0, 1100)).isEqualTo(7);
        ByteBuffer values = ByteBuffer.allocate(28);
        ByteBuffer lengths = ByteBuffer.allocate(7);
        assertThat(Rle.encode(32, src, 0, 1100, values, 0, lengths, 0)).isEqualTo(7);
        assertThat(values.array()).isEqualTo(slice(chunk, 8, 28));
        assertThat(lengths.array()).isEqualTo(slice(chunk, 40, 7));
    }

    private static byte[] slice(ByteBuffer b, int offset, int length) {
        byte[] out = new byte[length];
        b.get(offset, out);
        return out;
    }

    @Test
    void runsThatOvershootTheChunkCountStopAtTheCount() {
        // Three runs of 3 describe 9 values, the chunk holds 8 (Lance rolls back to a power of two).
        ByteBuffer values = ByteBuffer.allocate(24)
                .order(ByteOrder.LITTLE_ENDIAN)
                .putLong(0, -5)
                .putLong(8, 6)
                .putLong(16, 7);
        ByteBuffer lengths = ByteBuffer.wrap(new byte[] {3, 3, 3});
        long[] out = new long[9];
        out[8] = 99;
        Rle.decode(values, 0, 24, lengths, 0, 3, 8, out, 0);
        assertThat(out).containsExactly(-5, -5, -5, 6, 6, 6, 7, 7, 99);

        ByteBuffer generic = ByteBuffer.allocate(64);
        Rle.decode(64, values, 0, 24, lengths, 0, 3, 8, generic, 0);
        assertThat(generic.order(ByteOrder.LITTLE_ENDIAN).getLong(56)).isEqualTo(7);
    }

    @Test
    void runsThatFallShortAreRejected() {
        ByteBuffer values = ByteBuffer.allocate(2);
        ByteBuffer lengths = ByteBuffer.wrap(new byte[] {(byte) 200});
        assertThatThrownBy(() -> Rle.decode(values, 0, 2, lengths, 0, 1, 300, new short[300], 0))
                .isInstanceOf(CompressedDataException.class)
                .hasMessageContaining("describe only 200 values but 300 were expected");
        assertThatThrownBy(() -> Rle.decode(values, 0, 2, lengths, 0, 2, 1, new short[1], 0))
                .isInstanceOf(CompressedDataException.class);
    }

    @ParameterizedTest
    @ValueSource(ints = {8, 16, 32, 64})
    void genericRoundTripWithLongRunsSplitAt255(int t) {
        SplittableRandom random = new SplittableRandom(t);
        int count = 5000;
        ByteBuffer src = ByteBuffer.allocate(count * t / 8).order(ByteOrder.LITTLE_ENDIAN);
        long v = 0;
        int expectedEntries = 0;
        int i = 0;
        while (i < count) {
            int run = 1 + random.nextInt(random.nextBoolean() ? 3 : 700);
            run = Math.min(run, count - i);
            v += 1 + random.nextInt(1000);
            long value = t == 64 ? v * 0x9E3779B97F4A7C15L : v;
            for (int k = 0; k < run; k++, i++) {
                switch (t) {
                    case 8 -> src.put(i, (byte) value);
                    case 16 -> src.putShort(2 * i, (short) value);
                    case 32 -> src.putInt(4 * i, (int) value);
                    default -> src.putLong(8 * i, value);
                }
            }
            expectedEntries += (run + 254) / 255;
        }
        int entries = Rle.countEntries(t, src, 0, count);
        if (t > 8) {
            assertThat(entries).isEqualTo(expectedEntries); // 8-bit values may wrap into equal neighbours
        }
        ByteBuffer values = ByteBuffer.allocate(entries * t / 8);
        ByteBuffer lengths = ByteBuffer.allocate(entries);
        assertThat(Rle.encode(t, src, 0, count, values, 0, lengths, 0)).isEqualTo(entries);
        for (int e = 0; e < entries; e++) {
            assertThat(lengths.get(e) & 0xFF).isBetween(1, 255);
        }
        ByteBuffer out = ByteBuffer.allocate(count * t / 8);
        Rle.decode(t, values, 0, values.capacity(), lengths, 0, entries, count, out, 0);
        assertThat(out.array()).isEqualTo(src.array());

        ByteBuffer block = ByteBuffer.allocate((int) Rle.maxEncodedBlockSize(t, count));
        int size = Rle.encodeBlock(t, src, 0, count, block, 0);
        assertThat(size).isEqualTo(8 + entries * (t / 8 + 1));
        assertThat(block.order(ByteOrder.LITTLE_ENDIAN).getLong(0)).isEqualTo((long) entries * t / 8);
        ByteBuffer out2 = ByteBuffer.allocate(count * t / 8);
        Rle.decodeBlock(t, block, 0, size, count, out2, 0);
        assertThat(out2.array()).isEqualTo(src.array());
    }

    @Test
    void blockFormForLevelsMatchesTheSpecHeader() {
        // compression.md §3.5 shape: 4000 def levels with 300-level runs every 500 rows → 24 entries, a u64
        // header of 48 (0x30) bytes of u16 run values, then 24 one-byte lengths.
        short[] levels = new short[4000];
        for (int i = 0; i < levels.length; i++) {
            levels[i] = (short) (i % 500 < 300 ? 0 : 1);
        }
        ByteBuffer block = ByteBuffer.allocate((int) Rle.maxEncodedBlockSize(16, 4000));
        int size = Rle.encodeBlock(levels, 0, 4000, block, 0);
        assertThat(size).isEqualTo(8 + 48 + 24);
        assertThat(slice(block, 0, 16)).containsExactly(0x30, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0);
        assertThat(slice(block, 56, 4)).containsExactly(255, 45, 200, 255);
        short[] back = new short[4000];
        Rle.decodeBlock(block, 0, size, 4000, back, 0);
        assertThat(back).isEqualTo(levels);
        assertThatThrownBy(() -> Rle.decodeBlock(block, 0, size - 1, 4000, back, 0))
                .isInstanceOf(CompressedDataException.class)
                .hasMessageContaining("but it has 79 bytes");
    }

    @Test
    void miniBlockChunkPlanningRespectsValueAndByteBudgets() {
        // Long runs: 4000 values fit one final chunk; 10000 values → 4096, then 4096, then the rest.
        ByteBuffer runs = ByteBuffer.allocate(4 * 10000).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < 10000; i++) {
            runs.putInt(4 * i, i / 300);
        }
        assertThat(Rle.miniBlockChunkValues(32, runs, 0, 4000)).isEqualTo(4000);
        assertThat(Rle.miniBlockChunkValues(32, runs, 0, 10000)).isEqualTo(4096);
        assertThat(Rle.miniBlockChunkValues(32, runs, 4 * 8192, 10000 - 8192)).isEqualTo(10000 - 8192);

        // All-distinct 64-bit values: 9 bytes per run → 909 runs fit 8186 bytes → 512 values per chunk.
        ByteBuffer distinct = ByteBuffer.allocate(8 * 3000).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < 3000; i++) {
            distinct.putLong(8 * i, i);
        }
        assertThat(Rle.miniBlockChunkValues(64, distinct, 0, 3000)).isEqualTo(512);
        assertThat(Rle.miniBlockChunkValues(64, distinct, 0, 900)).isEqualTo(900);
        assertThat(Rle.miniBlockChunkValues(64, distinct, 0, 1)).isEqualTo(1);

        // A chunk encoded with the planned count decodes exactly (no overshoot).
        int n = Rle.miniBlockChunkValues(64, distinct, 0, 3000);
        ByteBuffer values = ByteBuffer.allocate(8 * n);
        ByteBuffer lengths = ByteBuffer.allocate(n);
        int entries = Rle.encode(64, distinct, 0, n, values, 0, lengths, 0);
        long[] out = new long[n];
        Rle.decode(values, 0, 8 * entries, lengths, 0, entries, n, out, 0);
        assertThat(out[n - 1]).isEqualTo(n - 1);
    }
}
