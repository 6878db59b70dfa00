package dev.lanceflink.encoding.compression;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class FsstSymbolTableTest {

    private static final String[] WORDS = {
        "table ", "pages ", "string ", "lazy ", "jumps ", "the ", "format", "fox ", "dog "
    };

    /** Sentences like the fixtures' {@code text} pattern. */
    private static byte[][] sentences(int n, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        byte[][] out = new byte[n][];
        for (int i = 0; i < n; i++) {
            StringBuilder sb = new StringBuilder("row ").append(i).append(": ");
            int words = 4 + random.nextInt(9);
            for (int w = 0; w < words; w++) {
                sb.append(WORDS[random.nextInt(WORDS.length)]);
            }
            out[i] = sb.toString().getBytes(StandardCharsets.UTF_8);
        }
        return out;
    }

    private static byte[] concat(byte[][] strings, int[] offsets) {
        int total = 0;
        for (int i = 0; i < strings.length; i++) {
            offsets[i] = total;
            total += strings[i].length;
        }
        offsets[strings.length] = total;
        byte[] data = new byte[total];
        for (int i = 0; i < strings.length; i++) {
            System.arraycopy(strings[i], 0, data, offsets[i], strings[i].length);
        }
        return data;
    }

    @Test
    void trainedTableCompressesWellAndRoundTripsThroughItsSerializedForm() {
        byte[][] strings = sentences(2500, 1);
        int[] offsets = new int[strings.length + 1];
        byte[] data = concat(strings, offsets);
        assertThat(data.length).isGreaterThan(FsstSymbolTable.MIN_COMPRESSED_INPUT_BYTES);

        FsstSymbolTable trained = FsstSymbolTable.train(data, offsets, strings.length);
        assertThat(trained.isCompressed()).isTrue();
        assertThat(trained.symbolCount()).isBetween(1, 255);

        byte[] serialized = trained.serialize();
        assertThat(serialized).hasSize(2312);
        assertThat(serialized[4]).isEqualTo((byte) 0x54);
        assertThat(serialized[7]).isEqualTo((byte) 0x46);
        assertThat(serialized[3] & 1).isEqualTo(1); // header bit 24
        assertThat(serialized[0] & 0xFF).isEqualTo(trained.symbolCount()); // bits 0-7
        FsstSymbolTable parsed = FsstSymbolTable.parse(serialized, 0, serialized.length);
        assertThat(parsed).isEqualTo(trained);

        long compressedTotal = 0;
        byte[] buf = new byte[FsstSymbolTable.maxCompressedLength(1000)];
        byte[] out = new byte[8 * buf.length + 8];
        for (byte[] s : strings) {
            int n = trained.compress(s, 0, s.length, buf, 0);
            compressedTotal += n;
            ByteBuffer c = ByteBuffer.wrap(buf, 0, n);
            assertThat(parsed.decompressedLength(c, 0, n)).isEqualTo(s.length);
            int m = parsed.decompress(c, 0, n, out, 0);
            assertThat(new String(out, 0, m, StandardCharsets.UTF_8)).isEqualTo(new String(s, StandardCharsets.UTF_8));
            // The checked slow path and the ByteBuffer path give the same bytes.
            assertThat(parsed.decompress(c, 0, n)).isEqualTo(s);
            ByteBuffer direct = ByteBuffer.allocateDirect(s.length);
            assertThat(parsed.decompress(c, 0, n, direct, 0)).isEqualTo(s.length);
            byte[] fromDirect = new byte[s.length];
            direct.get(0, fromDirect);
            assertThat(fromDirect).isEqualTo(s);
        }
        // Effective: repetitive English-like text compresses to well under half.
        assertThat(compressedTotal).isLessThan(data.length / 2);
    }

    @Test
    void smallPagesAndIncompressibleDataGetAnUncompressedTable() {
        byte[][] strings = sentences(20, 2);
        int[] offsets = new int[strings.length + 1];
        byte[] data = concat(strings, offsets);
        FsstSymbolTable small = FsstSymbolTable.train(data, offsets, strings.length);
        assertThat(small.isCompressed()).isFalse();
        byte[] header = new byte[8];
        System.arraycopy(small.serialize(), 0, header, 0, 8);
        assertThat(header).containsExactly(0, 0, 0, 0, 0x54, 0x53, 0x53, 0x46);

        byte[] random = new byte[40000];
        new SplittableRandom(3).nextBytes(random);
        long[] offs = new long[401];
        for (int i = 0; i <= 400; i++) {
            offs[i] = i * 100L;
        }
        FsstSymbolTable t = FsstSymbolTable.train(random, offs, 400);
        byte[] out = new byte[200];
        int n = t.compress(random, 0, 100, out, 0);
        assertThat(n).isLessThanOrEqualTo(130);
        assertThat(t.decompress(ByteBuffer.wrap(out, 0, n), 0, n)).isEqualTo(java.util.Arrays.copyOf(random, 100));
    }

    /** A hand-made table: header, m symbols, then m lengths (compression.md §3.7). */
    static byte[] table(boolean compressed, String... symbols) {
        byte[] t = new byte[2312];
        ByteBuffer b = ByteBuffer.wrap(t).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(0, (0x46535354L << 32) | (compressed ? 1L << 24 : 0) | symbols.length);
        for (int c = 0; c < symbols.length; c++) {
            byte[] s = symbols[c].getBytes(StandardCharsets.UTF_8);
            System.arraycopy(s, 0, t, 8 + 8 * c, s.length);
            t[8 + 8 * symbols.length + c] = (byte) s.length;
        }
        return t;
    }

    @Test
    void toStringEscapesUnprintableSymbolBytesAsLowercaseHex() {
        FsstSymbolTable t = FsstSymbolTable.parse(table(true, "a\u0001", "\u007f"), 0, 2312);
        assertThat(t.toString()).contains("\"a\\x01\"", "\"\\x7f\"");
    }

    @Test
    void decodesCodesAndEscapes() {
        FsstSymbolTable t = FsstSymbolTable.parse(table(true, "ox", "fo", "la", "g ", "jumps "), 0, 2312);
        // Greedy: "fo", escaped 'x', escaped ' ', "jumps ", "la", escaped 'z', escaped 'y'.
        byte[] codes = {1, (byte) 255, 'x', (byte) 255, ' ', 4, 2, (byte) 255, 'z', (byte) 255, 'y'};
        assertThat(new String(t.decompress(ByteBuffer.wrap(codes), 0, codes.length), StandardCharsets.UTF_8))
                .isEqualTo("fox jumps lazy");
        assertThat(t.toString()).contains("\"ox\"", "\"jumps \"");
        byte[] c = new byte[40];
        int n = t.compress("fox jumps lazy".getBytes(StandardCharsets.UTF_8), 0, 14, c, 0);
        assertThat(java.util.Arrays.copyOf(c, n)).containsExactly(codes);
    }

    @Test
    void uncompressedTablesCopyBytes() {
        FsstSymbolTable raw = FsstSymbolTable.parse(table(false), 0, 2312);
        assertThat(raw.isCompressed()).isFalse();
        byte[] s = "s-123".getBytes(StandardCharsets.UTF_8);
        assertThat(raw.decompress(ByteBuffer.wrap(s), 0, s.length)).isEqualTo(s);
        assertThat(raw).isEqualTo(FsstSymbolTable.uncompressed());
    }

    @Test
    void rejectsMalformedTablesAndStrings() {
        assertThatThrownBy(() -> FsstSymbolTable.parse(new byte[100], 0, 100))
                .isInstanceOf(CompressedDataException.class)
                .hasMessageContaining("expected exactly 2312");
        assertThatThrownBy(() -> FsstSymbolTable.parse(new byte[2312], 0, 2312))
                .isInstanceOf(CompressedDataException.class)
                .hasMessageContaining("FSST magic");
        byte[] badLength = table(true, "ab");
        badLength[8 + 8] = 9;
        assertThatThrownBy(() -> FsstSymbolTable.parse(badLength, 0, 2312))
                .isInstanceOf(CompressedDataException.class)
                .hasMessageContaining("length 9");
        FsstSymbolTable t = FsstSymbolTable.parse(table(true, "ab"), 0, 2312);
        assertThatThrownBy(() -> t.decompress(ByteBuffer.wrap(new byte[] {0, 7}), 0, 2))
                .isInstanceOf(CompressedDataException.class)
                .hasMessageContaining("code 7 at byte 1");
        assertThatThrownBy(() -> t.decompress(ByteBuffer.wrap(new byte[] {0, (byte) 255}), 0, 2))
                .isInstanceOf(CompressedDataException.class)
                .hasMessageContaining("literal byte is missing");
        assertThatThrownBy(() -> t.decompress(ByteBuffer.wrap(new byte[] {0, 0}), 0, 2, new byte[3], 0))
                .isInstanceOf(IndexOutOfBoundsException.class);
    }
}
