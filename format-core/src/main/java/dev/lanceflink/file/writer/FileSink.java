package dev.lanceflink.file.writer;

import dev.lanceflink.io.AbortableOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;

/**
 * The output of one data file: tracks the absolute position (buffer offsets in column metadata
 * are absolute) and pads page buffers to 64 bytes with {@code 0x48} as Lance does.
 */
final class FileSink {
    static final int ALIGNMENT = 64;
    private static final byte[] PADDING = new byte[ALIGNMENT];

    static {
        Arrays.fill(PADDING, (byte) 0x48);
    }

    private final OutputStream out;
    private long position;

    /** Whether the stream can be discarded without publishing anything. */
    boolean abortable() {
        return out instanceof AbortableOutputStream;
    }

    /** Discards the file being written (only if {@link #abortable()}). */
    void abort() throws IOException {
        ((AbortableOutputStream) out).abort();
    }

    FileSink(OutputStream out) {
        this.out = out;
    }

    long position() {
        return position;
    }

    void write(byte[] b, int off, int len) throws IOException {
        out.write(b, off, len);
        position += len;
    }

    void write(byte[] b) throws IOException {
        write(b, 0, b.length);
    }

    /**
     * Writes a page buffer followed by padding to the next multiple of 64 and returns its
     * offset. An empty buffer takes no space (its offset is the current position).
     */
    long writePadded(ByteBuilder buffer) throws IOException {
        long offset = position;
        if (buffer.size() > 0) {
            write(buffer.array(), 0, buffer.size());
            int pad = ByteBuilder.padding(position, ALIGNMENT);
            write(PADDING, 0, pad);
        }
        return offset;
    }

    void close() throws IOException {
        out.close();
    }
}
