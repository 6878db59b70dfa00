package dev.lanceflink.flink.types;

import dev.lanceflink.file.FileVersion;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BinaryType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeFamily;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;

/**
 * The one place that decides whether a Flink type and a Lance column (its Arrow field, see
 * {@code LanceSchema.toArrow}) go together, in each direction, and how the row writer adapts the
 * values. {@link LanceTypeMapping} says which type a column is created as and reads as; this class
 * says which other types are accepted where, what is done to their values, and what a refusal says.
 *
 * <p>Every rule starts from one table, {@link #fit}: a declared Flink type against a stored Arrow
 * type (the node itself; containers are walked node by node):
 *
 * <table>
 * <caption>declared Flink type &times; stored Arrow type</caption>
 * <tr><th>Flink</th><th>{@link Fit#SAME} (read, statements, row writer)</th>
 *     <th>{@link Fit#READ_ONLY}</th><th>{@link Fit#ROWS_ONLY}</th></tr>
 * <tr><td>BOOLEAN</td><td>bool</td><td></td><td></td></tr>
 * <tr><td>TINYINT / SMALLINT / INT / BIGINT</td><td>int8 / int16 / int32 / int64</td>
 *     <td>SMALLINT &larr; uint8, INT &larr; uint16, BIGINT &larr; uint32</td><td></td></tr>
 * <tr><td>FLOAT / DOUBLE</td><td>float / double</td><td>FLOAT &larr; halffloat</td><td></td></tr>
 * <tr><td>CHAR / VARCHAR (any length)</td><td>string, large_string</td><td></td><td></td></tr>
 * <tr><td>BINARY(n) / VARBINARY</td><td>binary, large_binary; BINARY(n): fixed_size_binary:n</td>
 *     <td>fixed_size_binary of another width, VARBINARY &larr; fixed_size_binary</td><td></td></tr>
 * <tr><td>DATE</td><td>date32:day (as is), date64:ms (days &times; 86,400,000)</td><td></td><td></td></tr>
 * <tr><td>TIME(p)</td><td>time32:s (milliseconds of the day floor-divided), time32:ms,
 *     time64:us, time64:ns (scaled up)</td><td></td><td></td></tr>
 * <tr><td>TIMESTAMP(p)</td><td>timestamp without zone, any unit</td><td></td>
 *     <td>timestamp with a zone</td></tr>
 * <tr><td>TIMESTAMP_LTZ(p)</td><td>timestamp with a zone, any unit</td><td></td>
 *     <td>timestamp without zone</td></tr>
 * <tr><td>DECIMAL(p, s)</td><td>decimal128/256 (p, s)</td><td></td>
 *     <td>decimal128/256 (P &gt; p, s)</td></tr>
 * <tr><td>ARRAY</td><td>list, large_list, fixed_size_list</td><td></td><td></td></tr>
 * <tr><td>ROW</td><td>struct (fields: {@link #fields} &mdash; same names in order SAME, same
 *     count ROWS_ONLY)</td><td></td><td></td></tr>
 * <tr><td>MAP</td><td>map (entries: a struct of key and value)</td><td></td><td></td></tr>
 * </table>
 *
 * <p>Timestamps are read with the DECLARED precision and converted to the stored unit, truncated
 * towards negative infinity ({@link Adaptation}); decimals likewise are read with the declared
 * precision and scale. That is needed because a {@code BinaryRowData} lays both out by precision
 * (compact for TIMESTAMP(0..3) and DECIMAL(..18)). The change sinks, whose operators read cells
 * with the table's types, re-lay rows out first ({@link #changeRowsNeedRelayout}).
 *
 * <p>The four questions asked, and by whom:
 *
 * <ul>
 *   <li>{@link #checkReadable}: may a column declared in DDL read the stored column (source and
 *       sink declarations)? Fit {@code SAME} or {@code READ_ONLY}, ROW fields by name, a NOT NULL
 *       declaration needs a NOT NULL column.
 *   <li>{@link #statementProblem}: may a SQL statement (INSERT, INSERT OVERWRITE, upsert, UPDATE)
 *       write the declared column into the stored one? Only {@code SAME}: the declaration must mean
 *       the stored type; ROW fields by name; a nullable declaration of a NOT NULL column is refused;
 *       a MAP needs a table of data storage version 2.2.
 *   <li>{@link #valueWrite}: how does the row writer (append, and the change sinks' writer) store
 *       values of the declared type? {@code SAME} or {@code ROWS_ONLY}: the values are held
 *       unchanged; ROW fields by count; NULLs are checked per cell. The answer is a plan per
 *       column ({@link ValueWrite}), chosen once when the writer opens. Asked for the type the
 *       column reads as (the change sinks' writer holds whole rows of the table's types), a
 *       {@code READ_ONLY} column is written back too, each value checked to fit, so that a
 *       table with an unsigned or half-float column takes upserts and UPDATEs of its other
 *       columns (a statement writing the column itself is refused at planning).
 *   <li>{@link #changeRowsNeedRelayout}: may the change sinks read a stream's rows with the table's
 *       Flink types, and must they re-lay them out first?
 * </ul>
 */
