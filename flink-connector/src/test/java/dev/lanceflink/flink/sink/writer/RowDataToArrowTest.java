package dev.lanceflink.flink.sink.writer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.LocalDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeMilliVector;
import org.apache.arrow.vector.TimeNanoVector;
import org.apache.arrow.vector.TimeSecVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.TimeStampMilliTZVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
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

    private static final TimeUnit[] UNITS = {
        TimeUnit.SECOND, TimeUnit.MILLISECOND, TimeUnit.MICROSECOND, TimeUnit.NANOSECOND
    };

    private final RootAllocator allocator = new RootAllocator();

    @AfterEach
    void close() {
        allocator.close();
    }

    private static Field leaf(String name, boolean nullable, ArrowType type) {
        return new Field(name, new FieldType(nullable, type, null), null);
    }

    private static Field node(String name, boolean nullable, ArrowType type, Field... children) {
        return new Field(name, new FieldType(nullable, type, null), List.of(children));
    }

    private static RowType rowType(LogicalType... types) {
        List<RowType.RowField> fields = new ArrayList<>();
        for (int i = 0; i < types.length; i++) {
            fields.add(new RowType.RowField("f" + i, types[i]));
        }
        return new RowType(fields);
    }

    /** The row as Flink's runtime holds it between operators: a BinaryRowData. */
    private static BinaryRowData binary(RowType type, GenericRowData row) {
        return new RowDataSerializer(type).toBinaryRow(row).copy();
    }

    private static StringData s(String v) {
        return StringData.fromString(v);
    }

    @Test
    void convertsEveryCellOfEverySupportedTypeAndNulls() {
        LocalDateTime at = LocalDateTime.of(2024, 5, 6, 7, 8, 9, 123_456_000);
        try (RowDataToArrow converter = new RowDataToArrow(ALL_TYPES, allocator, "t")) {
            converter.append(GenericRowData.of(
                    7L,
                    (byte) -3,
                    (short) 300,
                    70_000,
                    1.5f,
                    2.25,
                    true,
                    19_000,
                    s("zoë"),
                    new byte[] {1, 2},
                    DecimalData.fromBigDecimal(new BigDecimal("12.34"), 10, 2),
                    TimestampData.fromLocalDateTime(at),
                    TimestampData.fromEpochMillis(1_700_000_000_123L)));
            converter.append(
                    GenericRowData.of(8L, null, null, null, null, null, null, null, null, null, null, null, null));

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
            assertThat(((DecimalVector) batch.getVector("price")).getObject(0)).isEqualTo(new BigDecimal("12.34"));
            assertThat(((TimeStampMicroVector) batch.getVector("at")).get(0))
                    .isEqualTo(at.toEpochSecond(java.time.ZoneOffset.UTC) * 1_000_000L + 123_456L);
            assertThat(((TimeStampMilliTZVector) batch.getVector("at_utc")).get(0))
                    .isEqualTo(1_700_000_000_123L);
            assertThat(batch.getVector("id").isNull(1)).isFalse();
            for (int c = 1; c < ALL_TYPES.getFields().size(); c++) {
                assertThat(batch.getVector(c).isNull(1))
                        .as(ALL_TYPES.getFields().get(c).getName())
                        .isTrue();
            }
        }
    }

    @Test
    void binaryRowsAreReadWithTheDeclaredPrecisionNotTheStoredOne() {
        // TIMESTAMP(3) and DECIMAL(5, 2) are compact in a BinaryRowData (one long); the table stores
        // microseconds and decimal(12, 2). Read with the stored precision they would be garbage.
        Schema schema = new Schema(List.of(
                leaf("ts", true, new ArrowType.Timestamp(TimeUnit.MICROSECOND, null)),
                leaf("ltz", true, new ArrowType.Timestamp(TimeUnit.NANOSECOND, "UTC")),
                leaf("dec", true, new ArrowType.Decimal(12, 2, 128)),
                leaf("big", true, new ArrowType.Decimal(30, 2, 128)),
                leaf("name", true, ArrowType.Utf8.INSTANCE)));
        RowType declared = rowType(
                DataTypes.TIMESTAMP(3).getLogicalType(),
                DataTypes.TIMESTAMP_LTZ(3).getLogicalType(),
                DataTypes.DECIMAL(5, 2).getLogicalType(),
                DataTypes.DECIMAL(30, 2).getLogicalType(),
                DataTypes.STRING().getLogicalType());
        BinaryRowData row = binary(
                declared,
                GenericRowData.of(
                        TimestampData.fromEpochMillis(-1L),
                        TimestampData.fromEpochMillis(1_700_000_000_123L),
                        DecimalData.fromBigDecimal(new BigDecimal("-123.45"), 5, 2),
                        DecimalData.fromBigDecimal(new BigDecimal("-1234567890123456789012345678.90"), 30, 2),
                        s("日本")));
        try (RowDataToArrow converter = new RowDataToArrow(schema, declared, allocator, "t")) {
            converter.append(row);
            converter.append(binary(declared, GenericRowData.of(null, null, null, null, null)));
            VectorSchemaRoot batch = converter.batch();
            assertThat(((TimeStampVector) batch.getVector("ts")).get(0)).isEqualTo(-1_000L);
            assertThat(((TimeStampVector) batch.getVector("ltz")).get(0)).isEqualTo(1_700_000_000_123_000_000L);
            assertThat(((DecimalVector) batch.getVector("dec")).getObject(0)).isEqualTo(new BigDecimal("-123.45"));
            assertThat(((DecimalVector) batch.getVector("big")).getObject(0))
                    .isEqualTo(new BigDecimal("-1234567890123456789012345678.90"));
            assertThat(new String(((VarCharVector) batch.getVector("name")).get(0), StandardCharsets.UTF_8))
                    .isEqualTo("日本");
            for (FieldVector v : batch.getFieldVectors()) {
                assertThat(v.isNull(1)).as(v.getName()).isTrue();
            }
        }
    }

    /**
     * 1969-12-31T23:59:58.123456789 (-1.876543211 s) declared TIMESTAMP(0/3/6/9), as a binary
     * row, into seconds, milliseconds, microseconds and nanoseconds: truncated towards negative
     * infinity at the declared precision and again at the unit.
     */
    @Test
    void timestampsOfEveryPrecisionGoIntoEveryUnitTruncatedTowardsNegativeInfinity() {
        long[][] expected = {
            // s, ms, us, ns
            {-2L, -2_000L, -2_000_000L, -2_000_000_000L}, // TIMESTAMP(0): 23:59:58
            {-2L, -1_877L, -1_877_000L, -1_877_000_000L}, // TIMESTAMP(3): 23:59:58.123
            {-2L, -1_877L, -1_876_544L, -1_876_544_000L}, // TIMESTAMP(6): 23:59:58.123456
            {-2L, -1_877L, -1_876_544L, -1_876_543_211L}
        }; // TIMESTAMP(9)
        long[][] positive = {
            // 2026-11-29T21:00:00.987654321
            {1_795_986_000L, 1_795_986_000_000L, 1_795_986_000_000_000L, 1_795_986_000_000_000_000L},
            {1_795_986_000L, 1_795_986_000_987L, 1_795_986_000_987_000L, 1_795_986_000_987_000_000L},
            {1_795_986_000L, 1_795_986_000_987L, 1_795_986_000_987_654L, 1_795_986_000_987_654_000L},
            {1_795_986_000L, 1_795_986_000_987L, 1_795_986_000_987_654L, 1_795_986_000_987_654_321L}
        };
        int[] precisions = {0, 3, 6, 9};
        for (boolean zoned : new boolean[] {false, true}) {
            List<Field> fields = new ArrayList<>();
            List<LogicalType> types = new ArrayList<>();
            GenericRowData negativeRow = new GenericRowData(16);
            GenericRowData positiveRow = new GenericRowData(16);
            for (int p = 0; p < 4; p++) {
                for (int u = 0; u < 4; u++) {
                    fields.add(leaf(
                            "p" + precisions[p] + "_" + UNITS[u],
                            true,
                            new ArrowType.Timestamp(UNITS[u], zoned ? "UTC" : null)));
                    types.add(
                            zoned
                                    ? DataTypes.TIMESTAMP_LTZ(precisions[p]).getLogicalType()
                                    : DataTypes.TIMESTAMP(precisions[p]).getLogicalType());
                    ChronoUnit truncation = switch (precisions[p]) {
                        case 0 -> ChronoUnit.SECONDS;
                        case 3 -> ChronoUnit.MILLIS;
                        case 6 -> ChronoUnit.MICROS;
                        default -> ChronoUnit.NANOS;
                    };
                    negativeRow.setField(
                            p * 4 + u,
                            TimestampData.fromLocalDateTime(LocalDateTime.of(1969, 12, 31, 23, 59, 58, 123_456_789)
                                    .truncatedTo(truncation)));
                    positiveRow.setField(
                            p * 4 + u,
                            TimestampData.fromLocalDateTime(LocalDateTime.of(2026, 11, 29, 21, 0, 0, 987_654_321)
                                    .truncatedTo(truncation)));
                }
            }
            RowType declared = rowType(types.toArray(new LogicalType[0]));
            try (RowDataToArrow converter = new RowDataToArrow(new Schema(fields), declared, allocator, "t")) {
                converter.append(binary(declared, negativeRow));
                converter.append(positiveRow);
                VectorSchemaRoot batch = converter.batch();
                for (int p = 0; p < 4; p++) {
                    for (int u = 0; u < 4; u++) {
                        TimeStampVector v = (TimeStampVector) batch.getVector(p * 4 + u);
                        assertThat(v.get(0))
                                .as("%s zoned=%s", v.getName(), zoned)
                                .isEqualTo(expected[p][u]);
                        assertThat(v.get(1))
                                .as("%s zoned=%s", v.getName(), zoned)
                                .isEqualTo(positive[p][u]);
                    }
                }
            }
        }
    }

    @Test
    void theExtremesOfNanosecondsAreWrittenAndBeyondThemTheColumnIsNamed() {
        Schema schema = new Schema(List.of(leaf("ns", true, new ArrowType.Timestamp(TimeUnit.NANOSECOND, null))));
        RowType declared = rowType(DataTypes.TIMESTAMP(9).getLogicalType());
        try (RowDataToArrow converter = new RowDataToArrow(schema, declared, allocator, "s3://b/t.lance")) {
            converter.append(GenericRowData.of(
                    TimestampData.fromLocalDateTime(LocalDateTime.of(1677, 9, 21, 0, 12, 43, 145_224_192))));
            converter.append(GenericRowData.of(
                    TimestampData.fromLocalDateTime(LocalDateTime.of(2262, 4, 11, 23, 47, 16, 854_775_807))));
            assertThat(((TimeStampVector) converter.batch().getVector(0)).get(0))
                    .isEqualTo(Long.MIN_VALUE);
            assertThat(((TimeStampVector) converter.batch().getVector(0)).get(1))
                    .isEqualTo(Long.MAX_VALUE);
            assertThatThrownBy(() -> converter.append(GenericRowData.of(
                            TimestampData.fromLocalDateTime(LocalDateTime.of(2262, 4, 11, 23, 47, 16, 854_775_808)))))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("'ns' of s3://b/t.lance stores nanoseconds since 1970-01-01, which hold"
                            + " 1677-09-21T00:12:43.145224192 to 2262-04-11T23:47:16.854775807, but a record has"
                            + " 2262-04-11T23:47:16.854775808; filter or clamp such values before the sink");
            assertThat(converter.rowCount()).isEqualTo(2);
        }
    }

    @Test
    void timesOfDayGoIntoEveryUnit() {
        // 13:14:15.678 = 47,655,678 ms of the day; TIME(0) holds 13:14:15.
        List<Field> fields = new ArrayList<>();
        for (TimeUnit unit : UNITS) {
            int bits = unit == TimeUnit.SECOND || unit == TimeUnit.MILLISECOND ? 32 : 64;
            fields.add(leaf("t3_" + unit, true, new ArrowType.Time(unit, bits)));
            fields.add(leaf("t0_" + unit, true, new ArrowType.Time(unit, bits)));
        }
        LogicalType t3 = DataTypes.TIME(3).getLogicalType();
        LogicalType t0 = DataTypes.TIME(0).getLogicalType();
        RowType declared = rowType(t3, t0, t3, t0, t3, t0, t3, t0);
        GenericRowData row = GenericRowData.of(
                47_655_678, 47_655_000, 47_655_678, 47_655_000, 47_655_678, 47_655_000, 47_655_678, 47_655_000);
        try (RowDataToArrow converter = new RowDataToArrow(new Schema(fields), declared, allocator, "t")) {
            converter.append(binary(declared, row));
            converter.append(binary(declared, new GenericRowData(8)));
            converter.append(GenericRowData.of(86_399_999, 0, 86_399_999, 0, 86_399_999, 0, 86_399_999, 0));
            VectorSchemaRoot b = converter.batch();
            assertThat(((TimeSecVector) b.getVector(0)).get(0)).isEqualTo(47_655);
            assertThat(((TimeSecVector) b.getVector(1)).get(0)).isEqualTo(47_655);
            assertThat(((TimeMilliVector) b.getVector(2)).get(0)).isEqualTo(47_655_678);
            assertThat(((TimeMilliVector) b.getVector(3)).get(0)).isEqualTo(47_655_000);
            assertThat(((TimeMicroVector) b.getVector(4)).get(0)).isEqualTo(47_655_678_000L);
            assertThat(((TimeMicroVector) b.getVector(5)).get(0)).isEqualTo(47_655_000_000L);
            assertThat(((TimeNanoVector) b.getVector(6)).get(0)).isEqualTo(47_655_678_000_000L);
            assertThat(((TimeNanoVector) b.getVector(7)).get(0)).isEqualTo(47_655_000_000_000L);
            assertThat(((TimeSecVector) b.getVector(0)).get(2)).isEqualTo(86_399);
            assertThat(((TimeNanoVector) b.getVector(6)).get(2)).isEqualTo(86_399_999_000_000L);
            for (FieldVector v : b.getFieldVectors()) {
                assertThat(v.isNull(1)).as(v.getName()).isTrue();
            }
        }
    }

    /** st ROW<a INT, inner ROW<b STRING, tags ARRAY<INT>>, pts ARRAY<ROW<x DOUBLE NOT NULL>>>. */
    private static final Field NESTED = node(
            "st",
            true,
            ArrowType.Struct.INSTANCE,
            leaf("a", true, new ArrowType.Int(32, true)),
            node(
                    "inner",
                    true,
                    ArrowType.Struct.INSTANCE,
                    leaf("b", true, ArrowType.Utf8.INSTANCE),
                    node("tags", true, ArrowType.List.INSTANCE, leaf("item", true, new ArrowType.Int(32, true)))),
            node(
                    "pts",
                    true,
                    ArrowType.List.INSTANCE,
                    node(
                            "item",
                            true,
                            ArrowType.Struct.INSTANCE,
                            leaf("x", false, new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)))));

    private static final RowType NESTED_TYPE = rowType(DataTypes.ROW(
                    DataTypes.FIELD("a", DataTypes.INT()),
                    DataTypes.FIELD(
                            "inner",
                            DataTypes.ROW(
                                    DataTypes.FIELD("b", DataTypes.STRING()),
                                    DataTypes.FIELD("tags", DataTypes.ARRAY(DataTypes.INT())))),
                    DataTypes.FIELD(
                            "pts",
                            DataTypes.ARRAY(DataTypes.ROW(
                                    DataTypes.FIELD("x", DataTypes.DOUBLE().notNull())))))
            .getLogicalType());

    private static GenericRowData nested(Integer a, GenericRowData inner, GenericArrayData pts) {
        return GenericRowData.of(GenericRowData.of(a, inner, pts));
    }

    @Test
    void nestedRowsWithNullsAtEachLevelAreWrittenFromGenericAndBinaryRows() {
        GenericRowData full = nested(
                1,
                GenericRowData.of(s("x"), new GenericArrayData(new Object[] {10, null, 30})),
                new GenericArrayData(new Object[] {GenericRowData.of(1.5), null, GenericRowData.of(-2.5)}));
        GenericRowData nullStruct = GenericRowData.of((Object) null);
        GenericRowData nullInner = nested(2, null, new GenericArrayData(new Object[0]));
        GenericRowData nullLeaves = nested(null, GenericRowData.of(null, null), null);
        List<String> expected = List.of(
                "{\"a\":1,\"inner\":{\"b\":\"x\",\"tags\":[10,null,30]},\"pts\":[{\"x\":1.5},null,{\"x\":-2.5}]}",
                "null",
                "{\"a\":2,\"pts\":[]}",
                "{\"inner\":{}}");
        for (boolean asBinary : new boolean[] {false, true}) {
            try (RowDataToArrow converter =
                    new RowDataToArrow(new Schema(List.of(NESTED)), NESTED_TYPE, allocator, "t")) {
                for (GenericRowData r : List.of(full, nullStruct, nullInner, nullLeaves)) {
                    converter.append(asBinary ? binary(NESTED_TYPE, r) : r);
                }
                StructVector st = (StructVector) converter.batch().getVector(0);
                List<String> actual = new ArrayList<>();
                for (int i = 0; i < 4; i++) {
                    actual.add(String.valueOf(st.getObject(i)));
                }
                assertThat(actual).as("binary=%s", asBinary).containsExactlyElementsOf(expected);
                // The null levels are NULL, not empty: a NULL struct, a NULL inner struct, NULL leaves.
                StructVector inner = (StructVector) st.getChild("inner");
                assertThat(st.isNull(1)).isTrue();
                assertThat(inner.isNull(2)).isTrue();
                assertThat(inner.isNull(3)).isFalse();
                assertThat(inner.getChild("b").isNull(3)).isTrue();
                assertThat(inner.getChild("tags").isNull(3)).isTrue();
                assertThat(st.getChild("a").isNull(3)).isTrue();
                assertThat(st.getChild("pts").isNull(3)).isTrue();
                assertThat(st.getChild("pts").isNull(2)).isFalse();
            }
        }
    }

    @Test
    void aNullInANotNullNestedFieldIsRefusedNamingItsPathAndTheBatchStaysUsable() {
        try (RowDataToArrow converter =
                new RowDataToArrow(new Schema(List.of(NESTED)), NESTED_TYPE, allocator, "s3://b/t.lance")) {
            converter.append(nested(1, null, null));
            GenericRowData bad = nested(2, GenericRowData.of(s("y"), null), new GenericArrayData(new Object[] {
                GenericRowData.of((Object) null)
            }));
            assertThatThrownBy(() -> converter.append(bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("'st.pts.item.x' of s3://b/t.lance is NOT NULL, but a record has NULL in it; filter or"
                            + " fill such records before the sink");
            converter.append(nested(3, GenericRowData.of(s("z"), null), null));
            StructVector st = (StructVector) converter.batch().getVector(0);
            assertThat(converter.rowCount()).isEqualTo(2);
            assertThat(String.valueOf(st.getObject(0))).isEqualTo("{\"a\":1}");
            assertThat(String.valueOf(st.getObject(1))).isEqualTo("{\"a\":3,\"inner\":{\"b\":\"z\"}}");
        }
    }

    @Test
    void listsOfDecimalsTimestampsListsAndStructsAreWritten() {
        Schema schema = new Schema(List.of(
                node("decs", true, ArrowType.List.INSTANCE, leaf("item", true, new ArrowType.Decimal(7, 3, 128))),
                node(
                        "times",
                        true,
                        ArrowType.List.INSTANCE,
                        leaf("item", true, new ArrowType.Timestamp(TimeUnit.MICROSECOND, null))),
                node(
                        "grid",
                        true,
                        ArrowType.List.INSTANCE,
                        node("item", true, ArrowType.List.INSTANCE, leaf("item", true, new ArrowType.Int(32, true))))));
        RowType declared = rowType(
                DataTypes.ARRAY(DataTypes.DECIMAL(7, 3)).getLogicalType(),
                DataTypes.ARRAY(DataTypes.TIMESTAMP(3)).getLogicalType(),
                DataTypes.ARRAY(DataTypes.ARRAY(DataTypes.INT())).getLogicalType());
        GenericRowData row = GenericRowData.of(
                new GenericArrayData(new Object[] {DecimalData.fromBigDecimal(new BigDecimal("-1.5"), 7, 3), null}),
                new GenericArrayData(
                        new Object[] {TimestampData.fromEpochMillis(-1L), TimestampData.fromEpochMillis(2L)}),
                new GenericArrayData(
                        new Object[] {new GenericArrayData(new int[] {1, 2}), null, new GenericArrayData(new int[0])}));
        try (RowDataToArrow converter = new RowDataToArrow(schema, declared, allocator, "t")) {
            converter.append(binary(declared, row));
            converter.append(row);
            VectorSchemaRoot b = converter.batch();
            for (int i = 0; i < 2; i++) {
                assertThat(String.valueOf(((ListVector) b.getVector("decs")).getObject(i)))
                        .isEqualTo("[-1.500,null]");
                ListVector times = (ListVector) b.getVector("times");
                TimeStampVector micros = (TimeStampVector) times.getDataVector();
                assertThat(micros.get(2 * i)).isEqualTo(-1_000L);
                assertThat(micros.get(2 * i + 1)).isEqualTo(2_000L);
                assertThat(String.valueOf(((ListVector) b.getVector("grid")).getObject(i)))
                        .isEqualTo("[[1,2],null,[]]");
            }
        }
    }

    @Test
    void mapsKeepTheirEntryOrderAndNullValuesAndANullKeyNamesTheColumn() {
        Field entries = node(
                "entries",
                false,
                ArrowType.Struct.INSTANCE,
                leaf("key", false, ArrowType.Utf8.INSTANCE),
                leaf("value", true, new ArrowType.Int(64, true)));
        Schema schema = new Schema(List.of(node("m", true, new ArrowType.Map(false), entries)));
        RowType declared =
                rowType(DataTypes.MAP(DataTypes.STRING(), DataTypes.BIGINT()).getLogicalType());
        Map<Object, Object> ordered = new LinkedHashMap<>();
        ordered.put(s("z"), 1L);
        ordered.put(s("a"), null);
        ordered.put(s("m"), -3L);
        try (RowDataToArrow converter = new RowDataToArrow(schema, declared, allocator, "s3://b/t.lance")) {
            converter.append(GenericRowData.of(new GenericMapData(ordered)));
            converter.append(GenericRowData.of((Object) null));
            converter.append(binary(declared, GenericRowData.of(new GenericMapData(Map.of()))));
            converter.append(binary(declared, GenericRowData.of(new GenericMapData(ordered))));
            Map<Object, Object> nullKey = new LinkedHashMap<>();
            nullKey.put(s("k"), 1L);
            nullKey.put(null, 2L);
            assertThatThrownBy(() -> converter.append(GenericRowData.of(new GenericMapData(nullKey))))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage(
                            "Column 'm' of s3://b/t.lance is a MAP, whose keys cannot be NULL in Lance, but a record"
                                    + " has an entry with a NULL key; drop such entries (or records) before the sink");
            MapVector m = (MapVector) converter.batch().getVector(0);
            assertThat(converter.rowCount()).isEqualTo(4);
            assertThat(String.valueOf(m.getObject(0)))
                    .isEqualTo("[{\"key\":\"z\",\"value\":1},{\"key\":\"a\"},{\"key\":\"m\",\"value\":-3}]");
            assertThat(m.isNull(1)).isTrue();
            assertThat(String.valueOf(m.getObject(2))).isEqualTo("[]");
            assertThat(m.isNull(2)).isFalse();
            assertThat(String.valueOf(m.getObject(3))).isEqualTo(String.valueOf(m.getObject(0)));
            StructVector e = (StructVector) m.getDataVector();
            assertThat(e.getChild("value").isNull(1)).isTrue();
        }
    }

    @Test
    void floatVectorsAreCopiedFromBinaryArraysAndGenericOnesWithNullsElementByElement() {
        Schema schema = new Schema(List.of(node(
                "v",
                true,
                new ArrowType.FixedSizeList(3),
                leaf("item", true, new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)))));
        RowType declared = rowType(DataTypes.ARRAY(DataTypes.FLOAT()).getLogicalType());
        int rows = 5000; // beyond the vectors' first allocation
        try (RowDataToArrow converter = new RowDataToArrow(schema, declared, allocator, "t")) {
            for (int i = 0; i < rows; i++) {
                GenericRowData row = i % 3 == 2
                        ? GenericRowData.of((Object) null)
                        : GenericRowData.of(
                                new GenericArrayData(new Object[] {(float) i, i % 3 == 1 ? null : -0.5f, Float.NaN}));
                converter.append(i % 2 == 0 ? binary(declared, row) : row);
            }
            FixedSizeListVector v = (FixedSizeListVector) converter.batch().getVector(0);
            Float4Vector items = (Float4Vector) v.getDataVector();
            assertThat(v.getValueCount()).isEqualTo(rows);
            for (int i = 0; i < rows; i++) {
                if (i % 3 == 2) {
                    assertThat(v.isNull(i)).as("row %d", i).isTrue();
                    continue;
                }
                assertThat(items.get(3 * i)).as("row %d", i).isEqualTo((float) i);
                if (i % 3 == 1) {
                    assertThat(items.isNull(3 * i + 1)).as("row %d", i).isTrue();
                } else {
                    assertThat(items.get(3 * i + 1)).as("row %d", i).isEqualTo(-0.5f);
                }
                assertThat(items.get(3 * i + 2)).as("row %d", i).isNaN();
            }
            assertThatThrownBy(() -> converter.append(GenericRowData.of(new GenericArrayData(new float[] {1f}))))
                    .hasMessage("Column 'v' of t holds vectors of 3 values, but a record has 1; every vector of the"
                            + " column must have exactly 3");
        }
    }

    @Test
    void manyNestedRowsGrowEveryBufferAndResetStartsOver() {
        try (RowDataToArrow converter = new RowDataToArrow(new Schema(List.of(NESTED)), NESTED_TYPE, allocator, "t")) {
            for (int round = 0; round < 2; round++) {
                for (int i = 0; i < 5000; i++) {
                    converter.append(
                            i % 4 == 0
                                    ? GenericRowData.of((Object) null)
                                    : nested(
                                            i,
                                            i % 4 == 1
                                                    ? null
                                                    : GenericRowData.of(
                                                            s("s" + i), new GenericArrayData(new Object[] {i})),
                                            new GenericArrayData(new Object[] {GenericRowData.of((double) i)})));
                }
                StructVector st = (StructVector) converter.batch().getVector(0);
                assertThat(st.getValueCount()).isEqualTo(5000);
                assertThat(st.isNull(4996)).isTrue();
                assertThat(String.valueOf(st.getObject(4997))).isEqualTo("{\"a\":4997,\"pts\":[{\"x\":4997.0}]}");
                assertThat(String.valueOf(st.getObject(4999)))
                        .isEqualTo("{\"a\":4999,\"inner\":{\"b\":\"s4999\",\"tags\":[4999]},\"pts\":[{\"x\":4999.0}]}");
                converter.reset();
            }
        }
    }

    @Test
    void resetStartsANewBatch() {
        try (RowDataToArrow converter =
                new RowDataToArrow(new Schema(ALL_TYPES.getFields().subList(0, 1)), allocator, "t")) {
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
        try (RowDataToArrow converter =
                new RowDataToArrow(new Schema(ALL_TYPES.getFields().subList(0, 2)), allocator, "s3://b/t.lance")) {
            assertThatThrownBy(() -> converter.append(GenericRowData.of(null, (byte) 1)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("Column 'id' of s3://b/t.lance is NOT NULL, but a record has NULL in it (field 0);"
                            + " filter or fill such records before the sink");
            assertThat(converter.rowCount()).isZero();
        }
    }

    @Test
    void recordOfTheWrongWidthIsRejectedListingTheColumns() {
        try (RowDataToArrow converter =
                new RowDataToArrow(new Schema(ALL_TYPES.getFields().subList(0, 2)), allocator, "t")) {
            assertThatThrownBy(() -> converter.append(GenericRowData.of(1L)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("A record for t has 1 fields, but the table has 2 columns [id, i8]; write exactly the"
                            + " table's columns, in its order");
        }
    }

    @Test
    void aDeclaredTypeTheColumnDoesNotHoldIsRejectedWhenTheWriterStarts() {
        Schema point = new Schema(
                List.of(node("point", true, ArrowType.Struct.INSTANCE, leaf("x", true, new ArrowType.Int(32, true)))));
        assertThatThrownBy(() -> new RowDataToArrow(
                        point,
                        rowType(DataTypes.ROW(DataTypes.FIELD("x", DataTypes.BIGINT()))
                                .getLogicalType()),
                        allocator,
                        "t"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("'point.x' of t is declared BIGINT but the Lance table stores Arrow type Int(32, true),"
                        + " which does not hold such values unchanged; declare the type the table stores (for a ROW"
                        + " the same number of fields, for a DECIMAL the same scale and at most its precision)");
        assertThatThrownBy(() -> new RowDataToArrow(
                        point,
                        rowType(
                                DataTypes.INT().getLogicalType(),
                                DataTypes.INT().getLogicalType()),
                        allocator,
                        "t"))
                .hasMessageStartingWith("The rows for t are declared with 2 fields");
        Schema unsigned = new Schema(List.of(leaf("u", true, new ArrowType.Int(64, false))));
        assertThatThrownBy(() -> new RowDataToArrow(unsigned, allocator, "t"))
                .hasMessageStartingWith("Column 'u' of t has Arrow type Int(64, false), which the Lance sink cannot"
                        + " write from Flink RowData");
    }

    @Test
    void listsOfStringsAreWritten() {
        Schema withList = new Schema(List.of(new Field(
                "tags",
                FieldType.nullable(ArrowType.List.INSTANCE),
                List.of(new Field("item", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)))));
        try (RowDataToArrow converter = new RowDataToArrow(withList, allocator, "t")) {
            converter.append(GenericRowData.of(new GenericArrayData(new Object[] {s("a"), null})));
            converter.append(GenericRowData.of((Object) null));
            converter.append(GenericRowData.of(new GenericArrayData(new Object[] {s("bc")})));
            ListVector v = (ListVector) converter.batch().getVector(0);
            assertThat(v.getObject(0).toString()).isEqualTo("[\"a\",null]");
            assertThat(v.isNull(1)).isTrue();
            assertThat(v.getObject(2).toString()).isEqualTo("[\"bc\"]");
        }
    }

    // ---- binary rows read straight from their bytes ----------------------------------------------

    /** The same row at {@code shift} bytes into a larger array (rows of a network buffer do not start at 0). */
    private static BinaryRowData shifted(BinaryRowData r, int shift) {
        byte[] bytes = new byte[shift + r.getSizeInBytes() + 5];
        r.getSegments()[0].get(r.getOffset(), bytes, shift, r.getSizeInBytes());
        BinaryRowData out = new BinaryRowData(r.getArity());
        out.pointTo(MemorySegmentFactory.wrap(bytes), shift, r.getSizeInBytes());
        return out;
    }

    /** The same row over several equal segments, the fixed part in the first (as Flink's pages hold rows). */
    private static BinaryRowData split(BinaryRowData r) {
        int size = r.getSizeInBytes();
        int segmentSize = BinaryRowData.calculateFixPartSizeInBytes(r.getArity()) + 8;
        int n = (size + segmentSize - 1) / segmentSize;
        MemorySegment[] segments = new MemorySegment[n];
        for (int k = 0; k < n; k++) {
            byte[] part = new byte[segmentSize];
            r.getSegments()[0].get(
                    r.getOffset() + k * segmentSize, part, 0, Math.min(segmentSize, size - k * segmentSize));
            segments[k] = MemorySegmentFactory.wrap(part);
        }
        BinaryRowData out = new BinaryRowData(r.getArity());
        out.pointTo(segments, 0, size);
        return out;
    }

    /** The same row in off-heap memory. */
    private static BinaryRowData offHeap(BinaryRowData r) {
        MemorySegment segment = MemorySegmentFactory.allocateUnpooledOffHeapMemory(r.getSizeInBytes());
        segment.put(0, r.getSegments()[0].getArray(), r.getOffset(), r.getSizeInBytes());
        BinaryRowData out = new BinaryRowData(r.getArity());
        out.pointTo(segment, 0, r.getSizeInBytes());
        return out;
    }

    /**
     * Strings of every length around Flink's 7-byte inline limit, multi-byte UTF-8, empty and NULL,
     * from binary rows at offset 0, shifted, split over segments and off heap, and from generic rows.
     */
    @Test
    void stringsAreReadFromBinaryRowsOfEveryLayout() {
        Schema schema = new Schema(List.of(
                leaf("a", true, ArrowType.Utf8.INSTANCE),
                leaf("id", false, new ArrowType.Int(64, true)),
                leaf("b", true, ArrowType.Utf8.INSTANCE)));
        RowType declared = rowType(
                DataTypes.STRING().getLogicalType(),
                DataTypes.BIGINT().notNull().getLogicalType(),
                DataTypes.STRING().getLogicalType());
        List<String> values = new ArrayList<>();
        values.add(null);
        values.add("");
        for (int len = 1; len <= 20; len++) {
            values.add("x".repeat(len - 1) + (len % 3 == 0 ? "é" : "z"));
        }
        values.add("ü€😀");
        try (RowDataToArrow converter = new RowDataToArrow(schema, declared, allocator, "t")) {
            List<String[]> expected = new ArrayList<>();
            int row = 0;
            for (int layout = 0; layout < 5; layout++) {
                for (int i = 0; i < values.size(); i++) {
                    String a = values.get(i);
                    String b = values.get(values.size() - 1 - i);
                    GenericRowData generic =
                            GenericRowData.of(a == null ? null : s(a), (long) row, b == null ? null : s(b));
                    BinaryRowData binary = binary(declared, generic);
                    converter.append(
                            switch (layout) {
                                case 0 -> binary;
                                case 1 -> shifted(binary, 13);
                                case 2 -> split(binary);
                                case 3 -> offHeap(binary);
                                default -> generic;
                            });
                    expected.add(new String[] {a, b});
                    row++;
                }
            }
            VectorSchemaRoot batch = converter.batch();
            VarCharVector a = (VarCharVector) batch.getVector(0);
            VarCharVector b = (VarCharVector) batch.getVector(2);
            for (int r = 0; r < row; r++) {
                assertThat(a.isNull(r) ? null : new String(a.get(r), StandardCharsets.UTF_8))
                        .as("a, row %d", r)
                        .isEqualTo(expected.get(r)[0]);
                assertThat(b.isNull(r) ? null : new String(b.get(r), StandardCharsets.UTF_8))
                        .as("b, row %d", r)
                        .isEqualTo(expected.get(r)[1]);
                assertThat(((BigIntVector) batch.getVector(1)).get(r)).isEqualTo(r);
            }
        }
    }

    /**
     * Float vectors copied from binary rows: of 3 and of 40 floats (two words of element null
     * bits), NULL vectors, vectors with a NULL element (written element by element), rows
     * shifted, split over segments and off heap; a vector of the wrong size names the column.
     */
    @Test
    void floatVectorsAreCopiedFromBinaryRowsOfEveryLayout() {
        for (int dim : new int[] {3, 40}) {
            Schema schema = new Schema(List.of(
                    leaf("id", false, new ArrowType.Int(32, true)),
                    node(
                            "v",
                            true,
                            new ArrowType.FixedSizeList(dim),
                            leaf("item", true, new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)))));
            RowType declared = rowType(
                    DataTypes.INT().notNull().getLogicalType(),
                    DataTypes.ARRAY(DataTypes.FLOAT()).getLogicalType());
            int rows = 3000; // beyond the vectors' first allocation
            try (RowDataToArrow converter = new RowDataToArrow(schema, declared, allocator, "t")) {
                for (int i = 0; i < rows; i++) {
                    Object[] items = new Object[dim];
                    for (int k = 0; k < dim; k++) {
                        items[k] = i % 7 == 1 && k == dim - 1 ? null : (float) (i * 100 + k);
                    }
                    GenericRowData generic = GenericRowData.of(i, i % 5 == 2 ? null : new GenericArrayData(items));
                    BinaryRowData binary = binary(declared, generic);
                    converter.append(
                            switch (i % 4) {
                                case 0 -> binary;
                                case 1 -> shifted(binary, 7);
                                case 2 -> split(binary);
                                default -> offHeap(binary);
                            });
                }
                FixedSizeListVector v = (FixedSizeListVector) converter.batch().getVector(1);
                Float4Vector items = (Float4Vector) v.getDataVector();
                for (int i = 0; i < rows; i++) {
                    if (i % 5 == 2) {
                        assertThat(v.isNull(i)).as("dim %d, row %d", dim, i).isTrue();
                        continue;
                    }
                    assertThat(v.isNull(i)).as("dim %d, row %d", dim, i).isFalse();
                    for (int k = 0; k < dim; k++) {
                        if (i % 7 == 1 && k == dim - 1) {
                            assertThat(items.isNull(i * dim + k))
                                    .as("dim %d, row %d", dim, i)
                                    .isTrue();
                        } else {
                            assertThat(items.get(i * dim + k))
                                    .as("dim %d, row %d, item %d", dim, i, k)
                                    .isEqualTo((float) (i * 100 + k));
                        }
                    }
                }
                int wrong = dim + 1;
                BinaryRowData tooLong = binary(declared, GenericRowData.of(-1, new GenericArrayData(new float[wrong])));
                for (BinaryRowData r : List.of(tooLong, shifted(tooLong, 3), split(tooLong))) {
                    assertThatThrownBy(() -> converter.append(r))
                            .hasMessage("Column 'v' of t holds vectors of " + dim + " values, but a record has " + wrong
                                    + "; every vector of the column must have exactly " + dim);
                }
                assertThat(converter.rowCount()).isEqualTo(rows);
            }
        }
    }
}
