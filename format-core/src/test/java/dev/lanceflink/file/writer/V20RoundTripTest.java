package dev.lanceflink.file.writer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.encoding.v20.V20FieldReader;
import dev.lanceflink.file.FileVersion;
import dev.lanceflink.io.RangeReader;
import dev.lanceflink.schema.LanceField;
import dev.lanceflink.schema.LanceSchema;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import lance.file.v2.ColumnMetadata;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Writes 2.0 files and reads every cell back through the 2.0 decoders ({@link V20FieldReader}). */
class V20RoundTripTest {
    private final BufferAllocator allocator = new RootAllocator();

    @TempDir
    Path dir;

    @AfterEach
    void close() {
        allocator.close();
    }

    private void roundTrip(Schema arrow, List<VectorSchemaRoot> batches, FileWriterOptions options) throws Exception {
        WriterTestSupport.Written w;
        try {
            w = WriterTestSupport.write(dir, allocator, FileVersion.V2_0, options, batches);
        } catch (Exception e) {
            batches.forEach(VectorSchemaRoot::close);
            throw e;
        }
        WrittenFile f = w.parse();
        assertThat(f.major).isZero();
        assertThat(f.minor).isEqualTo(3);
        assertThat(w.summary().fileMajorVersion()).isEqualTo(2);
        assertThat(w.summary().fileMinorVersion()).isZero();
        LanceSchema schema = LanceSchema.fromArrow(arrow, 0);
        assertThat(w.summary().fieldIds()).isEqualTo(schema.allFieldIds());
        long total = batches.stream().mapToLong(VectorSchemaRoot::getRowCount).sum();
        assertThat(f.descriptor.getLength()).isEqualTo(total);
        assertThat(f.descriptor.getSchema().getFieldsList()).isEqualTo(schema.toProto());
        try (RangeReader data = w.store().openReader("data/f.lance")) {
            int column = 0;
            for (int c = 0; c < schema.fields().size(); c++) {
                LanceField field = schema.fields().get(c);
                int n = V20FieldReader.columnCount(field);
                List<ColumnMetadata> cols = f.columns.subList(column, column + n);
                column += n;
                List<Object> expected = new ArrayList<>();
                for (VectorSchemaRoot b : batches) {
                    expected.addAll(RandomBatches.cells(b.getVector(c)));
                }
                try (FieldVector read = V20FieldReader.readRange(field, cols, data, 0, total, allocator)) {
                    assertThat(RandomBatches.cells(read))
                            .as("column %s", field.name())
                            .isEqualTo(expected);
                }
                if (total > 10) {
                    try (FieldVector read = V20FieldReader.readRange(field, cols, data, 3, total - 2, allocator)) {
                        assertThat(RandomBatches.cells(read))
                                .as("column %s [3, n-2)", field.name())
                                .isEqualTo(expected.subList(3, (int) total - 2));
                    }
                    // Scattered rows, a repeated one and far gaps: take() copies rows out of
                    // several decoded runs (list<fixed_size_list> used to fail in Arrow's copier).
                    long[] rows = {0, 2, 2, 3, total / 2, total - 1};
                    try (FieldVector read = V20FieldReader.take(field, cols, data, rows, allocator)) {
                        List<Object> want = new ArrayList<>();
                        for (long r : rows) {
                            want.add(expected.get((int) r));
                        }
                        assertThat(RandomBatches.cells(read))
                                .as("column %s take %s", field.name(), java.util.Arrays.toString(rows))
                                .isEqualTo(want);
                    }
                }
                assertItemsPagesEndWithOffsetsPages(field, cols);
                assertPrioritiesAreTopLevelRows(field, cols, total);
            }
            assertThat(column).isEqualTo(f.numColumns);
        } finally {
            batches.forEach(VectorSchemaRoot::close);
        }
    }

    /**
     * Lance sets a page's priority to a top-level row number, for item columns of lists too (not
     * an item index): the field's own column has priority = its first row, and every column's
     * priorities are ascending top-level rows.
     */
    private static void assertPrioritiesAreTopLevelRows(LanceField field, List<ColumnMetadata> cols, long total) {
        long row = 0;
        for (ColumnMetadata.Page p : cols.get(0).getPagesList()) {
            assertThat(p.getPriority())
                    .as("field %s page priority", field.pathString())
                    .isEqualTo(row);
            row += p.getLength();
        }
        for (int c = 1; c < cols.size(); c++) {
            long previous = 0;
            for (ColumnMetadata.Page p : cols.get(c).getPagesList()) {
                assertThat(p.getPriority())
                        .as("field %s column %d page priority", field.pathString(), c)
                        .isBetween(previous, Math.max(0, total - 1));
                previous = p.getPriority();
            }
        }
    }

