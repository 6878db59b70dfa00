package dev.lanceflink.file.writer;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import lance.encodings.ArrayEncoding;
import lance.encodings.SimpleStruct;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.NonNullableStructVector;

/**
 * 2.0 struct: a header column with a single buffer-less {@code struct{}} page covering all rows
 * (written at the end), then the children's columns. File version 2.0 has no way to store a
 * null struct, so null struct rows are rejected rather than silently turned into valid ones.
 */
final class V20StructWriter extends V20ColumnWriter {
    private final List<V20ColumnWriter> children = new ArrayList<>();
    private long rows;

    V20StructWriter(WriterField field, FileWriterOptions options, boolean underList) {
        super(field, options, underList);
        for (WriterField child : field.children()) {
            children.add(V20ColumnWriter.create(child, options, underList));
        }
    }

    @Override
    void append(FieldVector vector, int start, int end, long topRow, FileSink sink) throws IOException {
        if (vector.getNullCount() > 0) {
            for (int i = start; i < end; i++) {
                if (vector.isNull(i)) {
                    throw new IllegalArgumentException("struct field '" + field.name() + "' (id " + field.id()
                            + ") is null in row " + i + " of the batch; Lance file version 2.0 cannot store null"
                            + " structs. Write file version 2.1 or make the struct non-null.");
                }
            }
        }
        List<FieldVector> vectors = ((NonNullableStructVector) vector).getChildrenFromFields();
        for (int c = 0; c < children.size(); c++) {
            children.get(c).append(vectors.get(c), start, end, topRow, sink);
        }
        rows += end - start;
    }

    /** The header page covers all rows and is written by {@link #finish}; only children have pages to flush. */
    @Override
    void flush(FileSink sink) throws IOException {
        for (V20ColumnWriter child : children) {
            child.flush(sink);
        }
    }

    @Override
    void finish(FileSink sink) throws IOException {
        if (rows > 0) {
            ArrayEncoding encoding = ArrayEncoding.newBuilder()
                    .setStruct(SimpleStruct.getDefaultInstance())
                    .build();
            pages.write(sink, new EncodedPage(List.of(), Encodings.any(Encodings.ARRAY_ENCODING_URL, encoding), rows));
        }
        for (V20ColumnWriter child : children) {
            child.finish(sink);
        }
    }

    @Override
    long rows() {
        return rows;
    }

    @Override
    void collectColumns(List<ColumnPages> out) {
        out.add(pages);
        for (V20ColumnWriter child : children) {
            child.collectColumns(out);
        }
    }
}
