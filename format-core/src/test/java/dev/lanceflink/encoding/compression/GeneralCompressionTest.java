package dev.lanceflink.encoding.compression;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.encoding.compression.GeneralCompression.Scheme;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class GeneralCompressionTest {

    private static byte[] sample(int n) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; sb.length() < n; i++) {
            sb.append("row ").append(i).append(": table pages string lazy jumps the format; ");
        }
        return Arrays.copyOf(sb.toString().getBytes(StandardCharsets.UTF_8), n);
    }

    @ParameterizedTest
    @EnumSource(Scheme.class)
    void framedRoundTrip(Scheme scheme) {
        for (int n : new int[] {0, 1, 100, 4096, 70000}) {
            byte[] data = sample(n);
            byte[] unit = GeneralCompression.compress(scheme, data, 0, n);
            ByteBuffer u = ByteBuffer.wrap(unit).order(ByteOrder.LITTLE_ENDIAN);
            if (scheme == Scheme.LZ4) {
                assertThat(u.getInt(0)).isEqualTo(n);
            } else {
                assertThat(u.getLong(0)).isEqualTo(n);
                assertThat(u.getInt(8)).isEqualTo(0xFD2FB528); // frame magic 28 b5 2f fd follows the u64 length
            }
            assertThat(GeneralCompression.decompressedLength(scheme, u, 0, unit.length))
                    .isEqualTo(n);
            assertThat(GeneralCompression.decompress(scheme, u, 0, unit.length)).isEqualTo(data);

            // Into a direct buffer at an offset, from a unit embedded at an offset.
            ByteBuffer embedded = ByteBuffer.allocate(unit.length + 10);
            embedded.put(5, unit);
            ByteBuffer direct = ByteBuffer.allocateDirect(n + 3);
            assertThat(GeneralCompression.decompress(scheme, embedded, 5, unit.length, direct, 3))
                    .isEqualTo(n);
            byte[] back = new byte[n];
            direct.get(3, back);
            assertThat(back).isEqualTo(data);

            // Read-only views (as handed out by range readers) work too.
            assertThat(GeneralCompression.decompress(
                            scheme, ByteBuffer.wrap(unit).asReadOnlyBuffer(), 0, unit.length))
                    .isEqualTo(data);
            assertThat(GeneralCompression.compress(scheme, ByteBuffer.wrap(data).asReadOnlyBuffer(), 0, n))
                    .isEqualTo(unit);
        }
        assertThat(GeneralCompression.compress(scheme, sample(70000), 0, 70000).length)
                .isLessThan(20000);
    }

    @Test
    void bareZstdFrameIsAccepted() {
        byte[] data = sample(5000);
        byte[] unit = GeneralCompression.compress(Scheme.ZSTD, data, 0, data.length);
        ByteBuffer bare = ByteBuffer.wrap(unit, 8, unit.length - 8).slice();
        assertThat(GeneralCompression.decompress(Scheme.ZSTD, bare, 0, bare.limit()))
                .isEqualTo(data);
    }

    @Test
    void schemeNumbersAndNames() {
        assertThat(Scheme.fromProtoNumber(1)).isEqualTo(Scheme.LZ4);
        assertThat(Scheme.fromProtoNumber(2)).isEqualTo(Scheme.ZSTD);
        assertThat(Scheme.fromLanceName("ZSTD")).isEqualTo(Scheme.ZSTD);
        assertThatThrownBy(() -> Scheme.fromProtoNumber(0))
                .isInstanceOf(CompressedDataException.class)
                .hasMessageContaining("CompressionScheme 0");
        assertThatThrownBy(() -> Scheme.fromLanceName("snappy")).isInstanceOf(CompressedDataException.class);
    }

    @Test
    void corruptUnitsAreReported() {
        byte[] unit = GeneralCompression.compress(Scheme.LZ4, sample(3000), 0, 3000);
        ByteBuffer lying = ByteBuffer.wrap(unit.clone()).order(ByteOrder.LITTLE_ENDIAN);
        lying.putInt(0, 2000);
        assertThatThrownBy(() -> GeneralCompression.decompress(Scheme.LZ4, lying, 0, unit.length))
                .isInstanceOf(CompressedDataException.class)
                .hasMessageContaining("lz4 unit");
        assertThatThrownBy(() -> GeneralCompression.decompress(Scheme.ZSTD, ByteBuffer.allocate(3), 0, 3))
                .isInstanceOf(CompressedDataException.class)
                .hasMessageContaining("8-byte uncompressed-length prefix");
        ByteBuffer huge = ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN).putLong(0, 1L << 40);
        assertThatThrownBy(() -> GeneralCompression.decompress(Scheme.ZSTD, huge, 0, 12))
                .isInstanceOf(CompressedDataException.class)
                .hasMessageContaining("1099511627776");
    }
}
