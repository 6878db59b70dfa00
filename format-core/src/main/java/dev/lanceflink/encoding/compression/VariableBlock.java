package dev.lanceflink.encoding.compression;

import java.nio.ByteBuffer;

/**
 * The block form of {@code variable} (CompressiveEncoding member 2, compression.md §3.6), used for
 * dictionary items of strings and binaries (page buffer 2 of a mini-block dictionary page, possibly
 * inside {@code general{lz4}} in 2.2):
 *
 * <pre>
 * 32-bit: [u32 32][u32 S][u32 × (k+1) offsets, first = 0][bytes]     S = 8 + 4·(k+1)
 * 64-bit: [u64 64][u64 S][u64 × (k+1) offsets, first = 0][bytes]     S = 16 + 8·(k+1)
 * </pre>
 *
 * {@code S} is the position where the bytes start; item {@code j} is {@code bytes[off[j], off[j+1])}.
 * A parsed block is a validated view over the caller's buffer (nothing is copied), so the items can
 * be copied straight into an Arrow variable-width vector.
 */
public final class VariableBlock {
    private static final String SCHEME = "variable (block)";

    private final ByteBuffer buffer;
    private final int offset;
    private final int offsetBits;
    private final int itemCount;
    private final int dataStart;

    private VariableBlock(ByteBuffer buffer, int offset, int offsetBits, int itemCount, int dataStart) {
        this.buffer = buffer;
        this.offset = offset;
        this.offsetBits = offsetBits;
        this.itemCount = itemCount;
        this.dataStart = dataStart;
    }

    /**
     * Validates the block at {@code [offset, offset+length)} holding {@code itemCount} items: the
     * width word, the data start {@code S}, offsets starting at 0, non-decreasing and within the block.
     */
    public static VariableBlock parse(ByteBuffer src, int offset, int length, int itemCount) {
        Buffers.checkCount(SCHEME, itemCount);
        Buffers.checkRange(SCHEME, "block", src, offset, length);
        ByteBuffer in = Buffers.le(src);
        if (length < 8) {
            throw new CompressedDataException(SCHEME + ": block of " + length + " bytes is shorter than its header");
        }
        int bits = in.getInt(offset);
        if (bits != 32 && bits != 64) {
            throw new CompressedDataException(SCHEME + ": first word is " + bits
                    + ", expected the offset width 32 or 64 (the obsolete 1-byte-width variant is not written by Lance 7.0.0"
                    + " and is not supported)");
        }
        int w = bits / 8;
        long expectedStart = 2L * w + (long) w * (itemCount + 1);
        if (length < expectedStart) {
            throw new CompressedDataException(SCHEME + ": " + itemCount + " items with " + bits + "-bit offsets need a "
                    + expectedStart + "-byte header, the block has " + length + " bytes");
        }
        long start = w == 4 ? in.getInt(offset + 4) & 0xFFFFFFFFL : in.getLong(offset + 8);
        if (bits == 64 && in.getInt(offset + 4) != 0) {
            throw new CompressedDataException(SCHEME + ": 64-bit width word has non-zero high bytes");
        }
        if (start != expectedStart) {
            throw new CompressedDataException(
                    SCHEME + ": data start S = " + start + " but " + itemCount + " items with " + bits
                            + "-bit offsets put it at " + expectedStart + "; the item count or the block is wrong");
        }
        VariableBlock block = new VariableBlock(in, offset, bits, itemCount, (int) start);
        long previous = 0;
        for (int i = 0; i <= itemCount; i++) {
            long o = block.rawOffset(i);
            if ((i == 0 && o != 0) || o < previous || start + o > length) {
                throw new CompressedDataException(
                        SCHEME + ": offset " + i + " = " + o + " is invalid (offsets start at 0,"
                                + " never decrease, and end within the " + (length - start) + " data bytes)");
            }
            previous = o;
        }
        return block;
    }

    private long rawOffset(int i) {
        return offsetBits == 32 ? buffer.getInt(offset + 8 + 4 * i) & 0xFFFFFFFFL : buffer.getLong(offset + 16 + 8 * i);
    }

    /** 32 or 64. */
    public int offsetBits() {
        return offsetBits;
    }

    public int itemCount() {
        return itemCount;
    }

