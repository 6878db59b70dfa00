package dev.lanceflink.encoding.v21;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Any;
import java.util.HexFormat;
import lance.encodings21.CompressiveEncoding;
import lance.encodings21.ConstantLayout;
import lance.encodings21.Flat;
import lance.encodings21.MiniBlockLayout;
import lance.encodings21.PageLayout;
import lance.encodings21.RepDefLayer;
import org.junit.jupiter.api.Test;

/** Reads across page boundaries, with pages whose rep/def layers differ (nulls in only some pages). */
class StructuralColumnReaderTest {

    private static byte[] hex(String s) {
        return HexFormat.of().parseHex(s.replace(" ", ""));
    }

    private static CompressiveEncoding flat(int bits) {
        return CompressiveEncoding.newBuilder()
                .setFlat(Flat.newBuilder().setBitsPerValue(bits))
                .build();
    }

    private static Any any(PageLayout l) {
        return Any.newBuilder()
                .setTypeUrl("/lance.encodings21.PageLayout")
                .setValue(l.toByteString())
                .build();
    }

    /** Page 0: int32 [0..4] without nulls; page 1: all null (constant layout); page 2: [10, null, 12]. */
    private static StructuralColumnReader threePages() {
        PageLayout p0 = PageLayout.newBuilder()
                .setMiniBlockLayout(MiniBlockLayout.newBuilder()
                        .setValueCompression(flat(32))
                        .addLayers(RepDefLayer.REPDEF_ALL_VALID_ITEM)
                        .setNumBuffers(1)
                        .setNumItems(5))
                .build();
        PageLayout p1 = PageLayout.newBuilder()
                .setConstantLayout(ConstantLayout.newBuilder().addLayers(RepDefLayer.REPDEF_NULLABLE_ITEM))
                .build();
        PageLayout p2 = PageLayout.newBuilder()
                .setMiniBlockLayout(MiniBlockLayout.newBuilder()
                        .setValueCompression(flat(32))
                        .setDefCompression(flat(16))
                        .addLayers(RepDefLayer.REPDEF_NULLABLE_ITEM)
                        .setNumBuffers(1)
                        .setNumItems(3))
                .build();
        MiniBlockPageTest.MemoryPage b0 = new MiniBlockPageTest.MemoryPage(
                hex("3000"), hex("0000 1400 fefefefe 00000000 01000000 02000000 03000000 04000000 fefefefe"));
        MiniBlockPageTest.MemoryPage b1 = new MiniBlockPageTest.MemoryPage();
        MiniBlockPageTest.MemoryPage b2 = new MiniBlockPageTest.MemoryPage(
                hex("3000"), hex("0300 0600 0c00 fefe 0000 0100 0000 fefe 0a000000 00000000 0c000000 fefefefe"));
        MiniBlockPageTest.MemoryPage[] buffers = {b0, b1, b2};
        return new StructuralColumnReader(
                new long[] {0, 5, 7},
                new long[] {5, 2, 3},
                new Any[] {any(p0), any(p1), any(p2)},
                p -> buffers[p],
                FixedWidthValues.builder(32, 8),
                false,
                "column 0");
    }

    @Test
    void rangeAcrossThreePages() throws Exception {
        StructuralColumnReader r = threePages();
        assertThat(r.numRows()).isEqualTo(10);
        LeafLevels levels = r.newLevels(4);
        FixedWidthValues values = (FixedWidthValues) r.newValues();
        r.readRange(3, 10, levels, values);
        assertThat(values.count()).isEqualTo(7);
        assertThat(levels.size()).isEqualTo(7);
        NestedStructure s = NestedStructure.assemble(levels, new boolean[] {false});
        boolean[] valid = new boolean[7];
        for (int i = 0; i < 7; i++) {
            valid[i] = s.valid(0, i);
        }
        assertThat(valid).containsExactly(true, true, false, false, true, false, true);
        assertThat(new long[] {values.u32(0), values.u32(1), values.u32(4), values.u32(6)})
                .containsExactly(3, 4, 10, 12);
    }

    @Test
    void takeSkipsAndRepeats() throws Exception {
        StructuralColumnReader r = threePages();
        LeafLevels levels = r.newLevels(4);
        FixedWidthValues values = (FixedWidthValues) r.newValues();
        r.take(new long[] {0, 4, 4, 9}, levels, values);
        assertThat(new long[] {values.u32(0), values.u32(1), values.u32(2), values.u32(3)})
                .containsExactly(0, 4, 4, 12);
        assertThatThrownBy(() -> r.take(new long[] {3, 2}, r.newLevels(4), r.newValues()))
                .hasMessageContaining("must be ascending");
    }

    @Test
    void emptyRangeAndOutOfRange() throws Exception {
        StructuralColumnReader r = threePages();
        LeafLevels levels = r.newLevels(4);
        Values values = r.newValues();
        r.readRange(10, 10, levels, values);
        assertThat(values.count()).isZero();
        assertThatThrownBy(() -> r.readRange(0, 11, levels, values)).isInstanceOf(IndexOutOfBoundsException.class);
    }
}
