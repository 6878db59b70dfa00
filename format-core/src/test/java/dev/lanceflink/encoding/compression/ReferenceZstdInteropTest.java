package dev.lanceflink.encoding.compression;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.luben.zstd.Zstd;
import dev.lanceflink.encoding.compression.GeneralCompression.Scheme;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Our zstd units against the reference C library (libzstd through zstd-jni, the implementation
 * Lance links): frames we write must decode with it, and frames it writes (at several levels, as a
 * Lance writer configured with {@code lance-encoding:compression-level} would) must decode with us.
 */
class ReferenceZstdInteropTest {

    private static byte[] data(int n, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        byte[] out = new byte[n];
        for (int i = 0; i < n; i++) {
            // Compressible but not trivial: small alphabet with runs.
            out[i] = (byte) ('a' + (random.nextInt(100) < 70 ? i / 17 % 5 : random.nextInt(26)));
        }
        return out;
    }

    @Test
    void ourFramesDecodeWithLibzstd() {
        for (int n : new int[] {0, 1, 1000, 65536, 300_000}) {
            byte[] input = data(n, n);
            byte[] unit = GeneralCompression.compress(Scheme.ZSTD, input, 0, n);
            long declared = ByteBuffer.wrap(unit).order(ByteOrder.LITTLE_ENDIAN).getLong(0);
            assertThat(declared).isEqualTo(n);
            byte[] frame = Arrays.copyOfRange(unit, 8, unit.length);
            assertThat(Zstd.decompress(frame, n)).isEqualTo(input);
        }
    }

    @Test
    void libzstdFramesAtAnyLevelDecodeWithUs() {
        for (int level : new int[] {-5, 1, 3, 9, 19}) {
            byte[] input = data(100_000, level + 50);
            byte[] frame = Zstd.compress(input, level);
            ByteBuffer unit = ByteBuffer.allocate(8 + frame.length).order(ByteOrder.LITTLE_ENDIAN);
            unit.putLong(0, input.length).put(8, frame);
            assertThat(GeneralCompression.decompress(Scheme.ZSTD, unit, 0, unit.capacity()))
                    .as("level %d", level)
                    .isEqualTo(input);
            // Bare frames (no length prefix) are accepted as Lance's reader does.
            assertThat(GeneralCompression.decompress(Scheme.ZSTD, ByteBuffer.wrap(frame), 0, frame.length))
                    .isEqualTo(input);
        }
    }
}