    /** Absolute position in the parsed buffer where item {@code i} starts. */
    public int itemStart(int i) {
        checkItem(i);
        return offset + dataStart + (int) rawOffset(i);
    }

    /** Length in bytes of item {@code i}. */
    public int itemLength(int i) {
        checkItem(i);
        return (int) (rawOffset(i + 1) - rawOffset(i));
    }

    /** Absolute position of the first data byte and total data length: the items back to back. */
    public int dataStart() {
        return offset + dataStart;
    }

    public int dataLength() {
        return (int) rawOffset(itemCount);
    }

    /** Writes the zero-based item offsets (Arrow layout, {@code itemCount + 1} entries) into {@code dst}. */
    public void copyOffsets(int[] dst, int dstOffset) {
        Buffers.checkArray(SCHEME, "offsets", dst.length, dstOffset, itemCount + 1L);
        for (int i = 0; i <= itemCount; i++) {
            long o = rawOffset(i);
            if (o > Integer.MAX_VALUE) {
                throw new CompressedDataException(SCHEME + ": offset " + i + " = " + o + " does not fit 32 bits");
            }
            dst[dstOffset + i] = (int) o;
        }
    }

    /** As {@link #copyOffsets(int[], int)} with 64-bit offsets (large types). */
    public void copyOffsets(long[] dst, int dstOffset) {
        Buffers.checkArray(SCHEME, "offsets", dst.length, dstOffset, itemCount + 1L);
        for (int i = 0; i <= itemCount; i++) {
            dst[dstOffset + i] = rawOffset(i);
        }
    }

    private void checkItem(int i) {
        if (i < 0 || i >= itemCount) {
            throw new IndexOutOfBoundsException(SCHEME + ": item " + i + " outside [0, " + itemCount + ")");
        }
    }

    // ---------------------------------------------------------------- writing

    /** Size of the block for {@code itemCount} items of {@code dataLength} bytes in total. */
    public static long encodedSize(int offsetBits, int itemCount, long dataLength) {
        int w = checkBits(offsetBits);
        return 2L * w + (long) w * (itemCount + 1) + dataLength;
    }

    /**
     * Writes the block for the items {@code data[offsets[i], offsets[i+1])}, {@code i < itemCount}
     * (Arrow-style offsets, which need not start at 0) at {@code dstOffset} of {@code dst}.
     *
     * @return bytes written ({@link #encodedSize})
     */
    public static int write(int offsetBits, byte[] data, long[] offsets, int itemCount, ByteBuffer dst, int dstOffset) {
        int w = checkBits(offsetBits);
        Buffers.checkArray(SCHEME, "offsets", offsets.length, 0, itemCount + 1L);
        long base = offsets[0];
        long dataLength = offsets[itemCount] - base;
        Buffers.checkArray(SCHEME, "item bytes", data.length, base, dataLength);
        long size = encodedSize(offsetBits, itemCount, dataLength);
        Buffers.checkOutput(dst, dstOffset, size);
        ByteBuffer out = Buffers.le(dst);
        long start = 2L * w + (long) w * (itemCount + 1);
        if (w == 4) {
            if (start + dataLength > 0xFFFFFFFFL) {
                throw new IllegalArgumentException(
                        SCHEME + ": " + dataLength + " item bytes do not fit 32-bit offsets");
            }
            out.putInt(dstOffset, 32);
            out.putInt(dstOffset + 4, (int) start);
            for (int i = 0; i <= itemCount; i++) {
                out.putInt(dstOffset + 8 + 4 * i, (int) (offsets[i] - base));
            }
        } else {
            out.putLong(dstOffset, 64);
            out.putLong(dstOffset + 8, start);
            for (int i = 0; i <= itemCount; i++) {
                out.putLong(dstOffset + 16 + 8 * i, offsets[i] - base);
            }
        }
        out.put(dstOffset + (int) start, data, (int) base, (int) dataLength);
        return (int) size;
    }

    private static int checkBits(int offsetBits) {
        if (offsetBits != 32 && offsetBits != 64) {
            throw new IllegalArgumentException(SCHEME + ": offset width must be 32 or 64, got " + offsetBits);
        }
        return offsetBits / 8;
    }
}
