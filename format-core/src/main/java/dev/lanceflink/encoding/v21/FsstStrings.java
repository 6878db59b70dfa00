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

    static VariableWidthValues decode(ByteString symbolTable, VariableWidthValues compressed) {
        return decode(table(symbolTable), compressed);
    }

    static VariableWidthValues decode(FsstSymbolTable table, VariableWidthValues compressed) {
        int n = compressed.count();
        ByteBuffer src = ByteBuffer.wrap(compressed.data());
        long[] offsets = new long[n + 1];
        for (int i = 0; i < n; i++) {
            offsets[i + 1] = offsets[i] + table.decompressedLength(src, (int) compressed.start(i), compressed.length(i));
        }
        if (offsets[n] > Integer.MAX_VALUE - 16) {
            throw new EncodingException("FSST strings expand to more than 2 GiB in one chunk");
        }
        byte[] out = new byte[(int) offsets[n]];
        for (int i = 0; i < n; i++) {
            table.decompress(src, (int) compressed.start(i), compressed.length(i), out, (int) offsets[i]);
        }
        return VariableWidthValues.wrap(offsets, out, n);
    }
}
