package dev.lanceflink.io;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * A whole small object held in memory, read with one request. Files that are read in several
 * small ranges (footer, metadata, a page or two: an overlay file) cost one round trip or system
 * call per range otherwise; read whole they cost one. Safe for concurrent reads (every read
 * works on its own view of the bytes).
 */
public final class InMemoryRangeReader implements RangeReader {
    private final ByteBuffer bytes;

    private InMemoryRangeReader(ByteBuffer bytes) {
        this.bytes = bytes;
    }

    /**
     * Reads all {@code size} bytes of {@code source} and closes it (also when the read fails).
     *
     * @param size the object's size, as the table metadata records it
     */
    public static InMemoryRangeReader readWhole(RangeReader source, int size) throws IOException {
        try (source) {
            ByteBuffer b = source.read(0, size);
            if (b.remaining() != size) {
                throw new EOFException("read " + b.remaining() + " bytes of an object of " + size + " bytes");
            }
            return new InMemoryRangeReader(b.slice());
        }
    }

    @Override
    public long size() {
        return bytes.capacity();
    }

    @Override
    public ByteBuffer read(long offset, int length) throws IOException {
        if (offset < 0 || length < 0 || offset + length > bytes.capacity()) {
            throw new EOFException(
                    "range [" + offset + ", +" + length + ") is outside the object's " + bytes.capacity() + " bytes");
        }
        return bytes.duplicate()
                .position((int) offset)
                .limit((int) offset + length)
                .slice();
    }
}
