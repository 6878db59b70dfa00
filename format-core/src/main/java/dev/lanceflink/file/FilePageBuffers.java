package dev.lanceflink.file;

import dev.lanceflink.encoding.v21.EncodingException;
import dev.lanceflink.encoding.v21.PageBufferSource;
import dev.lanceflink.io.RangeReader;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.apache.arrow.memory.ArrowBuf;

/** The buffers of one page, read from the data file by absolute offset. */
final class FilePageBuffers implements PageBufferSource {
    private final RangeReader reader;
    private final PageInfo page;
    private final String path;
    private final ParallelRangeCopier copier;

    FilePageBuffers(RangeReader reader, PageInfo page, String path, ParallelRangeCopier copier) {
        this.reader = reader;
        this.page = page;
        this.path = path;
        this.copier = copier;
    }

    /** Large copies into Arrow memory are split over several threads ({@link ParallelRangeCopier}). */
    @Override
    public void readInto(int index, long offset, long length, ArrowBuf dst, long dstOffset) throws IOException {
        if (index < 0 || index >= bufferCount()) {
            throw new EncodingException(
                    "page buffer " + index + " does not exist (the page has " + bufferCount() + ")");
        }
        long size = page.bufferSizes()[index];
        if (offset < 0 || length < 0 || offset + length > size) {
            throw new EncodingException("bytes [" + offset + ", +" + length + ") are outside page buffer " + index
                    + " of " + size + " bytes");
        }
        if (dstOffset < 0 || dstOffset + length > dst.capacity()) {
            throw new IllegalArgumentException("copy of " + length + " bytes to offset " + dstOffset
                    + " does not fit an Arrow buffer of " + dst.capacity() + " bytes");
        }
        copier.copy(
                page.bufferOffsets()[index] + offset,
                length,
                dst,
                dstOffset,
                "column " + page.column() + " page " + page.pageIndex() + " buffer " + index);
    }

    @Override
    public int bufferCount() {
        return page.bufferOffsets().length;
    }

    @Override
    public long bufferSize(int index) {
        return page.bufferSizes()[index];
    }

    @Override
    public ByteBuffer[] readAll(int... indices) throws IOException {
        long[] offsets = new long[indices.length];
        int[] lengths = new int[indices.length];
        for (int i = 0; i < indices.length; i++) {
            int b = indices[i];
            if (b < 0 || b >= bufferCount()) {
                throw new EncodingException(
                        "page buffer " + b + " does not exist (the page has " + bufferCount() + ")");
            }
            if (page.bufferSizes()[b] > Integer.MAX_VALUE) {
                throw new EncodingException(
                        "page buffer " + b + " of " + page.bufferSizes()[b] + " bytes is larger than 2 GiB");
            }
            offsets[i] = page.bufferOffsets()[b];
            lengths[i] = (int) page.bufferSizes()[b];
        }
        ByteBuffer[] out;
        try {
            out = reader.readRanges(offsets, lengths);
        } catch (EOFException e) {
            throw LanceFileFormatException.at(
                    path,
                    offsets[0],
                    "the file ends inside the buffers of column " + page.column() + " page " + page.pageIndex()
                            + "; the object is truncated",
                    e);
        }
        for (int i = 0; i < out.length; i++) {
            if (out[i].remaining() < lengths[i]) {
                throw LanceFileFormatException.at(
                        path,
                        offsets[i],
                        "short read of column " + page.column() + " page " + page.pageIndex() + " buffer " + indices[i]
                                + ": wanted " + lengths[i] + " bytes, got " + out[i].remaining());
            }
            out[i] = out[i].slice().order(ByteOrder.LITTLE_ENDIAN);
        }
        return out;
    }

    @Override
    public ByteBuffer read(int index, long offset, int length) throws IOException {
        if (index < 0 || index >= bufferCount()) {
            throw new EncodingException(
                    "page buffer " + index + " does not exist (the page has " + bufferCount() + ")");
        }
        long size = page.bufferSizes()[index];
        if (offset < 0 || length < 0 || offset + length > size) {
            throw new EncodingException("bytes [" + offset + ", +" + length + ") are outside page buffer " + index
                    + " of " + size + " bytes");
        }
        return LanceFileMetadata.readFully(
                reader,
                page.bufferOffsets()[index] + offset,
                length,
                path,
                "column " + page.column() + " page " + page.pageIndex() + " buffer " + index);
    }
}
