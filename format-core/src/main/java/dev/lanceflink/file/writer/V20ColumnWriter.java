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

    V20ColumnWriter(WriterField field, FileWriterOptions options) {
        this.field = field;
        this.options = options;
    }

    /** Buffers rows {@code [start, end)} of {@code vector}, writing pages as they fill. */
    abstract void append(FieldVector vector, int start, int end, FileSink sink) throws IOException;

    /** Writes whatever is still buffered (the last pages). */
    abstract void finish(FileSink sink) throws IOException;

    /** This field's column followed by its descendants' columns, in pre-order. */
    abstract void collectColumns(List<ColumnPages> out);

    /** Rows of this field's own column. */
    long rows() {
        return pages.rows();
    }

    static V20ColumnWriter create(WriterField field, FileWriterOptions options) {
        return switch (field.kind()) {
            case BOOL, FIXED, FSL -> new V20PrimitiveWriter(field, options);
            case VARIABLE -> new V20BinaryWriter(field, options);
            case STRUCT -> new V20StructWriter(field, options);
            case LIST, LARGE_LIST -> new V20ListWriter(field, options);
        };
    }
}
