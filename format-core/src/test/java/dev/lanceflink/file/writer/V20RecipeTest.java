package dev.lanceflink.file.writer;

import static dev.lanceflink.file.writer.WrittenFile.hex;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lanceflink.file.FileVersion;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import lance.encodings.ArrayEncoding;
import lance.encodings.Binary;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Byte-exact checks against the 2.0 recipes of file-format.md §7.2. */
class V20RecipeTest {
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
                            dir, allocator, FileVersion.V2_0, FileWriterOptions.defaults(), List.of(root))
                    .parse();
        }
    }

    @Test
    void binaryWithNullsUsesNullAdjustment() throws Exception {
        VarBinaryVector v = new VarBinaryVector("b", FieldType.nullable(ArrowType.Binary.INSTANCE), allocator);
        v.allocateNew();
        v.setNull(0);
        v.setSafe(1, "foo".getBytes(StandardCharsets.US_ASCII));
        v.setSafe(2, "foo".getBytes(StandardCharsets.US_ASCII));
        v.setNull(3);
        v.setNull(4);
        v.setNull(5);
        v.setValueCount(6);
        VectorSchemaRoot root = VectorSchemaRoot.of(v);
        root.setRowCount(6);
        WrittenFile f = write(root);
        assertThat(f.arrayEncoding(0, 0))
                .isEqualTo(ArrayEncoding.newBuilder()
                        .setBinary(Binary.newBuilder()
                                .setIndices(Encodings.noNull(Encodings.flat20(64, 0)))
                                .setBytes(Encodings.flat20(8, 1))
                                .setNullAdjustment(7))
                        .build());
        assertThat(longs(f.buffer(0, 0, 0))).containsExactly(7, 3, 6, 13, 13, 13);
        assertThat(f.buffer(0, 0, 1)).isEqualTo("foofoo".getBytes(StandardCharsets.US_ASCII));
    }

    @Test
    void largeListPagesFollowTheListRecipe() throws Exception {
        LargeListVector v = LargeListVector.empty("l", allocator);
        IntVector items = (IntVector) v.addOrGetVector(FieldType.nullable(new ArrowType.Int(32, true)))
                .getVector();
        v.allocateNew();
        int[][] rows = {{1, 2}, null, {}, {3}};
        int item = 0;
        for (int r = 0; r < rows.length; r++) {
            v.startNewValue(r);
            int len = rows[r] == null ? 0 : rows[r].length;
            for (int k = 0; k < len; k++) {
                items.setSafe(item++, rows[r][k]);
            }
            v.endValue(r, len);
            if (rows[r] == null) {
                v.setNull(r);
            }
        }
        items.setValueCount(item);
        v.setValueCount(rows.length);
        VectorSchemaRoot root = VectorSchemaRoot.of(v);
        root.setRowCount(rows.length);
        WrittenFile f = write(root);
        assertThat(f.numColumns).isEqualTo(2);
        lance.encodings.List list = f.arrayEncoding(0, 0).getList();
        assertThat(list.getNumItems()).isEqualTo(3);
        assertThat(list.getNullOffsetAdjustment()).isEqualTo(4);
        assertThat(list.getOffsets()).isEqualTo(Encodings.noNull(Encodings.flat20(64, 0)));
        assertThat(longs(f.buffer(0, 0, 0))).containsExactly(2, 6, 2, 3);
        assertThat(f.arrayEncoding(1, 0)).isEqualTo(Encodings.noNull(Encodings.flat20(32, 0)));
        assertThat(f.buffer(1, 0, 0)).isEqualTo(hex("01000000 02000000 03000000"));
        assertThat(f.page(1, 0).getLength()).isEqualTo(3);
    }

    private static long[] longs(byte[] b) {
        ByteBuffer bb = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        long[] out = new long[b.length / 8];
        for (int i = 0; i < out.length; i++) {
            out[i] = bb.getLong();
        }
        return out;
    }
}
