package dev.lanceflink.file.writer;

import java.io.IOException;
import java.util.List;
import lance.encodings.ArrayEncoding;
import lance.encodings.Binary;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;

/**
 * 2.0 utf8/binary columns (and their large variants) as Lance's {@code binary} encoding
 * (file-format.md §7.2): buffer 0 = one u64 end offset per row (no leading 0), buffer 1 = the
 * bytes. A null row stores its start offset plus {@code null_adjustment} (= the page's byte
 * count + 1), so nulls need no validity buffer.
 */
final class V20BinaryWriter extends V20ColumnWriter {
    private final ByteBuilder bytes = new ByteBuilder(64 * 1024);
    private final LongBuilder ends = new LongBuilder();
    private final BitBuilder validity = new BitBuilder();
    private int rows;

    V20BinaryWriter(WriterField field, FileWriterOptions options, boolean underList) {
        super(field, options, underList);
    }

    @Override
    void append(FieldVector vector, int start, int end, long topRow, FileSink sink) throws IOException {
        int step = options.rowsPerSlice();
        for (int s = start; s < end; s += step) {
            int e = Math.min(end, s + step);
            buffering(topRowOf(topRow, start, s));
            appendSlice(vector, s, e);
            if (bytes.size() + 8L * rows >= options.targetPageBytes()) {
                flushPage(sink);
            }
        }
    }

    private void appendSlice(FieldVector vector, int start, int end) {
        boolean large = vector instanceof BaseLargeVariableWidthVector;
        ArrowBuf offsets = vector.getOffsetBuffer();
        ArrowBuf data = large
                ? ((BaseLargeVariableWidthVector) vector).getDataBuffer()
                : ((BaseVariableWidthVector) vector).getDataBuffer();
        boolean anyNull = vector.getNullCount() > 0;
        for (int i = start; i < end; i++) {
            boolean valid = !anyNull || !vector.isNull(i);
            validity.add(valid);
            if (valid) {
                long s = large ? offsets.getLong(8L * i) : offsets.getInt(4L * i);
                long e = large ? offsets.getLong(8L * (i + 1)) : offsets.getInt(4L * (i + 1));
                bytes.putArrow(data, s, (int) (e - s));
            }
            ends.add(bytes.size());
        }
        rows += end - start;
    }

    private void flushPage(FileSink sink) throws IOException {
        if (rows == 0) {
            return;
        }
        long nullAdjustment = (long) bytes.size() + 1;
        ByteBuilder indices = new ByteBuilder(8 * rows);
        for (int i = 0; i < rows; i++) {
            long end = ends.get(i);
            indices.putLong(validity.get(i) ? end : end + nullAdjustment);
        }
        ArrayEncoding encoding = ArrayEncoding.newBuilder()
                .setBinary(Binary.newBuilder()
                        .setIndices(Encodings.noNull(Encodings.flat20(64, 0)))
                        .setBytes(Encodings.flat20(8, 1))
                        .setNullAdjustment(nullAdjustment))
                .build();
        writePage(
                sink,
                new EncodedPage(List.of(indices, bytes), Encodings.any(Encodings.ARRAY_ENCODING_URL, encoding), rows));
        rows = 0;
        bytes.clear();
        ends.clear();
        validity.clear();
    }

    @Override
    void flush(FileSink sink) throws IOException {
        flushPage(sink);
    }

    @Override
    void finish(FileSink sink) throws IOException {
        flushPage(sink);
    }

    @Override
    void collectColumns(List<ColumnPages> out) {
        out.add(pages);
    }
}
