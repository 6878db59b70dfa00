package dev.lanceflink.file.writer;

import static dev.lanceflink.file.writer.WrittenFile.hex;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lanceflink.file.FileVersion;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.List;
import lance.encodings21.FullZipLayout;
import lance.encodings21.RepDefLayer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Byte layout of full-zip pages with levels (file-format.md §8.4): control words, value bytes
 * for every visible fixed-width item (null ones included, as Lance's zipper consumes one value
 * slot per visible control word), length-prefixed valid variable-width items only, and the
 * repetition index of row start offsets.
 */
class FullZipLayoutTest {
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
                            dir,
                            allocator,
                            FileVersion.V2_1,
                            FileWriterOptions.defaults().withFullZipMinValueBytes(1),
                            List.of(root))
                    .parse();
        }
    }

    /** rows: [[7, null], null, [], [9]] */
    @Test
    void listOfNullableInt32() throws Exception {
        ListVector v = ListVector.empty("l", allocator);
        IntVector items = (IntVector) v.addOrGetVector(FieldType.nullable(new ArrowType.Int(32, true)))
                .getVector();
        v.allocateNew();
        v.startNewValue(0);
        items.setSafe(0, 7);
        items.setNull(1);
        v.endValue(0, 2);
        v.startNewValue(1);
        v.endValue(1, 0);
        v.setNull(1);
        v.startNewValue(2);
        v.endValue(2, 0);
        v.startNewValue(3);
        items.setSafe(2, 9);
        v.endValue(3, 1);
        items.setValueCount(3);
        v.setValueCount(4);
        VectorSchemaRoot root = VectorSchemaRoot.of(v);
        root.setRowCount(4);
        WrittenFile f = write(root);
        FullZipLayout fz = f.layout(0, 0).getFullZipLayout();
        // layers: item nullable (def 1), list null (2) and empty (3): 2 def bits, 1 rep bit.
        assertThat(fz.getLayersList())
                .containsExactly(RepDefLayer.REPDEF_NULLABLE_ITEM, RepDefLayer.REPDEF_NULL_AND_EMPTY_LIST);
        assertThat(fz.getBitsRep()).isEqualTo(1);
        assertThat(fz.getBitsDef()).isEqualTo(2);
        assertThat(fz.getBitsPerValue()).isEqualTo(32);
        assertThat(fz.getNumItems()).isEqualTo(5);
        assertThat(fz.getNumVisibleItems()).isEqualTo(3);
        assertThat(f.buffer(0, 0, 0))
                .isEqualTo(hex(
                        "04 07000000" // rep 1 def 0: 7
                                + " 01 00000000" // rep 0 def 1: null item, placeholder bytes
                                + " 06" // rep 1 def 2: null list
                                + " 07" // rep 1 def 3: empty list
                                + " 04 09000000")); // rep 1 def 0: 9
        assertThat(f.buffer(0, 0, 1)).isEqualTo(hex("00 0a 0b 0c 11"));
    }

    /** rows: ["ab", null, "c"] forced to full-zip. */
    @Test
    void nullableStrings() throws Exception {
        VarCharVector v = new VarCharVector("s", FieldType.nullable(ArrowType.Utf8.INSTANCE), allocator);
        v.allocateNew();
        v.setSafe(0, new byte[] {'a', 'b'});
        v.setNull(1);
        v.setSafe(2, new byte[] {'c'});
        v.setValueCount(3);
        VectorSchemaRoot root = VectorSchemaRoot.of(v);
        root.setRowCount(3);
        WrittenFile f = write(root);
        FullZipLayout fz = f.layout(0, 0).getFullZipLayout();
        assertThat(fz.getBitsPerOffset()).isEqualTo(32);
        assertThat(fz.getBitsDef()).isEqualTo(1);
        assertThat(fz.getValueCompression()).isEqualTo(Encodings.variable(32));
        assertThat(f.buffer(0, 0, 0)).isEqualTo(hex("00 02000000 6162 01 00 01000000 63"));
        assertThat(f.buffer(0, 0, 1)).isEqualTo(hex("00 07 08 0e"));
    }

    /** A nullable vector column of {@code rows} 2-d vectors (item r*10 + k), NULL where {@code nulls} says. */
    private VectorSchemaRoot vectors(int rows, boolean... nulls) {
        FixedSizeListVector v = FixedSizeListVector.empty("vec", 2, allocator);
        Float4Vector items = (Float4Vector)
                v.addOrGetVector(FieldType.notNullable(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)))
                        .getVector();
        v.allocateNew();
        for (int r = 0; r < rows; r++) {
            items.setSafe(2 * r, r * 10f);
            items.setSafe(2 * r + 1, r * 10f + 1);
            if (r < nulls.length && nulls[r]) {
                v.setNull(r);
            } else {
                v.setNotNull(r);
            }
        }
        items.setValueCount(2 * rows);
        v.setValueCount(rows);
        VectorSchemaRoot root = VectorSchemaRoot.of(v);
        root.setRowCount(rows);
        return root;
    }

    private static byte[] floats(int fromRow, int toRow) {
        ByteBuffer b = ByteBuffer.allocate((toRow - fromRow) * 8).order(ByteOrder.LITTLE_ENDIAN);
        for (int r = fromRow; r < toRow; r++) {
            b.putFloat(r * 10f).putFloat(r * 10f + 1);
        }
        return b.array();
    }

    /**
     * Without NULL vectors a page has no levels, and its zipped buffer is the page's values as
     * they are (written without a copy): page after page, also when pages are cut inside batches.
     */
    @Test
    void vectorsWithoutNullsAreTheirValuesPageByPage() throws Exception {
        try (VectorSchemaRoot root = vectors(10)) {
            WrittenFile f = WriterTestSupport.write(
                            dir,
                            allocator,
                            FileVersion.V2_1,
                            FileWriterOptions.defaults()
                                    .withFullZipMinValueBytes(1)
                                    .withTargetPageBytes(32)
                                    .withRowsPerSlice(4),
                            List.of(root))
                    .parse();
            int row = 0;
            for (int page = 0; page < 3; page++) {
                FullZipLayout fz = f.layout(0, page).getFullZipLayout();
                int rows = (int) f.page(0, page).getLength();
                assertThat(fz.getBitsDef()).isZero();
                assertThat(fz.getBitsRep()).isZero();
                assertThat(fz.getBitsPerValue()).isEqualTo(64);
                assertThat(f.page(0, page).getBufferSizesCount()).isEqualTo(1); // no repetition index
                assertThat(f.buffer(0, page, 0)).isEqualTo(floats(row, row + rows));
                row += rows;
            }
            assertThat(row).isEqualTo(10);
        }
    }

    /** A NULL vector gives the page a def level: a control byte per row, placeholder bytes for the NULL. */
    @Test
    void aNullVectorZipsControlBytesWithTheValues() throws Exception {
        WrittenFile f = write(vectors(3, false, true, false));
        FullZipLayout fz = f.layout(0, 0).getFullZipLayout();
        assertThat(fz.getBitsDef()).isEqualTo(1);
        byte[] values = floats(0, 3);
        ByteBuffer expected = ByteBuffer.allocate(3 * 9);
        for (int r = 0; r < 3; r++) {
            expected.put((byte) (r == 1 ? 1 : 0)).put(values, 8 * r, 8);
        }
        assertThat(f.buffer(0, 0, 0)).isEqualTo(expected.array());
    }
}
