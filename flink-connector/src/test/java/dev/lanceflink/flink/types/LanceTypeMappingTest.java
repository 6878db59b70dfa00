package dev.lanceflink.flink.types;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.schema.LanceSchema;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.Test;

class LanceTypeMappingTest {

    private static RowType row(DataTypes.Field... fields) {
        return (RowType) DataTypes.ROW(fields).getLogicalType();
    }

    @Test
    void everySupportedTypeRoundTripsThroughArrow() {
        RowType flink = (RowType) DataTypes.ROW(
                        DataTypes.FIELD("b", DataTypes.BOOLEAN()),
                        DataTypes.FIELD("i8", DataTypes.TINYINT()),
                        DataTypes.FIELD("i16", DataTypes.SMALLINT()),
                        DataTypes.FIELD("i32", DataTypes.INT().notNull()),
                        DataTypes.FIELD("i64", DataTypes.BIGINT()),
                        DataTypes.FIELD("f32", DataTypes.FLOAT()),
                        DataTypes.FIELD("f64", DataTypes.DOUBLE()),
                        DataTypes.FIELD("s", DataTypes.STRING()),
                        DataTypes.FIELD("bin", DataTypes.BYTES()),
                        DataTypes.FIELD("d", DataTypes.DATE()),
                        DataTypes.FIELD("t0", DataTypes.TIME(0)),
                        DataTypes.FIELD("t3", DataTypes.TIME(3)),
                        DataTypes.FIELD("t6", DataTypes.TIME(6)),
                        DataTypes.FIELD("t9", DataTypes.TIME(9)),
                        DataTypes.FIELD("ts", DataTypes.TIMESTAMP(6)),
                        DataTypes.FIELD("ltz", DataTypes.TIMESTAMP_LTZ(6)),
                        DataTypes.FIELD("dec", DataTypes.DECIMAL(20, 4)),
                        DataTypes.FIELD("tags", DataTypes.ARRAY(DataTypes.STRING())),
                        DataTypes.FIELD("vec", DataTypes.ARRAY(DataTypes.FLOAT())),
                        DataTypes.FIELD(
                                "st",
                                DataTypes.ROW(
                                        DataTypes.FIELD("x", DataTypes.INT()),
                                        DataTypes.FIELD("y", DataTypes.STRING().notNull()))),
                        DataTypes.FIELD("m", DataTypes.MAP(DataTypes.STRING().notNull(), DataTypes.BIGINT())))
                .notNull()
                .getLogicalType();

        Schema arrow = LanceTypeMapping.toArrowSchema(flink, VectorDimensions.of(Map.of("vec", 3)));

        assertThat(arrow.findField("i32").getType()).isEqualTo(new ArrowType.Int(32, true));
        assertThat(arrow.findField("i32").isNullable()).isFalse();
        assertThat(arrow.findField("f32").getType())
                .isEqualTo(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE));
        assertThat(arrow.findField("s").getType()).isEqualTo(ArrowType.Utf8.INSTANCE);
        assertThat(arrow.findField("d").getType()).isEqualTo(new ArrowType.Date(DateUnit.DAY));
        assertThat(arrow.findField("ts").getType()).isEqualTo(new ArrowType.Timestamp(TimeUnit.MICROSECOND, null));
        assertThat(arrow.findField("ltz").getType()).isEqualTo(new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC"));
        assertThat(arrow.findField("dec").getType()).isEqualTo(new ArrowType.Decimal(20, 4, 128));
        assertThat(arrow.findField("tags").getType()).isEqualTo(ArrowType.List.INSTANCE);
        assertThat(arrow.findField("vec").getType()).isEqualTo(new ArrowType.FixedSizeList(3));
        assertThat(arrow.findField("vec").getChildren().get(0).getName()).isEqualTo("item");
        assertThat(arrow.findField("m").getType()).isEqualTo(new ArrowType.Map(false));
        assertThat(arrow.findField("m")
                        .getChildren()
                        .get(0)
                        .getChildren()
                        .get(0)
                        .isNullable())
                .isFalse();

        // Through a Lance schema (what a table stores) and back.
        Schema stored = LanceSchema.fromArrow(arrow, 0).toArrow();
        assertThat(LanceSchema.fromArrow(arrow, 0)
                        .fieldByName("vec")
                        .orElseThrow()
                        .logicalType())
                .isEqualTo("fixed_size_list:float:3");
        for (Schema s : List.of(arrow, stored)) {
            RowType back = LanceTypeMapping.toRowType(s);
            assertThat(back.getFieldNames()).isEqualTo(flink.getFieldNames());
            for (int i = 0; i < flink.getFieldCount(); i++) {
                assertThat(back.getTypeAt(i)).as(flink.getFieldNames().get(i)).isEqualTo(flink.getTypeAt(i));
            }
        }
    }