public final class TypeCompatibility {
    /** The Flink types the connector stores (the others are refused naming the column). */
    private static final Set<LogicalTypeRoot> STORABLE = EnumSet.of(
            LogicalTypeRoot.BOOLEAN,
            LogicalTypeRoot.TINYINT,
            LogicalTypeRoot.SMALLINT,
            LogicalTypeRoot.INTEGER,
            LogicalTypeRoot.BIGINT,
            LogicalTypeRoot.FLOAT,
            LogicalTypeRoot.DOUBLE,
            LogicalTypeRoot.CHAR,
            LogicalTypeRoot.VARCHAR,
            LogicalTypeRoot.BINARY,
            LogicalTypeRoot.VARBINARY,
            LogicalTypeRoot.DATE,
            LogicalTypeRoot.TIME_WITHOUT_TIME_ZONE,
            LogicalTypeRoot.TIMESTAMP_WITHOUT_TIME_ZONE,
            LogicalTypeRoot.TIMESTAMP_WITH_LOCAL_TIME_ZONE,
            LogicalTypeRoot.DECIMAL,
            LogicalTypeRoot.ARRAY,
            LogicalTypeRoot.ROW,
            LogicalTypeRoot.MAP);

    private static final String MAP_KEY_NAME = "key";
    private static final String MAP_VALUE_NAME = "value";

    private TypeCompatibility() {}

    // ------------------------------------------------------------------------------------------
    // The rule table
    // ------------------------------------------------------------------------------------------

    /** How a declared Flink type relates to a stored Arrow type. */
    public enum Fit {
        /** The declared type means the stored type: read, written by statements and by the row writer. */
        SAME(true, true),
        /**
         * Flink reads every stored value, but no declaration means the stored type exactly (Flink
         * has no unsigned integers and no half floats; a BINARY of another length or a VARBINARY
         * does not say the fixed width): not written.
         */
        READ_ONLY(true, false),
        /**
         * The row writer holds the values unchanged (a DECIMAL of less precision, a timestamp with
         * or without zone into the other kind, ROW fields under other names), but a declaration
         * read or written by a statement must mean the stored type.
         */
        ROWS_ONLY(false, true),
        /** Nothing goes. */
        NONE(false, false);

        private final boolean readable;
        private final boolean rowWritable;

        Fit(boolean readable, boolean rowWritable) {
            this.readable = readable;
            this.rowWritable = rowWritable;
        }

        /** A column declared so reads the stored column. */
        public boolean readable() {
            return readable;
        }

        /** The row writer stores values declared so in the stored column. */
        public boolean rowWritable() {
            return rowWritable;
        }
    }

    /**
     * The fit of a declared type to a stored type, for the node itself (containers: the kind of
     * container; their children are fitted one by one, ROW fields by {@link #fields}).
     */
    public static Fit fit(LogicalType declared, ArrowType stored) {
        return switch (declared.getTypeRoot()) {
            case BOOLEAN -> same(stored instanceof ArrowType.Bool);
            case TINYINT -> integer(stored, 8);
            case SMALLINT -> integer(stored, 16);
            case INTEGER -> integer(stored, 32);
            case BIGINT -> integer(stored, 64);
            case FLOAT ->
                stored instanceof ArrowType.FloatingPoint f
                        ? switch (f.getPrecision()) {
                            case SINGLE -> Fit.SAME;
                            case HALF -> Fit.READ_ONLY;
                            case DOUBLE -> Fit.NONE;
                        }
                        : Fit.NONE;
            case DOUBLE ->
                same(stored instanceof ArrowType.FloatingPoint f && f.getPrecision() == FloatingPointPrecision.DOUBLE);
            case CHAR, VARCHAR -> same(stored instanceof ArrowType.Utf8 || stored instanceof ArrowType.LargeUtf8);
            case BINARY, VARBINARY -> {
                if (stored instanceof ArrowType.Binary || stored instanceof ArrowType.LargeBinary) {
                    yield Fit.SAME;
                } else if (stored instanceof ArrowType.FixedSizeBinary fixed) {
                    yield declared instanceof BinaryType b && b.getLength() == fixed.getByteWidth()
                            ? Fit.SAME
                            : Fit.READ_ONLY;
                }
                yield Fit.NONE;
            }
            case DATE -> same(stored instanceof ArrowType.Date);
            case TIME_WITHOUT_TIME_ZONE -> same(stored instanceof ArrowType.Time);
            case TIMESTAMP_WITHOUT_TIME_ZONE ->
                stored instanceof ArrowType.Timestamp t
                        ? (t.getTimezone() == null ? Fit.SAME : Fit.ROWS_ONLY)
                        : Fit.NONE;
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE ->
                stored instanceof ArrowType.Timestamp t
                        ? (t.getTimezone() != null ? Fit.SAME : Fit.ROWS_ONLY)
                        : Fit.NONE;
            case DECIMAL -> {
                DecimalType d = (DecimalType) declared;
                if (!(stored instanceof ArrowType.Decimal s) || s.getScale() != d.getScale()) {
                    yield Fit.NONE;
                }
                yield s.getPrecision() == d.getPrecision()
                        ? Fit.SAME
                        : s.getPrecision() > d.getPrecision() ? Fit.ROWS_ONLY : Fit.NONE;
            }
            case ARRAY ->
                same(stored instanceof ArrowType.List
                        || stored instanceof ArrowType.LargeList
                        || stored instanceof ArrowType.FixedSizeList);
            case ROW -> same(stored instanceof ArrowType.Struct);
            case MAP -> same(stored instanceof ArrowType.Map);
            default -> Fit.NONE;
        };
    }

