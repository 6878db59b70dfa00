package dev.lanceflink.flink.sink.writer;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

/**
 * A JUnit-free timing of {@link RowDataToArrow#append} (the append writer's per-cell path): 1M
 * binary rows of every scalar type, timestamps and decimals declared at another precision than
 * the column stores, and a 16-d float vector, appended in batches of 10,000. Prints the best of
 * five runs (after two warm-up runs) in thread CPU ns per row, which a loaded machine disturbs
 * less than wall time. Run with the test classpath:
 * {@code java -cp <test classpath> dev.lanceflink.flink.sink.writer.RowDataToArrowTiming [rows]}.
 */
public final class RowDataToArrowTiming {
    private static final int BATCH = 10_000;
    private static final int DISTINCT = 1_000;

    private RowDataToArrowTiming() {}

    public static void main(String[] args) {
        int rows = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        Schema schema = new Schema(List.of(
                leaf("id", false, new ArrowType.Int(64, true)),
                leaf("i8", true, new ArrowType.Int(8, true)),
                leaf("i16", true, new ArrowType.Int(16, true)),
                leaf("i32", true, new ArrowType.Int(32, true)),
                leaf("f32", true, new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
                leaf("f64", true, new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
                leaf("flag", true, ArrowType.Bool.INSTANCE),
                leaf("day", true, new ArrowType.Date(DateUnit.DAY)),
                leaf("name", true, ArrowType.Utf8.INSTANCE),
                leaf("raw", true, ArrowType.Binary.INSTANCE),
                leaf("price", true, new ArrowType.Decimal(12, 2, 128)),
                leaf("at", true, new ArrowType.Timestamp(TimeUnit.MICROSECOND, null)),
                leaf("at_utc", true, new ArrowType.Timestamp(TimeUnit.NANOSECOND, "UTC")),
                leaf("t", true, new ArrowType.Time(TimeUnit.MICROSECOND, 64)),
                new Field(
                        "vec",
                        FieldType.nullable(new ArrowType.FixedSizeList(16)),
                        List.of(leaf("item", true, new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE))))));
        RowType declared = rowType(
                DataTypes.BIGINT().notNull().getLogicalType(),
                DataTypes.TINYINT().getLogicalType(),
                DataTypes.SMALLINT().getLogicalType(),
                DataTypes.INT().getLogicalType(),
                DataTypes.FLOAT().getLogicalType(),
                DataTypes.DOUBLE().getLogicalType(),
                DataTypes.BOOLEAN().getLogicalType(),
                DataTypes.DATE().getLogicalType(),
                DataTypes.STRING().getLogicalType(),
                DataTypes.BYTES().getLogicalType(),
                DataTypes.DECIMAL(10, 2).getLogicalType(),
                DataTypes.TIMESTAMP(3).getLogicalType(),
                DataTypes.TIMESTAMP_LTZ(6).getLogicalType(),
                DataTypes.TIME(3).getLogicalType(),
                DataTypes.ARRAY(DataTypes.FLOAT()).getLogicalType());
        RowDataSerializer serializer = new RowDataSerializer(declared);
        BinaryRowData[] input = new BinaryRowData[DISTINCT];
        for (int i = 0; i < DISTINCT; i++) {
            float[] v = new float[16];
            for (int k = 0; k < v.length; k++) {
                v[k] = i * 0.5f + k;
            }
            input[i] = serializer
                    .toBinaryRow(GenericRowData.of(
                            (long) i,
                            (byte) i,
                            (short) i,
                            i,
                            i * 1.5f,
                            i * 2.5,
                            i % 2 == 0,
                            i,
                            StringData.fromString("name-" + i),
                            new byte[] {(byte) i, 1, 2},
                            DecimalData.fromBigDecimal(BigDecimal.valueOf(i, 2), 10, 2),
                            TimestampData.fromEpochMillis(1_700_000_000_000L + i),
                            TimestampData.fromEpochMillis(1_700_000_000_000L + i, 123_000),
                            i * 1000,
                            new GenericArrayData(v)))
                    .copy();
        }
        try (BufferAllocator allocator = new RootAllocator();
                RowDataToArrow batch = new RowDataToArrow(schema, declared, allocator, "t")) {
            ThreadMXBean mx = ManagementFactory.getThreadMXBean();
            double best = Double.MAX_VALUE;
            for (int run = 0; run < 7; run++) {
                long start = mx.getCurrentThreadCpuTime();
                for (int r = 0; r < rows; r++) {
                    batch.append(input[r % DISTINCT]);
                    if (batch.rowCount() == BATCH) {
                        batch.reset();
                    }
                }
                batch.reset();
                double nsPerRow = (double) (mx.getCurrentThreadCpuTime() - start) / rows;
                System.out.printf(Locale.ROOT, "run %d: %.1f CPU ns/row%n", run, nsPerRow);
                if (run >= 2) {
                    best = Math.min(best, nsPerRow);
                }
            }
            System.out.printf(Locale.ROOT, "best of runs 2..6: %.1f CPU ns/row (%,d rows, 15 columns)%n", best, rows);
        }
    }

    private static Field leaf(String name, boolean nullable, ArrowType type) {
        return new Field(name, new FieldType(nullable, type, null), null);
    }

    private static RowType rowType(LogicalType... types) {
        List<RowType.RowField> fields = new ArrayList<>();
        for (int i = 0; i < types.length; i++) {
            fields.add(new RowType.RowField("f" + i, types[i]));
        }
        return new RowType(fields);
    }
}
