package dev.lanceflink.file.writer;

import java.util.List;
import lance.encodings21.CompressiveEncoding;
import lance.encodings21.FullZipLayout;
import lance.encodings21.PageLayout;
import lance.encodings21.RepDefLayer;

/**
 * Encodes a page as a 2.1 full-zip layout (file-format.md §8.4), used for large values (wide
 * vectors, long strings) and for pages whose levels are too sparse for mini-block chunks.
 *
 * <p>Per level entry: a control word {@code rep << bits_def | def} (1, 2 or 4 bytes; absent
 * without levels), then for entries with a value slot: fixed width: the value bytes (also for
 * null slots); variable width: {@code [length][bytes]} for valid values only. A repetition index
 * of {@code rows + 1} byte offsets follows when there are lists or the values are variable width.
 */
final class FullZipEncoder {
    private FullZipEncoder() {}

    private static boolean allVisible(short[] raw, int n, boolean[] visibleRaw) {
        for (int i = 0; i < n; i++) {
            if (!visibleRaw[raw[i]]) {
                return false;
            }
        }
        return true;
    }

    static EncodedPage encode(LeafPage page, short[] def, int maxDef, boolean[] visibleRaw, RepDefLayer[] layers) {
        WriterField leaf = page.leaf;
        short[] rep = page.rep == null ? null : page.rep.array();
        short[] raw = page.def.array();
        int maxRep = page.path.maxRep;
        int bitsRep = 32 - Integer.numberOfLeadingZeros(maxRep);
        int bitsDef = 32 - Integer.numberOfLeadingZeros(maxDef);
        int ctrlBits = bitsRep + bitsDef;
        int ctrlWidth = ctrlBits == 0 ? 0 : ctrlBits <= 8 ? 1 : ctrlBits <= 16 ? 2 : 4;
        boolean variable = leaf.kind() == WriterField.Kind.VARIABLE;
        boolean fslValidity = leaf.kind() == WriterField.Kind.FSL && page.anyItemNull;
        int lengthWidth = variable ? leaf.byteWidth() : 0;
        int validityBytes = fslValidity ? (leaf.dimension() + 7) / 8 : 0;
        long valueBytes = switch (leaf.kind()) {
            case BOOL -> 1; // widened to one byte per value
            case FIXED -> leaf.byteWidth();
            case FSL -> validityBytes + (long) leaf.dimension() * leaf.byteWidth();
            default -> 0;
        };
        int nl = page.numLevels();
        boolean hasRepIndex = rep != null || variable;
        long[] rowStarts = hasRepIndex ? new long[(int) page.numRows + 1] : null;

        ByteBuilder zipped;
        int row = 0;
        if (ctrlWidth == 0
                && !hasRepIndex
                && (leaf.kind() == WriterField.Kind.FIXED || leaf.kind() == WriterField.Kind.FSL)
                && !fslValidity
                && page.fixed.size() == nl * valueBytes
                && allVisible(raw, nl, visibleRaw)) {
            // Without levels every entry is just its value's bytes, in order: the zipped page is
            // the page's value buffer as it is (a wide vector column's pages when no vector is
            // NULL), written without copying it first. The page is written out before the
            // buffer takes new rows (see EncodedPage).
            zipped = page.fixed;
        } else {
            zipped = page.encodeBuffer(page.estimatedBytes() + (long) nl * (ctrlWidth + lengthWidth) + 64);
            int slot = 0;
            for (int i = 0; i < nl; i++) {
                if (rowStarts != null && (rep == null || rep[i] == maxRep)) {
                    rowStarts[row++] = zipped.size();
                }
                int d = def == null ? 0 : def[i];
                if (ctrlWidth > 0) {
                    int r = rep == null ? 0 : rep[i];
                    zipped.putUnsigned(((long) r << bitsDef) | d, ctrlWidth);
                }
                if (!visibleRaw[raw[i]]) {
                    continue;
                }
                switch (leaf.kind()) {
                    case BOOL -> zipped.put(page.bools.get(slot) ? 1 : 0);
                    case FIXED -> zipped.putBytes(page.fixed.array(), slot * leaf.byteWidth(), leaf.byteWidth());
                    case FSL -> {
                        int dim = leaf.dimension();
                        if (fslValidity) {
                            page.itemValidity.copyTo(zipped, (long) slot * dim, dim);
                        }
                        int rowBytes = dim * leaf.byteWidth();
                        zipped.putBytes(page.fixed.array(), slot * rowBytes, rowBytes);
                    }
                    case VARIABLE -> {
                        if (raw[i] == 0) {
                            long start = page.varStart(slot);
                            long len = page.ends.get(slot) - start;
                            zipped.putUnsigned(len, lengthWidth);
                            zipped.putBytes(page.fixed.array(), (int) start, (int) len);
                        }
                    }
                    default -> throw new IllegalStateException(leaf.kind().name());
                }
                slot++;
            }
        }
        CompressiveEncoding values = switch (leaf.kind()) {
            case BOOL -> Encodings.flat(8);
            case FIXED -> Encodings.flat(leaf.bitsPerValue());
            case FSL -> Encodings.fixedSizeList(leaf.dimension(), leaf.byteWidth() * 8L, fslValidity);
            case VARIABLE ->
                page.fsstSymbolTable != null
                        ? StringPageCompressor.fsstEncoding(page.fsstSymbolTable, leaf.byteWidth() * 8)
                        : Encodings.variable(leaf.byteWidth() * 8);
            default -> throw new IllegalStateException(leaf.kind().name());
        };
        FullZipLayout.Builder layout = FullZipLayout.newBuilder()
                .setBitsRep(bitsRep)
                .setBitsDef(bitsDef)
                .setNumItems(nl)
                .setNumVisibleItems(page.numValues)
                .setValueCompression(values);
        if (variable) {
            layout.setBitsPerOffset(lengthWidth * 8);
        } else {
            layout.setBitsPerValue((int) (valueBytes * 8));
        }
        for (RepDefLayer layer : layers) {
            layout.addLayers(layer);
        }
        byte[] any = Encodings.any(
                Encodings.PAGE_LAYOUT_URL,
                PageLayout.newBuilder().setFullZipLayout(layout).build());
        if (!hasRepIndex) {
            return new EncodedPage(List.of(zipped), any, page.numRows);
        }
        rowStarts[row] = zipped.size();
        // Lance sizes the index entries by an upper bound of the zipped length, which for variable
        // width counts a length prefix for every value slot (null ones included); readers infer
        // the width from the buffer size, but matching it keeps the bytes identical to Lance's.
        long bound = variable
                ? page.fixed.size() + (long) ctrlWidth * nl + (long) lengthWidth * page.numValues
                : zipped.size();
        int width = bound <= 0xFF ? 1 : bound <= 0xFFFF ? 2 : bound <= 0xFFFFFFFFL ? 4 : 8;
        ByteBuilder index = new ByteBuilder((row + 1) * width);
        for (int r = 0; r <= row; r++) {
            index.putUnsigned(rowStarts[r], width);
        }
        return new EncodedPage(List.of(zipped, index), any, page.numRows);
    }
}
