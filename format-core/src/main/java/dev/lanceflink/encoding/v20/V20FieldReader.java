package dev.lanceflink.encoding.v20;

import dev.lanceflink.io.RangeReader;
import dev.lanceflink.schema.LanceField;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import lance.encodings.ArrayEncoding;
import lance.file.v2.ColumnMetadata;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.NonNullableStructVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Reads one top-level field of a Lance file version 2.0 data file into an Arrow vector.
 *
 * <p>In 2.0 every field of the schema owns a column, in pre-order (file-format.md §5.2): a struct
 * has a "header" column (page lengths only; 2.0 structs have no nulls) followed by its
 * children's columns, a list has an offsets column followed by its item field's columns, and
 * primitives, strings and fixed-size lists have one column each. A packed struct
 * ({@link LanceField#isPackedStruct()}) is a single column.
 *
 * <p>Only the pages overlapping the requested rows are touched, and inside a page only the byte
 * ranges those rows need are read (plus the previous offset for strings and lists). List items
 * are read from the item column's row range the decoded offsets reference.
 */
public final class V20FieldReader {
    /**
     * {@link #take} merges wanted rows closer than this into one contiguous read; the rows in
     * between are decoded and dropped. Reading a few extra rows is cheaper than another request.
     */
    static final long TAKE_MAX_GAP_ROWS = 256;

    private V20FieldReader() {}

    /**
     * Number of columns the field spans in a 2.0 file: 1 for a packed struct, otherwise 1 plus
     * the columns of all children (a struct's header column, a list's offsets column).
     */
    public static int columnCount(LanceField field) {
        if (field.isPackedStruct()) {
            return 1;
        }
        int n = 1;
        for (LanceField child : field.children()) {
            n += columnCount(child);
        }
        return n;
    }

    /**
     * Decodes rows {@code [start, end)} of {@code field}.
     *
     * @param columns the field's {@code ColumnMetadata}, in file order, exactly
     *     {@link #columnCount(LanceField)} of them
     * @param data the data file (page buffers are read through absolute offsets)
     * @return a vector of {@code end - start} values, typed as {@link LanceField#toArrow()}; the
     *     caller closes it
     */
    public static FieldVector readRange(
            LanceField field,
            List<ColumnMetadata> columns,
            RangeReader data,
            long start,
            long end,
            BufferAllocator allocator)
            throws IOException {
        List<ColumnPages> cols = wrap(field, columns);
        cols.get(0).checkRange(start, end);
        return read(field, cols, data, start, end, allocator);
    }

    /**
     * Decodes the rows listed in {@code sortedRows} (ascending; a repeated row is returned
     * repeatedly), in that order.
     *
     * @return a vector of {@code sortedRows.length} values; the caller closes it
     */
    public static FieldVector take(
            LanceField field,
            List<ColumnMetadata> columns,
            RangeReader data,
            long[] sortedRows,
            BufferAllocator allocator)
            throws IOException {
        List<ColumnPages> cols = wrap(field, columns);
        long numRows = cols.get(0).numRows();
        for (int i = 0; i < sortedRows.length; i++) {
            if (sortedRows[i] < 0 || sortedRows[i] >= numRows) {
                throw new IllegalArgumentException("take from field '" + field.pathString() + "' (id " + field.id()
                        + "): row " + sortedRows[i] + " at position " + i + " is outside the column's " + numRows
                        + " rows");
            }
            if (i > 0 && sortedRows[i] < sortedRows[i - 1]) {
                throw new IllegalArgumentException("take from field '" + field.pathString() + "' (id " + field.id()
                        + "): rows must be sorted ascending, but row " + sortedRows[i] + " at position " + i
                        + " follows " + sortedRows[i - 1]);
            }
        }
        Field arrowField = arrowField(field);
        FieldVector result = arrowField.createVector(allocator);
        try {
            result.setInitialCapacity(sortedRows.length);
            result.allocateNew();
            int out = 0;
            int i = 0;
            while (i < sortedRows.length) {
                int j = i;
                while (j + 1 < sortedRows.length && sortedRows[j + 1] - sortedRows[j] <= TAKE_MAX_GAP_ROWS) {
                    j++;
                }
                long runStart = sortedRows[i];
                long runEnd = sortedRows[j] + 1;
                try (FieldVector run = read(field, cols, data, runStart, runEnd, allocator)) {
                    for (int k = i; k <= j; k++) {
                        VectorRowCopier.copyRow(run, (int) (sortedRows[k] - runStart), result, out++);
                    }
                }
                i = j + 1;
            }
            result.setValueCount(out);
            return result;
        } catch (IOException | RuntimeException e) {
            result.close();
            throw e;
        }
    }

    // ------------------------------------------------------------------------------------------

    private static List<ColumnPages> wrap(LanceField field, List<ColumnMetadata> columns) {
        int expected = columnCount(field);
        if (columns.size() != expected) {
            throw new IllegalArgumentException("field '" + field.pathString() + "' (id " + field.id() + ", type "
                    + field.logicalType() + ") spans " + expected + " columns in a 2.0 file, but " + columns.size()
                    + " column metadata entries were given");
        }
        List<ColumnPages> cols = new ArrayList<>(expected);
        String name = "field '" + field.pathString() + "' (id " + field.id() + ")";
        for (int i = 0; i < expected; i++) {
            cols.add(new ColumnPages(columns.get(i), name + ", column " + (i + 1) + " of " + expected));
        }
        return cols;
    }

    /** Metadata key Lance sets on blob fields; their 2.0 column holds descriptors, not the bytes. */
    private static final String BLOB_METADATA_KEY = "lance-encoding:blob";

    private static Field arrowField(LanceField field) throws V20DecodeException {
        Field f = field.toArrow();
        if (f.getDictionary() != null) {
            throw new V20DecodeException("field '" + field.pathString() + "' (id " + field.id() + ") has the"
                    + " dictionary logical type '" + field.logicalType() + "'; reading dictionary-typed fields from"
                    + " 2.0 files is not supported (utf8 columns that Lance dictionary-encodes internally are)");
        }
        boolean blob = field.preOrder().anyMatch(x -> x.metadata().containsKey(BLOB_METADATA_KEY));
        if (blob) {
            throw new V20DecodeException("field '" + field.pathString() + "' (id " + field.id() + ") is or contains"
                    + " a blob field (metadata " + BLOB_METADATA_KEY + "); reading blobs from 2.0 files is not"
                    + " supported");
        }
        return f;
    }

    private static FieldVector read(
            LanceField field, List<ColumnPages> cols, RangeReader data, long start, long end, BufferAllocator allocator)
            throws IOException {
        FieldVector vector = arrowField(field).createVector(allocator);
        try {
            new Filler(cols, data, allocator).fill(field, vector, 0, start, end);
            return vector;
        } catch (IOException | RuntimeException e) {
            vector.close();
            throw e;
        }
    }

    /** Walks the field tree and the column list in parallel (pre-order), filling vectors. */
    private static final class Filler {
        private final List<ColumnPages> cols;
        private final RangeReader data;
        private final BufferAllocator allocator;

        Filler(List<ColumnPages> cols, RangeReader data, BufferAllocator allocator) {
            this.cols = cols;
            this.data = data;
            this.allocator = allocator;
        }

        /** Fills {@code vector} with rows {@code [start, end)}; returns the next unused column index. */
        int fill(LanceField field, FieldVector vector, int col, long start, long end) throws IOException {
            ColumnPages column = cols.get(col);
            column.checkRange(start, end);
            if (field.isPackedStruct() && vector instanceof NonNullableStructVector struct) {
                fillPackedStruct(struct, column, start, end);
                return col + 1;
            }
            if (vector instanceof NonNullableStructVector struct) {
                checkHeader(column);
                List<FieldVector> childVectors = struct.getChildrenFromFields();
                List<LanceField> childFields = field.children();
                int next = col + 1;
                for (int i = 0; i < childFields.size(); i++) {
                    next = fill(childFields.get(i), childVectors.get(i), next, start, end);
                }
                loadAllValid(struct, end - start);
                return next;
            }
            if (vector instanceof ListVector || vector instanceof LargeListVector) {
                try (ListOffsetsDecoder lists = ListOffsetsDecoder.allocate(vector, end - start, allocator)) {
                    ListOffsetsDecoder.ItemRange items = lists.decode(column, data, start, end);
                    FieldVector itemVector = vector.getChildrenFromFields().get(0);
                    int next = fill(field.children().get(0), itemVector, col + 1, items.start(), items.end());
                    lists.loadInto(vector);
                    return next;
                }
            }
            if (vector instanceof FixedSizeListVector fsl && !FixedWidthTarget.supports(fsl)) {
                throw new V20DecodeException(column.where() + ": fixed-size lists of "
                        + fsl.getDataVector().getField().getType()
                        + " are not supported in 2.0 columns (items must be fixed-width)");
            }
            if (FixedWidthTarget.supports(vector)) {
                fillFixedWidth(vector, column, start, end);
                return col + 1;
            }
            if (VarWidthTarget.supports(vector)) {
                fillVarWidth(vector, column, start, end);
                return col + 1;
            }
            throw new V20DecodeException(column.where() + ": reading fields of type '" + field.logicalType()
                    + "' from 2.0 files is not supported");
        }

        private void fillFixedWidth(FieldVector vector, ColumnPages column, long start, long end) throws IOException {
            try (FixedWidthTarget t = FixedWidthTarget.allocate(vector, end - start, allocator)) {
                long out = 0;
                for (int p = firstPage(column, start, end); out < end - start; p++) {
                    long ps = column.pageStart(p);
                    long a = Math.max(start, ps) - ps;
                    long count = Math.min(end, ps + column.pageLength(p)) - ps - a;
                    if (count <= 0) {
                        continue;
                    }
                    t.markValid(out, count);
                    FixedWidthDecoder.decode(column.encoding(p), column.buffers(p, data), a, count, t, out);
                    out += count;
                }
                t.loadInto(vector);
            }
        }

        private void fillVarWidth(FieldVector vector, ColumnPages column, long start, long end) throws IOException {
            List<VariableWidthDecoder.Slice> slices = new ArrayList<>();
            long bytes = 0;
            for (int p = firstPage(column, start, end); p < column.pageCount() && column.pageStart(p) < end; p++) {
                long ps = column.pageStart(p);
                long a = Math.max(start, ps) - ps;
                long count = Math.min(end, ps + column.pageLength(p)) - ps - a;
                if (count <= 0) {
                    continue;
                }
                VariableWidthDecoder.Slice s =
                        VariableWidthDecoder.plan(column.encoding(p), column.buffers(p, data), a, count);
                slices.add(s);
                bytes += s.dataBytes();
            }
            try (VarWidthTarget t = VarWidthTarget.allocate(vector, end - start, allocator)) {
                t.allocateData(bytes, allocator, column.where());
                long out = 0;
                long dataStart = 0;
                for (VariableWidthDecoder.Slice s : slices) {
                    s.write(t, out, dataStart);
                    out += s.count;
                    dataStart += s.dataBytes();
                }
                t.loadInto(vector);
            }
        }

        private void fillPackedStruct(NonNullableStructVector struct, ColumnPages column, long start, long end)
                throws IOException {
            List<FieldVector> childVectors = struct.getChildrenFromFields();
            FixedWidthTarget[] targets = new FixedWidthTarget[childVectors.size()];
            try {
                for (int i = 0; i < targets.length; i++) {
                    FieldVector c = childVectors.get(i);
                    if (!FixedWidthTarget.supports(c)) {
                        throw new V20DecodeException(column.where() + ": packed struct child '" + c.getName()
                                + "' is not fixed-width; Lance packs only fixed-width children");
                    }
                    targets[i] = FixedWidthTarget.allocate(c, end - start, allocator);
                }
                long out = 0;
                for (int p = firstPage(column, start, end); out < end - start; p++) {
                    long ps = column.pageStart(p);
                    long a = Math.max(start, ps) - ps;
                    long count = Math.min(end, ps + column.pageLength(p)) - ps - a;
                    if (count <= 0) {
                        continue;
                    }
                    PackedStructDecoder.decode(column.encoding(p), column.buffers(p, data), a, count, targets, out);
                    out += count;
                }
                for (int i = 0; i < targets.length; i++) {
                    targets[i].loadInto(childVectors.get(i));
                }
            } finally {
                for (FixedWidthTarget t : targets) {
                    if (t != null) {
                        t.close();
                    }
                }
            }
            loadAllValid(struct, end - start);
        }

        private static int firstPage(ColumnPages column, long start, long end) {
            return start < end ? column.pageOf(start) : column.pageCount();
        }

        /** The struct header column: pages with a {@code struct} encoding and no buffers. */
        private static void checkHeader(ColumnPages column) throws V20DecodeException {
            if (column.pageCount() == 0) {
                return;
            }
            var enc = column.encoding(0);
            if (enc.getArrayEncodingCase() != ArrayEncoding.ArrayEncodingCase.STRUCT) {
                throw new V20DecodeException(column.where() + ", page 0: the header column of a struct field must use"
                        + " the struct encoding, found " + FixedWidthDecoder.describe(enc)
                        + " (are the column metadata entries aligned with the schema?)");
            }
        }

        /** 2.0 structs are never null: loads an all-valid validity buffer (if the vector has one). */
        private void loadAllValid(NonNullableStructVector vector, long rows) {
            int n = Math.toIntExact(rows);
            if (!(vector instanceof StructVector nullable)) {
                vector.setValueCount(n);
                return;
            }
            try (ArrowBuf validity = FixedWidthTarget.zeroed(allocator, (rows + 7) / 8)) {
                Bitmaps.setRange(validity, 0, rows);
                nullable.loadFieldBuffers(new ArrowFieldNode(n, 0), List.of(validity));
            }
        }
    }
}
