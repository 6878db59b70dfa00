package dev.lanceflink.flink.sink.writer;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BitVectorHelper;
import org.junit.jupiter.api.Test;

class ArrowValueWriterTest {

    /** The bulk validity fill of vectors sets exactly [from, to), at every alignment of both ends. */
    @Test
    void setBitsMarksExactlyTheRange() {
        try (RootAllocator allocator = new RootAllocator();
                ArrowBuf bitmap = allocator.buffer(16)) {
            for (int from = 0; from < 40; from++) {
                for (int to = from; to <= 64; to++) {
                    bitmap.setZero(0, 16);
                    ArrowValueWriter.setBits(bitmap, from, to);
                    for (int bit = 0; bit < 128; bit++) {
                        assertThat(BitVectorHelper.get(bitmap, bit))
                                .as("bit %d of [%d, %d)", bit, from, to)
                                .isEqualTo(bit >= from && bit < to ? 1 : 0);
                    }
                }
            }
        }
    }
}