    /**
     * The fit of a ROW's fields to a struct's: {@code SAME} for the same names in the same order,
     * {@code ROWS_ONLY} for as many fields under other names (the row writer places fields by
     * position), else {@code NONE}.
     */
    public static Fit fields(RowType declared, Field struct) {
        List<String> stored = names(struct.getChildren());
        if (declared.getFieldNames().equals(stored)) {
            return Fit.SAME;
        }
        return declared.getFieldCount() == stored.size() ? Fit.ROWS_ONLY : Fit.NONE;
    }

    private static Fit same(boolean same) {
        return same ? Fit.SAME : Fit.NONE;
    }

    /** Signed integers of the width; unsigned ones of half the width read widened, losslessly. */
    private static Fit integer(ArrowType stored, int bits) {
        if (!(stored instanceof ArrowType.Int i)) {
            return Fit.NONE;
        }
        if (i.getIsSigned()) {
            return same(i.getBitWidth() == bits);
        }
        return i.getBitWidth() * 2 == bits ? Fit.READ_ONLY : Fit.NONE;
    }

    private static List<String> names(List<Field> fields) {
        List<String> names = new ArrayList<>(fields.size());
        for (Field f : fields) {
            names.add(f.getName());
        }
        return names;
    }

    // ------------------------------------------------------------------------------------------
    // Reading: a DDL declaration against the stored column
    // ------------------------------------------------------------------------------------------

    /**
     * Checks that a column declared in Flink DDL as {@code declared} can read values stored as
     * {@code stored}. Lengths of CHAR/VARCHAR/BINARY/VARBINARY and time and timestamp precisions may
     * differ (values are not padded or checked, times and timestamps are truncated to the declared
     * precision, times at least to the millisecond Flink holds); DECIMAL precision and scale,
     * element/field types and ROW field names must match, and a column declared NOT NULL must be
     * stored non-nullable.
     *
     * @throws LanceTypeException describing the first mismatch, or naming a stored type Flink
     *     cannot read
     */
    public static void checkReadable(String path, LogicalType declared, Field stored) {
        checkReadable(path, declared, LanceTypeMapping.toLogicalType(path, stored), stored);
    }