    @Test
    void vectorElementsAreStoredNullableAsLanceReadsThem() {
        Field vec = LanceTypeMapping.toArrowField(
                "v",
                DataTypes.ARRAY(DataTypes.FLOAT().notNull()).getLogicalType(),
                VectorDimensions.of(Map.of("v", 4)));
        assertThat(vec.getType()).isEqualTo(new ArrowType.FixedSizeList(4));
        assertThat(vec.getChildren().get(0).isNullable()).isTrue();
        assertThat(LanceTypeMapping.toArrowField(
                                "v",
                                DataTypes.ARRAY(DataTypes.FLOAT().notNull()).getLogicalType(),
                                VectorDimensions.none())
                        .getChildren()
                        .get(0)
                        .isNullable())
                .isFalse();
    }

    @Test
    void readOnlyArrowTypesWidenLosslessly() {
        assertThat(read(new ArrowType.Int(8, false)))
                .isEqualTo(DataTypes.SMALLINT().getLogicalType());
        assertThat(read(new ArrowType.Int(16, false))).isEqualTo(DataTypes.INT().getLogicalType());
        assertThat(read(new ArrowType.Int(32, false)))
                .isEqualTo(DataTypes.BIGINT().getLogicalType());
        assertThat(read(ArrowType.LargeUtf8.INSTANCE))
                .isEqualTo(DataTypes.STRING().getLogicalType());
        assertThat(read(ArrowType.LargeBinary.INSTANCE))
                .isEqualTo(DataTypes.BYTES().getLogicalType());
        assertThat(read(new ArrowType.Timestamp(TimeUnit.NANOSECOND, null)))
                .isEqualTo(DataTypes.TIMESTAMP(9).getLogicalType());
        assertThat(read(new ArrowType.Timestamp(TimeUnit.MILLISECOND, "Europe/Paris")))
                .isEqualTo(DataTypes.TIMESTAMP_LTZ(3).getLogicalType());
        assertThat(read(new ArrowType.Date(DateUnit.MILLISECOND)))
                .isEqualTo(DataTypes.DATE().getLogicalType());
    }

    @Test
    void unsupportedTypesNameTheColumn() {
        assertThatThrownBy(() -> LanceTypeMapping.toLogicalType(
                        "ids", new Field("ids", FieldType.nullable(new ArrowType.Int(64, false)), null)))
                .isInstanceOf(LanceTypeException.class)
                .hasMessageContaining("Column 'ids'")
                .hasMessageContaining("unsigned 64-bit");
        assertThatThrownBy(() -> LanceTypeMapping.toArrowSchema(
                        row(DataTypes.FIELD(
                                "st", DataTypes.ROW(DataTypes.FIELD("m", DataTypes.MULTISET(DataTypes.INT()))))),
                        VectorDimensions.none()))
                .isInstanceOf(LanceTypeException.class)
                .hasMessageStartingWith("Column 'st.m' has type MULTISET<INT>, which Lance cannot store. Supported:");
        assertThatThrownBy(() -> read(new ArrowType.Duration(TimeUnit.SECOND)))
                .isInstanceOf(LanceTypeException.class)
                .hasMessageContaining("Column 'c' has Arrow type Duration");
        assertThatThrownBy(() -> LanceTypeMapping.toArrowSchema(
                        row(DataTypes.FIELD("v", DataTypes.INT())), VectorDimensions.of(Map.of("v", 4))))
                .isInstanceOf(LanceTypeException.class)
                .hasMessageContaining("names [v]");
        assertThatThrownBy(() -> VectorDimensions.parse(Map.of("v", "x")))
                .isInstanceOf(LanceTypeException.class)
                .hasMessageContaining("'x'");
    }

