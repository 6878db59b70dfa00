package dev.lanceflink.flink.table;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.file.FileVersion;
import java.util.List;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.Test;

class LanceWriteSchemaCheckTest {
    private static final String TABLE = "`c`.`d`.`t`";
    private static final String URI = "/data/t.lance";

    private static Field leaf(String name, boolean nullable, ArrowType type) {
        return new Field(name, new FieldType(nullable, type, null), null);
    }

    private static RowType row(DataTypes.Field... fields) {
        return (RowType) DataTypes.ROW(fields).getLogicalType();
    }

    private static void check(Schema stored, DataTypes.Field... declared) {
        LanceWriteSchemaCheck.check(TABLE, URI, row(declared), stored);
    }

    private static void checkOne(Field stored, DataType declared) {
        check(new Schema(List.of(stored)), DataTypes.FIELD(stored.getName(), declared));
    }

    private static void checkOne(Field stored, DataType declared, FileVersion dataFormat) {
        LanceWriteSchemaCheck.check(
                TABLE, URI, row(DataTypes.FIELD(stored.getName(), declared)), new Schema(List.of(stored)), dataFormat);
    }

    private static final Schema USERS = new Schema(List.of(
            leaf("id", false, new ArrowType.Int(64, true)),
            leaf("name", true, ArrowType.Utf8.INSTANCE),
            leaf("age", true, new ArrowType.Int(32, true))));

    @Test
    void acceptsTheStoredTypesWithNotNullWhereStoredSo() {
        assertThatCode(() -> check(
                        USERS,
                        DataTypes.FIELD("id", DataTypes.BIGINT().notNull()),
                        DataTypes.FIELD("name", DataTypes.VARCHAR(10)),
                        DataTypes.FIELD("age", DataTypes.INT().notNull())))
                .doesNotThrowAnyException();
    }

    @Test
    void acceptsSomeColumnsInAnyOrderAndRefusesUnknownOnesAndUndeclaredNotNullOnesInNewRows() {
        assertThatCode(() -> check(
                        USERS,
                        DataTypes.FIELD("age", DataTypes.INT()),
                        DataTypes.FIELD("id", DataTypes.BIGINT().notNull())))
                .doesNotThrowAnyException();
        assertThatThrownBy(() -> check(
                        USERS, DataTypes.FIELD("name", DataTypes.STRING()), DataTypes.FIELD("age", DataTypes.INT())))
                .isInstanceOf(ValidationException.class)
                .hasMessage("Cannot write table `c`.`d`.`t` to the Lance table at '/data/t.lance': INSERT INTO gives"
                        + " the columns the table does not declare NULL in new rows, but the Lance table's columns"
                        + " [id] are NOT NULL; declare them");
        // An UPDATE adds no rows and writes only its SET columns: the others' types do not matter.
        assertThatCode(() -> LanceWriteSchemaCheck.check(
                        TABLE,
                        URI,
                        row(DataTypes.FIELD("name", DataTypes.STRING()), DataTypes.FIELD("age", DataTypes.BIGINT())),
                        USERS,
                        null,
                        LanceWriteSchemaCheck.Statement.UPDATE,
                        List.of("name")))
                .doesNotThrowAnyException();
        assertThatThrownBy(() -> LanceWriteSchemaCheck.check(
                        TABLE,
                        URI,
                        row(DataTypes.FIELD("age", DataTypes.BIGINT())),
                        USERS,
                        null,
                        LanceWriteSchemaCheck.Statement.UPDATE,
                        List.of("age")))
                .hasMessageContaining("': UPDATE: column 'age' is declared BIGINT");
        assertThatThrownBy(() -> check(
                        USERS,
                        DataTypes.FIELD("id", DataTypes.BIGINT().notNull()),
                        DataTypes.FIELD("nme", DataTypes.STRING()),
                        DataTypes.FIELD("age", DataTypes.INT())))
                .hasMessageEndingWith("INSERT INTO: column 'nme' does not exist in the Lance table; its columns are"
                        + " [id, name, age]");
    }

    @Test
    void refusesANullableDeclarationOfANotNullColumn() {
        assertThatThrownBy(() -> check(
                        USERS,
                        DataTypes.FIELD("id", DataTypes.BIGINT()),
                        DataTypes.FIELD("name", DataTypes.STRING()),
                        DataTypes.FIELD("age", DataTypes.INT())))
                .hasMessageEndingWith("column 'id' is NOT NULL in the Lance table but declared BIGINT; declare it"
                        + " BIGINT NOT NULL, so that Flink checks every row for NULL before it is written");
    }

