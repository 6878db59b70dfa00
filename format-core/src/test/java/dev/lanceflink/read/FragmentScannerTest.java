package dev.lanceflink.read;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.expr.ExprParser;
import dev.lanceflink.expr.PredicateEvaluator;
import dev.lanceflink.schema.LanceField;
import dev.lanceflink.table.Fragment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link FragmentScanner} over a range of one fragment, as a Flink split resumes it: deleted rows
 * skipped, the filter applied, the limit kept, and the metadata columns computed for exactly the
 * rows returned (stable row ids where the table has them).
 */
class FragmentScannerTest {
    private static final Schema SCHEMA =
            new Schema(List.of(new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null)));

    @TempDir
    Path dir;

    @Test
    void readsARangeWithDeletionsFilterLimitAndMetadataColumns() throws Exception {
        String uri = dir.resolve("t.lance").toString();
        try (BufferAllocator allocator = new RootAllocator();
                VectorSchemaRoot batch = VectorSchemaRoot.create(SCHEMA, allocator)) {
            BigIntVector id = (BigIntVector) batch.getVector("id");
            id.allocateNew(20);
            for (int i = 0; i < 20; i++) {
                id.set(i, 100 + i);
            }
            batch.setRowCount(20);
            WriteParams params = WriteParams.of(WriteMode.CREATE).withStableRowIds(true);
            try (Dataset written = Dataset.write(uri, Map.of(), List.of(batch), SCHEMA, params);
                    Dataset ds = written.delete("id = 105 OR id = 106")) {
                Fragment fragment = ds.fragments().get(0);
                LanceField idField = ds.schema().fieldByName("id").orElseThrow();
                var filter = ExprParser.parse("id % 2 = 0");
                FragmentScanner.Columns columns = new FragmentScanner.Columns(
                        List.of(idField),
                        filter,
                        List.of(idField),
                        List.of(RowMetaColumn.ROW_ID, RowMetaColumn.ROW_ADDRESS));
                assertThat(PredicateEvaluator.referencedColumns(filter)).containsExactly("id");
                long[] rowIds = FragmentScanner.stableRowIds(ds.store(), ds.manifest(), fragment, columns.metadata());
                assertThat(rowIds).as("stable row ids of a table that has them").isNotNull();
                List<Long> offsets = new ArrayList<>();
                List<Long> ids = new ArrayList<>();
                List<Long> rowIdValues = new ArrayList<>();
                List<Long> addresses = new ArrayList<>();
                try (FragmentReader reader = new FragmentReader(ds.files(), fragment, ds.allocator())) {
                    // Offsets [3, 17), batches of 4, at most 4 rows: 104 and 108, 110, 112 (105, 106 deleted).
                    FragmentScanner scanner = new FragmentScanner(reader, columns, rowIds, 4, 3, 17, 4, ds.allocator());
                    for (FragmentScanner.Batch next = scanner.next(); next != null; next = scanner.next()) {
                        try (FragmentScanner.Batch b = next) {
                            VectorSchemaRoot rows = b.rows();
                            assertThat(rows.getSchema().getFields())
                                    .extracting(Field::getName)
                                    .containsExactly("id", "_rowid", "_rowaddr");
                            for (int r = 0; r < rows.getRowCount(); r++) {
                                offsets.add(b.offsets()[r]);
                                ids.add(((BigIntVector) rows.getVector("id")).get(r));
                                rowIdValues.add(((UInt8Vector) rows.getVector("_rowid")).get(r));
                                addresses.add(((UInt8Vector) rows.getVector("_rowaddr")).get(r));
                            }
                        }
                    }
                    assertThat(scanner.rowsEmitted()).isEqualTo(4);
                    // Live rows of the batches read before the limit: [3,7) minus 2 deleted, then [7,11), [11,15).
                    assertThat(scanner.rowsScanned()).isEqualTo(2 + 4 + 4);
                }
                assertThat(offsets).containsExactly(4L, 8L, 10L, 12L);
                assertThat(ids).containsExactly(104L, 108L, 110L, 112L);
                long high = fragment.id() << 32;
                assertThat(addresses).containsExactly(high | 4, high | 8, high | 10, high | 12);
                assertThat(rowIdValues).containsExactly(rowIds[4], rowIds[8], rowIds[10], rowIds[12]);
            }
        }
    }
}
