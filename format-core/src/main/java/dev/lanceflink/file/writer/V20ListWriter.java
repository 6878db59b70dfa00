package dev.lanceflink.file.writer;

import java.io.IOException;
import java.util.List;
import lance.encodings.ArrayEncoding;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;

/**
 * 2.0 list: an offsets column of {@code list{offsets: nullable{no_nulls{flat{64}}},
 * null_offset_adjustment, num_items}} pages, followed by the item column. Offsets are u64 end
 * positions relative to the page's first item, without a leading 0; a null list stores the
 * previous end plus {@code null_offset_adjustment} (= items in the page + 1, as Lance chooses).
 */
final class V20ListWriter extends V20ColumnWriter {
    private final V20ColumnWriter items;
    private final LongBuilder ends = new LongBuilder();
    private final BitBuilder validity = new BitBuilder();
    private long pageItems;
    private int rows;

    V20ListWriter(WriterField field, FileWriterOptions options, boolean underList) {
        super(field, options, underList);
        this.items = V20ColumnWriter.create(field.children().get(0), options, true);
    }

    @Override
    void append(FieldVector vector, int start, int end, long topRow, FileSink sink) throws IOException {
        boolean large = field.kind() == WriterField.Kind.LARGE_LIST;
        ArrowBuf offsets = vector.getOffsetBuffer();
        FieldVector child = large ? ((LargeListVector) vector).getDataVector() : ((ListVector) vector).getDataVector();
        int step = options.rowsPerSlice();
        boolean anyNull = vector.getNullCount() > 0;
        for (int s = start; s < end; s += step) {
            int e = Math.min(end, s + step);
            buffering(topRowOf(topRow, start, s));
            // Items are forwarded in runs; the items a null list may still span in Arrow are skipped.
            long runStart = large ? offsets.getLong(8L * s) : offsets.getInt(4L * s);
            long runEnd = runStart;
            long runTopRow = topRowOf(topRow, start, s);
            for (int i = s; i < e; i++) {
                long itemStart = large ? offsets.getLong(8L * i) : offsets.getInt(4L * i);
                long itemEnd = large ? offsets.getLong(8L * (i + 1)) : offsets.getInt(4L * (i + 1));
                boolean valid = !anyNull || !vector.isNull(i);
                validity.add(valid);
                if (valid) {
                    pageItems += itemEnd - itemStart;
                    runEnd = itemEnd;
                } else if (itemEnd != itemStart) {
                    forwardItems(child, runStart, runEnd, runTopRow, sink);
                    runStart = itemEnd;
                    runEnd = itemEnd;
                    runTopRow = topRowOf(topRow, start, i + 1);
                }
                ends.add(pageItems);
            }
            forwardItems(child, runStart, runEnd, runTopRow, sink);
            rows += e - s;
            if (8L * rows >= options.targetPageBytes()) {
                flushPage(sink);
            }
        }
    }

    private void forwardItems(FieldVector child, long from, long to, long topRow, FileSink sink) throws IOException {
        if (to > from) {
            if (to > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("list field '" + field.name() + "' (id " + field.id()
                        + ") has more than 2^31 items in one batch; write smaller batches");
            }
            items.append(child, (int) from, (int) to, topRow, sink);
        }
    }

    private void flushPage(FileSink sink) throws IOException {
        if (rows == 0) {
            return;
        }
        long adjustment = pageItems + 1;
        ByteBuilder buffer = new ByteBuilder(8 * rows);
        long prevEnd = 0;
        for (int i = 0; i < rows; i++) {
            long end = ends.get(i);
            buffer.putLong(validity.get(i) ? end : prevEnd + adjustment);
            prevEnd = end;
        }
        ArrayEncoding encoding = ArrayEncoding.newBuilder()
                .setList(lance.encodings.List.newBuilder()
                        .setOffsets(Encodings.noNull(Encodings.flat20(64, 0)))
                        .setNullOffsetAdjustment(adjustment)
                        .setNumItems(pageItems))
                .build();
        writePage(sink, new EncodedPage(List.of(buffer), Encodings.any(Encodings.ARRAY_ENCODING_URL, encoding), rows));
        rows = 0;
        pageItems = 0;
        ends.clear();
        validity.clear();
        // The items of this offsets page must end in pages of their own: Lance's 2.0 list
        // scheduler cannot share one items page between two offsets pages (Lance's list encoder
        // flushes its items encoder with every offsets page for this reason).
        items.flush(sink);
    }

    @Override
    void flush(FileSink sink) throws IOException {
        flushPage(sink);
    }

    @Override
    void finish(FileSink sink) throws IOException {
        flushPage(sink);
        items.finish(sink);
    }

    @Override
    void collectColumns(List<ColumnPages> out) {
        out.add(pages);
        items.collectColumns(out);
    }
}
