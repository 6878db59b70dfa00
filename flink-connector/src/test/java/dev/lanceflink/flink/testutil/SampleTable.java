package dev.lanceflink.flink.testutil;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A small Lance table written with format-core: version 1 holds ids 0..4, version 2 appends ids
 * 5..7; at most 3 rows per file, so version 2 has fragments of ids [0,1,2], [3,4], [5,6,7].
 * Row of id i: name "n" + i (null for id 3), score i * 0.5, price i + 0.25, vec [i, -i],
 * ts 2026-01-01T00:00:00 plus i seconds and i microseconds.
 */
public final class SampleTable {
    public static final Schema SCHEMA = new Schema(List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
            new Field("name", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
            new Field("score", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), null),
            new Field("price", FieldType.nullable(new ArrowType.Decimal(10, 2, 128)), null),
            new Field(
                    "vec",
                    FieldType.nullable(new ArrowType.FixedSizeList(2)),
                    List.of(new Field(
                            "item",
                            FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
                            null))),
            new Field("ts", FieldType.nullable(new ArrowType.Timestamp(TimeUnit.MICROSECOND, null)), null)));
    /** 2026-01-01T00:00:00Z in microseconds. */
    public static final long TS0 = 1_767_225_600_000_000L;

    private SampleTable() {}

    public static void write(String uri) throws Exception {
        WriteParams create = WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(3);
        try (BufferAllocator alloc = new RootAllocator();
                VectorSchemaRoot v1 = batch(alloc, 0, 5);
                VectorSchemaRoot v2 = batch(alloc, 5, 8)) {
            try (Dataset d = Dataset.write(uri, Map.of(), List.of(v1), SCHEMA, create)) {
                d.append(List.of(v2), WriteParams.of(WriteMode.APPEND).withMaxRowsPerFile(3))
                        .close();
            }
        }
    }

    private static VectorSchemaRoot batch(BufferAllocator alloc, int from, int to) {
        VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, alloc);
        root.allocateNew();
        BigIntVector id = (BigIntVector) root.getVector("id");
        VarCharVector name = (VarCharVector) root.getVector("name");
        Float8Vector score = (Float8Vector) root.getVector("score");
        DecimalVector price = (DecimalVector) root.getVector("price");
        FixedSizeListVector vec = (FixedSizeListVector) root.getVector("vec");
        Float4Vector items = (Float4Vector) vec.getDataVector();
        TimeStampMicroVector ts = (TimeStampMicroVector) root.getVector("ts");
        int n = to - from;
        for (int r = 0; r < n; r++) {
            int i = from + r;
            id.setSafe(r, i);
            if (i == 3) {
                name.setNull(r);
            } else {
                name.setSafe(r, ("n" + i).getBytes(StandardCharsets.UTF_8));
            }
            score.setSafe(r, i * 0.5);
            price.setSafe(r, new BigDecimal(i + ".25"));
            vec.setNotNull(r);
            items.setSafe(2 * r, i);
            items.setSafe(2 * r + 1, -i);
            ts.setSafe(r, TS0 + i * 1_000_000L + i);
        }
        items.setValueCount(2 * n);
        root.setRowCount(n);
        return root;
    }
}
