package dev.lanceflink.overlay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.read.ScanOptions;
import dev.lanceflink.read.Scanner;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Overlaid vectors ({@code fixed_size_list<float32, 3>}) are replaced in place, whole list and
 * validity, by the newest covering overlay, whichever way batches cut the rows.
 */
class FixedSizeListOverlayTest {
    private static final Field ITEM =
            new Field("item", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)), null);
    private static final Schema SCHEMA = new Schema(List.of(
            Field.notNullable("id", new ArrowType.Int(32, true)),
            new Field("v", FieldType.nullable(new ArrowType.FixedSizeList(3)), List.of(ITEM))));

    private final BufferAllocator allocator = new RootAllocator();

    @AfterEach
    void close() {
        allocator.close();
    }

    /** A root of column {@code v}: {@code [b, b + 0.25, b + 0.5]} for each {@code b} ({@code null}: NULL). */
    private VectorSchemaRoot vectors(Float... base) {
        VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(List.of(SCHEMA.findField("v"))), allocator);
        FixedSizeListVector v = (FixedSizeListVector) root.getVector("v");
        v.allocateNew();
        Float4Vector items = (Float4Vector) v.getDataVector();
        for (int i = 0; i < base.length; i++) {
            if (base[i] == null) {
                v.setNull(i);
            } else {
                v.setNotNull(i);
                for (int x = 0; x < 3; x++) {
                    items.setSafe(i * 3 + x, base[i] + 0.25f * x);
                }
            }
        }
        items.setValueCount(base.length * 3);
        root.setRowCount(base.length);
        return root;
    }

    private static List<Object> expected(int row) {
        Float first = switch (row) {
            case 4 -> 400f; // second overlay beats the first
            case 1, 9 -> (float) (100 + row);
            case 5 -> null; // covered NULL
            default -> (float) row;
        };
        return first == null ? null : List.of(first, first + 0.25f, first + 0.5f);
    }

    @Test
    void newestVectorWinsAcrossBatchBoundaries() throws Exception {
        MemoryObjectStore store = new MemoryObjectStore("memory://fsl-overlay");
        try (VectorSchemaRoot v = vectors(0f, 1f, 2f, 3f, 4f, 5f, 6f, 7f, 8f, 9f);
                VectorSchemaRoot rows = VectorSchemaRoot.create(SCHEMA, allocator)) {
            IntVector ids = (IntVector) rows.getVector("id");
            ids.allocateNew(10);
            for (int i = 0; i < 10; i++) {
                ids.set(i, i);
            }
            v.getVector("v").makeTransferPair(rows.getVector("v")).transfer();
            rows.setRowCount(10);
            Dataset.write(store, allocator, List.of(rows), SCHEMA, WriteParams.of(WriteMode.CREATE));
        }
        try (Dataset v1 = Dataset.open(store, allocator)) {
            Dataset v2;
            try (VectorSchemaRoot values = vectors(101f, 104f, null, 109f)) {
                v2 = v1.update(new long[] {1, 4, 5, 9}, values);
            }
            Dataset v3;
            try (VectorSchemaRoot values = vectors(400f)) {
                v3 = v2.update(new long[] {4}, values);
            }
            v2.close();
            try (Dataset ds = v3) {
                for (int batchSize : new int[] {1, 3, 4, 10}) {
                    List<Object> read = new ArrayList<>();
                    try (Scanner s =
                            ds.scan(ScanOptions.all().withColumns(List.of("v")).withBatchSize(batchSize))) {
                        while (s.hasNext()) {
                            try (VectorSchemaRoot b = s.next()) {
                                for (int r = 0; r < b.getRowCount(); r++) {
                                    read.add(OverlayTestSupport.plain(b.getVector("v"), r));
                                }
                            }
                        }
                    }
                    List<Object> want = new ArrayList<>();
                    for (int row = 0; row < 10; row++) {
                        want.add(expected(row));
                    }
                    assertThat(read).as("batch size %d", batchSize).isEqualTo(want);
                }
                assertThat(Arrays.asList(expected(4), expected(5)))
                        .containsExactly(List.of(400f, 400.25f, 400.5f), null);
            }
        }
    }
}
