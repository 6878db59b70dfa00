package dev.lanceflink.encoding.compression;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lanceflink.encoding.compression.GeneralCompression.Scheme;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Bit-exactness against files written by the official Lance SDK 7.0.0: our encoders must produce
 * byte sequences that occur verbatim in the fixtures, and our decoders must turn the compressed
 * units found there back into the SDK's expected rows.
 */
class LanceFixtureGoldenTest {

    private static byte[] bytes(ByteBuffer b, int offset, int length) {
        byte[] out = new byte[length];
        b.get(offset, out);
        return out;
    }

    @ParameterizedTest
    @ValueSource(strings = {"v21_ints", "v22_ints"})
    void inlineBitPackingUnitsAreByteIdenticalToLanceForEveryWordWidth(String fixture) {
        ByteBuffer file = LanceFixtureBytes.dataFile(fixture);
        JsonNode rows = LanceFixtureBytes.rows(fixture);

        // u8s (T=8), i16s (T=16), i32s and dt (T=32), u64w (T=64): the first mini-block chunk = rows 0..1023.
        byte[] u8 = new byte[1024];
        short[] i16 = new short[1024];
        int[] i32 = new int[1024];
        int[] dt = new int[1024];
        long[] u64 = new long[1024];
        for (int i = 0; i < 1024; i++) {
            u8[i] = (byte) rows.get(i).get("u8s").asInt();
            i16[i] = (short) rows.get(i).get("i16s").asInt();
            i32[i] = rows.get(i).get("i32s").asInt();
            dt[i] = rows.get(i).get("dt").asInt();
            u64[i] = rows.get(i).get("u64w").asLong();
        }
        ByteBuffer enc = ByteBuffer.allocate((int) InlineBitPacking.maxEncodedSize(64, 1024));

        int n = InlineBitPacking.encode(u8, 0, 1024, enc, 0);
        int at = findUnique(file, bytes(enc, 0, n));
        byte[] u8Back = new byte[1024];
        assertThat(InlineBitPacking.decode(file, at, n, 1024, u8Back, 0)).isEqualTo(n);
        assertThat(u8Back).isEqualTo(u8);

        n = InlineBitPacking.encode(i16, 0, 1024, enc, 0);
        at = findUnique(file, bytes(enc, 0, n));
        short[] i16Back = new short[1024];
        InlineBitPacking.decode(file, at, n, 1024, i16Back, 0);
        assertThat(i16Back).isEqualTo(i16);

        n = InlineBitPacking.encode(i32, 0, 1024, enc, 0);
        assertThat(n).isEqualTo(516);
        at = findUnique(file, bytes(enc, 0, n));
        int[] i32Back = new int[1024];
        InlineBitPacking.decode(file, at, n, 1024, i32Back, 0);
        assertThat(i32Back).isEqualTo(i32);

        n = InlineBitPacking.encode(dt, 0, 1024, enc, 0);
        at = findUnique(file, bytes(enc, 0, n));
        ByteBuffer dtBack = ByteBuffer.allocate(4096).order(ByteOrder.LITTLE_ENDIAN);
        InlineBitPacking.decode(32, file, at, n, 1024, dtBack, 0);
        assertThat(dtBack.getInt(4 * 1023)).isEqualTo(dt[1023]);

        n = InlineBitPacking.encode(u64, 0, 1024, enc, 0);
        at = findUnique(file, bytes(enc, 0, n));
        long[] u64Back = new long[1024];
        InlineBitPacking.decode(file, at, n, 1024, u64Back, 0);
        assertThat(u64Back).isEqualTo(u64);
    }

    private static int findUnique(ByteBuffer file, byte[] pattern) {
        List<Integer> hits = LanceFixtureBytes.find(file, pattern);
        assertThat(hits)
                .as("occurrences of our %d-byte encoding in the Lance file", pattern.length)
                .isNotEmpty();
        return hits.get(0);
    }

