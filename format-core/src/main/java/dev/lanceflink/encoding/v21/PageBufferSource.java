package dev.lanceflink.encoding.v21;

import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.arrow.memory.ArrowBuf;

/** Random access to the buffers of one page, so a decoder fetches only the byte ranges it needs. */
public interface PageBufferSource {
    /** Number of page buffers. */
    int bufferCount();

    /** Size in bytes of buffer {@code index} (unpadded). */
    long bufferSize(int index);

    /**
     * Reads {@code [offset, offset+length)} of buffer {@code index}, little-endian, positioned at 0.
     * The returned buffer belongs to the caller: the source must not modify or reuse its bytes
     * afterwards (decoders may keep its backing array as decoded values instead of copying it).
     */
    ByteBuffer read(int index, long offset, int length) throws IOException;

    /**
     * Reads several whole buffers; result {@code i} is buffer {@code indices[i]}. Remote sources
     * override this to fetch them in one batched request (a page's small metadata buffers are
     * always needed together).
     */
    default ByteBuffer[] readAll(int... indices) throws IOException {
        ByteBuffer[] out = new ByteBuffer[indices.length];
        for (int i = 0; i < indices.length; i++) {
            out[i] = readAll(indices[i]);
        }
        return out;
    }

    /**
     * Copies {@code [offset, offset+length)} of buffer {@code index} into {@code dst} at
     * {@code dstOffset}. Large ranges are fetched in pieces of {@link #COPY_PIECE} bytes so that no
     * intermediate heap buffer is big enough to be a G1 humongous object (which would make every
     * read of a wide fixed-width column trigger garbage collections); sources that can read into
     * native memory directly may override this.
     */
    default void readInto(int index, long offset, long length, ArrowBuf dst, long dstOffset) throws IOException {
        long done = 0;
        while (done < length) {
            int piece = (int) Math.min(COPY_PIECE, length - done);
            ByteBuffer b = read(index, offset + done, piece);
            if (b.remaining() != piece) {
                throw new EncodingException("read of " + piece + " bytes at offset " + (offset + done)
                        + " of page buffer " + index + " returned " + b.remaining());
            }
            dst.setBytes(dstOffset + done, b);
            done += piece;
        }
    }

    /** Piece size of {@link #readInto}: below half the smallest G1 region (1 MiB). */
    int COPY_PIECE = 256 * 1024;

    /** Reads a whole buffer. */
    default ByteBuffer readAll(int index) throws IOException {
        long size = bufferSize(index);
        if (size > Integer.MAX_VALUE) {
            throw new EncodingException("page buffer " + index + " of " + size + " bytes is larger than 2 GiB");
        }
        return read(index, 0, (int) size);
    }
}
