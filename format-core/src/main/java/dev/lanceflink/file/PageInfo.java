package dev.lanceflink.file;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import lance.file.v2.ColumnMetadata;
import lance.file.v2.Encoding;

/**
 * Where one page of one column lives and how many rows it holds. Buffer offsets are absolute file
 * offsets; sizes are the unpadded sizes recorded by the writer.
 *
 * @param column column index in the file
 * @param pageIndex index of the page within its column
 * @param firstRow row number (within the column) of the page's first row
 * @param numRows top-level rows in the page
 * @param bufferOffsets absolute offsets of the page buffers
 * @param bufferSizes sizes of the page buffers
 * @param encoding the page's encoding as an {@code Any} (type URL + serialized message)
 */
public record PageInfo(
        int column,
        int pageIndex,
        long firstRow,
        long numRows,
        long[] bufferOffsets,
        long[] bufferSizes,
        Any encoding) {

    /** Exclusive end row of the page within its column. */
    public long endRow() {
        return firstRow + numRows;
    }

    /** Builds the page list of one column, validating buffer bounds and row continuity. */
    static PageInfo[] pagesOf(int column, ColumnMetadata meta, long fileSize, String path, long metaOffset)
            throws LanceFileFormatException {
        PageInfo[] pages = new PageInfo[meta.getPagesCount()];
        long nextRow = 0;
        for (int i = 0; i < pages.length; i++) {
            ColumnMetadata.Page p = meta.getPages(i);
            if (p.getBufferOffsetsCount() != p.getBufferSizesCount()) {
                throw LanceFileFormatException.at(
                        path,
                        metaOffset,
                        "column " + column + " page " + i + " lists " + p.getBufferOffsetsCount()
                                + " buffer offsets but " + p.getBufferSizesCount() + " buffer sizes");
            }
            long[] offsets = new long[p.getBufferOffsetsCount()];
            long[] sizes = new long[offsets.length];
            for (int b = 0; b < offsets.length; b++) {
                offsets[b] = p.getBufferOffsets(b);
                sizes[b] = p.getBufferSizes(b);
                if (offsets[b] < 0 || sizes[b] < 0 || offsets[b] + sizes[b] > fileSize - FileFooter.SIZE) {
                    throw LanceFileFormatException.at(
                            path,
                            metaOffset,
                            "column " + column + " page " + i + " buffer "
                                    + b + " [" + Long.toUnsignedString(offsets[b]) + ", +"
                                    + Long.toUnsignedString(sizes[b])
                                    + ") lies outside the file's data (" + fileSize + " bytes)");
                }
            }
            // Lance writes priority = first row; older writers left it 0 for every page, so rows are
            // derived from the running sum of page lengths, which is what the format guarantees.
            long first = nextRow;
            nextRow += p.getLength();
            pages[i] = new PageInfo(
                    column,
                    i,
                    first,
                    p.getLength(),
                    offsets,
                    sizes,
                    encodingOf(p.getEncoding(), column, i, path, metaOffset));
        }
        return pages;
    }

    private static Any encodingOf(Encoding e, int column, int page, String path, long metaOffset)
            throws LanceFileFormatException {
        switch (e.getLocationCase()) {
            case DIRECT:
                try {
                    return Any.parseFrom(e.getDirect().getEncoding());
                } catch (InvalidProtocolBufferException ex) {
                    throw LanceFileFormatException.at(
                            path,
                            metaOffset,
                            "column " + column + " page " + page
                                    + ": the page encoding is not a valid google.protobuf.Any: " + ex.getMessage(),
                            ex);
                }
            case INDIRECT:
                throw LanceFileFormatException.at(
                        path,
                        metaOffset,
                        "column " + column + " page " + page
                                + " uses a deferred (indirect) encoding, which Lance itself does not support either");
            default:
                throw LanceFileFormatException.at(
                        path,
                        metaOffset,
                        "column " + column + " page " + page + " has no encoding (" + e.getLocationCase() + ")");
        }
    }
}
