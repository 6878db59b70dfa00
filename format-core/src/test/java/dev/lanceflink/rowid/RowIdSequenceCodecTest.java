package dev.lanceflink.rowid;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import dev.lanceflink.table.CorruptTableException;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.SequenceSource;
import java.util.List;
import lance.table.EncodedU64Array;
import lance.table.RowIdSequence;
import lance.table.U64Segment;
import org.junit.jupiter.api.Test;

class RowIdSequenceCodecTest {

    private static U64Segment only(byte[] bytes) throws Exception {
        RowIdSequence s = RowIdSequence.parseFrom(bytes);
        assertThat(s.getSegmentsCount()).isEqualTo(1);
        return s.getSegments(0);
    }

    @Test
    void contiguousIsARangeWithExactBytes() throws Exception {
        byte[] bytes = RowIdSequenceCodec.encodeRange(10, 15);
        // segments(1) { range(1) { start(1)=10 end(2)=15 } }
        assertThat(bytes).containsExactly(0x0a, 0x06, 0x0a, 0x04, 0x08, 10, 0x10, 15);
        assertThat(RowIdSequenceCodec.decode(bytes, "f")).containsExactly(10, 11, 12, 13, 14);
        assertThat(RowIdSequenceCodec.encode(new long[] {10, 11, 12, 13, 14})).isEqualTo(bytes);
        assertThat(RowIdSequenceCodec.count(bytes, "f")).isEqualTo(5);
    }

    @Test
    void fewHolesUseRangeWithHoles() throws Exception {
        long[] ids = new long[99];
        for (int i = 0, v = 0; v < 100; v++) {
            if (v != 50) {
                ids[i++] = 1000 + v;
            }
        }
        U64Segment s = only(RowIdSequenceCodec.encode(ids));
        assertThat(s.getSegmentCase()).isEqualTo(U64Segment.SegmentCase.RANGE_WITH_HOLES);
        assertThat(s.getRangeWithHoles().getHoles().getU16Array().getBase()).isEqualTo(1050);
        assertThat(RowIdSequenceCodec.decode(RowIdSequenceCodec.encode(ids), "f"))
                .containsExactly(ids);
    }

    @Test
    void halfDenseUsesLsbFirstBitmap() throws Exception {
        long[] ids = new long[50];
        for (int i = 0; i < 50; i++) {
            ids[i] = 2L * i; // 0, 2, 4, ... span 99
        }
        byte[] bytes = RowIdSequenceCodec.encode(ids);
        U64Segment s = only(bytes);
        assertThat(s.getSegmentCase()).isEqualTo(U64Segment.SegmentCase.RANGE_WITH_BITMAP);
        // values 0,2,4,6 -> bits 0,2,4,6 of byte 0 (LSB first) = 0b01010101
        assertThat(s.getRangeWithBitmap().getBitmap().byteAt(0)).isEqualTo((byte) 0x55);
        assertThat(RowIdSequenceCodec.decode(bytes, "f")).containsExactly(ids);
    }

    @Test
    void sparseSortedUsesSortedArrayAndUnsortedUsesArray() throws Exception {
        long[] sparse = {5, 100_000, 200_000};
        assertThat(only(RowIdSequenceCodec.encode(sparse)).getSegmentCase())
                .isEqualTo(U64Segment.SegmentCase.SORTED_ARRAY);
        assertThat(only(RowIdSequenceCodec.encode(sparse)).getSortedArray().getArrayCase())
                .isEqualTo(EncodedU64Array.ArrayCase.U32_ARRAY);
        assertThat(RowIdSequenceCodec.decode(RowIdSequenceCodec.encode(sparse), "f"))
                .containsExactly(sparse);
        long[] unsorted = {7, 3, 1L << 40};
        U64Segment u = only(RowIdSequenceCodec.encode(unsorted));
        assertThat(u.getSegmentCase()).isEqualTo(U64Segment.SegmentCase.ARRAY);
        assertThat(u.getArray().getArrayCase()).isEqualTo(EncodedU64Array.ArrayCase.U64_ARRAY);
        assertThat(RowIdSequenceCodec.decode(RowIdSequenceCodec.encode(unsorted), "f"))
                .containsExactly(unsorted);
    }

    @Test
    void u64ArrayValuesUseFieldNumberTwo() {
        byte[] bytes = EncodedU64Array.U64Array.newBuilder()
                .setValues(ByteString.copyFrom(new byte[8]))
                .build()
                .toByteArray();
        assertThat(bytes[0]).isEqualTo((byte) 0x12); // field 2, wire type 2
    }

    @Test
    void multipleSegmentsConcatenate() throws Exception {
        byte[] bytes = RowIdSequence.newBuilder()
                .addSegments(RowIdSequenceCodec.rangeSegment(0, 3))
                .addSegments(RowIdSequenceCodec.rangeSegment(10, 12))
                .build()
                .toByteArray();
        assertThat(RowIdSequenceCodec.decode(bytes, "f")).containsExactly(0, 1, 2, 10, 11);
    }

    @Test
    void corruptInputIsReported() {
        assertThatThrownBy(() -> RowIdSequenceCodec.decode(new byte[] {0x0a, 0x05, 1}, "fragment 3"))
                .isInstanceOf(CorruptTableException.class)
                .hasMessageStartingWith("fragment 3: row id sequence");
        byte[] backwards = RowIdSequenceCodec.encodeRange(10, 5);
        assertThatThrownBy(() -> RowIdSequenceCodec.decode(backwards, "fragment 4"))
                .hasMessageContaining("fragment 4: row id range [10, 5) ends before it starts");
    }

    @Test
    void versionSequences() throws Exception {
        byte[] v = RowVersionSequenceCodec.encodeSingleRun(4, 7);
        assertThat(RowVersionSequenceCodec.decode(v, 4, "f")).containsExactly(7, 7, 7, 7);
        assertThatThrownBy(() -> RowVersionSequenceCodec.decode(v, 5, "frag 9"))
                .hasMessageContaining("frag 9: row version sequence does not cover row position 4");
    }

    @Test
    void assignerHandsOutConsecutiveIds() throws Exception {
        Fragment a = Fragment.of(0, List.of(), 3);
        Fragment b = Fragment.of(0, List.of(), 2);
        RowIdAssigner.Result r = RowIdAssigner.assign(List.of(a, b), 100, 9);
        assertThat(r.nextRowId()).isEqualTo(105);
        byte[] ids0 = ((SequenceSource.Inline) r.fragments().get(0).rowIdMeta().rowIds()).bytes();
        byte[] ids1 = ((SequenceSource.Inline) r.fragments().get(1).rowIdMeta().rowIds()).bytes();
        assertThat(RowIdSequenceCodec.decode(ids0, "a")).containsExactly(100, 101, 102);
        assertThat(RowIdSequenceCodec.decode(ids1, "b")).containsExactly(103, 104);
        byte[] created =
                ((SequenceSource.Inline) r.fragments().get(1).rowIdMeta().createdAtVersions()).bytes();
        assertThat(RowVersionSequenceCodec.decode(created, 2, "b")).containsExactly(9, 9);
    }
}
