package dev.lanceflink.file.writer;

import static dev.lanceflink.file.writer.WrittenFile.hex;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lanceflink.file.FileVersion;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import lance.encodings21.MiniBlockLayout;
import lance.encodings21.PageLayout;
import lance.encodings21.RepDefLayer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Byte-exact checks against the 2.1 page recipes of file-format.md §8.6 (taken from real Lance output). */
class StructuralRecipeTest {
    private final BufferAllocator allocator = new RootAllocator();

    @TempDir
    Path dir;

    @AfterEach
    void close() {
        allocator.close();
    }

    private WrittenFile write(VectorSchemaRoot root) throws Exception {
        try (root) {
            return WriterTestSupport.write(
                            dir, allocator, FileVersion.V2_1, FileWriterOptions.defaults(), List.of(root))
                    .parse();
        }
    }

    private static VectorSchemaRoot root(org.apache.arrow.vector.FieldVector... vectors) {
        VectorSchemaRoot r = VectorSchemaRoot.of(vectors);
        r.setRowCount(vectors[0].getValueCount());
        return r;
    }

    @Test
    void int32NonNull() throws Exception {
        IntVector v = new IntVector("id", FieldType.notNullable(new ArrowType.Int(32, true)), allocator);
        v.allocateNew(5);
        for (int i = 0; i < 5; i++) {
            v.set(i, i);
        }
        v.setValueCount(5);
        WrittenFile f = write(root(v));
        assertThat(f.major).isEqualTo(2);
        assertThat(f.minor).isEqualTo(1);
        assertThat(f.numColumns).isEqualTo(1);
        assertThat(f.descriptor.getLength()).isEqualTo(5);
        PageLayout layout = f.layout(0, 0);
        assertThat(layout)
                .isEqualTo(PageLayout.newBuilder()
                        .setMiniBlockLayout(MiniBlockLayout.newBuilder()
                                .setValueCompression(Encodings.flat(32))
                                .addLayers(RepDefLayer.REPDEF_ALL_VALID_ITEM)
                                .setNumBuffers(1)
                                .setNumItems(5))
                        .build());
        assertThat(f.page(0, 0).getLength()).isEqualTo(5);
        assertThat(f.buffer(0, 0, 0)).isEqualTo(hex("30 00"));
        assertThat(f.buffer(0, 0, 1))
                .isEqualTo(
                        hex("00 00 14 00 fe fe fe fe 00000000 01000000 02000000 03000000" + " 04000000 fe fe fe fe"));
    }

    /** compression.md §3.3 (verified against Lance 7.0.0): int32 {@code i % 13}, 1100 rows. */
    @Test
    void bitPackedInt32MatchesLance() throws Exception {
        IntVector v = new IntVector("n", FieldType.notNullable(new ArrowType.Int(32, true)), allocator);
        v.allocateNew(1100);
        for (int i = 0; i < 1100; i++) {
            v.set(i, i % 13);
        }
        v.setValueCount(1100);
        WrittenFile f = write(root(v));
        assertThat(f.encodingAny(0, 0).getValue().toByteArray())
                .isEqualTo(hex("0a 0e 1a 04 2a 02 08 20 32 01 01 38 01 48 cc 08"));
        assertThat(f.buffer(0, 0, 0)).isEqualTo(hex("1a 04 10 04"));
        byte[] data = f.buffer(0, 0, 1);
        assertThat(data).hasSize(2 * 528);
        assertThat(java.util.Arrays.copyOf(data, 16)).isEqualTo(hex("00 00 04 02 fe fe fe fe 04 00 00 00 b0 79 35 c1"));
        assertThat(java.util.Arrays.copyOfRange(data, 528, 536)).isEqualTo(hex("00 00 04 02 fe fe fe fe"));
    }

    /** compression.md §3.4 (verified against Lance 7.0.0): nullable int32, nulls at {@code i % 3 == 1}, 1100 rows. */
    @Test
    void bitPackedDefinitionLevelsMatchLance() throws Exception {
        IntVector v = new IntVector("n", FieldType.nullable(new ArrowType.Int(32, true)), allocator);
        v.allocateNew(1100);
        for (int i = 0; i < 1100; i++) {
            if (i % 3 == 1) {
                v.setNull(i);
            } else {
                v.set(i, i % 13);
            }
        }
        v.setValueCount(1100);
        WrittenFile f = write(root(v));
        MiniBlockLayout mb = f.layout(0, 0).getMiniBlockLayout();
        assertThat(mb.getDefCompression())
                .isEqualTo(lance.encodings21.CompressiveEncoding.newBuilder()
                        .setOutOfLineBitpacking(lance.encodings21.OutOfLineBitpacking.newBuilder()
                                .setUncompressedBitsPerValue(16)
                                .setValues(Encodings.flat(1)))
                        .build());
        assertThat(mb.getValueCompression().hasInlineBitpacking()).isTrue();
        byte[] data = f.buffer(0, 0, 1);
        assertThat(java.util.Arrays.copyOf(data, 14)).isEqualTo(hex("00 04 80 00 04 02 fe fe 24 49 49 92 92 24"));
        // chunk 1: 76 levels; the 76-level tail of the page-wide W=1 block is packed only if that is smaller.
        int chunk1 = 8 + 128 + 520; // header, def section, value unit (516) padded to 8
        assertThat(java.util.Arrays.copyOfRange(data, chunk1, chunk1 + 2)).isEqualTo(hex("4c 00"));
    }

