package dev.lanceflink.encoding.v20;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;

/** Bit copies and fills at every alignment, against a bit-by-bit reference. */
class BitmapsTest {
    private static boolean bit(byte[] b, long i) {
        return ((b[(int) (i >>> 3)] >>> (int) (i & 7)) & 1) != 0;
    }

    private static byte[] contents(ArrowBuf buf, int bytes) {
        byte[] out = new byte[bytes];
        buf.getBytes(0, out);
        return out;
    }

    @Test
    void copyMatchesBitByBitReferenceAtAllAlignments() {
        SplittableRandom rnd = new SplittableRandom(7);
        try (BufferAllocator allocator = new RootAllocator();
                ArrowBuf dst = allocator.buffer(64)) {
            byte[] src = new byte[40];
            for (int trial = 0; trial < 3000; trial++) {
                rnd.nextBytes(src);
                byte[] before = new byte[64];
                rnd.nextBytes(before);
                dst.setBytes(0, before);
                int srcBit = rnd.nextInt(0, 64);
                int dstBit = rnd.nextInt(0, 64);
                int count = rnd.nextInt(0, 250);
                Bitmaps.copy(ByteBuffer.wrap(src), srcBit, dst, dstBit, count);
                byte[] after = contents(dst, 64);
                for (int i = 0; i < 64 * 8; i++) {
                    boolean expected =
                            i >= dstBit && i < dstBit + count ? bit(src, srcBit + i - dstBit) : bit(before, i);
                    assertThat(bit(after, i))
                            .as("trial %d bit %d (src %d dst %d count %d)", trial, i, srcBit, dstBit, count)
                            .isEqualTo(expected);
                }
            }
        }
    }

    @Test
    void setAndClearRangesTouchOnlyTheirBits() {
        SplittableRandom rnd = new SplittableRandom(11);
        try (BufferAllocator allocator = new RootAllocator();
                ArrowBuf buf = allocator.buffer(32)) {
            for (int trial = 0; trial < 2000; trial++) {
                byte[] before = new byte[32];
                rnd.nextBytes(before);
                buf.setBytes(0, before);
                int from = rnd.nextInt(0, 200);
                int count = rnd.nextInt(0, 256 - from);
                boolean one = rnd.nextBoolean();
                if (one) {
                    Bitmaps.setRange(buf, from, count);
                } else {
                    Bitmaps.clearRange(buf, from, count);
                }
                byte[] after = contents(buf, 32);
                for (int i = 0; i < 256; i++) {
                    boolean expected = i >= from && i < from + count ? one : bit(before, i);
                    assertThat(bit(after, i)).as("trial %d bit %d", trial, i).isEqualTo(expected);
                    assertThat(Bitmaps.get(buf, i)).isEqualTo(expected);
                }
            }
        }
    }
}