    private static void checkReadable(String path, LogicalType declared, LogicalType actual, Field stored) {
        if (!declared.isNullable() && actual.isNullable()) {
            throw readMismatch(
                    path,
                    declared,
                    actual,
                    "the column is declared NOT NULL but the table allows nulls in it; drop NOT NULL");
        }
        if (!fit(declared, stored.getType()).readable()) {
            String declareAs =
                    "declare it as " + actual.copy(declared.isNullable()).asSummaryString();
            throw readMismatch(
                    path,
                    declared,
                    actual,
                    declared instanceof DecimalType && actual instanceof DecimalType
                            ? "precision and scale must match; " + declareAs
                            : declareAs);
        }
        switch (declared.getTypeRoot()) {
            case ARRAY ->
                checkReadable(
                        path + "." + LanceTypeMapping.LIST_ELEMENT_NAME,
                        ((ArrayType) declared).getElementType(),
                        ((ArrayType) actual).getElementType(),
                        stored.getChildren().get(0));
            case MAP -> {
                List<Field> entries = stored.getChildren().get(0).getChildren();
                checkReadable(
                        path + "." + MAP_KEY_NAME,
                        ((MapType) declared).getKeyType(),
                        ((MapType) actual).getKeyType(),
                        entries.get(0));
                checkReadable(
                        path + "." + MAP_VALUE_NAME,
                        ((MapType) declared).getValueType(),
                        ((MapType) actual).getValueType(),
                        entries.get(1));
            }
            case ROW -> {
                RowType d = (RowType) declared;
                RowType a = (RowType) actual;
                if (fields(d, stored) != Fit.SAME) {
                    throw readMismatch(
                            path,
                            declared,
                            actual,
                            "ROW fields must be the stored struct fields, same names in the same order: "
                                    + a.getFieldNames());
                }
                for (int i = 0; i < d.getFieldCount(); i++) {
                    checkReadable(
                            path + "." + d.getFieldNames().get(i),
                            d.getTypeAt(i),
                            a.getTypeAt(i),
                            stored.getChildren().get(i));
                }
            }
            default -> {
                // A leaf that fits reads as declared.
            }
        }
    }

    private static LanceTypeException readMismatch(String path, LogicalType declared, LogicalType actual, String fix) {
        return new LanceTypeException("Column '" + path + "' is declared " + declared.asSummaryString()
                + " but the Lance table stores it as " + actual.asSummaryString() + ": " + fix);
    }

    // ------------------------------------------------------------------------------------------
    // Writing by a SQL statement: the declaration must mean the stored type
    // ------------------------------------------------------------------------------------------

    /**
     * Why a SQL statement cannot store values of the column declared {@code declared} in the
     * stored column unchanged, or empty if it can: the fit must be {@code SAME} at every node, ROW
     * fields by name, a column NOT NULL in the table must be declared NOT NULL (Flink then checks
     * every row), and a MAP needs a table whose data files can hold maps.
     *
     * @param path the column's (dotted) path, for the message
     * @param dataFormat the table's data storage version, or null if unknown (the file writer then
     *     refuses maps in older tables)
     */
    public static Optional<String> statementProblem(
            String path, LogicalType declared, Field stored, FileVersion dataFormat) {
        if (declared.isNullable() && !stored.isNullable()) {
            return Optional.of("column '" + path + "' is NOT NULL in the Lance table but declared "
                    + declared.asSummaryString() + "; declare it "
                    + declared.copy(false).asSummaryString()
                    + ", so that Flink checks every row for NULL before it is written");
        }
        if (fit(declared, stored.getType()) != Fit.SAME) {
            return Optional.of(statementMismatch(path, declared, stored));
        }
        return switch (declared.getTypeRoot()) {
            case ARRAY ->
                statementProblem(
                        path + "." + LanceTypeMapping.LIST_ELEMENT_NAME,
                        ((ArrayType) declared).getElementType(),
                        stored.getChildren().get(0),
                        dataFormat);
            case MAP -> statementMapProblem(path, (MapType) declared, stored, dataFormat);
            case ROW -> statementRowProblem(path, (RowType) declared, stored, dataFormat);
            default -> Optional.empty();
        };
    }

    private static Optional<String> statementMapProblem(
            String path, MapType declared, Field stored, FileVersion dataFormat) {
        if (dataFormat != null && !dataFormat.storesMaps()) {
            return Optional.of("column '" + path + "' is a MAP (" + declared.asSummaryString() + "), but maps need"
                    + " data storage version 2.2 and this Lance table is version " + dataFormat.label() + " (all data"
                    + " files of a table have its version). Create the table with data storage version 2.2 (a Lance"
                    + " catalog does so for tables with MAP columns) and copy the rows into it, or store the entries"
                    + " as an ARRAY<ROW<key, value>> column");
        }
        List<Field> entries = stored.getChildren().isEmpty()
                ? List.of()
                : stored.getChildren().get(0).getChildren();
        if (entries.size() != 2) {
            return Optional.of("column '" + path + "' is a MAP, but the Lance table's map entries have the fields "
                    + names(entries) + " instead of a key and a value");
        }
        // Keys are NOT NULL in Lance while Flink map keys are nullable types: the writer refuses a
        // NULL key when it meets one, naming the column, so the key's declared nullability is moot.
        Optional<String> key = statementProblem(
                path + "." + entries.get(0).getName(), declared.getKeyType().copy(false), entries.get(0), dataFormat);
        return key.isPresent()
                ? key
                : statementProblem(
                        path + "." + entries.get(1).getName(), declared.getValueType(), entries.get(1), dataFormat);
    }