    @Test
    void nullableDouble() throws Exception {
        Float8Vector v = new Float8Vector(
                "d", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), allocator);
        v.allocateNew(5);
        double[] vals = {0.25, 0.75, 1.25, 0, 2.25};
        for (int i = 0; i < 5; i++) {
            if (i == 3) {
                v.setNull(i);
            } else {
                v.set(i, vals[i]);
            }
        }
        v.setValueCount(5);
        WrittenFile f = write(root(v));
        MiniBlockLayout mb = f.layout(0, 0).getMiniBlockLayout();
        assertThat(mb.getDefCompression()).isEqualTo(Encodings.flat(16));
        assertThat(mb.hasRepCompression()).isFalse();
        assertThat(mb.getLayersList()).containsExactly(RepDefLayer.REPDEF_NULLABLE_ITEM);
        assertThat(mb.getValueCompression()).isEqualTo(Encodings.flat(64));
        assertThat(f.buffer(0, 0, 0)).isEqualTo(hex("70 00"));
        java.nio.ByteBuffer expected = java.nio.ByteBuffer.allocate(64).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        expected.put(hex("05 00 0a 00 28 00 fe fe 0000 0000 0000 0100 0000 fefefefefefe"));
        for (double d : vals) {
            expected.putDouble(d);
        }
        assertThat(f.buffer(0, 0, 1)).isEqualTo(expected.array());
    }

    @Test
    void utf8() throws Exception {
        VarCharVector v = new VarCharVector("name", FieldType.notNullable(ArrowType.Utf8.INSTANCE), allocator);
        v.allocateNew();
        for (int i = 0; i < 5; i++) {
            v.setSafe(i, ("name-" + i).getBytes(StandardCharsets.UTF_8));
        }
        v.setValueCount(5);
        WrittenFile f = write(root(v));
        MiniBlockLayout mb = f.layout(0, 0).getMiniBlockLayout();
        assertThat(mb.getValueCompression()).isEqualTo(Encodings.variable(32));
        assertThat(mb.getLayersList()).containsExactly(RepDefLayer.REPDEF_ALL_VALID_ITEM);
        assertThat(f.buffer(0, 0, 0)).isEqualTo(hex("70 00"));
        byte[] expected = concat(
                hex("00 00 38 00 fe fe fe fe 18000000 1e000000 24000000 2a000000 30000000 36000000"),
                "name-0name-1name-2name-3name-4".getBytes(StandardCharsets.US_ASCII),
                hex("48 48"));
        assertThat(f.buffer(0, 0, 1)).isEqualTo(expected);
    }

    @Test
    void nullableUtf8() throws Exception {
        VarCharVector v = new VarCharVector("s", FieldType.nullable(ArrowType.Utf8.INSTANCE), allocator);
        v.allocateNew();
        v.setSafe(0, "ab".getBytes(StandardCharsets.UTF_8));
        v.setNull(1);
        v.setSafe(2, "cde".getBytes(StandardCharsets.UTF_8));
        v.setValueCount(3);
        WrittenFile f = write(root(v));
        MiniBlockLayout mb = f.layout(0, 0).getMiniBlockLayout();
        assertThat(mb.getLayersList()).containsExactly(RepDefLayer.REPDEF_NULLABLE_ITEM);
        assertThat(mb.getDefCompression()).isEqualTo(Encodings.flat(16));
        assertThat(f.buffer(0, 0, 0)).isEqualTo(hex("40 00"));
        byte[] expected = concat(
                hex("03 00 06 00 18 00 fe fe 00 00 01 00 00 00 fe fe 10000000 12000000 12000000 15000000"),
                "abcde".getBytes(StandardCharsets.US_ASCII),
                hex("48 48 48"));
        assertThat(f.buffer(0, 0, 1)).isEqualTo(expected);
    }

    @Test
    void fixedSizeListOfFourFloats() throws Exception {
        FixedSizeListVector v = fsl("e", 4, 5, false);
        WrittenFile f = write(root(v));
        MiniBlockLayout mb = f.layout(0, 0).getMiniBlockLayout();
        assertThat(mb.getValueCompression()).isEqualTo(Encodings.fixedSizeList(4, 32, false));
        assertThat(mb.getLayersList()).containsExactly(RepDefLayer.REPDEF_ALL_VALID_ITEM);
        assertThat(f.buffer(0, 0, 0)).isEqualTo(hex("a0 00"));
        java.nio.ByteBuffer expected = java.nio.ByteBuffer.allocate(88).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        expected.put(hex("00 00 50 00 fe fe fe fe"));
        for (int i = 0; i < 20; i++) {
            expected.putFloat(i * 0.5f);
        }
        assertThat(f.buffer(0, 0, 1)).isEqualTo(expected.array());
    }

    @Test
    void wideVectorsUseFullZip() throws Exception {
        FixedSizeListVector v = fsl("v", 128, 3, false);
        WrittenFile f = write(root(v));
        PageLayout layout = f.layout(0, 0);
        assertThat(layout.getFullZipLayout())
                .isEqualTo(lance.encodings21.FullZipLayout.newBuilder()
                        .setBitsPerValue(4096)
                        .setNumItems(3)
                        .setNumVisibleItems(3)
                        .setValueCompression(Encodings.fixedSizeList(128, 32, false))
                        .addLayers(RepDefLayer.REPDEF_ALL_VALID_ITEM)
                        .build());
        assertThat(f.page(0, 0).getBufferSizesList()).containsExactly(3L * 512);
        java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(f.buffer(0, 0, 0)).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        assertThat(b.getFloat(4 * 200)).isEqualTo(100f);
    }

    @Test
    void wideVectorsWithNullRowsCarryControlBytes() throws Exception {
        FixedSizeListVector v = fsl("v", 128, 3, true);
        WrittenFile f = write(root(v));
        lance.encodings21.FullZipLayout fz = f.layout(0, 0).getFullZipLayout();
        assertThat(fz.getBitsDef()).isEqualTo(1);
        assertThat(fz.getLayersList()).containsExactly(RepDefLayer.REPDEF_NULLABLE_ITEM);
        byte[] data = f.buffer(0, 0, 0);
        assertThat(data).hasSize(3 * 513);
        assertThat(data[0]).isEqualTo((byte) 0);
        assertThat(data[513]).isEqualTo((byte) 1);
        assertThat(data[1026]).isEqualTo((byte) 0);
    }

    @Test
    void allNullColumnIsConstantWithoutBuffers() throws Exception {
        IntVector v = new IntVector("n", FieldType.nullable(new ArrowType.Int(32, true)), allocator);
        v.allocateNew(4);
        v.setValueCount(4);
        WrittenFile f = write(root(v));
        assertThat(f.layout(0, 0))
                .isEqualTo(PageLayout.newBuilder()
                        .setConstantLayout(lance.encodings21.ConstantLayout.newBuilder()
                                .addLayers(RepDefLayer.REPDEF_NULLABLE_ITEM))
                        .build());
        assertThat(f.page(0, 0).getBufferOffsetsCount()).isZero();
        assertThat(f.page(0, 0).getLength()).isEqualTo(4);
    }

    @Test
    void containerLayoutMatchesLance() throws Exception {
        IntVector v = new IntVector("id", FieldType.notNullable(new ArrowType.Int(32, true)), allocator);
        v.allocateNew(5);
        for (int i = 0; i < 5; i++) {
            v.set(i, i);
        }
        v.setValueCount(5);
        WrittenFile f = write(root(v));
        // meta (2 bytes) and data (32 bytes) each padded to 64 with 'H'.
        assertThat(f.page(0, 0).getBufferOffsetsList()).containsExactly(0L, 64L);
        assertThat(f.bytes[2]).isEqualTo((byte) 0x48);
        assertThat(f.bytes[127]).isEqualTo((byte) 0x48);
        assertThat(f.descriptorPos).isEqualTo(128);
        assertThat(f.numGlobalBuffers).isEqualTo(1);
        assertThat(f.columnMetaStart).isGreaterThan(f.descriptorPos);
        assertThat(f.gboStart).isEqualTo(f.cmoStart + 16);
        assertThat(f.bytes.length).isEqualTo(f.gboStart + 16 + 40);
        assertThat(f.columns.get(0).getEncoding().getDirect().getEncoding().toByteArray())
                .isEqualTo(concat(
                        hex("0a 1f"),
                        "/lance.encodings.ColumnEncoding".getBytes(StandardCharsets.US_ASCII),
                        hex("12 02 0a 00")));
        assertThat(f.descriptor.getSchema().getFields(0).getName()).isEqualTo("id");
        assertThat(f.descriptor.getSchema().getFields(0).getParentId()).isEqualTo(-1);
    }

    private FixedSizeListVector fsl(String name, int dim, int rows, boolean nullRows) {
        FixedSizeListVector v = FixedSizeListVector.empty(name, dim, allocator);
        if (!nullRows) {
            v = new FixedSizeListVector(name, allocator, FieldType.notNullable(new ArrowType.FixedSizeList(dim)), null);
        }
        Float4Vector items = (Float4Vector)
                v.addOrGetVector(FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)))
                        .getVector();
        v.allocateNew();
        items.allocateNew(dim * rows);
        for (int r = 0; r < rows; r++) {
            if (nullRows && r == 1) {
                v.setNull(r);
            } else {
                v.setNotNull(r);
            }
            for (int k = 0; k < dim; k++) {
                items.set(r * dim + k, (r * dim + k) * 0.5f);
            }
        }
        items.setValueCount(dim * rows);
        v.setValueCount(rows);
        return v;
    }

    static byte[] concat(byte[]... parts) {
        int n = 0;
        for (byte[] p : parts) {
            n += p.length;
        }
        byte[] out = new byte[n];
        int o = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, out, o, p.length);
            o += p.length;
        }
        return out;
    }
}
