package dev.lanceflink.file.writer;

import java.util.Arrays;
import org.apache.arrow.memory.ArrowBuf;

/**
 * A growable little-endian byte array. Page buffers are assembled in these before they are
 * written, so the writer never allocates per value: numbers go straight into the backing array
 * and Arrow data is copied in bulk with {@link #putArrow}.
 */
final class ByteBuilder {
    private byte[] data;
    private int size;

    ByteBuilder(int initialCapacity) {
        data = new byte[Math.max(16, initialCapacity)];
    }

    int size() {
        return size;
    }

    byte[] array() {
        return data;
    }

    void clear() {
        size = 0;
    }

    void ensureSpace(int extra) {
        long needed = (long) size + extra;
        if (needed > data.length) {
            if (needed > Integer.MAX_VALUE - 16) {
                throw new IllegalStateException("a single page buffer would exceed 2 GiB (" + needed
                        + " bytes); lower FileWriterOptions.targetPageBytes or write smaller batches");
            }
            data = Arrays.copyOf(data, (int)
                    Math.min(Integer.MAX_VALUE - 16, Math.max(needed, (long) data.length * 2)));
        }
    }

    /** Counts {@code n} bytes the caller wrote into {@link #array()} after {@link #ensureSpace}. */
    void advance(int n) {
        if (n < 0 || (long) size + n > data.length) {
            throw new IllegalArgumentException(
                    "cannot advance " + n + " bytes: size " + size + ", capacity " + data.length);
        }
        size += n;
    }

    void put(int b) {
        ensureSpace(1);
        data[size++] = (byte) b;
    }

    void putShort(int v) {
        ensureSpace(2);
        data[size] = (byte) v;
        data[size + 1] = (byte) (v >>> 8);
        size += 2;
    }

    void putInt(int v) {
        ensureSpace(4);
        data[size] = (byte) v;
        data[size + 1] = (byte) (v >>> 8);
        data[size + 2] = (byte) (v >>> 16);
        data[size + 3] = (byte) (v >>> 24);
        size += 4;
    }

    void putLong(long v) {
        ensureSpace(8);
        for (int i = 0; i < 8; i++) {
            data[size + i] = (byte) (v >>> (8 * i));
        }
        size += 8;
    }

    /** Writes {@code v} as an unsigned little-endian integer of {@code width} bytes (1, 2, 4 or 8). */
    void putUnsigned(long v, int width) {
        switch (width) {
            case 1 -> put((int) v);
            case 2 -> putShort((int) v);
            case 4 -> putInt((int) v);
            case 8 -> putLong(v);
            default -> throw new IllegalArgumentException("integer width " + width);
        }
    }

    void putBytes(byte[] src, int off, int len) {
        ensureSpace(len);
        System.arraycopy(src, off, data, size, len);
        size += len;
    }

    void putArrow(ArrowBuf src, long srcIndex, int len) {
        if (len == 0) {
            return;
        }
        ensureSpace(len);
        src.getBytes(srcIndex, data, size, len);
        size += len;
    }

    void putZeros(int len) {
        ensureSpace(len);
        Arrays.fill(data, size, size + len, (byte) 0);
        size += len;
    }

    /** Appends {@code fill} bytes until the size is a multiple of {@code alignment}. */
    void padTo(int alignment, byte fill) {
        int pad = padding(size, alignment);
        ensureSpace(pad);
        Arrays.fill(data, size, size + pad, fill);
        size += pad;
    }

    void setShort(int pos, int v) {
        data[pos] = (byte) v;
        data[pos + 1] = (byte) (v >>> 8);
    }

    static int padding(long n, int alignment) {
        return (int) ((alignment - (n % alignment)) % alignment);
    }

    byte[] toArray() {
        return Arrays.copyOf(data, size);
    }
}