    private static Optional<String> statementRowProblem(
            String path, RowType declared, Field stored, FileVersion dataFormat) {
        if (fields(declared, stored) != Fit.SAME) {
            return Optional.of("column '" + path + "' is declared with the fields " + declared.getFieldNames()
                    + ", but the Lance table stores the struct fields " + names(stored.getChildren())
                    + "; declare exactly those, in that order");
        }
        for (int i = 0; i < declared.getFieldCount(); i++) {
            Field child = stored.getChildren().get(i);
            Optional<String> p =
                    statementProblem(path + "." + child.getName(), declared.getTypeAt(i), child, dataFormat);
            if (p.isPresent()) {
                return p;
            }
        }
        return Optional.empty();
    }

    /** The column's type as Flink reads it, and what to declare instead (if Flink can write it at all). */
    private static String statementMismatch(String path, LogicalType declared, Field stored) {
        String storedAs = "Arrow type " + stored.getType();
        String fix;
        try {
            LogicalType readAs = LanceTypeMapping.toLogicalType(path, stored);
            storedAs = readAs.asSummaryString() + " (" + storedAs + ")";
            fix = fit(readAs, stored.getType()) == Fit.SAME
                    ? "declare it "
                            + readAs.copy(declared.isNullable() && readAs.isNullable())
                                    .asSummaryString()
                    : "Flink has no type holding exactly these values (no unsigned integers, no half floats), so "
                            + "Flink cannot write this column";
        } catch (LanceTypeException e) {
            fix = "Flink cannot write this column: " + e.getMessage();
        }
        return "column '" + path + "' is declared " + declared.asSummaryString() + " but the Lance table stores "
                + storedAs + "; " + fix;
    }

    // ------------------------------------------------------------------------------------------
    // Writing by the row writer: the value adaptation plan
    // ------------------------------------------------------------------------------------------

    /**
     * What the row writer does with a value of the declared type to store it in the stored field.
     * Everything not named is stored as is (strings and binaries as their bytes, DATE as days).
     */
    public enum Adaptation {
        BOOLEAN,
        TINYINT,
        SMALLINT,
        INT,
        BIGINT,
        FLOAT,
        DOUBLE,
        STRING,
        LARGE_STRING,
        BINARY,
        LARGE_BINARY,
        /** BINARY(n) into fixed_size_binary:n. */
        FIXED_SIZE_BINARY,
        /** DATE into date32:day: days since the epoch. */
        DATE_DAYS,
        /** DATE into date64:ms: days &times; 86,400,000. */
        DATE_MILLIS,
        /** TIME (Flink holds milliseconds of the day) into time32:s: floor-divided by 1000. */
        TIME_SECONDS,
        TIME_MILLIS,
        /** Into time64:us: milliseconds &times; 1000 (exact). */
        TIME_MICROS,
        /** Into time64:ns: milliseconds &times; 10^6 (exact). */
        TIME_NANOS,
        /**
         * TIMESTAMP(p) / TIMESTAMP_LTZ(p), read with the declared precision, into seconds:
         * truncated towards negative infinity.
         */
        TIMESTAMP_SECONDS,
        TIMESTAMP_MILLIS,
        TIMESTAMP_MICROS,
        /** Into nanoseconds: a value outside 1677-09-21..2262-04-11 is refused, naming the column. */
        TIMESTAMP_NANOS,
        /** DECIMAL(p, s), read with the declared precision and scale, into decimal128 (P &ge; p, s). */
        DECIMAL128,
        DECIMAL256,
        LIST,
        LARGE_LIST,
        /** ARRAY into fixed_size_list: exactly the list size per value. */
        FIXED_SIZE_LIST,
        STRUCT,
        MAP,
        /**
         * Only for the type a column reads as ({@code declared} null in {@link #valueWrite}): the
         * SMALLINT of a uint8 column written back, refused per cell (naming the column) outside
         * 0..255. The change sinks' writer holds the table's whole rows in these types (new rows
         * of an upsert or UPDATE that does not write the column have NULL in it, rows it moves the
         * values read from it); a statement writing the column is refused at planning
         * ({@link #statementProblem}).
         */
        UINT8,
        /** INT of a uint16 column written back, refused outside 0..65535 (see {@link #UINT8}). */
        UINT16,
        /** BIGINT of a uint32 column written back, refused outside 0..2^32-1 (see {@link #UINT8}). */
        UINT32,
        /**
         * FLOAT of a halffloat column written back, refused unless a half float holds it exactly
         * (see {@link #UINT8}).
         */
        HALF_FLOAT
    }

