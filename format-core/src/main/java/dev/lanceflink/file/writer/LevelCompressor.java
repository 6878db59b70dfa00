package dev.lanceflink.file.writer;

import dev.lanceflink.encoding.compression.InlineBitPacking;
import dev.lanceflink.encoding.compression.OutOfLineBitPacking;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import lance.encodings21.CompressiveEncoding;
import lance.encodings21.InlineBitpacking;
import lance.encodings21.OutOfLineBitpacking;

/**
 * Block compression of a mini-block page's u16 rep or def levels, chosen once per page and
 * applied to each chunk's levels separately, as Lance 7.0.0 does for 2.1 (compression.md §5.4):
 * more than 1024 levels: {@code out_of_line_bitpacking{16, flat{W}}} with the page's bit width;
 * otherwise {@code inline_bitpacking{16}} unless the page is so small that one packed block
 * ({@code 128·W} bytes) is not smaller than the raw levels, in which case {@code flat{16}}.
 */
final class LevelCompressor {
    private enum Scheme {
        FLAT,
        INLINE,
        OUT_OF_LINE
    }

    private static final int BLOCK = 1024;

    private final Scheme scheme;
    private final int width;
    private final short[] levels;
    private ByteBuffer scratch;

    private LevelCompressor(Scheme scheme, int width, short[] levels) {
        this.scheme = scheme;
        this.width = width;
        this.levels = levels;
    }

    static LevelCompressor choose(short[] levels, int count, boolean bitPacking) {
        int or = 0;
        for (int i = 0; i < count; i++) {
            or |= levels[i];
        }
        int width = 32 - Integer.numberOfLeadingZeros(or & 0xFFFF);
        if (!bitPacking) {
            return new LevelCompressor(Scheme.FLAT, 16, levels);
        }
        if (count > BLOCK) {
            return new LevelCompressor(Scheme.OUT_OF_LINE, width, levels);
        }
        if (128L * width < 2L * count) {
            return new LevelCompressor(Scheme.INLINE, width, levels);
        }
        return new LevelCompressor(Scheme.FLAT, 16, levels);
    }

    CompressiveEncoding encoding() {
        return switch (scheme) {
            case FLAT -> Encodings.flat(16);
            case INLINE ->
                CompressiveEncoding.newBuilder()
                        .setInlineBitpacking(InlineBitpacking.newBuilder().setUncompressedBitsPerValue(16))
                        .build();
            case OUT_OF_LINE ->
                CompressiveEncoding.newBuilder()
                        .setOutOfLineBitpacking(OutOfLineBitpacking.newBuilder()
                                .setUncompressedBitsPerValue(16)
                                .setValues(Encodings.flat(width)))
                        .build();
        };
    }

    /** Compressed size of levels {@code [from, from + count)}. */
    long size(int from, int count) {
        return switch (scheme) {
            case FLAT -> 2L * count;
            case OUT_OF_LINE -> OutOfLineBitPacking.encodedSize(16, width, count);
            case INLINE -> {
                long total = 0;
                for (int s = from; s < from + count; s += BLOCK) {
                    int n = Math.min(BLOCK, from + count - s);
                    int or = 0;
                    for (int i = s; i < s + n; i++) {
                        or |= levels[i];
                    }
                    total += 2 + 128L * (32 - Integer.numberOfLeadingZeros(or & 0xFFFF));
                }
                yield total;
            }
        };
    }

    /** Appends levels {@code [from, from + count)} in this scheme. */
    void write(ByteBuilder out, int from, int count) {
        if (scheme == Scheme.FLAT) {
            out.ensureSpace(2 * count);
            for (int i = from; i < from + count; i++) {
                out.putShort(levels[i]);
            }
            return;
        }
        int max = (int) Math.max(InlineBitPacking.maxEncodedSize(16, Math.max(count, 1)), size(from, count));
        if (scratch == null || scratch.capacity() < max) {
            scratch = ByteBuffer.allocate(max).order(ByteOrder.LITTLE_ENDIAN);
        }
        int n = scheme == Scheme.INLINE
                ? InlineBitPacking.encode(levels, from, count, scratch, 0)
                : OutOfLineBitPacking.encode(width, levels, from, count, scratch, 0);
        out.putBytes(scratch.array(), 0, n);
    }
}
