package dev.lanceflink.file.writer;

/**
 * The output buffer page encoders fill, shared by every leaf of a file (and, through
 * {@link LanceFileWriter#next}, of the files after it): each encoded page is written out before
 * the next page is encoded, so one buffer of about a page serves them all instead of a new
 * page-sized array per page.
 */
final class EncodeBuffer {
    private ByteBuilder buffer;
    /**
     * Scratch of {@link StringPageCompressor}, shared the same way: a compressed view of a page
     * lives only until that page is encoded, so all string leaves of the file share one set
     * (compressed strings or dictionary indices / their ends / the dictionary block).
     */
    ByteBuilder scratchBytes;

    LongBuilder scratchEnds;
    ByteBuilder scratchDictionary;

    /** The buffer, emptied, with room for at least {@code capacity} bytes; valid until the next call. */
    ByteBuilder take(long capacity) {
        int c = (int) Math.min(Integer.MAX_VALUE - 64, capacity);
        if (buffer == null) {
            buffer = new ByteBuilder(c);
        } else {
            buffer.clear();
            buffer.ensureSpace(c);
        }
        return buffer;
    }
}
