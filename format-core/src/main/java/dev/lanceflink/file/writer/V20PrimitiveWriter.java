package dev.lanceflink.file.writer;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import lance.encodings.ArrayEncoding;
import lance.encodings.FixedSizeList;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;

/**
 * 2.0 columns of booleans, fixed-width values and fixed-size lists, per the recipes of
 * file-format.md §7.2: {@code nullable{no_nulls{flat}}} without nulls,
 * {@code nullable{some_nulls{validity: flat{1}, values}}} with some, {@code nullable{all_nulls}}
 * (no buffers) when every row is null. Null rows keep a value slot.
 */
final class V20PrimitiveWriter extends V20ColumnWriter {
    private final ByteBuilder values;
    private final BitBuilder bits;
    private final BitBuilder validity = new BitBuilder();
    private final BitBuilder itemValidity;
    private boolean anyItemNull;
    private int rows;
    private int nulls;

    V20PrimitiveWriter(WriterField field, FileWriterOptions options, boolean underList) {
        super(field, options, underList);
        boolean bool = field.kind() == WriterField.Kind.BOOL;
        this.values = bool ? null : new ByteBuilder(64 * 1024);
        this.bits = bool ? new BitBuilder() : null;
        this.itemValidity = field.kind() == WriterField.Kind.FSL ? new BitBuilder() : null;
    }

    @Override
    void append(FieldVector vector, int start, int end, long topRow, FileSink sink) throws IOException {
        int step = options.rowsPerSlice();
        for (int s = start; s < end; s += step) {
            int e = Math.min(end, s + step);
            buffering(topRowOf(topRow, start, s));
            appendSlice(vector, s, e);
            if (bufferedBytes() >= options.targetPageBytes()) {
                flushPage(sink);
            }
        }
    }

    private long bufferedBytes() {
        return values != null ? values.size() : bits.size() / 8;
    }

    private void appendSlice(FieldVector vector, int start, int end) {
        int n = end - start;
        if (vector.getNullCount() == 0) {
            validity.addRepeated(true, n);
        } else {
            for (int i = start; i < end; i++) {
                boolean valid = !vector.isNull(i);
                validity.add(valid);
                if (!valid) {
                    nulls++;
                }
            }
        }
        rows += n;
        switch (field.kind()) {
            case BOOL -> bits.addArrowBits(((BitVector) vector).getDataBuffer(), start, n);
            case FIXED ->
                values.putArrow(
                        ((BaseFixedWidthVector) vector).getDataBuffer(),
                        (long) start * field.byteWidth(),
                        n * field.byteWidth());
            case FSL -> {
                FixedSizeListVector fsl = (FixedSizeListVector) vector;
                FieldVector items = fsl.getDataVector();
                int dim = field.dimension();
                long first = (long) start * dim;
                long count = (long) n * dim;
                values.putArrow(((BaseFixedWidthVector) items).getDataBuffer(), first * field.byteWidth(), (int)
                        (count * field.byteWidth()));
                if (items.getNullCount() == 0) {
                    itemValidity.addRepeated(true, count);
                } else {
                    long before = itemValidity.size();
                    itemValidity.addArrowBits(items.getValidityBuffer(), first, count);
                    anyItemNull |= itemValidity.anyClear(before, count);
                }
            }
            default -> throw new IllegalStateException(field.kind().name());
        }
    }

    private void flushPage(FileSink sink) throws IOException {
        if (rows == 0) {
            return;
        }
        List<ByteBuilder> buffers = new ArrayList<>();
        ArrayEncoding encoding;
        if (nulls == rows) {
            encoding = Encodings.allNull();
        } else {
            boolean someNull = nulls > 0;
            if (someNull) {
                buffers.add(copyBits(validity, rows));
            }
            ArrayEncoding inner = valuesEncoding(buffers);
            encoding = someNull ? Encodings.someNull(Encodings.flat20(1, 0), inner) : Encodings.noNull(inner);
        }
        writePage(sink, new EncodedPage(buffers, Encodings.any(Encodings.ARRAY_ENCODING_URL, encoding), rows));
        rows = 0;
        nulls = 0;
        validity.clear();
        anyItemNull = false;
        if (values != null) {
            values.clear();
        }
        if (bits != null) {
            bits.clear();
        }
        if (itemValidity != null) {
            itemValidity.clear();
        }
    }

    /** Adds the value buffers (in buffer-index order) and returns the encoding of the values. */
    private ArrayEncoding valuesEncoding(List<ByteBuilder> buffers) {
        switch (field.kind()) {
            case BOOL -> {
                buffers.add(copyBits(bits, rows));
                return Encodings.flat20(1, buffers.size() - 1);
            }
            case FIXED -> {
                buffers.add(values);
                return Encodings.flat20(field.bitsPerValue(), buffers.size() - 1);
            }
            case FSL -> {
                ArrayEncoding items;
                if (anyItemNull) {
                    buffers.add(copyBits(itemValidity, (long) rows * field.dimension()));
                    int validityIndex = buffers.size() - 1;
                    buffers.add(values);
                    items = Encodings.someNull(
                            Encodings.flat20(1, validityIndex),
                            Encodings.flat20(field.byteWidth() * 8L, buffers.size() - 1));
                } else {
                    buffers.add(values);
                    items = Encodings.noNull(Encodings.flat20(field.byteWidth() * 8L, buffers.size() - 1));
                }
                return ArrayEncoding.newBuilder()
                        .setFixedSizeList(FixedSizeList.newBuilder()
                                .setDimension(field.dimension())
                                .setItems(items)
                                .setHasValidity(false))
                        .build();
            }
            default -> throw new IllegalStateException(field.kind().name());
        }
    }

    private static ByteBuilder copyBits(BitBuilder bits, long count) {
        ByteBuilder out = new ByteBuilder((int) ((count + 7) / 8));
        bits.copyTo(out, 0, count);
        return out;
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
