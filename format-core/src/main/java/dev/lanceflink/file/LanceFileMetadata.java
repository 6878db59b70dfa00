package dev.lanceflink.file;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.lanceflink.io.RangeReader;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import lance.file.FileDescriptor;
import lance.file.v2.ColumnMetadata;

/**
 * Everything in a Lance v2 data file except the page data: footer, file descriptor (schema and
 * row count, global buffer 0), the column metadata of every column and the derived page lists.
 * Loaded with one tail read in the common case (the metadata of small and medium files fits in
 * the first 64 KiB read from the end) and at most one more read otherwise.
 */
public final class LanceFileMetadata {
    /** How much of the file's tail is read speculatively on open. */
    static final int TAIL_READ = 64 * 1024;

    private final String path;
    private final long fileSize;
    private final FileFooter footer;
    private final FileVersion version;
    private final FileDescriptor descriptor;
    private final List<ColumnMetadata> columns;
    private final List<PageInfo[]> pages;
    private final long[] globalBufferOffsets;
    private final long[] globalBufferSizes;

    private LanceFileMetadata(
            String path,
            long fileSize,
            FileFooter footer,
            FileVersion version,
            FileDescriptor descriptor,
            List<ColumnMetadata> columns,
            List<PageInfo[]> pages,
            long[] globalBufferOffsets,
            long[] globalBufferSizes) {
        this.path = path;
        this.fileSize = fileSize;
        this.footer = footer;
        this.version = version;
        this.descriptor = descriptor;
        this.columns = columns;
        this.pages = pages;
        this.globalBufferOffsets = globalBufferOffsets;
        this.globalBufferSizes = globalBufferSizes;
    }

    /** Reads and validates the metadata of the file behind {@code reader}. */
    public static LanceFileMetadata read(RangeReader reader, String path) throws IOException {
        long size = reader.size();
        if (size < FileFooter.SIZE) {
            throw LanceFileFormatException.at(
                    path,
                    0,
                    "the file has only " + size
                            + " bytes, fewer than the 40-byte footer of a Lance v2 data file; the object is truncated or not a Lance file");
        }
        int tailLen = (int) Math.min(size, TAIL_READ);
        Region tail = new Region(size - tailLen, readFully(reader, size - tailLen, tailLen, path, "the file tail"));
        FileFooter footer =
                FileFooter.parse(tail.slice(size - FileFooter.SIZE, FileFooter.SIZE, path, "footer"), size, path);
        FileVersion version;
        try {
            version = FileVersion.fromFooter(footer.majorVersion(), footer.minorVersion());
        } catch (FileVersion.UnsupportedFileVersionException e) {
            throw LanceFileFormatException.at(path, size - 8, e.getMessage(), e);
        }

        // Global buffer offset table.
        long[] gbOffsets = new long[footer.numGlobalBuffers()];
        long[] gbSizes = new long[gbOffsets.length];
        Region meta = tail;
        long metaStart = footer.columnMetadataStart();
        if (metaStart < meta.start) {
            meta = loadFrom(reader, Math.min(metaStart, footer.globalBufferOffsetsStart()), size, tail, path);
        }
        ByteBuffer gbo = meta.slice(
                footer.globalBufferOffsetsStart(), 16 * gbOffsets.length, path, "global buffer offset table");
        for (int i = 0; i < gbOffsets.length; i++) {
            gbOffsets[i] = gbo.getLong(16 * i);
            gbSizes[i] = gbo.getLong(16 * i + 8);
            long entryAt = footer.globalBufferOffsetsStart() + 16L * i;
            if (gbOffsets[i] < 0
                    || gbSizes[i] < 0
                    || gbSizes[i] > Integer.MAX_VALUE
                    || gbOffsets[i] + gbSizes[i] > size - FileFooter.SIZE) {
                throw LanceFileFormatException.at(
                        path,
                        entryAt,
                        "global buffer " + i + " [" + Long.toUnsignedString(gbOffsets[i]) + ", +"
                                + Long.toUnsignedString(gbSizes[i]) + ") lies outside the file (" + size + " bytes)");
            }
            if (version != FileVersion.V2_0 && gbOffsets[i] % 64 != 0) {
                throw LanceFileFormatException.at(
                        path,
                        entryAt,
                        "global buffer " + i + " starts at " + gbOffsets[i]
                                + ", which is not 64-byte aligned as file version " + version.label() + " requires");
            }
        }
        if (gbOffsets[0] < meta.start) {
            meta = loadFrom(reader, gbOffsets[0], size, meta, path);
        }
        FileDescriptor descriptor;
        try {
            descriptor = FileDescriptor.parseFrom(meta.slice(gbOffsets[0], (int) gbSizes[0], path, "file descriptor"));
        } catch (InvalidProtocolBufferException e) {
            throw LanceFileFormatException.at(
                    path,
                    gbOffsets[0],
                    "global buffer 0 is not a valid lance.file.FileDescriptor (" + gbSizes[0] + " bytes): "
                            + e.getMessage(),
                    e);
        }

        // Column metadata offset table and the column metadata themselves.
        int numColumns = footer.numColumns();
        ByteBuffer cmo =
                meta.slice(footer.columnMetadataOffsetsStart(), 16 * numColumns, path, "column metadata offset table");
        List<ColumnMetadata> columns = new ArrayList<>(numColumns);
        List<PageInfo[]> pages = new ArrayList<>(numColumns);
        for (int c = 0; c < numColumns; c++) {
            long pos = cmo.getLong(16 * c);
            long len = cmo.getLong(16 * c + 8);
            long entryAt = footer.columnMetadataOffsetsStart() + 16L * c;
            if (pos < footer.columnMetadataStart() || len < 0 || pos + len > footer.columnMetadataOffsetsStart()) {
                throw LanceFileFormatException.at(
                        path,
                        entryAt,
                        "column " + c + " metadata [" + Long.toUnsignedString(pos)
                                + ", +" + Long.toUnsignedString(len) + ") lies outside the column metadata section ["
                                + footer.columnMetadataStart() + ", " + footer.columnMetadataOffsetsStart() + ")");
            }
            ColumnMetadata cm;
            try {
                cm = ColumnMetadata.parseFrom(meta.slice(pos, (int) len, path, "column " + c + " metadata"));
            } catch (InvalidProtocolBufferException e) {
                throw LanceFileFormatException.at(
                        path,
                        pos,
                        "column " + c + " metadata is not a valid lance.file.v2.ColumnMetadata: " + e.getMessage(),
                        e);
            }
            columns.add(cm);
            pages.add(PageInfo.pagesOf(c, cm, size, path, pos));
        }
        return new LanceFileMetadata(
                path,
                size,
                footer,
                version,
                descriptor,
                Collections.unmodifiableList(columns),
                Collections.unmodifiableList(pages),
                gbOffsets,
                gbSizes);
    }