    /**
     * The row writer's plan for one (nested) column: the adaptation, the precision and scale the
     * cells are read with (the declared ones, for timestamps and decimals), and the children's
     * plans (the element; the struct fields; the map's key and value).
     */
    public record ValueWrite(Adaptation adaptation, int precision, int scale, List<ValueWrite> children) {
        public ValueWrite {
            children = List.copyOf(children);
        }

        static ValueWrite of(Adaptation adaptation) {
            return new ValueWrite(adaptation, 0, 0, List.of());
        }
    }

    /**
     * The row writer's plan for storing values declared {@code declared} in the stored column.
     *
     * @param table the table, for messages
     * @param declared the declared type, or null for the type the column reads as
     *     ({@link LanceTypeMapping#toLogicalType})
     * @throws IllegalArgumentException naming the path if the values cannot be stored unchanged
     */
    public static ValueWrite valueWrite(String table, LogicalType declared, Field stored) {
        String path = stored.getName();
        if (declared == null) {
            LogicalType readAs;
            try {
                readAs = LanceTypeMapping.toLogicalType(path, stored);
            } catch (LanceTypeException e) {
                throw new IllegalArgumentException(
                        "Column '" + path + "' of " + table + " has Arrow type "
                                + stored.getType()
                                + ", which the Lance sink cannot write from Flink RowData: Flink has no type for"
                                + " it (" + e.getMessage() + ")",
                        e);
            }
            return valueWrite(table, path, readAs, stored, true);
        }
        return valueWrite(table, path, declared, stored, false);
    }

    /**
     * @param asRead the declared type is the one the stored column reads as: values were read from
     *     such a column (or are NULL), so a {@code READ_ONLY} fit writes them back range-checked
     */
    private static ValueWrite valueWrite(
            String table, String path, LogicalType declared, Field stored, boolean asRead) {
        if (!STORABLE.contains(declared.getTypeRoot())) {
            throw new IllegalArgumentException("'" + path + "' of " + table + " is declared "
                    + declared.asSummaryString() + ", which the Lance sink cannot write. Supported: BOOLEAN,"
                    + " TINYINT, SMALLINT, INT, BIGINT, FLOAT, DOUBLE, CHAR/VARCHAR/STRING,"
                    + " BINARY/VARBINARY/BYTES, DECIMAL, DATE, TIME, TIMESTAMP, TIMESTAMP_LTZ, ARRAY, ROW, MAP");
        }
        ArrowType a = stored.getType();
        Fit fit = fit(declared, a);
        if (asRead && fit == Fit.READ_ONLY) {
            Adaptation back = writeBack(a);
            if (back != null) {
                return ValueWrite.of(back);
            }
        }
        if (!fit.rowWritable()) {
            throw rowsMismatch(table, path, declared, stored);
        }
        return switch (declared.getTypeRoot()) {
            case BOOLEAN -> ValueWrite.of(Adaptation.BOOLEAN);
            case TINYINT -> ValueWrite.of(Adaptation.TINYINT);
            case SMALLINT -> ValueWrite.of(Adaptation.SMALLINT);
            case INTEGER -> ValueWrite.of(Adaptation.INT);
            case BIGINT -> ValueWrite.of(Adaptation.BIGINT);
            case FLOAT -> ValueWrite.of(Adaptation.FLOAT);
            case DOUBLE -> ValueWrite.of(Adaptation.DOUBLE);
            case CHAR, VARCHAR ->
                ValueWrite.of(a instanceof ArrowType.LargeUtf8 ? Adaptation.LARGE_STRING : Adaptation.STRING);
            case BINARY, VARBINARY ->
                ValueWrite.of(
                        a instanceof ArrowType.LargeBinary
                                ? Adaptation.LARGE_BINARY
                                : a instanceof ArrowType.FixedSizeBinary
                                        ? Adaptation.FIXED_SIZE_BINARY
                                        : Adaptation.BINARY);
            case DATE ->
                ValueWrite.of(
                        ((ArrowType.Date) a).getUnit() == DateUnit.DAY ? Adaptation.DATE_DAYS : Adaptation.DATE_MILLIS);
            case TIME_WITHOUT_TIME_ZONE ->
                ValueWrite.of(
                        switch (((ArrowType.Time) a).getUnit()) {
                            case SECOND -> Adaptation.TIME_SECONDS;
                            case MILLISECOND -> Adaptation.TIME_MILLIS;
                            case MICROSECOND -> Adaptation.TIME_MICROS;
                            case NANOSECOND -> Adaptation.TIME_NANOS;
                        });
            case TIMESTAMP_WITHOUT_TIME_ZONE, TIMESTAMP_WITH_LOCAL_TIME_ZONE ->
                new ValueWrite(
                        switch (((ArrowType.Timestamp) a).getUnit()) {
                            case SECOND -> Adaptation.TIMESTAMP_SECONDS;
                            case MILLISECOND -> Adaptation.TIMESTAMP_MILLIS;
                            case MICROSECOND -> Adaptation.TIMESTAMP_MICROS;
                            case NANOSECOND -> Adaptation.TIMESTAMP_NANOS;
                        },
                        timestampPrecision(declared),
                        0,
                        List.of());
            case DECIMAL ->
                new ValueWrite(
                        ((ArrowType.Decimal) a).getBitWidth() == 256 ? Adaptation.DECIMAL256 : Adaptation.DECIMAL128,
                        ((DecimalType) declared).getPrecision(),
                        ((DecimalType) declared).getScale(),
                        List.of());
            case ARRAY -> {
                Field element = stored.getChildren().get(0);
                ValueWrite items = valueWrite(
                        table,
                        path + "." + element.getName(),
                        ((ArrayType) declared).getElementType(),
                        element,
                        asRead);
                Adaptation kind = a instanceof ArrowType.FixedSizeList
                        ? Adaptation.FIXED_SIZE_LIST
                        : a instanceof ArrowType.LargeList ? Adaptation.LARGE_LIST : Adaptation.LIST;
                yield new ValueWrite(kind, 0, 0, List.of(items));
            }
            case ROW -> {
                RowType row = (RowType) declared;
                if (!fields(row, stored).rowWritable()) {
                    throw rowsMismatch(table, path, declared, stored);
                }
                List<ValueWrite> children = new ArrayList<>();
                for (int f = 0; f < row.getFieldCount(); f++) {
                    Field child = stored.getChildren().get(f);
                    children.add(valueWrite(table, path + "." + child.getName(), row.getTypeAt(f), child, asRead));
                }
                yield new ValueWrite(Adaptation.STRUCT, 0, 0, children);
            }
            case MAP -> {
                MapType map = (MapType) declared;
                if (stored.getChildren().size() != 1
                        || !(stored.getChildren().get(0).getType() instanceof ArrowType.Struct)
                        || stored.getChildren().get(0).getChildren().size() != 2) {
                    throw rowsMismatch(table, path, declared, stored);
                }
                Field entries = stored.getChildren().get(0);
                String entriesPath = path + "." + entries.getName();
                Field key = entries.getChildren().get(0);
                Field value = entries.getChildren().get(1);
                yield new ValueWrite(
                        Adaptation.MAP,
                        0,
                        0,
                        List.of(
                                valueWrite(table, entriesPath + "." + key.getName(), map.getKeyType(), key, asRead),
                                valueWrite(
                                        table,
                                        entriesPath + "." + value.getName(),
                                        map.getValueType(),
                                        value,
                                        asRead)));
            }
            default -> throw rowsMismatch(table, path, declared, stored);
        };
    }

