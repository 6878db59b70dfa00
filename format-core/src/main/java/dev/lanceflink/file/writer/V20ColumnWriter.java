package dev.lanceflink.file.writer;

import java.io.IOException;
import java.util.List;
import org.apache.arrow.vector.FieldVector;

/**
 * Writes one field of a file version 2.0 file. In 2.0 every field owns a column (a struct a
 * header column, a list an offsets column, followed by the columns of its children), so a
 * writer produces its own column and those of its descendants, in pre-order.
 */
abstract class V20ColumnWriter {
    final WriterField field;
    final FileWriterOptions options;
    final ColumnPages pages = new ColumnPages();
    /** Whether this field lies under a list, i.e. its rows are items, not top-level rows. */
    final boolean underList;
    /** Top-level row of the first row buffered for the next page; -1 when nothing is buffered. */
    private long pageTopRow = -1;

    V20ColumnWriter(WriterField field, FileWriterOptions options, boolean underList) {
        this.field = field;
        this.options = options;
        this.underList = underList;
    }

    /**
     * Buffers rows {@code [start, end)} of {@code vector}, writing pages as they fill.
     *
     * @param topRow the top-level row of the file that row {@code start} belongs to (for items of
     *     a list: the top-level row of the list holding the first item); it becomes the priority of
     *     pages starting in this call, as Lance sets a page's priority to a top-level row number
     */
    abstract void append(FieldVector vector, int start, int end, long topRow, FileSink sink) throws IOException;

    /** The top-level row of row {@code row} of an append that started at {@code start} / {@code topRow}. */
    final long topRowOf(long topRow, int start, int row) {
        return underList ? topRow : topRow + (row - start);
    }

    /** Records that rows from {@code topRow} on are being buffered (the first call per page counts). */
    final void buffering(long topRow) {
        if (pageTopRow < 0) {
            pageTopRow = topRow;
        }
    }

    /** Writes a page with priority = the top-level row of its first row. */
    final void writePage(FileSink sink, EncodedPage page) throws IOException {
        pages.write(sink, page, Math.max(0, pageTopRow));
        pageTopRow = -1;
    }

    /**
     * Writes every buffered row of this field and its descendants as pages now. A list calls
     * this on its items whenever it writes an offsets page: Lance's 2.0 reader cannot share one
     * items page between two offsets pages (Lance's own list encoder flushes its items encoder
     * with every offsets page for the same reason).
     */
    abstract void flush(FileSink sink) throws IOException;

    /** Writes whatever is still buffered (the last pages). */
    abstract void finish(FileSink sink) throws IOException;

    /** This field's column followed by its descendants' columns, in pre-order. */
    abstract void collectColumns(List<ColumnPages> out);

    /** Rows of this field's own column. */
    long rows() {
        return pages.rows();
    }

    static V20ColumnWriter create(WriterField field, FileWriterOptions options, boolean underList) {
        return switch (field.kind()) {
            case BOOL, FIXED, FSL -> new V20PrimitiveWriter(field, options, underList);
            case VARIABLE -> new V20BinaryWriter(field, options, underList);
            case STRUCT -> new V20StructWriter(field, options, underList);
            case LIST, LARGE_LIST -> new V20ListWriter(field, options, underList);
            // LanceFileWriter.create refuses maps below file version 2.2, so none reaches a 2.0 writer.
            case MAP ->
                throw new IllegalStateException("field '" + field.name() + "' (id " + field.id()
                        + ") is a map, which file version 2.0 cannot hold");
        };
    }
}
