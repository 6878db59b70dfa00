package dev.lanceflink.flink.sink.writer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.LocalDateTime;
import java.util.List;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.TimeStampMilliTZVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RowDataToArrowTest {
    private static final Schema ALL_TYPES = new Schema(List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
            new Field("i8", FieldType.nullable(new ArrowType.Int(8, true)), null),
            new Field("i16", FieldType.nullable(new ArrowType.Int(16, true)), null),
            new Field("i32", FieldType.nullable(new ArrowType.Int(32, true)), null),
            new Field("f32", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)), null),
            new Field("f64", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), null),
            new Field("flag", FieldType.nullable(ArrowType.Bool.INSTANCE), null),
            new Field("day", FieldType.nullable(new ArrowType.Date(DateUnit.DAY)), null),
            new Field("name", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
            new Field("raw", FieldType.nullable(ArrowType.Binary.INSTANCE), null),
            new Field("price", FieldType.nullable(new ArrowType.Decimal(10, 2, 128)), null),
            new Field("at", FieldType.nullable(new ArrowType.Timestamp(TimeUnit.MICROSECOND, null)), null),
            new Field("at_utc", FieldType.nullable(new ArrowType.Timestamp(TimeUnit.MILLISECOND, "UTC")), null)));

    private final RootAllocator allocator = new RootAllocator();

    @AfterEach
    void close() {
        allocator.close();
    }

    @Test
    void convertsEveryCellOfEverySupportedTypeAndNulls() {
        LocalDateTime at = LocalDateTime.of(2024, 5, 6, 7, 8, 9, 123_456_000);
        try (RowDataToArrow converter = new RowDataToArrow(ALL_TYPES, allocator, "t")) {
            converter.append(GenericRowData.of(7L, (byte) -3, (short) 300, 70_000, 1.5f, 2.25, true, 19_000,
                    StringData.fromString("zoë"), new byte[] {1, 2}, DecimalData.fromBigDecimal(new BigDecimal("12.34"),
                            10, 2), TimestampData.fromLocalDateTime(at), TimestampData.fromEpochMillis(1_700_000_000_123L)));
            converter.append(GenericRowData.of(8L, null, null, null, null, null, null, null, null, null, null, null,
                    null));

            VectorSchemaRoot batch = converter.batch();

            assertThat(batch.getRowCount()).isEqualTo(2);
            assertThat(((BigIntVector) batch.getVector("id")).get(0)).isEqualTo(7L);
            assertThat(((TinyIntVector) batch.getVector("i8")).get(0)).isEqualTo((byte) -3);
            assertThat(((SmallIntVector) batch.getVector("i16")).get(0)).isEqualTo((short) 300);
            assertThat(((IntVector) batch.getVector("i32")).get(0)).isEqualTo(70_000);
            assertThat(((Float4Vector) batch.getVector("f32")).get(0)).isEqualTo(1.5f);
            assertThat(((Float8Vector) batch.getVector("f64")).get(0)).isEqualTo(2.25);
            assertThat(((BitVector) batch.getVector("flag")).get(0)).isEqualTo(1);
            assertThat(((DateDayVector) batch.getVector("day")).get(0)).isEqualTo(19_000);
            assertThat(new String(((VarCharVector) batch.getVector("name")).get(0), StandardCharsets.UTF_8))
                    .isEqualTo("zoë");
            assertThat(((VarBinaryVector) batch.getVector("raw")).get(0)).containsExactly(1, 2);
            assertThat(((DecimalVector) batch.getVector("price")).getObject(0)).isEqualByComparingTo("12.34");
            assertThat(((TimeStampMicroVector) batch.getVector("at")).get(0))
                    .isEqualTo(at.toEpochSecond(java.time.ZoneOffset.UTC) * 1_000_000L + 123_456L);
            assertThat(((TimeStampMilliTZVector) batch.getVector("at_utc")).get(0)).isEqualTo(1_700_000_000_123L);
            assertThat(batch.getVector("id").isNull(1)).isFalse();
            for (int c = 1; c < ALL_TYPES.getFields().size(); c++) {
                assertThat(batch.getVector(c).isNull(1)).as(ALL_TYPES.getFields().get(c).getName()).isTrue();
            }
        }
    }

    @Test
    void resetStartsANewBatch() {
        try (RowDataToArrow converter = new RowDataToArrow(new Schema(ALL_TYPES.getFields().subList(0, 1)), allocator,
                "t")) {
            converter.append(GenericRowData.of(1L));
            converter.append(GenericRowData.of(2L));
            converter.reset();
            converter.append(GenericRowData.of(3L));

            VectorSchemaRoot batch = converter.batch();
            assertThat(batch.getRowCount()).isEqualTo(1);
            assertThat(((BigIntVector) batch.getVector(0)).get(0)).isEqualTo(3L);
        }
    }

    @Test
    void nullInNotNullColumnIsRejectedNamingTheColumnAndKeepsNothingOfTheRow() {
        try (RowDataToArrow converter = new RowDataToArrow(new Schema(ALL_TYPES.getFields().subList(0, 2)), allocator,
                "s3://b/t.lance")) {
            assertThatThrownBy(() -> converter.append(GenericRowData.of(null, (byte) 1)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("Column 'id' of s3://b/t.lance is NOT NULL, but a record has NULL in it (field 0);"
                            + " filter or fill such records before the sink");
            assertThat(converter.rowCount()).isZero();
        }
    }

    @Test
    void recordOfTheWrongWidthIsRejectedListingTheColumns() {
        try (RowDataToArrow converter = new RowDataToArrow(new Schema(ALL_TYPES.getFields().subList(0, 2)), allocator,
                "t")) {
            assertThatThrownBy(() -> converter.append(GenericRowData.of(1L)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("A record for t has 1 fields, but the table has 2 columns [id, i8]; write exactly the"
                            + " table's columns, in its order");
        }
    }

    @Test
    void unsupportedColumnTypeIsRejectedWhenTheWriterStarts() {
        Schema withStruct = new Schema(List.of(new Field("point", FieldType.nullable(ArrowType.Struct.INSTANCE),
                List.of(new Field("x", FieldType.nullable(new ArrowType.Int(32, true)), null)))));

        assertThatThrownBy(() -> new RowDataToArrow(withStruct, allocator, "t"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("Column 'point' of t has Arrow type Struct");
    }

    @Test
    void listsOfStringsAreWritten() {
        Schema withList = new Schema(List.of(new Field("tags", FieldType.nullable(ArrowType.List.INSTANCE),
                List.of(new Field("item", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)))));
        try (RowDataToArrow converter = new RowDataToArrow(withList, allocator, "t")) {
            converter.append(GenericRowData.of(new org.apache.flink.table.data.GenericArrayData(new Object[] {
                    org.apache.flink.table.data.StringData.fromString("a"), null})));
            converter.append(GenericRowData.of((Object) null));
            converter.append(GenericRowData.of(new org.apache.flink.table.data.GenericArrayData(new Object[] {
                    org.apache.flink.table.data.StringData.fromString("bc")})));
            org.apache.arrow.vector.complex.ListVector v =
                    (org.apache.arrow.vector.complex.ListVector) converter.batch().getVector(0);
            assertThat(v.getObject(0).toString()).isEqualTo("[\"a\",null]");
            assertThat(v.isNull(1)).isTrue();
            assertThat(v.getObject(2).toString()).isEqualTo("[\"bc\"]");
        }
    }
}