    @Test
    void timeOfEachPrecisionIsStoredInTheNarrowestUnitHoldingItAndReadBackByUnit() {
        TimeUnit[] units = {
            TimeUnit.SECOND,
            TimeUnit.MILLISECOND,
            TimeUnit.MILLISECOND,
            TimeUnit.MILLISECOND,
            TimeUnit.MICROSECOND,
            TimeUnit.MICROSECOND,
            TimeUnit.MICROSECOND,
            TimeUnit.NANOSECOND,
            TimeUnit.NANOSECOND,
            TimeUnit.NANOSECOND
        };
        for (int p = 0; p <= 9; p++) {
            Field f = LanceTypeMapping.toArrowField(
                    "t", DataTypes.TIME(p).notNull().getLogicalType(), VectorDimensions.none());
            int bits = p <= 3 ? 32 : 64;
            assertThat(f.getType()).as("TIME(%d)", p).isEqualTo(new ArrowType.Time(units[p], bits));
            assertThat(f.isNullable()).isFalse();
            // Lance's logical type string (time32:s ... time64:ns) survives a trip through a Lance schema.
            Field stored = LanceSchema.fromArrow(new Schema(List.of(f)), 0)
                    .toArrow()
                    .getFields()
                    .get(0);
            assertThat(stored.getType()).isEqualTo(f.getType());
        }
        assertThat(read(new ArrowType.Time(TimeUnit.SECOND, 32)))
                .isEqualTo(DataTypes.TIME(0).getLogicalType());
        assertThat(read(new ArrowType.Time(TimeUnit.MILLISECOND, 32)))
                .isEqualTo(DataTypes.TIME(3).getLogicalType());
        assertThat(read(new ArrowType.Time(TimeUnit.MICROSECOND, 64)))
                .isEqualTo(DataTypes.TIME(6).getLogicalType());
        assertThat(read(new ArrowType.Time(TimeUnit.NANOSECOND, 64)))
                .isEqualTo(DataTypes.TIME(9).getLogicalType());
        // Any declared TIME precision reads any stored unit (values are truncated to the millisecond).
        TypeCompatibility.checkReadable(
                "t",
                DataTypes.TIME(0).getLogicalType(),
                new Field("t", FieldType.nullable(new ArrowType.Time(TimeUnit.NANOSECOND, 64)), null));
        assertThatThrownBy(() -> TypeCompatibility.checkReadable(
                        "t",
                        DataTypes.INT().getLogicalType(),
                        new Field("t", FieldType.nullable(new ArrowType.Time(TimeUnit.MILLISECOND, 32)), null)))
                .hasMessage(
                        "Column 't' is declared INT but the Lance table stores it as TIME(3): declare it as TIME(3)");
    }

    @Test
    void declaredTypesAreCheckedAgainstStoredOnes() {
        Field storedString = new Field("s", FieldType.nullable(ArrowType.Utf8.INSTANCE), null);
        TypeCompatibility.checkReadable("s", DataTypes.VARCHAR(10).getLogicalType(), storedString);
        assertThatThrownBy(() -> TypeCompatibility.checkReadable(
                        "s", DataTypes.STRING().notNull().getLogicalType(), storedString))
                .hasMessageContaining("declared NOT NULL");
        assertThatThrownBy(() ->
                        TypeCompatibility.checkReadable("s", DataTypes.INT().getLogicalType(), storedString))
                .hasMessage("Column 's' is declared INT but the Lance table stores it as STRING: declare it as STRING");
        Field dec = new Field("d", FieldType.nullable(new ArrowType.Decimal(10, 2, 128)), null);
        assertThatThrownBy(() -> TypeCompatibility.checkReadable(
                        "d", DataTypes.DECIMAL(10, 3).getLogicalType(), dec))
                .hasMessageContaining("declare it as DECIMAL(10, 2)");
        Field vec = new Field(
                "v",
                FieldType.nullable(new ArrowType.FixedSizeList(2)),
                List.of(new Field(
                        "item", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)), null)));
        TypeCompatibility.checkReadable("v", DataTypes.ARRAY(DataTypes.FLOAT()).getLogicalType(), vec);
    }

    private static LogicalType read(ArrowType t) {
        return LanceTypeMapping.toLogicalType("c", new Field("c", FieldType.nullable(t), null));
    }
}
