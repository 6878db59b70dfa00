package dev.lanceflink.encoding.v20;

import dev.lanceflink.encoding.compression.CompressedDataException;
import dev.lanceflink.encoding.compression.GeneralCompression;
import dev.lanceflink.io.RangeReader;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HashMap;
import java.util.Map;
import lance.encodings.Buffer;
import lance.encodings.Compression;
import lance.file.v2.ColumnMetadata;

/**
 * Reads slices of the buffers one 2.0 page references. Decoders ask only for the bytes a row
 * range needs (e.g. rows 1000..1010 of a flat int32 page read 40 bytes), so random access never
 * pulls whole pages. Buffers with whole-buffer compression ({@code flat.compression}) are the
 * exception: they are decompressed once per page object and sliced in memory.
 *
 * <p>All returned buffers are little-endian and indexed absolutely from 0.
 */
final class PageBuffers {
    private final ColumnMetadata column;
    private final ColumnMetadata.Page page;
    private final RangeReader data;
    private final String where;
    private Map<Long, ByteBuffer> decompressed;

    PageBuffers(ColumnMetadata column, ColumnMetadata.Page page, RangeReader data, String where) {
        this.column = column;
        this.page = page;
        this.data = data;
        this.where = where;
    }

    String where() {
        return where;
    }

    /** Unpadded size in bytes of the referenced buffer. */
    long size(Buffer ref) throws V20DecodeException {
        int i = ref.getBufferIndex();
        switch (ref.getBufferType()) {
            case page:
                checkIndex(i, page.getBufferSizesCount(), "page");
                return page.getBufferSizes(i);
            case column:
                checkIndex(i, column.getBufferSizesCount(), "column");
                return column.getBufferSizes(i);
            default:
                throw new V20DecodeException(where + ": the encoding references a " + ref.getBufferType()
                        + " buffer (index " + i + "); only page and column buffers are supported in 2.0 columns");
        }
    }

    private long position(Buffer ref) throws V20DecodeException {
        int i = ref.getBufferIndex();
        switch (ref.getBufferType()) {
            case page:
                checkIndex(i, page.getBufferOffsetsCount(), "page");
                return page.getBufferOffsets(i);
            case column:
                checkIndex(i, column.getBufferOffsetsCount(), "column");
                return column.getBufferOffsets(i);
            default:
                throw new V20DecodeException(where + ": the encoding references a " + ref.getBufferType()
                        + " buffer (index " + i + "); only page and column buffers are supported in 2.0 columns");
        }
    }

    private void checkIndex(int i, int count, String kind) throws V20DecodeException {
        if (i < 0 || i >= count) {
            throw new V20DecodeException(where + ": the encoding references " + kind + " buffer " + i + " but the "
                    + kind + " has " + count + " buffers");
        }
    }

    /**
     * Bytes {@code [offset, offset + length)} of the referenced buffer, which must be stored
     * uncompressed.
     */
    ByteBuffer read(Buffer ref, long offset, long length, String what) throws IOException {
        long size = size(ref);
        if (offset < 0 || length < 0 || offset + length > size) {
            throw new V20DecodeException(where + ": " + what + " needs bytes [" + offset + ", " + (offset + length)
                    + ") of " + ref.getBufferType() + " buffer " + ref.getBufferIndex() + ", which has only " + size
                    + " bytes; the page metadata or the file is corrupt");
        }
        if (length > Integer.MAX_VALUE) {
            throw new V20DecodeException(
                    where + ": " + what + " needs " + length + " bytes in one read; read a smaller row range");
        }
        if (length == 0) {
            return ByteBuffer.allocate(0).order(ByteOrder.LITTLE_ENDIAN);
        }
        ByteBuffer b = data.read(position(ref) + offset, (int) length);
        return b.slice().order(ByteOrder.LITTLE_ENDIAN);
    }

    /**
     * Bytes {@code [offset, offset + length)} of the referenced buffer after undoing its
     * whole-buffer compression (compression.md §3.9 framing, §9.2 in 2.0).
     */
    ByteBuffer readCompressed(Buffer ref, Compression compression, long offset, long length, String what)
            throws IOException {
        if (decompressed == null) {
            decompressed = new HashMap<>();
        }
        long key = ((long) ref.getBufferType().getNumber() << 32) | ref.getBufferIndex();
        ByteBuffer whole = decompressed.get(key);
        if (whole == null) {
            ByteBuffer raw = read(ref, 0, size(ref), what + " (compressed buffer)");
            whole = decompress(raw, compression).order(ByteOrder.LITTLE_ENDIAN);
            decompressed.put(key, whole);
        }
        if (offset < 0 || length < 0 || offset + length > whole.limit()) {
            throw new V20DecodeException(where + ": " + what + " needs bytes [" + offset + ", " + (offset + length)
                    + ") of " + ref.getBufferType() + " buffer " + ref.getBufferIndex()
                    + ", which decompresses to only "
                    + whole.limit() + " bytes; the page metadata or the file is corrupt");
        }
        return whole.slice((int) offset, (int) length).order(ByteOrder.LITTLE_ENDIAN);
    }

    private ByteBuffer decompress(ByteBuffer raw, Compression compression) throws V20DecodeException {
        try {
            GeneralCompression.Scheme scheme = GeneralCompression.Scheme.fromLanceName(compression.getScheme());
            return ByteBuffer.wrap(GeneralCompression.decompress(scheme, raw, 0, raw.limit()));
        } catch (CompressedDataException e) {
            throw new V20DecodeException(
                    where + ": cannot decompress a '" + compression.getScheme() + "'-compressed buffer of "
                            + raw.limit() + " bytes: " + e.getMessage(),
                    e);
        }
    }
}
