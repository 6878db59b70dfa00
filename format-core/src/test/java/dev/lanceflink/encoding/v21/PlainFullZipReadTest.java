package dev.lanceflink.encoding.v21;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Any;
import dev.lanceflink.schema.LanceField;
import dev.lanceflink.schema.LanceSchema;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import lance.encodings21.CompressiveEncoding;
import lance.encodings21.FixedSizeList;
import lance.encodings21.Flat;
import lance.encodings21.FullZipLayout;
import lance.encodings21.PageLayout;
import lance.encodings21.RepDefLayer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The bulk path of full-zip pages without control words (an embedding column): rows go straight
 * into Arrow memory, across page boundaries and across the piece size of
 * {@link PageBufferSource#readInto}, and give the same values as the row-by-row path.
 */
class PlainFullZipReadTest {
    private static final int DIM = 32;
    /** Page 0 holds 3,000 rows of 128 bytes (384,000 bytes: more than one copy piece). */
    private static final long[] FIRST_ROWS = {0, 3000};

    private static final long[] ROWS = {3000, 2000};

    private final BufferAllocator allocator = new RootAllocator();

    @AfterEach
    void close() {
        allocator.close();
    }

    private static float item(long row, int k) {
        return row * DIM + k + 0.5f;
    }

    private static byte[] pageBytes(long firstRow, long rows) {
        ByteBuffer b = ByteBuffer.allocate((int) rows * DIM * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (long r = firstRow; r < firstRow + rows; r++) {
            for (int k = 0; k < DIM; k++) {
                b.putFloat(item(r, k));
            }
        }
        return b.array();
    }

    private static Any layout(long rows, int bitsPerValue, int bitsDef) {
        CompressiveEncoding values = CompressiveEncoding.newBuilder()
                .setFixedSizeList(FixedSizeList.newBuilder()
                        .setItemsPerValue(DIM)
                        .setValues(CompressiveEncoding.newBuilder()
                                .setFlat(Flat.newBuilder().setBitsPerValue(32))))
                .build();
        FullZipLayout.Builder l = FullZipLayout.newBuilder()
                .setBitsPerValue(bitsPerValue)
                .setNumItems((int) rows)
                .setNumVisibleItems((int) rows)
                .setValueCompression(values)
                .setBitsDef(bitsDef)
                .addLayers(bitsDef == 0 ? RepDefLayer.REPDEF_ALL_VALID_ITEM : RepDefLayer.REPDEF_NULLABLE_ITEM);
        return Any.newBuilder()
                .setTypeUrl("/lance.encodings21.PageLayout")
                .setValue(PageLayout.newBuilder().setFullZipLayout(l).build().toByteString())
                .build();
    }

    private static LanceField vectorField() {
        Field item =
                new Field("item", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)), null);
        Field vector = new Field("vector", FieldType.nullable(new ArrowType.FixedSizeList(DIM)), List.of(item));
        return LanceSchema.fromArrow(new Schema(List.of(vector)), 0).fields().get(0);
    }

    private static StructuralFieldReader reader(int bitsPerValue) throws Exception {
        MiniBlockPageTest.MemoryPage[] pages = {
            new MiniBlockPageTest.MemoryPage(pageBytes(FIRST_ROWS[0], ROWS[0])),
            new MiniBlockPageTest.MemoryPage(pageBytes(FIRST_ROWS[1], ROWS[1]))
        };
        Any[] encodings = {layout(ROWS[0], bitsPerValue, 0), layout(ROWS[1], bitsPerValue, 0)};
        return new StructuralFieldReader(
                vectorField(),
                (ordinal, leaf, shape, hasRep) -> new StructuralColumnReader(
                        FIRST_ROWS, ROWS, encodings, p -> pages[p], shape, hasRep, "column 0"));
    }

    private static void assertRows(FieldVector v, long firstRow, int n) {
        FixedSizeListVector list = (FixedSizeListVector) v;
        Float4Vector items = (Float4Vector) list.getDataVector();
        assertThat(list.getValueCount()).isEqualTo(n);
        assertThat(items.getValueCount()).isEqualTo(n * DIM);
        assertThat(list.getNullCount()).isZero();
        assertThat(items.getNullCount()).isZero();
        for (int r = 0; r < n; r++) {
            for (int k = 0; k < DIM; k++) {
                assertThat(items.get(r * DIM + k))
                        .as("row %d item %d", firstRow + r, k)
                        .isEqualTo(item(firstRow + r, k));
            }
        }
    }

    @Test
    void rangeAcrossPagesAndCopyPiecesIsCopiedExactly() throws Exception {
        StructuralFieldReader r = reader(DIM * 32);
        try (FieldVector v = r.readRange(2990, 3010, allocator)) {
            assertRows(v, 2990, 20);
        }
        try (FieldVector v = r.readRange(0, 5000, allocator)) {
            assertRows(v, 0, 5000);
        }
    }

    @Test
    void bulkAndRowByRowPathsAgree() throws Exception {
        StructuralFieldReader r = reader(DIM * 32);
        long[] rows = new long[40];
        for (int i = 0; i < rows.length; i++) {
            rows[i] = 2980 + i;
        }
        // take() decodes row runs through the pages' row-by-row path.
        try (FieldVector bulk = r.readRange(2980, 3020, allocator);
                FieldVector taken = r.take(rows, allocator)) {
            assertRows(bulk, 2980, 40);
            assertRows(taken, 2980, 40);
        }
    }

    @Test
    void pagesWithControlWordsAreNotPlain() {
        FullZipPage plain = new FullZipPage(
                PageLayout.newBuilder()
                        .mergeFrom(parse(layout(10, DIM * 32, 0)))
                        .build()
                        .getFullZipLayout(),
                new MiniBlockPageTest.MemoryPage(new byte[10 * DIM * 4]),
                10,
                FixedSizeListValues.wrap(DIM, FixedWidthValues.builder(32, 0), null));
        FullZipPage nullable = new FullZipPage(
                PageLayout.newBuilder()
                        .mergeFrom(parse(layout(10, DIM * 32, 1)))
                        .build()
                        .getFullZipLayout(),
                new MiniBlockPageTest.MemoryPage(new byte[10 * (DIM * 4 + 1)]),
                10,
                FixedSizeListValues.wrap(DIM, FixedWidthValues.builder(32, 0), null));
        assertThat(plain.isPlainFixed()).isTrue();
        assertThat(plain.valueBytes()).isEqualTo(DIM * 4);
        assertThat(nullable.isPlainFixed()).isFalse();
    }

    @Test
    void valueWidthThatDisagreesWithTheTypeIsAnError() throws Exception {
        StructuralFieldReader r = reader(DIM * 64);
        assertThatThrownBy(() -> r.readRange(0, 10, allocator))
                .isInstanceOf(EncodingException.class)
                .hasMessageContaining("field 'vector' stores 256-byte values")
                .hasMessageContaining("needs 128");
    }

    private static PageLayout parse(Any any) {
        try {
            return PageLayout.parseFrom(any.getValue());
        } catch (com.google.protobuf.InvalidProtocolBufferException e) {
            throw new AssertionError(e);
        }
    }
}