    @Test
    void rleChunksOfLanceDecodeToTheExpectedRowsAndOurEncoderReproducesThem() {
        ByteBuffer file = LanceFixtureBytes.dataFile("v21_ints");
        JsonNode rows = LanceFixtureBytes.rows("v21_ints");

        // r16 = key / 300 as int16, 4000 rows: one chunk; our run arrays must occur verbatim.
        ByteBuffer src = ByteBuffer.allocate(8000).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < 4000; i++) {
            src.putShort(2 * i, (short) rows.get(i).get("r16").asInt());
        }
        int entries = Rle.countEntries(16, src, 0, 4000);
        ByteBuffer values = ByteBuffer.allocate(2 * entries);
        ByteBuffer lengths = ByteBuffer.allocate(entries);
        Rle.encode(16, src, 0, 4000, values, 0, lengths, 0);
        int v = findUnique(file, values.array());
        int l = findUnique(file, lengths.array());
        short[] back = new short[4000];
        Rle.decode(file, v, 2 * entries, file, l, entries, 4000, back, 0);
        for (int i = 0; i < 4000; i++) {
            assertThat(back[i]).isEqualTo((short) (i / 300));
        }

        // r64: random values in runs of 3; chunks roll back mid-run, so their runs overshoot. Locate the
        // first chunk by its first run values, read the 2.1 chunk header (u16 levels, u16 × 2 sizes, pad),
        // expand all its runs and compare with the rows (the surplus equals the next chunk's first rows).
        ByteBuffer head = ByteBuffer.allocate(16)
                .order(ByteOrder.LITTLE_ENDIAN)
                .putLong(0, rows.get(0).get("r64").asLong())
                .putLong(8, rows.get(3).get("r64").asLong());
        int valuesAt = findUnique(file, head.array());
        int valuesSize = file.getShort(valuesAt - 6) & 0xFFFF;
        int lengthsSize = file.getShort(valuesAt - 4) & 0xFFFF;
        assertThat(valuesSize).isEqualTo(8 * lengthsSize);
        int lengthsAt = valuesAt + ((valuesSize + 7) & ~7);
        int described = 0;
        for (int k = 0; k < lengthsSize; k++) {
            described += file.get(lengthsAt + k) & 0xFF;
        }
        long[] r64 = new long[described];
        Rle.decode(file, valuesAt, valuesSize, file, lengthsAt, lengthsSize, described, r64, 0);
        for (int i = 0; i < described; i++) {
            assertThat(r64[i])
                    .as("r64 row %d", i)
                    .isEqualTo(rows.get(i).get("r64").asLong());
        }
        assertThat(Integer.bitCount(described))
                .as("a non-final chunk whose runs end on a power of two would not overshoot")
                .isGreaterThanOrEqualTo(1);
    }

    @Test
    void definitionLevelBlocksAreByteIdenticalToLance() {
        // f64n (double, nulls where key % 7 == 3) is chunked 512 values at a time; bn (bool, nulls where
        // key % 3 == 1) is one 4000-value chunk. Each chunk's def levels are one block.
        short[] f64n = levels("v21_ints", "f64n", 512);
        short[] bn = levels("v21_ints", "bn", 4000);

        // 2.1: out_of_line_bitpacking{16, flat{1}} (the page has more than 1024 levels).
        ByteBuffer v21 = LanceFixtureBytes.dataFile("v21_ints");
        ByteBuffer enc = ByteBuffer.allocate(1024);
        int n = OutOfLineBitPacking.encode(1, f64n, 0, 512, enc, 0);
        assertThat(n).isEqualTo(128);
        int at = findUnique(v21, bytes(enc, 0, n));
        short[] back = new short[512];
        OutOfLineBitPacking.decode(1, v21, at, n, 512, back, 0);
        assertThat(back).isEqualTo(f64n);
        n = OutOfLineBitPacking.encode(1, bn, 0, 4000, enc, 0);
        assertThat(n).isEqualTo(4 * 128); // tail of 928 levels packed
        findUnique(v21, bytes(enc, 0, n));

        // 2.2: rle{flat{16}} block form when runs < half the levels (f64n), else bit-packing as in 2.1 (bn).
        ByteBuffer v22 = LanceFixtureBytes.dataFile("v22_ints");
        ByteBuffer block = ByteBuffer.allocate((int) Rle.maxEncodedBlockSize(16, 4000));
        n = Rle.encodeBlock(levels("v22_ints", "f64n", 512), 0, 512, block, 0);
        at = findUnique(v22, bytes(block, 0, n));
        Rle.decodeBlock(v22, at, n, 512, back, 0);
        assertThat(back).isEqualTo(f64n);
        n = OutOfLineBitPacking.encode(1, levels("v22_ints", "bn", 4000), 0, 4000, enc, 0);
        findUnique(v22, bytes(enc, 0, n));
    }

    private static short[] levels(String fixture, String column, int count) {
        JsonNode rows = LanceFixtureBytes.rows(fixture);
        short[] levels = new short[count];
        for (int i = 0; i < count; i++) {
            levels[i] = (short) (rows.get(i).get(column).isNull() ? 1 : 0);
        }
        return levels;
    }

    @ParameterizedTest
    @ValueSource(strings = {"v21_strings", "v22_strings"})
    void fsstTablesAndChunksOfLanceDecodeToTheExpectedStrings(String fixture) {
        ByteBuffer file = LanceFixtureBytes.dataFile(fixture);
        JsonNode rows = LanceFixtureBytes.rows(fixture);
        // Every symbol table in the file: the magic sits in bytes 4..7 of the 2312-byte table.
        List<FsstSymbolTable> tables = new ArrayList<>();
        for (int magic : LanceFixtureBytes.find(file, "TSSF".getBytes(StandardCharsets.US_ASCII))) {
            FsstSymbolTable table = FsstSymbolTable.parse(file, magic - 4, FsstSymbolTable.SERIALIZED_SIZE);
            assertThat(table.serialize()).isEqualTo(bytes(file, magic - 4, FsstSymbolTable.SERIALIZED_SIZE));
            if (table.isCompressed()) {
                tables.add(table);
            }
        }
        assertThat(tables).isNotEmpty();
        // s_txt (utf8, u32 offsets) and lt (large_utf8, u64 offsets) hold ~60-byte sentences in FSST
        // mini-blocks. For Lance-built tables our greedy compressor emits Lance's exact codes, so the
        // first row's compressed form occurs in the file.
        assertThat(decodeFirstFsstChunk(file, rows, tables, "s_txt", 4)).isGreaterThanOrEqualTo(32);
        assertThat(decodeFirstFsstChunk(file, rows, tables, "lt", 8)).isGreaterThanOrEqualTo(32);
    }

    /** Finds and decodes the first chunk of an FSST column; returns the number of strings checked. */
    private static int decodeFirstFsstChunk(
            ByteBuffer file, JsonNode rows, List<FsstSymbolTable> tables, String column, int offsetWidth) {
        byte[] first = rows.get(0).get(column).asText().getBytes(StandardCharsets.UTF_8);
        byte[] compressed = new byte[FsstSymbolTable.maxCompressedLength(first.length)];
        for (FsstSymbolTable table : tables) {
            int n = table.compress(first, 0, first.length, compressed, 0);
            for (int stringsAt : LanceFixtureBytes.find(file, Arrays.copyOf(compressed, n))) {
                // The chunk's variable buffer: (k+1) offsets relative to the buffer start, then the strings.
                for (int k = 2; k <= 2048; k++) {
                    int bufferAt = stringsAt - offsetWidth * (k + 1);
                    if (bufferAt < 0) {
                        break;
                    }
                    long firstOffset = offsetWidth == 4 ? file.getInt(bufferAt) : file.getLong(bufferAt);
                    if (firstOffset != (long) offsetWidth * (k + 1)) {
                        continue;
                    }
                    byte[] out = new byte[8 * 4096];
                    for (int i = 0; i < k; i++) {
                        long start = offsetWidth == 4 ? file.getInt(bufferAt + 4 * i) : file.getLong(bufferAt + 8 * i);
                        long end = offsetWidth == 4
                                ? file.getInt(bufferAt + 4 * (i + 1))
                                : file.getLong(bufferAt + 8 * (i + 1));
                        int m = table.decompress(file, (int) (bufferAt + start), (int) (end - start), out, 0);
                        JsonNode expected = rows.get(i).get(column);
                        // Null slots are stored as zero-length strings.
                        assertThat(new String(out, 0, m, StandardCharsets.UTF_8))
                                .as("%s row %d", column, i)
                                .isEqualTo(expected.isNull() ? "" : expected.asText());
                    }
                    return k;
                }
            }
        }
        throw new AssertionError(
                "no FSST chunk of column " + column + " found: our compression of row 0 with the file's "
                        + tables.size() + " tables does not occur in the file");
    }

    @Test
    void lz4DictionaryUnitOfLanceDecodesToTheVariableBlock() {
        ByteBuffer file = LanceFixtureBytes.dataFile("v22_strings");
        // compression.md §3.8: [u32 81][LZ4 block] holding the §3.6 block of the 7 fruit names.
        int at = findUnique(file, LanceFixtureBytes.hex("51 00 00 00 62 20 00 00 00 28"));
        ByteBuffer expected = ByteBuffer.allocate(81)
                .order(ByteOrder.LITTLE_ENDIAN)
                .putInt(0, 32)
                .putInt(4, 40);
        int[] offsets = {0, 5, 11, 17, 23, 33, 36, 41};
        for (int i = 0; i < offsets.length; i++) {
            expected.putInt(8 + 4 * i, offsets[i]);
        }
        expected.put(40, "applebananacherrydurianelderberryfiggrape".getBytes(StandardCharsets.US_ASCII));
        // The unit's length is only known to the page metadata; exactly one length decodes cleanly.
        byte[] decoded = null;
        for (int len = 5; len < 120 && decoded == null; len++) {
            try {
                decoded = GeneralCompression.decompress(Scheme.LZ4, file, at, len);
            } catch (CompressedDataException notThisLength) {
                // truncated or overlong input: try the next length
            }
        }
        assertThat(decoded).isEqualTo(expected.array());
    }

    @Test
    void zstdPerValueUnitOfLanceDecodesToTheExpectedHugeString() {
        ByteBuffer file = LanceFixtureBytes.dataFile("v21_huge");
        JsonNode rows = LanceFixtureBytes.rows("v21_huge");
        // compression.md §3.9: full-zip item [u32 length][u64 33002][zstd frame].
        int at = findUnique(file, LanceFixtureBytes.hex("ea 80 00 00 00 00 00 00 28 b5 2f fd"));
        int length = file.getInt(at - 4);
        assertThat(GeneralCompression.decompressedLength(Scheme.ZSTD, file, at, length))
                .isEqualTo(33002);
        String text = new String(GeneralCompression.decompress(Scheme.ZSTD, file, at, length), StandardCharsets.UTF_8);
        boolean matchesARow = false;
        for (JsonNode row : rows) {
            matchesARow |= text.equals(row.get("h").asText());
        }
        assertThat(matchesARow)
                .as("decoded 33002-byte string equals one of the expected 'h' values")
                .isTrue();
    }

    @Test
    void zstdWrappedByteStreamSplitChunksOfLanceDecodeToTheExpectedFloats() {
        ByteBuffer file = LanceFixtureBytes.dataFile("v22_options");
        JsonNode rows = LanceFixtureBytes.rows("v22_options");
        // compression.md §3.10: 2.2 chunk "00 00 | u32 size | fe fe | u64 4096 | 28 b5 2f fd" = 1024 float32 or 512
        // float64.
        boolean floats = false;
        boolean doubles = false;
        for (int at :
                LanceFixtureBytes.find(file, LanceFixtureBytes.hex("fe fe 00 10 00 00 00 00 00 00 28 b5 2f fd"))) {
            int unit = at + 2;
            int size = file.getInt(at - 4);
            ByteBuffer planes = ByteBuffer.wrap(GeneralCompression.decompress(Scheme.ZSTD, file, unit, size));
            ByteBuffer as32 = ByteBuffer.allocate(4096).order(ByteOrder.LITTLE_ENDIAN);
            ByteStreamSplit.decode(32, planes, 0, 1024, as32, 0);
            ByteBuffer as64 = ByteBuffer.allocate(4096).order(ByteOrder.LITTLE_ENDIAN);
            ByteStreamSplit.decode(64, planes, 0, 512, as64, 0);
            boolean isFb = true;
            for (int i = 0; i < 1024 && isFb; i++) {
                isFb = as32.getFloat(4 * i) == (float) rows.get(i).get("fb").asDouble();
            }
            boolean isFz = true;
            for (int i = 0; i < 512 && isFz; i++) {
                isFz = as64.getDouble(8 * i) == rows.get(i).get("fz").asDouble();
            }
            floats |= isFb;
            doubles |= isFz;
        }
        assertThat(floats).as("a chunk decodes to fb rows 0..1023").isTrue();
        assertThat(doubles).as("a chunk decodes to fz rows 0..511").isTrue();
    }
}
