package dev.lanceflink.file.writer;

import dev.lanceflink.file.FileVersion;
import java.util.List;
import lance.encodings21.ConstantLayout;
import lance.encodings21.PageLayout;
import lance.encodings21.RepDefLayer;

/**
 * Chooses and applies the structural layout (2.1 and 2.2) of one leaf page, in the order Lance
 * 7.0.0 decides (compression.md §4): pages without a single valid value become a
 * {@code constant_layout}; pages whose levels are far more numerous than their values, or whose
 * largest value is at least {@link FileWriterOptions#fullZipMinValueBytes()}, become full-zip;
 * the rest mini-block, whose chunk grammar depends on the file version (see
 * {@link MiniBlockEncoder}).
 *
 * <p>Integers (and other 8/16/32/64-bit values) in mini-block pages are bit-packed
 * ({@code inline_bitpacking}) when that is smaller, as Lance does; everything else is stored
 * plain ({@code flat}, {@code variable}, {@code fixed_size_list}), rep/def levels as raw u16
 * ({@code flat{16}}). Lance reads every such page.
 */
final class StructuralPageEncoder {
    private StructuralPageEncoder() {}

    /** @param version 2.1 or later; decides the mini-block chunk grammar */
    static EncodedPage encode(LeafPage page, FileWriterOptions options, FileVersion version) {
        RepDefLayer[] layers = page.layers();
        int[] map = page.defMapping();
        int maxDef = 0;
        for (int m : map) {
            maxDef = Math.max(maxDef, m);
        }
        int nl = page.numLevels();
        short[] def = null;
        if (maxDef > 0) {
            short[] raw = page.def.array();
            def = new short[nl];
            for (int i = 0; i < nl; i++) {
                def[i] = (short) map[raw[i]];
            }
        }
        if (page.numValid == 0) {
            return constant(page, def, layers);
        }
        boolean[] visibleRaw = new boolean[map.length];
        visibleRaw[0] = true;
        for (int code = 1; code < map.length; code++) {
            visibleRaw[code] = page.path.slotAt((code - 1) / 2);
        }
        int bits = (32 - Integer.numberOfLeadingZeros(page.path.maxRep)) + (32 - Integer.numberOfLeadingZeros(maxDef));
        boolean sparse = bits > 0 && (double) nl / page.numValues * 4096.0 > 131072.0 / bits;
        boolean large = page.maxValueBytes() >= options.fullZipMinValueBytes();
        // 2.2 readers refuse mini-block pages in the 2.1 (u16) chunk grammar.
        boolean largeChunks = version.compareTo(FileVersion.V2_2) >= 0;
        boolean strings = options.stringCompression() && page.leaf.kind() == WriterField.Kind.VARIABLE;
        if (strings && !sparse) {
            // Lance tries a dictionary before it looks at value sizes: dictionary pages are always mini-block.
            LeafPage dict = StringPageCompressor.dictionary(page, version);
            if (dict != null) {
                EncodedPage mini =
                        MiniBlockEncoder.encode(dict, def, visibleRaw, layers, options.bitPacking(), largeChunks);
                if (mini != null) {
                    return mini;
                }
            }
        }
        // FSST compresses the page's strings first; the layout is still chosen by the plain sizes.
        LeafPage values = strings ? StringPageCompressor.fsst(page) : null;
        if (values == null) {
            values = page;
        }
        if (!sparse && !large) {
            EncodedPage mini =
                    MiniBlockEncoder.encode(values, def, visibleRaw, layers, options.bitPacking(), largeChunks);
            if (mini != null) {
                return mini;
            }
        }
        return FullZipEncoder.encode(values, def, maxDef, visibleRaw, layers);
    }

    /**
     * All-null (or all-empty) page. A single nullable layer needs no buffers; otherwise the raw
     * u16 rep and def levels go into buffers 0 and 1 (an empty buffer means "none").
     */
    private static EncodedPage constant(LeafPage page, short[] def, RepDefLayer[] layers) {
        ConstantLayout.Builder layout = ConstantLayout.newBuilder();
        for (RepDefLayer layer : layers) {
            layout.addLayers(layer);
        }
        byte[] any = Encodings.any(
                Encodings.PAGE_LAYOUT_URL,
                PageLayout.newBuilder().setConstantLayout(layout).build());
        if (page.rep == null && layers.length == 1) {
            return new EncodedPage(List.of(), any, page.numRows);
        }
        int nl = page.numLevels();
        ByteBuilder repBuf = new ByteBuilder(page.rep == null ? 16 : 2 * nl);
        if (page.rep != null) {
            short[] rep = page.rep.array();
            for (int i = 0; i < nl; i++) {
                repBuf.putShort(rep[i]);
            }
        }
        ByteBuilder defBuf = new ByteBuilder(def == null ? 16 : 2 * nl);
        if (def != null) {
            for (int i = 0; i < nl; i++) {
                defBuf.putShort(def[i]);
            }
        }
        return new EncodedPage(List.of(repBuf, defBuf), any, page.numRows);
    }
}