    /**
     * The adaptation writing a value read from a {@code READ_ONLY} column back into it (unsigned
     * integers, half floats), or null if there is none.
     */
    private static Adaptation writeBack(ArrowType stored) {
        if (stored instanceof ArrowType.Int i && !i.getIsSigned()) {
            return switch (i.getBitWidth()) {
                case 8 -> Adaptation.UINT8;
                case 16 -> Adaptation.UINT16;
                case 32 -> Adaptation.UINT32;
                default -> null;
            };
        }
        return stored instanceof ArrowType.FloatingPoint f && f.getPrecision() == FloatingPointPrecision.HALF
                ? Adaptation.HALF_FLOAT
                : null;
    }

    private static IllegalArgumentException rowsMismatch(
            String table, String path, LogicalType declared, Field stored) {
        String storedAs = stored.getChildren().isEmpty()
                ? stored.getType().toString()
                : stored.getType() + " " + stored.getChildren();
        return new IllegalArgumentException("'" + path + "' of " + table + " is declared "
                + declared.asSummaryString() + " but the Lance table stores Arrow type " + storedAs
                + ", which does not hold such values unchanged; declare the type the table stores (for a"
                + " ROW the same number of fields, for a DECIMAL the same scale and at most its precision)");
    }

    private static int timestampPrecision(LogicalType timestamp) {
        return timestamp instanceof TimestampType t
                ? t.getPrecision()
                : ((LocalZonedTimestampType) timestamp).getPrecision();
    }

    // ------------------------------------------------------------------------------------------
    // The change sinks: rows read with the table's Flink types
    // ------------------------------------------------------------------------------------------

