package dev.lanceflink.encoding.compression;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** Small shared checks for the codecs: little-endian views and range validation with clear messages. */
final class Buffers {
    private Buffers() {}

    /**
     * Returns {@code buffer} itself when it is already little-endian, otherwise a little-endian
     * duplicate. All codecs use absolute accessors, so the caller's position and limit never
     * matter and are never changed.
     */
    static ByteBuffer le(ByteBuffer buffer) {
        return buffer.order() == ByteOrder.LITTLE_ENDIAN
                ? buffer
                : buffer.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    }

    /** Fails unless {@code [offset, offset + length)} lies inside {@code [0, buffer.limit())}. */
    static void checkRange(String scheme, String what, ByteBuffer buffer, long offset, long length) {
        if (offset < 0 || length < 0 || offset + length > buffer.limit()) {
            throw new CompressedDataException(scheme + ": " + what + " needs bytes [" + offset + ", "
                    + (offset + length) + ") but the buffer has only " + buffer.limit()
                    + " bytes; the encoded data is truncated or the offsets/sizes given are wrong");
        }
    }

    /** Fails unless {@code [offset, offset + length)} lies inside an array of {@code arrayLength}. */
    static void checkArray(String scheme, String what, int arrayLength, long offset, long length) {
        if (offset < 0 || length < 0 || offset + length > arrayLength) {
            throw new IndexOutOfBoundsException(scheme + ": " + what + " needs elements [" + offset + ", "
                    + (offset + length) + ") but the array has length " + arrayLength);
        }
    }

    /** Validates a word width T in bits (8, 16, 32 or 64) and returns it. */
    static int checkWordBits(String scheme, long bitsPerValue) {
        if (bitsPerValue != 8 && bitsPerValue != 16 && bitsPerValue != 32 && bitsPerValue != 64) {
            throw new CompressedDataException(
                    scheme + ": uncompressed bits per value must be 8, 16, 32 or 64, got " + bitsPerValue);
        }
        return (int) bitsPerValue;
    }

    static void checkCount(String scheme, long count) {
        if (count < 0) {
            throw new IllegalArgumentException(scheme + ": value count must be >= 0, got " + count);
        }
    }

    /** Fails unless {@code dst} is writable and {@code [offset, offset + length)} lies inside its limit. */
    static void checkOutput(ByteBuffer dst, long offset, long length) {
        if (dst.isReadOnly()) {
            throw new IllegalArgumentException("the output buffer is read-only");
        }
        if (offset < 0 || length < 0 || offset + length > dst.limit()) {
            throw new IndexOutOfBoundsException("output needs bytes [" + offset + ", " + (offset + length)
                    + ") but the output buffer has only " + dst.limit() + " bytes");
        }
    }
}
