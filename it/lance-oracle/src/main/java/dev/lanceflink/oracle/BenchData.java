package dev.lanceflink.oracle;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The benchmark table of issue #2: {@code id int32, text utf8, vector fixed_size_list<float32,
 * 128>}, every cell a pure function of the row number. The connector's benchmark harness
 * ({@code dev.lanceflink.it.bench.BenchData}) builds the same rows; the two copies exist because
 * the official SDK and the connector must never share a class path.
 */
final class BenchData {
    static final int DIM = 128;
    static final Schema SCHEMA = new Schema(List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Int(32, true)), null),
            new Field("text", FieldType.nullable(new ArrowType.Utf8()), null),
            new Field(
                    "vector",
                    FieldType.nullable(new ArrowType.FixedSizeList(DIM)),
                    List.of(new Field(
                            "item",
                            FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
                            null)))));
    private static final String[] WORDS = {
        "lance", "flink", "overlay", "vector", "stream", "commit", "table", "fragment", "column", "arrow"
    };

    private BenchData() {}

    /** Rows {@code [from, from + count)}. */
    static VectorSchemaRoot batch(BufferAllocator allocator, int from, int count) {
        VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
        IntVector id = (IntVector) root.getVector("id");
        VarCharVector text = (VarCharVector) root.getVector("text");
        FixedSizeListVector vector = (FixedSizeListVector) root.getVector("vector");
        id.allocateNew(count);
        text.allocateNew((long) count * 32, count);
        vector.allocateNew();
        Float4Vector items = (Float4Vector) vector.getDataVector();
        items.allocateNew(count * DIM);
        for (int r = 0; r < count; r++) {
            int i = from + r;
            id.set(r, i);
            String s = WORDS[i % 10] + "-" + i + "-" + WORDS[(i / 10) % 10];
            text.setSafe(r, s.getBytes(StandardCharsets.UTF_8));
            vector.setNotNull(r);
            for (int j = 0; j < DIM; j++) {
                items.set(r * DIM + j, ((i * 31 + j * 7) % 1000) / 1000f);
            }
        }
        items.setValueCount(count * DIM);
        root.setRowCount(count);
        return root;
    }
}
