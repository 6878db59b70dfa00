package dev.lanceflink.encoding.v21;

import com.google.protobuf.ByteString;
import dev.lanceflink.encoding.compression.FsstSymbolTable;
import java.nio.ByteBuffer;

/**
 * Expands FSST-compressed strings (compression.md §3.7) of a chunk or a full-zip value run with
 * the page's symbol table. Two passes (lengths, then bytes) so the output is allocated once.
 */
final class FsstStrings {
    private FsstStrings() {}

    static FsstSymbolTable table(ByteString symbolTable) {
        return FsstSymbolTable.parse(symbolTable.asReadOnlyByteBuffer(), 0, symbolTable.size());
    }

    /**
     * Remembers the last parsed symbol table: every chunk of a page names the same table (the same
     * {@code ByteString} instance of the page's layout), and parsing it per chunk cost more than
     * expanding a chunk's strings. One instance per page; not thread-safe, like the page.
     */
    static final class Tables {
        private ByteString lastBytes;
        private FsstSymbolTable lastTable;

        FsstSymbolTable of(ByteString symbolTable) {
            if (symbolTable != lastBytes) {
                lastTable = table(symbolTable);
                lastBytes = symbolTable;
            }
            return lastTable;
        }
    }

    /**
     * Output slack that lets {@link FsstSymbolTable#decompress} store every symbol as one 8-byte
     * word (its fast path) up to this many compressed bytes per chunk (mini-block chunks are far
     * smaller; the 8x output array then stays well below G1's humongous size); larger inputs are
     * sized exactly by a first pass instead.
     */
    private static final int SINGLE_PASS_LIMIT = 64 * 1024;

    static VariableWidthValues decode(FsstSymbolTable table, VariableWidthValues compressed) {
        int n = compressed.count();
        ByteBuffer src = ByteBuffer.wrap(compressed.data());
        long[] offsets = new long[n + 1];
        long compressedBytes = compressed.byteLength();
        if (compressedBytes <= SINGLE_PASS_LIMIT) {
            // One pass: a symbol expands to at most 8 bytes, so 8 bytes per compressed byte (plus
            // one word) always fit, and every string is decoded on the word-at-a-time path.
            byte[] out = new byte[(int) (8 * compressedBytes + 8)];
            for (int i = 0; i < n; i++) {
                offsets[i + 1] = offsets[i]
                        + table.decompress(src, (int) compressed.start(i), compressed.length(i), out, (int) offsets[i]);
            }
            return VariableWidthValues.wrap(offsets, out, n);
        }
        int longest = 0;
        for (int i = 0; i < n; i++) {
            offsets[i + 1] =
                    offsets[i] + table.decompressedLength(src, (int) compressed.start(i), compressed.length(i));
            longest = Math.max(longest, compressed.length(i));
        }
        // Slack of 8 bytes per byte of the longest string keeps every string on the fast path.
        if (offsets[n] + 8L * longest + 8 > Integer.MAX_VALUE - 16) {
            throw new EncodingException("FSST strings expand to more than 2 GiB in one chunk");
        }
        byte[] out = new byte[(int) (offsets[n] + 8L * longest + 8)];
        for (int i = 0; i < n; i++) {
            table.decompress(src, (int) compressed.start(i), compressed.length(i), out, (int) offsets[i]);
        }
        return VariableWidthValues.wrap(offsets, out, n);
    }
}