    /**
     * Lance's 2.0 reader cannot share one items page between two offsets pages: every offsets
     * page's last item must end an items page (checked for each list at any depth whose items
     * column has pages of its own, i.e. is not a struct header).
     */
    private static void assertItemsPagesEndWithOffsetsPages(LanceField field, List<ColumnMetadata> cols)
            throws Exception {
        assertListAlignment(field, cols, 0);
    }

    /** Returns the number of columns {@code field} spans starting at {@code at}. */
    private static int assertListAlignment(LanceField field, List<ColumnMetadata> cols, int at) throws Exception {
        int span = 1;
        String type = field.logicalType();
        boolean list = type.startsWith("list") || type.startsWith("large_list");
        for (LanceField child : field.children()) {
            span += assertListAlignment(child, cols, at + span);
        }
        if (list && !field.children().get(0).logicalType().equals("struct")) {
            java.util.Set<Long> itemPageEnds = new java.util.HashSet<>();
            long end = 0;
            for (ColumnMetadata.Page p : cols.get(at + 1).getPagesList()) {
                end += p.getLength();
                itemPageEnds.add(end);
            }
            long items = 0;
            for (ColumnMetadata.Page p : cols.get(at).getPagesList()) {
                lance.encodings.ArrayEncoding enc = com.google.protobuf.Any.parseFrom(
                                p.getEncoding().getDirect().getEncoding())
                        .unpack(lance.encodings.ArrayEncoding.class);
                long pageItems = enc.getList().getNumItems();
                items += pageItems;
                if (pageItems > 0) {
                    assertThat(itemPageEnds)
                            .as("list field %s: items pages must end where offsets pages end", field.pathString())
                            .contains(items);
                }
            }
            assertThat(items)
                    .as("list field %s: items of all offsets pages", field.pathString())
                    .isEqualTo(end);
        }
        return span;
    }

    @Test
    void everyTypeWithNulls() throws Exception {
        Schema arrow = TypeCatalog.schema(false, true);
        List<VectorSchemaRoot> batches = List.of(
                RandomBatches.batch(arrow, allocator, 300, 1, new RandomBatches.Shape(4, 3, 20)),
                RandomBatches.batch(arrow, allocator, 77, 2, new RandomBatches.Shape(3, 4, 30)));
        roundTrip(arrow, batches, FileWriterOptions.defaults());
    }

    @Test
    void noNullsAndManySmallPages() throws Exception {
        Schema arrow = TypeCatalog.schema(false, true);
        List<VectorSchemaRoot> batches = List.of(
                RandomBatches.batch(arrow, allocator, 500, 3, new RandomBatches.Shape(0, 3, 12)),
                RandomBatches.batch(arrow, allocator, 500, 4, new RandomBatches.Shape(5, 2, 12)));
        roundTrip(
                arrow,
                batches,
                FileWriterOptions.defaults().withTargetPageBytes(512).withRowsPerSlice(37));
    }

    @Test
    void allNull() throws Exception {
        Schema arrow = TypeCatalog.schema(false, true);
        roundTrip(
                arrow,
                List.of(RandomBatches.batch(arrow, allocator, 50, 5, new RandomBatches.Shape(1, 3, 12))),
                FileWriterOptions.defaults());
    }

    @Test
    void nullStructIsRejectedAndNothingIsLeft() throws Exception {
        Schema arrow = TypeCatalog.schema(true, true);
        VectorSchemaRoot b = RandomBatches.batch(arrow, allocator, 200, 6, new RandomBatches.Shape(2, 3, 12));
        try (b) {
            assertThatThrownBy(() -> WriterTestSupport.write(
                            dir, allocator, FileVersion.V2_0, FileWriterOptions.defaults(), List.of(b)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("2.0 cannot store null structs");
        }
        assertThat(dir.resolve("data/f.lance")).doesNotExist();
    }
}