    /**
     * Whether the change sinks (upsert, row-address updates), whose operators read cells with the
     * table's types, must re-lay a stream's rows out first: a {@code BinaryRowData} lays a
     * timestamp out by its precision (compact milliseconds up to 3 digits, else milliseconds plus
     * nanoseconds elsewhere), so a {@code TIMESTAMP(3)} cell read as the {@code TIMESTAMP(6)} of a
     * microsecond column would be garbage. Re-laid out, values are read with the declared types
     * and written in the table's layout; a timestamp with more digits than the column's unit is
     * truncated by the writer, as an append does. Types whose binary layout does not depend on the
     * difference (CHAR vs VARCHAR, BINARY vs VARBINARY, TIME precision, names and nullability of
     * nested fields) need no re-layout. Only top-level timestamps are re-laid out: any other
     * difference is refused, a nested timestamp of another precision saying to declare the column
     * as the table reads it (a SQL declaration of it as created, e.g. {@code ARRAY<TIMESTAMP(3)>}
     * of a column that reads as {@code ARRAY<TIMESTAMP(6)>}, is refused so at planning).
     *
     * @param declared the stream's row type
     * @param table the table's row type (with the same trailing extra fields), as the operators read it
     * @throws IllegalArgumentException naming the field if a declared type cannot be read so
     */
    public static boolean changeRowsNeedRelayout(RowType declared, RowType table, String tableName) {
        boolean relayout = false;
        for (int i = 0; i < table.getFieldCount(); i++) {
            LogicalType want = table.getTypeAt(i);
            LogicalType got = declared.getTypeAt(i);
            if (sameBinaryLayout(got, want)) {
                continue;
            }
            if (isTimestamp(got) && got.getTypeRoot() == want.getTypeRoot()) {
                relayout = true;
                continue;
            }
            String head = "Column '" + table.getFieldNames().get(i) + "' of " + tableName + " is " + want
                    + ", but field " + i + " ('" + declared.getFieldNames().get(i) + "') of the stream's rows is "
                    + got;
            throw new IllegalArgumentException(
                    sameButTimestampPrecision(got, want)
                            ? head + "; declare the column " + want + " in the table's DDL, as the table reads it"
                                    + " (an upsert or UPDATE re-lays out only top-level timestamps of another"
                                    + " precision), or cast the field to it before the sink"
                            : head + "; cast it before the sink");
        }
        return relayout;
    }

    /**
     * True if cells of type {@code a} can be read with type {@code b} from the same binary row:
     * equal but for nullability, field names and lengths of character and binary strings, and
     * TIME's precision (always an int of milliseconds); containers recursively.
     */
    static boolean sameBinaryLayout(LogicalType a, LogicalType b) {
        if (a.copy(true).equals(b.copy(true))) {
            return true;
        }
        if (a.is(LogicalTypeFamily.CHARACTER_STRING) && b.is(LogicalTypeFamily.CHARACTER_STRING)) {
            return true;
        }
        if (a.is(LogicalTypeFamily.BINARY_STRING) && b.is(LogicalTypeFamily.BINARY_STRING)) {
            return true;
        }
        if (a.is(LogicalTypeRoot.TIME_WITHOUT_TIME_ZONE) && b.is(LogicalTypeRoot.TIME_WITHOUT_TIME_ZONE)) {
            return true;
        }
        if (isTimestamp(a) && a.getTypeRoot() == b.getTypeRoot()) {
            return TimestampData.isCompact(timestampPrecision(a)) == TimestampData.isCompact(timestampPrecision(b));
        }
        if (a.getTypeRoot() != b.getTypeRoot()
                || a.getChildren().size() != b.getChildren().size()
                || a.getChildren().isEmpty()) {
            return false;
        }
        for (int i = 0; i < a.getChildren().size(); i++) {
            if (!sameBinaryLayout(a.getChildren().get(i), b.getChildren().get(i))) {
                return false;
            }
        }
        return true;
    }

    /**
     * True if {@code a} differs from {@code b} only in the precision of timestamps (nested ones:
     * a SQL declaration of the column as the table reads it would do).
     */
    private static boolean sameButTimestampPrecision(LogicalType a, LogicalType b) {
        if (isTimestamp(a) && a.getTypeRoot() == b.getTypeRoot() || sameBinaryLayout(a, b)) {
            return true;
        }
        if (a.getTypeRoot() != b.getTypeRoot()
                || a.getChildren().size() != b.getChildren().size()
                || a.getChildren().isEmpty()) {
            return false;
        }
        for (int i = 0; i < a.getChildren().size(); i++) {
            if (!sameButTimestampPrecision(
                    a.getChildren().get(i), b.getChildren().get(i))) {
                return false;
            }
        }
        return true;
    }

    private static boolean isTimestamp(LogicalType t) {
        return t instanceof TimestampType || t instanceof LocalZonedTimestampType;
    }
}