    @Test
    void refusesOtherTypesNamingWhatToDeclare() {
        assertThatThrownBy(() -> checkOne(leaf("age", true, new ArrowType.Int(32, true)), DataTypes.BIGINT()))
                .hasMessageEndingWith("column 'age' is declared BIGINT but the Lance table stores INT"
                        + " (Arrow type Int(32, true)); declare it INT");
        assertThatThrownBy(() -> checkOne(
                        leaf("s", true, new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
                        DataTypes.FLOAT().notNull()))
                .hasMessageEndingWith("column 's' is declared FLOAT NOT NULL but the Lance table stores DOUBLE"
                        + " (Arrow type FloatingPoint(DOUBLE)); declare it DOUBLE NOT NULL");
        assertThatThrownBy(() -> checkOne(leaf("p", true, new ArrowType.Decimal(10, 2, 128)), DataTypes.DECIMAL(10, 3)))
                .hasMessageEndingWith("declare it DECIMAL(10, 2)");
        assertThatThrownBy(() -> checkOne(
                        leaf("ts", true, new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC")), DataTypes.TIMESTAMP(6)))
                .hasMessageEndingWith("declare it TIMESTAMP_LTZ(6)");
    }

    @Test
    void refusesUnsignedAndHalfFloatColumnsBecauseNoFlinkTypeHoldsExactlyTheirValues() {
        assertThatThrownBy(() -> checkOne(leaf("u", true, new ArrowType.Int(8, false)), DataTypes.SMALLINT()))
                .hasMessageEndingWith("column 'u' is declared SMALLINT but the Lance table stores SMALLINT"
                        + " (Arrow type Int(8, false)); Flink has no type holding exactly these values (no unsigned"
                        + " integers, no half floats), so Flink cannot write this column");
        assertThatThrownBy(() -> checkOne(
                        leaf("h", true, new ArrowType.FloatingPoint(FloatingPointPrecision.HALF)), DataTypes.FLOAT()))
                .hasMessageContaining("so Flink cannot write this column");
        assertThatThrownBy(() -> checkOne(leaf("u", true, new ArrowType.Int(64, false)), DataTypes.BIGINT()))
                .hasMessageContaining("Flink cannot write this column: Column 'u' has Arrow type Int(64, false)");
    }

    @Test
    void timestampsAndTimesOfAnyPrecisionGoIntoEveryUnitOfTheirKind() {
        for (TimeUnit unit : TimeUnit.values()) {
            Field plain = leaf("ts", true, new ArrowType.Timestamp(unit, null));
            Field zoned = leaf("ts", true, new ArrowType.Timestamp(unit, "UTC"));
            Field time = leaf(
                    "t",
                    true,
                    new ArrowType.Time(unit, unit == TimeUnit.SECOND || unit == TimeUnit.MILLISECOND ? 32 : 64));
            for (int p = 0; p <= 9; p++) {
                int precision = p;
                assertThatCode(() -> checkOne(plain, DataTypes.TIMESTAMP(precision)))
                        .as(unit + " " + p)
                        .doesNotThrowAnyException();
                assertThatCode(() -> checkOne(zoned, DataTypes.TIMESTAMP_LTZ(precision)))
                        .as(unit + " " + p)
                        .doesNotThrowAnyException();
                assertThatCode(() -> checkOne(time, DataTypes.TIME(precision)))
                        .as(unit + " " + p)
                        .doesNotThrowAnyException();
            }
            assertThatThrownBy(() -> checkOne(plain, DataTypes.TIMESTAMP_LTZ(3)))
                    .hasMessageEndingWith("column 'ts' is declared TIMESTAMP_LTZ(3) but the Lance table stores "
                            + new org.apache.flink.table.types.logical.TimestampType(
                                            List.of(0, 3, 6, 9).get(unit.ordinal()))
                                    .asSummaryString()
                            + " (Arrow type " + plain.getType()
                            + "); declare it "
                            + new org.apache.flink.table.types.logical.TimestampType(
                                            List.of(0, 3, 6, 9).get(unit.ordinal()))
                                    .asSummaryString());
        }
        assertThatThrownBy(() ->
                        checkOne(leaf("t", true, new ArrowType.Time(TimeUnit.MILLISECOND, 32)), DataTypes.INT()))
                .hasMessageEndingWith("column 't' is declared INT but the Lance table stores TIME(3)"
                        + " (Arrow type Time(MILLISECOND, 32)); declare it TIME(3)");
    }

    @Test
    void stringAndBinaryLengthsDoNotMatterButFixedSizeBinaryNeedsItsWidth() {
        assertThatCode(() -> checkOne(leaf("s", true, ArrowType.LargeUtf8.INSTANCE), DataTypes.CHAR(3)))
                .doesNotThrowAnyException();
        assertThatCode(() -> checkOne(leaf("b", true, ArrowType.Binary.INSTANCE), DataTypes.BINARY(4)))
                .doesNotThrowAnyException();
        assertThatCode(() -> checkOne(leaf("b", true, new ArrowType.FixedSizeBinary(4)), DataTypes.BINARY(4)))
                .doesNotThrowAnyException();
        assertThatThrownBy(() -> checkOne(leaf("b", true, new ArrowType.FixedSizeBinary(4)), DataTypes.BYTES()))
                .hasMessageEndingWith("declare it BINARY(4)");
    }

    @Test
    void nestedTypesAreCheckedByPath() {
        Field vec = new Field(
                "vec",
                FieldType.nullable(new ArrowType.FixedSizeList(2)),
                List.of(leaf("item", true, new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE))));
        assertThatCode(() -> checkOne(vec, DataTypes.ARRAY(DataTypes.FLOAT()))).doesNotThrowAnyException();
        assertThatThrownBy(() -> checkOne(vec, DataTypes.ARRAY(DataTypes.DOUBLE())))
                .hasMessageEndingWith("column 'vec.item' is declared DOUBLE but the Lance table stores FLOAT"
                        + " (Arrow type FloatingPoint(SINGLE)); declare it FLOAT");
        Field struct = new Field(
                "s",
                FieldType.nullable(ArrowType.Struct.INSTANCE),
                List.of(leaf("a", false, new ArrowType.Int(32, true)), leaf("b", true, ArrowType.Utf8.INSTANCE)));
        assertThatThrownBy(() -> checkOne(
                        struct,
                        DataTypes.ROW(
                                DataTypes.FIELD("b", DataTypes.STRING()),
                                DataTypes.FIELD("a", DataTypes.INT().notNull()))))
                .hasMessageEndingWith("column 's' is declared with the fields [b, a], but the Lance table stores the"
                        + " struct fields [a, b]; declare exactly those, in that order");
        assertThatThrownBy(() -> checkOne(
                        struct,
                        DataTypes.ROW(DataTypes.FIELD("a", DataTypes.INT()), DataTypes.FIELD("b", DataTypes.STRING()))))
                .hasMessageContaining("column 's.a' is NOT NULL in the Lance table but declared INT");
        Field entries = new Field(
                "entries",
                FieldType.notNullable(ArrowType.Struct.INSTANCE),
                List.of(leaf("key", false, ArrowType.Utf8.INSTANCE), leaf("value", true, new ArrowType.Int(32, true))));
        Field map = new Field("m", FieldType.nullable(new ArrowType.Map(false)), List.of(entries));
        // Maps need data storage version 2.2: refused in an older table when the INSERT is planned.
        assertThatThrownBy(() -> checkOne(map, DataTypes.MAP(DataTypes.STRING(), DataTypes.INT()), FileVersion.V2_1))
                .isInstanceOf(ValidationException.class)
                .hasMessage(
                        "Cannot write table `c`.`d`.`t` to the Lance table at '/data/t.lance': INSERT INTO: column 'm' is a"
                                + " MAP (MAP<STRING, INT>), but maps need data storage version 2.2 and this Lance table is"
                                + " version 2.1 (all data files of a table have its version). Create the table with data"
                                + " storage version 2.2 (a Lance catalog does so for tables with MAP columns) and copy the"
                                + " rows into it, or store the entries as an ARRAY<ROW<key, value>> column");
        Field nested = new Field("s", FieldType.nullable(ArrowType.Struct.INSTANCE), List.of(map));
        assertThatThrownBy(() -> checkOne(
                        nested,
                        DataTypes.ROW(DataTypes.FIELD("m", DataTypes.MAP(DataTypes.STRING(), DataTypes.INT()))),
                        FileVersion.V2_0))
                .hasMessageContaining("column 's.m' is a MAP (MAP<STRING, INT>), but maps need data storage version"
                        + " 2.2 and this Lance table is version 2.0");
    }

    @Test
    void acceptsMapsInVersion22TablesCheckingKeysAndValues() {
        Field entries = new Field(
                "entries",
                FieldType.notNullable(ArrowType.Struct.INSTANCE),
                List.of(
                        leaf("key", false, ArrowType.Utf8.INSTANCE),
                        leaf("value", false, new ArrowType.Int(32, true))));
        Field map = new Field("m", FieldType.nullable(new ArrowType.Map(false)), List.of(entries));
        // Flink map keys are nullable types; a NULL key is refused by the writer when it meets one.
        assertThatCode(() -> checkOne(
                        map, DataTypes.MAP(DataTypes.STRING(), DataTypes.INT().notNull()), FileVersion.V2_2))
                .doesNotThrowAnyException();
        // Without the table's version the file writer decides (it refuses maps in older tables).
        assertThatCode(() -> checkOne(
                        map, DataTypes.MAP(DataTypes.STRING(), DataTypes.INT().notNull())))
                .doesNotThrowAnyException();
        assertThatThrownBy(() -> checkOne(
                        map,
                        DataTypes.MAP(DataTypes.STRING(), DataTypes.BIGINT().notNull()),
                        FileVersion.V2_2))
                .hasMessageEndingWith("column 'm.value' is declared BIGINT NOT NULL but the Lance table stores INT"
                        + " NOT NULL (Arrow type Int(32, true)); declare it INT NOT NULL");
        assertThatThrownBy(() -> checkOne(map, DataTypes.MAP(DataTypes.STRING(), DataTypes.INT()), FileVersion.V2_2))
                .hasMessageEndingWith("column 'm.value' is NOT NULL in the Lance table but declared INT; declare it"
                        + " INT NOT NULL, so that Flink checks every row for NULL before it is written");
        assertThatThrownBy(() -> checkOne(
                        map, DataTypes.MAP(DataTypes.INT(), DataTypes.INT().notNull()), FileVersion.V2_2))
                .hasMessageContaining("column 'm.key' is declared INT NOT NULL but the Lance table stores STRING");
    }
}
