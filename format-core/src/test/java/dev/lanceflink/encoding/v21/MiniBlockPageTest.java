package dev.lanceflink.encoding.v21;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HexFormat;
import lance.encodings21.CompressiveEncoding;
import lance.encodings21.Flat;
import lance.encodings21.MiniBlockLayout;
import lance.encodings21.RepDefLayer;
import lance.encodings21.Variable;
import org.junit.jupiter.api.Test;

/** The byte recipes of file-format.md §8.6 (taken from real Lance output), decoded by hand-built pages. */
class MiniBlockPageTest {

    /** Page buffers held in memory. */
    record MemoryPage(byte[]... buffers) implements PageBufferSource {
        @Override
        public int bufferCount() {
            return buffers.length;
        }

        @Override
        public long bufferSize(int index) {
            return buffers[index].length;
        }

        @Override
        public ByteBuffer read(int index, long offset, int length) {
            return ByteBuffer.wrap(buffers[index], (int) offset, length).slice().order(ByteOrder.LITTLE_ENDIAN);
        }
    }

    private static byte[] hex(String s) {
        return HexFormat.of().parseHex(s.replace(" ", "").replace("|", ""));
    }

    private static CompressiveEncoding flat(int bits) {
        return CompressiveEncoding.newBuilder()
                .setFlat(Flat.newBuilder().setBitsPerValue(bits))
                .build();
    }

    @Test
    void int32NonNull() throws Exception {
        MiniBlockLayout layout = MiniBlockLayout.newBuilder()
                .setValueCompression(flat(32))
                .addLayers(RepDefLayer.REPDEF_ALL_VALID_ITEM)
                .setNumBuffers(1)
                .setNumItems(5)
                .build();
        byte[] meta = hex("3000");
        byte[] data = hex("0000 1400 fefefefe 00000000 01000000 02000000 03000000 04000000 fefefefe");
        MiniBlockPage page = new MiniBlockPage(layout, new MemoryPage(meta, data), 5, FixedWidthValues.builder(32, 8));
        LeafLevels levels = new LeafLevels(false, 8);
        FixedWidthValues values = FixedWidthValues.builder(32, 8);
        page.readRows(1, 4, levels, values);
        assertThat(values.count()).isEqualTo(3);
        assertThat(new long[] {values.u32(0), values.u32(1), values.u32(2)}).containsExactly(1, 2, 3);
        assertThat(levels.size()).isEqualTo(3);
        assertThat(levels.def()).startsWith((short) 0, (short) 0, (short) 0);
    }

    @Test
    void nullableUtf8() throws Exception {
        MiniBlockLayout layout = MiniBlockLayout.newBuilder()
                .setValueCompression(CompressiveEncoding.newBuilder()
                        .setVariable(Variable.newBuilder().setOffsets(flat(32))))
                .setDefCompression(flat(16))
                .addLayers(RepDefLayer.REPDEF_NULLABLE_ITEM)
                .setNumBuffers(1)
                .setNumItems(3)
                .build();
        byte[] meta = hex("4000");
        byte[] data =
                hex("0300 0600 1800 fefe 0000 0100 0000 fefe 10000000 12000000 12000000 15000000 6162636465 484848");
        MiniBlockPage page =
                new MiniBlockPage(layout, new MemoryPage(meta, data), 3, VariableWidthValues.builder(4, 16));
        LeafLevels levels = new LeafLevels(false, 8);
        VariableWidthValues values = VariableWidthValues.builder(4, 16);
        page.readRows(0, 3, levels, values);
        assertThat(values.count()).isEqualTo(3);
        assertThat(new String(values.data(), 0, (int) values.byteLength())).isEqualTo("abcde");
        assertThat(values.offsets()).startsWith(0, 2, 2, 5);
        assertThat(levels.def()).startsWith((short) 0, (short) 1, (short) 0);
    }

    @Test
    void chunkLargerThanTheDataBufferIsReported() {
        MiniBlockLayout layout = MiniBlockLayout.newBuilder()
                .setValueCompression(flat(32))
                .addLayers(RepDefLayer.REPDEF_ALL_VALID_ITEM)
                .setNumBuffers(1)
                .setNumItems(5)
                .build();
        assertThatThrownBy(() -> new MiniBlockPage(
                        layout, new MemoryPage(hex("f000"), new byte[32]), 5, FixedWidthValues.builder(32, 8)))
                .hasMessageContaining("the data buffer has 32");
    }
}
