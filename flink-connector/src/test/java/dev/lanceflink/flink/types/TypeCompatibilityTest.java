package dev.lanceflink.flink.types;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.file.FileVersion;
import dev.lanceflink.flink.types.TypeCompatibility.Adaptation;
import dev.lanceflink.flink.types.TypeCompatibility.Fit;
import dev.lanceflink.flink.types.TypeCompatibility.ValueWrite;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;
import org.junit.jupiter.api.Test;

/**
 * The rules of {@link TypeCompatibility} as one table: every Flink type the connector supports
 * against every stored Arrow leaf type, in each direction (read by a declaration, written by a
 * statement, written by the row writer, with the writer's adaptation), plus the containers, the
 * change sinks' re-layout and one message per kind of refusal. A pair the table does not list
 * must fit in no direction.
 */
class TypeCompatibilityTest {

    private static final Map<String, ArrowType> STORED = new LinkedHashMap<>();

    static {
        STORED.put("bool", ArrowType.Bool.INSTANCE);
        STORED.put("int8", new ArrowType.Int(8, true));
        STORED.put("int16", new ArrowType.Int(16, true));
        STORED.put("int32", new ArrowType.Int(32, true));
        STORED.put("int64", new ArrowType.Int(64, true));
        STORED.put("uint8", new ArrowType.Int(8, false));
        STORED.put("uint16", new ArrowType.Int(16, false));
        STORED.put("uint32", new ArrowType.Int(32, false));
        STORED.put("uint64", new ArrowType.Int(64, false));
        STORED.put("halffloat", new ArrowType.FloatingPoint(FloatingPointPrecision.HALF));
        STORED.put("float", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE));
        STORED.put("double", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE));
        STORED.put("string", ArrowType.Utf8.INSTANCE);
        STORED.put("large_string", ArrowType.LargeUtf8.INSTANCE);
        STORED.put("binary", ArrowType.Binary.INSTANCE);
        STORED.put("large_binary", ArrowType.LargeBinary.INSTANCE);
        STORED.put("fixed_size_binary:4", new ArrowType.FixedSizeBinary(4));
        STORED.put("date32:day", new ArrowType.Date(DateUnit.DAY));
        STORED.put("date64:ms", new ArrowType.Date(DateUnit.MILLISECOND));
        STORED.put("time32:s", new ArrowType.Time(TimeUnit.SECOND, 32));
        STORED.put("time32:ms", new ArrowType.Time(TimeUnit.MILLISECOND, 32));
        STORED.put("time64:us", new ArrowType.Time(TimeUnit.MICROSECOND, 64));
        STORED.put("time64:ns", new ArrowType.Time(TimeUnit.NANOSECOND, 64));
        STORED.put("timestamp:s:-", new ArrowType.Timestamp(TimeUnit.SECOND, null));
        STORED.put("timestamp:ms:-", new ArrowType.Timestamp(TimeUnit.MILLISECOND, null));
        STORED.put("timestamp:us:-", new ArrowType.Timestamp(TimeUnit.MICROSECOND, null));
        STORED.put("timestamp:ns:-", new ArrowType.Timestamp(TimeUnit.NANOSECOND, null));
        STORED.put("timestamp:ms:UTC", new ArrowType.Timestamp(TimeUnit.MILLISECOND, "UTC"));
        STORED.put("timestamp:us:UTC", new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC"));
        STORED.put("timestamp:ns:Europe/Paris", new ArrowType.Timestamp(TimeUnit.NANOSECOND, "Europe/Paris"));
        STORED.put("decimal:128:10:2", new ArrowType.Decimal(10, 2, 128));
        STORED.put("decimal:128:12:2", new ArrowType.Decimal(12, 2, 128));
        STORED.put("decimal:256:10:2", new ArrowType.Decimal(10, 2, 256));
        STORED.put("decimal:128:10:3", new ArrowType.Decimal(10, 3, 128));
        STORED.put("decimal:128:8:2", new ArrowType.Decimal(8, 2, 128));
        STORED.put("decimal:256:40:2", new ArrowType.Decimal(40, 2, 256));
        STORED.put("duration:s", new ArrowType.Duration(TimeUnit.SECOND));
    }

    /** Every Flink leaf type the connector supports, and some it does not. */
    private static final Map<String, DataType> DECLARED = new LinkedHashMap<>();

    static {
        DECLARED.put("BOOLEAN", DataTypes.BOOLEAN());
        DECLARED.put("TINYINT", DataTypes.TINYINT());
        DECLARED.put("SMALLINT", DataTypes.SMALLINT());
        DECLARED.put("INT", DataTypes.INT());
        DECLARED.put("BIGINT", DataTypes.BIGINT());
        DECLARED.put("FLOAT", DataTypes.FLOAT());
        DECLARED.put("DOUBLE", DataTypes.DOUBLE());
        DECLARED.put("CHAR(3)", DataTypes.CHAR(3));
        DECLARED.put("VARCHAR(10)", DataTypes.VARCHAR(10));
        DECLARED.put("STRING", DataTypes.STRING());
        DECLARED.put("BINARY(4)", DataTypes.BINARY(4));
        DECLARED.put("BINARY(2)", DataTypes.BINARY(2));
        DECLARED.put("BYTES", DataTypes.BYTES());
        DECLARED.put("DATE", DataTypes.DATE());
        DECLARED.put("TIME(0)", DataTypes.TIME(0));
        DECLARED.put("TIME(3)", DataTypes.TIME(3));
        DECLARED.put("TIME(9)", DataTypes.TIME(9));
        DECLARED.put("TIMESTAMP(0)", DataTypes.TIMESTAMP(0));
        DECLARED.put("TIMESTAMP(3)", DataTypes.TIMESTAMP(3));
        DECLARED.put("TIMESTAMP(6)", DataTypes.TIMESTAMP(6));
        DECLARED.put("TIMESTAMP(9)", DataTypes.TIMESTAMP(9));
        DECLARED.put("TIMESTAMP_LTZ(3)", DataTypes.TIMESTAMP_LTZ(3));
        DECLARED.put("TIMESTAMP_LTZ(9)", DataTypes.TIMESTAMP_LTZ(9));
        DECLARED.put("DECIMAL(10, 2)", DataTypes.DECIMAL(10, 2));
        DECLARED.put("DECIMAL(5, 2)", DataTypes.DECIMAL(5, 2));
        DECLARED.put("DECIMAL(20, 2)", DataTypes.DECIMAL(20, 2));
        DECLARED.put("INTERVAL", DataTypes.INTERVAL(DataTypes.SECOND()));
        DECLARED.put("MULTISET", DataTypes.MULTISET(DataTypes.INT()));
        DECLARED.put("TIME_TZ", DataTypes.TIMESTAMP_WITH_TIME_ZONE(3));
    }

    /** A fit other than NONE, with the row writer's adaptation (null if the writer refuses). */
    private record Expected(Fit fit, Adaptation adaptation) {}

    private static final Map<String, Expected> FITS = new LinkedHashMap<>();

    private static void fits(String declared, String stored, Fit fit, Adaptation adaptation) {
        assertThat(DECLARED).containsKey(declared);
        assertThat(STORED).containsKey(stored);
        FITS.put(declared + " -> " + stored, new Expected(fit, adaptation));
    }

    static {
        fits("BOOLEAN", "bool", Fit.SAME, Adaptation.BOOLEAN);
        fits("TINYINT", "int8", Fit.SAME, Adaptation.TINYINT);
        fits("SMALLINT", "int16", Fit.SAME, Adaptation.SMALLINT);
        fits("SMALLINT", "uint8", Fit.READ_ONLY, null);
        fits("INT", "int32", Fit.SAME, Adaptation.INT);
        fits("INT", "uint16", Fit.READ_ONLY, null);
        fits("BIGINT", "int64", Fit.SAME, Adaptation.BIGINT);
        fits("BIGINT", "uint32", Fit.READ_ONLY, null);
        fits("FLOAT", "float", Fit.SAME, Adaptation.FLOAT);
        fits("FLOAT", "halffloat", Fit.READ_ONLY, null);
        fits("DOUBLE", "double", Fit.SAME, Adaptation.DOUBLE);
        for (String s : List.of("CHAR(3)", "VARCHAR(10)", "STRING")) {
            fits(s, "string", Fit.SAME, Adaptation.STRING);
            fits(s, "large_string", Fit.SAME, Adaptation.LARGE_STRING);
        }
        for (String b : List.of("BINARY(4)", "BINARY(2)", "BYTES")) {
            fits(b, "binary", Fit.SAME, Adaptation.BINARY);
            fits(b, "large_binary", Fit.SAME, Adaptation.LARGE_BINARY);
        }
        fits("BINARY(4)", "fixed_size_binary:4", Fit.SAME, Adaptation.FIXED_SIZE_BINARY);
        fits("BINARY(2)", "fixed_size_binary:4", Fit.READ_ONLY, null);
        fits("BYTES", "fixed_size_binary:4", Fit.READ_ONLY, null);
        fits("DATE", "date32:day", Fit.SAME, Adaptation.DATE_DAYS);
        fits("DATE", "date64:ms", Fit.SAME, Adaptation.DATE_MILLIS);
        for (String t : List.of("TIME(0)", "TIME(3)", "TIME(9)")) {
            fits(t, "time32:s", Fit.SAME, Adaptation.TIME_SECONDS);
            fits(t, "time32:ms", Fit.SAME, Adaptation.TIME_MILLIS);
            fits(t, "time64:us", Fit.SAME, Adaptation.TIME_MICROS);
            fits(t, "time64:ns", Fit.SAME, Adaptation.TIME_NANOS);
        }
        for (String ts : List.of("TIMESTAMP(0)", "TIMESTAMP(3)", "TIMESTAMP(6)", "TIMESTAMP(9)")) {
            fits(ts, "timestamp:s:-", Fit.SAME, Adaptation.TIMESTAMP_SECONDS);
            fits(ts, "timestamp:ms:-", Fit.SAME, Adaptation.TIMESTAMP_MILLIS);
            fits(ts, "timestamp:us:-", Fit.SAME, Adaptation.TIMESTAMP_MICROS);
            fits(ts, "timestamp:ns:-", Fit.SAME, Adaptation.TIMESTAMP_NANOS);
            fits(ts, "timestamp:ms:UTC", Fit.ROWS_ONLY, Adaptation.TIMESTAMP_MILLIS);
            fits(ts, "timestamp:us:UTC", Fit.ROWS_ONLY, Adaptation.TIMESTAMP_MICROS);
            fits(ts, "timestamp:ns:Europe/Paris", Fit.ROWS_ONLY, Adaptation.TIMESTAMP_NANOS);
        }
        for (String ltz : List.of("TIMESTAMP_LTZ(3)", "TIMESTAMP_LTZ(9)")) {
            fits(ltz, "timestamp:s:-", Fit.ROWS_ONLY, Adaptation.TIMESTAMP_SECONDS);
            fits(ltz, "timestamp:ms:-", Fit.ROWS_ONLY, Adaptation.TIMESTAMP_MILLIS);
            fits(ltz, "timestamp:us:-", Fit.ROWS_ONLY, Adaptation.TIMESTAMP_MICROS);
            fits(ltz, "timestamp:ns:-", Fit.ROWS_ONLY, Adaptation.TIMESTAMP_NANOS);
            fits(ltz, "timestamp:ms:UTC", Fit.SAME, Adaptation.TIMESTAMP_MILLIS);
            fits(ltz, "timestamp:us:UTC", Fit.SAME, Adaptation.TIMESTAMP_MICROS);
            fits(ltz, "timestamp:ns:Europe/Paris", Fit.SAME, Adaptation.TIMESTAMP_NANOS);
        }
        fits("DECIMAL(10, 2)", "decimal:128:10:2", Fit.SAME, Adaptation.DECIMAL128);
        fits("DECIMAL(10, 2)", "decimal:256:10:2", Fit.SAME, Adaptation.DECIMAL256);
        fits("DECIMAL(10, 2)", "decimal:128:12:2", Fit.ROWS_ONLY, Adaptation.DECIMAL128);
        fits("DECIMAL(10, 2)", "decimal:256:40:2", Fit.ROWS_ONLY, Adaptation.DECIMAL256);
        fits("DECIMAL(5, 2)", "decimal:128:10:2", Fit.ROWS_ONLY, Adaptation.DECIMAL128);
        fits("DECIMAL(5, 2)", "decimal:128:12:2", Fit.ROWS_ONLY, Adaptation.DECIMAL128);
        fits("DECIMAL(5, 2)", "decimal:256:10:2", Fit.ROWS_ONLY, Adaptation.DECIMAL256);
        fits("DECIMAL(5, 2)", "decimal:128:8:2", Fit.ROWS_ONLY, Adaptation.DECIMAL128);
        fits("DECIMAL(5, 2)", "decimal:256:40:2", Fit.ROWS_ONLY, Adaptation.DECIMAL256);
        fits("DECIMAL(20, 2)", "decimal:256:40:2", Fit.ROWS_ONLY, Adaptation.DECIMAL256);
    }

    private static Field field(String name, boolean nullable, ArrowType type, Field... children) {
        return new Field(name, new FieldType(nullable, type, null), List.of(children));
    }

    /** The whole matrix, in every direction: a rule that diverges from the table fails here. */
    @Test
    void everyLeafTypeAgainstEveryStoredTypeInEveryDirection() {
        int checked = 0;
        for (Map.Entry<String, DataType> d : DECLARED.entrySet()) {
            LogicalType declared = d.getValue().getLogicalType();
            for (Map.Entry<String, ArrowType> s : STORED.entrySet()) {
                String pair = d.getKey() + " -> " + s.getKey();
                Expected expected = FITS.getOrDefault(pair, new Expected(Fit.NONE, null));
                Field stored = field("c", true, s.getValue());
                assertThat(TypeCompatibility.fit(declared, s.getValue()))
                        .as(pair)
                        .isEqualTo(expected.fit());

                Optional<LogicalType> readsAs = readType(stored);
                if (readsAs.isEmpty()) {
                    // uint64, decimal > 38 digits, durations: no Flink type reads them.
                    assertThat(expected.fit().readable()).as(pair).isFalse();
                    assertThatThrownBy(() -> TypeCompatibility.checkReadable("c", declared, stored))
                            .as(pair)
                            .isInstanceOf(LanceTypeException.class)
                            .hasMessageContaining("which the Flink connector cannot read");
                } else if (expected.fit().readable()) {
                    assertThatCode(() -> TypeCompatibility.checkReadable("c", declared, stored))
                            .as(pair)
                            .doesNotThrowAnyException();
                } else {
                    assertThatThrownBy(() -> TypeCompatibility.checkReadable("c", declared, stored))
                            .as(pair)
                            .isInstanceOf(LanceTypeException.class)
                            .hasMessageStartingWith("Column 'c' is declared " + declared.asSummaryString()
                                    + " but the Lance table stores it as "
                                    + readsAs.get().asSummaryString());
                }

                assertThat(TypeCompatibility.statementProblem("c", declared, stored, FileVersion.V2_2))
                        .as(pair)
                        .isEqualTo(
                                expected.fit() == Fit.SAME
                                        ? Optional.empty()
                                        : Optional.of(statementMismatch(declared, stored, readsAs)));

                if (expected.adaptation() != null) {
                    assertThat(expected.fit().rowWritable()).as(pair).isTrue();
                    ValueWrite plan = TypeCompatibility.valueWrite("t", declared, stored);
                    assertThat(plan.adaptation()).as(pair).isEqualTo(expected.adaptation());
                    assertThat(plan.precision()).as(pair).isEqualTo(readPrecision(declared));
                    assertThat(plan.children()).as(pair).isEmpty();
                } else {
                    assertThat(expected.fit().rowWritable()).as(pair).isFalse();
                    assertThatThrownBy(() -> TypeCompatibility.valueWrite("t", declared, stored))
                            .as(pair)
                            .isInstanceOf(IllegalArgumentException.class)
                            .hasMessageStartingWith("'c' of t is declared " + declared.asSummaryString());
                }
                checked++;
            }
        }
        assertThat(checked).isEqualTo(DECLARED.size() * STORED.size());
    }

    private static Optional<LogicalType> readType(Field stored) {
        try {
            return Optional.of(LanceTypeMapping.toLogicalType(stored.getName(), stored));
        } catch (LanceTypeException e) {
            return Optional.empty();
        }
    }

    /** The statement's message: what the column reads as and what to declare, if anything. */
    private static String statementMismatch(LogicalType declared, Field stored, Optional<LogicalType> readsAs) {
        String head = "column 'c' is declared " + declared.asSummaryString() + " but the Lance table stores ";
        if (readsAs.isEmpty()) {
            return head + "Arrow type " + stored.getType() + "; Flink cannot write this column: "
                    + catchMessage(stored);
        }
        ArrowType a = stored.getType();
        boolean noExactType = a instanceof ArrowType.Int i && !i.getIsSigned()
                || a instanceof ArrowType.FloatingPoint f && f.getPrecision() == FloatingPointPrecision.HALF;
        return head + readsAs.get().asSummaryString() + " (Arrow type " + a + "); "
                + (noExactType
                        ? "Flink has no type holding exactly these values (no unsigned integers, no half floats), so"
                                + " Flink cannot write this column"
                        : "declare it " + readsAs.get().asSummaryString());
    }

    private static String catchMessage(Field stored) {
        try {
            LanceTypeMapping.toLogicalType(stored.getName(), stored);
            throw new AssertionError("readable: " + stored);
        } catch (LanceTypeException e) {
            return e.getMessage();
        }
    }

    /** Timestamps and decimals are read with the declared precision; others have none. */
    private static int readPrecision(LogicalType declared) {
        if (declared instanceof TimestampType t) {
            return t.getPrecision();
        } else if (declared instanceof LocalZonedTimestampType t) {
            return t.getPrecision();
        } else if (declared instanceof DecimalType d) {
            return d.getPrecision();
        }
        return 0;
    }

    /**
     * Each supported type as the connector creates its column, and the type that column reads as:
     * both fit it in every direction, and the writer stores both the same way.
     */
    @Test
    void aColumnCreatedFromAFlinkTypeTakesThatTypeAndTheTypeItReadsAsBack() {
        List<DataType> types = new ArrayList<>();
        for (Map.Entry<String, DataType> t : DECLARED.entrySet()) {
            if (!List.of("INTERVAL", "MULTISET", "TIME_TZ").contains(t.getKey())) {
                types.add(t.getValue());
                types.add(t.getValue().notNull());
            }
        }
        types.add(DataTypes.ARRAY(DataTypes.TIMESTAMP(3)));
        types.add(DataTypes.ARRAY(DataTypes.FLOAT().notNull()).notNull());
        types.add(DataTypes.ROW(
                DataTypes.FIELD("a", DataTypes.INT().notNull()),
                DataTypes.FIELD("b", DataTypes.ARRAY(DataTypes.DECIMAL(5, 2)))));
        types.add(DataTypes.MAP(DataTypes.STRING(), DataTypes.TIMESTAMP_LTZ(3)));
        types.add(DataTypes.MAP(DataTypes.INT(), DataTypes.ROW(DataTypes.FIELD("x", DataTypes.DOUBLE()))));
        for (DataType t : types) {
            LogicalType declared = t.getLogicalType();
            String name = declared.asSummaryString();
            Field stored = LanceTypeMapping.toArrowField("c", declared, VectorDimensions.none());
            LogicalType readsAs = LanceTypeMapping.toLogicalType("c", stored);
            assertThat(TypeCompatibility.fit(declared, stored.getType()))
                    .as(name)
                    .isEqualTo(Fit.SAME);
            assertThatCode(() -> TypeCompatibility.checkReadable("c", declared, stored))
                    .as(name)
                    .doesNotThrowAnyException();
            assertThatCode(() -> TypeCompatibility.checkReadable("c", readsAs, stored))
                    .as(name)
                    .doesNotThrowAnyException();
            assertThat(TypeCompatibility.statementProblem("c", declared, stored, FileVersion.V2_2))
                    .as(name)
                    .isEmpty();
            assertThat(TypeCompatibility.statementProblem("c", readsAs, stored, FileVersion.V2_2))
                    .as(name)
                    .isEmpty();
            ValueWrite asDeclared = TypeCompatibility.valueWrite("t", declared, stored);
            ValueWrite asRead = TypeCompatibility.valueWrite("t", null, stored);
            assertThat(adaptations(asDeclared)).as(name).isEqualTo(adaptations(asRead));
        }
    }

    private static List<Adaptation> adaptations(ValueWrite plan) {
        List<Adaptation> out = new ArrayList<>();
        out.add(plan.adaptation());
        for (ValueWrite c : plan.children()) {
            out.addAll(adaptations(c));
        }
        return out;
    }

    private static RowType row(LogicalType... types) {
        List<RowType.RowField> fields = new ArrayList<>();
        for (int i = 0; i < types.length; i++) {
            fields.add(new RowType.RowField("f" + i, types[i]));
        }
        return new RowType(fields);
    }

    @Test
    void nullabilityIsCheckedByReadsAndStatementsAndLeftToTheWriterPerCell() {
        Field nullable = field("c", true, new ArrowType.Int(32, true));
        Field notNull = field("c", false, new ArrowType.Int(32, true));
        LogicalType intType = DataTypes.INT().getLogicalType();
        LogicalType intNotNull = DataTypes.INT().notNull().getLogicalType();
        assertThatThrownBy(() -> TypeCompatibility.checkReadable("c", intNotNull, nullable))
                .hasMessage("Column 'c' is declared INT NOT NULL but the Lance table stores it as INT: the column is"
                        + " declared NOT NULL but the table allows nulls in it; drop NOT NULL");
        assertThatCode(() -> TypeCompatibility.checkReadable("c", intType, notNull))
                .doesNotThrowAnyException();
        assertThat(TypeCompatibility.statementProblem("c", intType, notNull, null))
                .contains("column 'c' is NOT NULL in the Lance table but declared INT; declare it INT NOT NULL,"
                        + " so that Flink checks every row for NULL before it is written");
        assertThat(TypeCompatibility.statementProblem("c", intNotNull, nullable, null))
                .isEmpty();
        assertThat(TypeCompatibility.valueWrite("t", intType, notNull).adaptation())
                .isEqualTo(Adaptation.INT);
    }

    @Test
    void containersAreWalkedNodeByNodeAndRowFieldsGoByNameForReadsAndStatementsButByPositionForTheWriter() {
        Field struct = field(
                "s",
                true,
                ArrowType.Struct.INSTANCE,
                field("a", true, new ArrowType.Int(32, true)),
                field("b", true, new ArrowType.Timestamp(TimeUnit.MICROSECOND, null)));
        LogicalType sameNames = DataTypes.ROW(
                        DataTypes.FIELD("a", DataTypes.INT()), DataTypes.FIELD("b", DataTypes.TIMESTAMP(3)))
                .getLogicalType();
        LogicalType otherNames = DataTypes.ROW(
                        DataTypes.FIELD("x", DataTypes.INT()), DataTypes.FIELD("y", DataTypes.TIMESTAMP(3)))
                .getLogicalType();
        LogicalType fewer = DataTypes.ROW(DataTypes.FIELD("a", DataTypes.INT())).getLogicalType();
        assertThat(TypeCompatibility.fields((RowType) sameNames, struct)).isEqualTo(Fit.SAME);
        assertThat(TypeCompatibility.fields((RowType) otherNames, struct)).isEqualTo(Fit.ROWS_ONLY);
        assertThat(TypeCompatibility.fields((RowType) fewer, struct)).isEqualTo(Fit.NONE);

        TypeCompatibility.checkReadable("s", sameNames, struct);
        assertThat(TypeCompatibility.statementProblem("s", sameNames, struct, null))
                .isEmpty();
        ValueWrite plan = TypeCompatibility.valueWrite("t", sameNames, struct);
        assertThat(plan.adaptation()).isEqualTo(Adaptation.STRUCT);
        assertThat(plan.children())
                .containsExactly(
                        ValueWrite.of(Adaptation.INT), new ValueWrite(Adaptation.TIMESTAMP_MICROS, 3, 0, List.of()));

        assertThatThrownBy(() -> TypeCompatibility.checkReadable("s", otherNames, struct))
                .hasMessage("Column 's' is declared ROW<`x` INT, `y` TIMESTAMP(3)> but the Lance table stores it as"
                        + " ROW<`a` INT, `b` TIMESTAMP(6)>: ROW fields must be the stored struct fields, same names in"
                        + " the same order: [a, b]");
        assertThat(TypeCompatibility.statementProblem("s", otherNames, struct, null))
                .contains("column 's' is declared with the fields [x, y], but the Lance table stores the struct"
                        + " fields [a, b]; declare exactly those, in that order");
        assertThat(TypeCompatibility.valueWrite("t", otherNames, struct).children())
                .isEqualTo(plan.children());
        assertThatThrownBy(() -> TypeCompatibility.valueWrite("t", fewer, struct))
                .hasMessage("'s' of t is declared ROW<`a` INT> but the Lance table stores Arrow type Struct"
                        + " [a: Int(32, true), b: Timestamp(MICROSECOND, null)], which does not hold such values"
                        + " unchanged; declare the type the table stores (for a ROW the same number of fields, for a"
                        + " DECIMAL the same scale and at most its precision)");

        // Lists: the element by its path; the writer names it by the stored child.
        Field vector = field(
                "v",
                true,
                new ArrowType.FixedSizeList(2),
                field("item", true, new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)));
        LogicalType doubles = DataTypes.ARRAY(DataTypes.DOUBLE()).getLogicalType();
        assertThatThrownBy(() -> TypeCompatibility.checkReadable("v", doubles, vector))
                .hasMessage("Column 'v.item' is declared DOUBLE but the Lance table stores it as FLOAT: declare it as"
                        + " FLOAT");
        assertThat(TypeCompatibility.statementProblem("v", doubles, vector, null))
                .contains("column 'v.item' is declared DOUBLE but the Lance table stores FLOAT (Arrow type"
                        + " FloatingPoint(SINGLE)); declare it FLOAT");
        assertThatThrownBy(() -> TypeCompatibility.valueWrite("t", doubles, vector))
                .hasMessageStartingWith("'v.item' of t is declared DOUBLE but the Lance table stores Arrow type"
                        + " FloatingPoint(SINGLE), which does not hold such values unchanged");
        assertThat(TypeCompatibility.valueWrite(
                        "t", DataTypes.ARRAY(DataTypes.FLOAT()).getLogicalType(), vector))
                .isEqualTo(new ValueWrite(Adaptation.FIXED_SIZE_LIST, 0, 0, List.of(ValueWrite.of(Adaptation.FLOAT))));
        assertThat(TypeCompatibility.fit(doubles, new ArrowType.Map(false))).isEqualTo(Fit.NONE);

        // Maps: keys NOT NULL in Lance (a NULL key is refused per cell), 2.2 tables only.
        Field map = field(
                "m",
                true,
                new ArrowType.Map(false),
                field(
                        "entries",
                        false,
                        ArrowType.Struct.INSTANCE,
                        field("key", false, ArrowType.Utf8.INSTANCE),
                        field("value", true, new ArrowType.Timestamp(TimeUnit.NANOSECOND, "UTC"))));
        LogicalType mapType =
                DataTypes.MAP(DataTypes.STRING(), DataTypes.TIMESTAMP_LTZ(3)).getLogicalType();
        assertThat(TypeCompatibility.statementProblem("m", mapType, map, FileVersion.V2_2))
                .isEmpty();
        assertThat(TypeCompatibility.statementProblem("m", mapType, map, FileVersion.V2_1))
                .hasValueSatisfying(m -> assertThat(m)
                        .startsWith("column 'm' is a MAP (MAP<STRING, TIMESTAMP_LTZ(3)>), but maps need data storage"
                                + " version 2.2 and this Lance table is version 2.1"));
        assertThat(TypeCompatibility.valueWrite("t", mapType, map))
                .isEqualTo(new ValueWrite(
                        Adaptation.MAP,
                        0,
                        0,
                        List.of(
                                ValueWrite.of(Adaptation.STRING),
                                new ValueWrite(Adaptation.TIMESTAMP_NANOS, 3, 0, List.of()))));
        assertThatThrownBy(() -> TypeCompatibility.valueWrite(
                        "t", DataTypes.MAP(DataTypes.INT(), DataTypes.INT()).getLogicalType(), map))
                .hasMessageStartingWith(
                        "'m.entries.key' of t is declared INT but the Lance table stores Arrow type" + " Utf8");
    }

    /**
     * The change sinks' writer holds the table's whole rows in the types its columns read as: an
     * unsigned or half-float column is planned as a write-back of those values (so that upserts
     * and UPDATEs of the other columns work), while a declaration of it is still refused.
     */
    @Test
    void readOnlyColumnsAreWrittenBackOnlyAsTheyRead() {
        Map<String, Adaptation> back = Map.of(
                "uint8", Adaptation.UINT8,
                "uint16", Adaptation.UINT16,
                "uint32", Adaptation.UINT32,
                "halffloat", Adaptation.HALF_FLOAT);
        for (Map.Entry<String, Adaptation> e : back.entrySet()) {
            Field stored = field("c", true, STORED.get(e.getKey()));
            assertThat(TypeCompatibility.valueWrite("t", null, stored).adaptation())
                    .as(e.getKey())
                    .isEqualTo(e.getValue());
            LogicalType readsAs = LanceTypeMapping.toLogicalType("c", stored);
            assertThatThrownBy(() -> TypeCompatibility.valueWrite("t", readsAs, stored))
                    .as(e.getKey())
                    .isInstanceOf(IllegalArgumentException.class);
            // Nested too: a list of them.
            Field list = new Field(
                    "l",
                    FieldType.nullable(ArrowType.List.INSTANCE),
                    List.of(field("item", true, STORED.get(e.getKey()))));
            assertThat(adaptations(TypeCompatibility.valueWrite("t", null, list)))
                    .as(e.getKey())
                    .containsExactly(Adaptation.LIST, e.getValue());
        }
    }

    @Test
    void refusalsSayWhichColumnWhichTypesAndWhatToDo() {
        Field uint64 = field("u", true, new ArrowType.Int(64, false));
        assertThatThrownBy(() -> TypeCompatibility.valueWrite("t", null, uint64))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("Column 'u' of t has Arrow type Int(64, false), which the Lance sink cannot"
                        + " write from Flink RowData: Flink has no type for it (Column 'u' has Arrow type Int(64,"
                        + " false), which the Flink connector cannot read: Flink has no unsigned 64-bit type");
        assertThatThrownBy(() -> TypeCompatibility.valueWrite(
                        "t",
                        DataTypes.INTERVAL(DataTypes.SECOND()).getLogicalType(),
                        field("i", true, new ArrowType.Int(64, true))))
                .hasMessage("'i' of t is declared INTERVAL SECOND(6), which the Lance sink cannot write. Supported:"
                        + " BOOLEAN, TINYINT, SMALLINT, INT, BIGINT, FLOAT, DOUBLE, CHAR/VARCHAR/STRING,"
                        + " BINARY/VARBINARY/BYTES, DECIMAL, DATE, TIME, TIMESTAMP, TIMESTAMP_LTZ, ARRAY, ROW, MAP");
        Field dec = field("d", true, new ArrowType.Decimal(10, 2, 128));
        assertThatThrownBy(() -> TypeCompatibility.checkReadable(
                        "d", DataTypes.DECIMAL(5, 2).getLogicalType(), dec))
                .hasMessage("Column 'd' is declared DECIMAL(5, 2) but the Lance table stores it as DECIMAL(10, 2):"
                        + " precision and scale must match; declare it as DECIMAL(10, 2)");
        assertThat(TypeCompatibility.statementProblem(
                        "d", DataTypes.DECIMAL(5, 2).getLogicalType(), dec, null))
                .contains("column 'd' is declared DECIMAL(5, 2) but the Lance table stores DECIMAL(10, 2) (Arrow type"
                        + " Decimal(10, 2, 128)); declare it DECIMAL(10, 2)");
        assertThatThrownBy(() -> TypeCompatibility.valueWrite(
                        "t", DataTypes.DECIMAL(12, 2).getLogicalType(), dec))
                .hasMessage("'d' of t is declared DECIMAL(12, 2) but the Lance table stores Arrow type Decimal(10, 2,"
                        + " 128), which does not hold such values unchanged; declare the type the table stores (for a"
                        + " ROW the same number of fields, for a DECIMAL the same scale and at most its precision)");
    }

    /**
     * The change sinks read rows with the table's types: only a top-level timestamp whose binary
     * layout differs (compact up to precision 3) is re-laid out; what needs no re-layout passes;
     * the rest is refused naming the column.
     */
    @Test
    void changeSinksReLayOutTopLevelTimestampsOnly() {
        record Case(DataType declared, DataType table, Boolean relayout) {}
        List<Case> cases = List.of(
                new Case(DataTypes.TIMESTAMP(3), DataTypes.TIMESTAMP(6), true),
                new Case(DataTypes.TIMESTAMP(6), DataTypes.TIMESTAMP(0), true),
                new Case(DataTypes.TIMESTAMP_LTZ(0), DataTypes.TIMESTAMP_LTZ(9), true),
                new Case(DataTypes.TIMESTAMP(9), DataTypes.TIMESTAMP(6), false),
                new Case(DataTypes.TIMESTAMP(0), DataTypes.TIMESTAMP(3), false),
                new Case(DataTypes.CHAR(3), DataTypes.STRING(), false),
                new Case(DataTypes.BINARY(4), DataTypes.BYTES(), false),
                new Case(DataTypes.BYTES(), DataTypes.BINARY(4), false),
                new Case(DataTypes.TIME(0), DataTypes.TIME(9), false),
                new Case(DataTypes.INT().notNull(), DataTypes.INT(), false),
                new Case(
                        DataTypes.ROW(DataTypes.FIELD("x", DataTypes.INT().notNull())),
                        DataTypes.ROW(DataTypes.FIELD("a", DataTypes.INT())),
                        false),
                new Case(DataTypes.ARRAY(DataTypes.TIMESTAMP(3)), DataTypes.ARRAY(DataTypes.TIMESTAMP(6)), null),
                new Case(DataTypes.DECIMAL(5, 2), DataTypes.DECIMAL(12, 2), null),
                new Case(DataTypes.TIMESTAMP(6), DataTypes.TIMESTAMP_LTZ(6), null),
                new Case(DataTypes.INT(), DataTypes.BIGINT(), null),
                new Case(DataTypes.INTERVAL(DataTypes.SECOND()), DataTypes.BIGINT(), null));
        for (Case c : cases) {
            RowType declared =
                    new RowType(List.of(new RowType.RowField("f", c.declared().getLogicalType())));
            RowType table =
                    new RowType(List.of(new RowType.RowField("c", c.table().getLogicalType())));
            String pair = c.declared() + " -> " + c.table();
            if (c.relayout() != null) {
                assertThat(TypeCompatibility.changeRowsNeedRelayout(declared, table, "t"))
                        .as(pair)
                        .isEqualTo(c.relayout());
            } else {
                assertThatThrownBy(() -> TypeCompatibility.changeRowsNeedRelayout(declared, table, "t"))
                        .as(pair)
                        .hasMessage("Column 'c' of t is " + c.table().getLogicalType() + ", but field 0 ('f') of the"
                                + " stream's rows is " + c.declared().getLogicalType() + "; "
                                + (c.declared().getLogicalType().is(LogicalTypeRoot.ARRAY)
                                        ? "declare the column " + c.table().getLogicalType() + " in the table's DDL,"
                                                + " as the table reads it (an upsert or UPDATE re-lays out only"
                                                + " top-level timestamps of another precision), or cast the field to"
                                                + " it before the sink"
                                        : "cast it before the sink"));
            }
        }
    }
}