    private static Region loadFrom(RangeReader reader, long start, long size, Region have, String path)
            throws IOException {
        if (start < 0 || start >= size) {
            throw LanceFileFormatException.at(
                    path, size - FileFooter.SIZE, "metadata offset " + start + " lies outside the file");
        }
        long len = have.start - start;
        if (len <= 0) {
            return have;
        }
        if (len + have.bytes.remaining() > Integer.MAX_VALUE) {
            throw LanceFileFormatException.at(path, start, "the file's metadata section is larger than 2 GiB");
        }
        ByteBuffer head = readFully(reader, start, (int) len, path, "the metadata section");
        ByteBuffer all = ByteBuffer.allocate((int) len + have.bytes.remaining());
        all.put(head.duplicate()).put(have.bytes.duplicate()).flip();
        return new Region(start, all.order(ByteOrder.LITTLE_ENDIAN));
    }

    static ByteBuffer readFully(RangeReader reader, long offset, int length, String path, String what)
            throws IOException {
        try {
            ByteBuffer b = reader.read(offset, length);
            if (b.remaining() < length) {
                throw LanceFileFormatException.at(
                        path, offset, "short read of " + what + ": wanted " + length + " bytes, got " + b.remaining());
            }
            return b.slice().order(ByteOrder.LITTLE_ENDIAN);
        } catch (EOFException e) {
            throw LanceFileFormatException.at(
                    path,
                    offset,
                    "the file ends inside " + what + " ([" + offset + ", +" + length + ")); the object is truncated",
                    e);
        }
    }

    /** A contiguous byte range of the file held in memory. */
    private static final class Region {
        final long start;
        final ByteBuffer bytes;

        Region(long start, ByteBuffer bytes) {
            this.start = start;
            this.bytes = bytes.order(ByteOrder.LITTLE_ENDIAN);
        }

        ByteBuffer slice(long offset, int length, String path, String what) throws LanceFileFormatException {
            long rel = offset - start;
            if (rel < 0 || length < 0 || rel + length > bytes.remaining()) {
                throw LanceFileFormatException.at(
                        path,
                        offset,
                        what + " [" + offset + ", +" + length + ") is outside the bytes read from the file tail ["
                                + start + ", " + (start + bytes.remaining()) + ")");
            }
            return bytes.duplicate()
                    .position(bytes.position() + (int) rel)
                    .limit(bytes.position() + (int) rel + length)
                    .slice()
                    .order(ByteOrder.LITTLE_ENDIAN);
        }
    }

    public String path() {
        return path;
    }

    public long fileSize() {
        return fileSize;
    }

    public FileFooter footer() {
        return footer;
    }

    public FileVersion version() {
        return version;
    }

    /** The {@code lance.file.FileDescriptor} of global buffer 0: the file's schema and row count. */
    public FileDescriptor descriptor() {
        return descriptor;
    }

    public int numColumns() {
        return columns.size();
    }

    public ColumnMetadata column(int index) {
        return columns.get(index);
    }

    public List<ColumnMetadata> columns() {
        return columns;
    }

    /** The pages of one column in row order. The array is shared: do not modify it. */
    public PageInfo[] pages(int column) {
        return pages.get(column);
    }

    /** Rows stored in one column (sum of its page lengths). */
    public long columnRows(int column) {
        PageInfo[] p = pages.get(column);
        return p.length == 0 ? 0 : p[p.length - 1].endRow();
    }

    public int numGlobalBuffers() {
        return globalBufferOffsets.length;
    }

    public long globalBufferOffset(int i) {
        return globalBufferOffsets[i];
    }

    public long globalBufferSize(int i) {
        return globalBufferSizes[i];
    }
}
