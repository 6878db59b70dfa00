package dev.lanceflink.flink.table;

import dev.lanceflink.file.FileVersion;
import dev.lanceflink.flink.types.LanceTypeException;
import dev.lanceflink.flink.types.LanceTypeMapping;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BinaryType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;

/**
 * Checks, when a write ({@code INSERT INTO}, {@code INSERT OVERWRITE}, an upsert, {@code UPDATE})
 * is planned, that the rows of a Flink table declaration can be stored in a Lance table
 * unchanged: the sink writes each declared column into the table's column of that name, with
 * the table's stored type.
 *
 * <p>The declaration may list any of the Lance table's columns, in any order: the sink places
 * them by name. Statements that add rows (INSERT, INSERT OVERWRITE, upserts) give the other
 * columns NULL, so those must be nullable; an UPDATE leaves them alone. Each written column's
 * declared type must mean exactly the stored type: no widening or narrowing (Flink has no unsigned
 * integers or half floats, so such columns cannot be written), DECIMAL precision and scale equal,
 * ROW fields equal by name and order. A nullable declaration of a NOT NULL column is refused:
 * declared NOT NULL, Flink itself checks every row before the sink sees it (and fails the job,
 * naming the column, by default). Lengths of CHAR/VARCHAR/BINARY/VARBINARY do not matter for
 * variable-length columns.
 *
 * <p>TIMESTAMP(p) and TIMESTAMP_LTZ(p) of any precision go into a timestamp column of any unit
 * (the writer reads each value with the declared precision and converts it to the stored unit):
 * a coarser unit truncates the value towards negative infinity (TIMESTAMP(6) into seconds stores
 * 1969-12-31 23:59:59.5 as 23:59:59). TIME(p) likewise goes into time32:s/ms and time64:us/ns
 * (Flink holds milliseconds of the day; seconds truncate them).
 *
 * <p>MAP columns are written into tables of data storage version 2.2 or later only: Lance stores
 * maps only in 2.2 files, and every data file of a table has the table's version. Given the
 * table's version, a MAP column of an older table is refused here; {@code check} cannot tell
 * which columns a statement writes, so this also refuses an UPDATE of the other columns of such
 * a table. Without the version, the file writer refuses the first map it is given for an older
 * table, with the same advice, before anything is committed.
 */
final class LanceWriteSchemaCheck {
    private LanceWriteSchemaCheck() {}

    /** The statement a check is for: it decides which columns are written and whether rows are new. */
    enum Statement {
        INSERT("INSERT INTO", true),
        OVERWRITE("INSERT OVERWRITE", true),
        UPSERT("upsert (INSERT INTO a PRIMARY KEY table)", true),
        UPDATE("UPDATE", false);

        private final String label;
        /** Whether it may add rows, which get NULL in the columns the table does not declare. */
        private final boolean newRows;

        Statement(String label, boolean newRows) {
            this.label = label;
            this.newRows = newRows;
        }

        String label() {
            return label;
        }
    }

    /**
     * An INSERT writing every declared column, without the table's data storage version: MAP
     * columns are left to the file writer, which refuses them in tables older than 2.2.
     */
    static void check(String table, String uri, RowType declared, Schema stored) {
        check(table, uri, declared, stored, null);
    }

    /** An INSERT writing every declared column. */
    static void check(String table, String uri, RowType declared, Schema stored, FileVersion dataFormat) {
        check(table, uri, declared, stored, dataFormat, Statement.INSERT, declared.getFieldNames());
    }

    /**
     * @param table the Flink table, for messages
     * @param uri the Lance table's location, for messages
     * @param declared the physical columns of the Flink declaration, in order; any subset of the
     *     Lance table's columns, in any order (the sink places them by name)
     * @param stored the Lance table's schema (latest version)
     * @param dataFormat the table's data storage version ({@code Manifest.data_format}), or null
     *     if unknown
     * @param statement what writes: statements that add rows give undeclared columns NULL, so
     *     those must be nullable
     * @param written the declared columns whose values the statement stores (an UPDATE's SET
     *     columns); only their types must fit
     * @throws ValidationException naming the statement, the column that does not fit, and what to declare
     */
    static void check(
            String table,
            String uri,
            RowType declared,
            Schema stored,
            FileVersion dataFormat,
            Statement statement,
            Collection<String> written) {
        List<String> declaredNames = declared.getFieldNames();
        List<String> storedNames = new ArrayList<>();
        for (Field f : stored.getFields()) {
            storedNames.add(f.getName());
        }
        for (String name : declaredNames) {
            if (!storedNames.contains(name)) {
                throw fail(
                        table,
                        uri,
                        statement.label() + ": column '" + name + "' does not exist in the Lance"
                                + " table; its columns are " + storedNames);
            }
        }
        if (statement.newRows) {
            List<String> notNull = new ArrayList<>();
            for (Field f : stored.getFields()) {
                if (!declaredNames.contains(f.getName()) && !f.isNullable()) {
                    notNull.add(f.getName());
                }
            }
            if (!notNull.isEmpty()) {
                throw fail(
                        table,
                        uri,
                        statement.label() + " gives the columns the table does not declare NULL in"
                                + " new rows, but the Lance table's columns " + notNull
                                + " are NOT NULL; declare them");
            }
        }
        for (int i = 0; i < declaredNames.size(); i++) {
            String name = declaredNames.get(i);
            if (!written.contains(name)) {
                continue;
            }
            Optional<String> problem =
                    problem(name, declared.getTypeAt(i), stored.getFields().get(storedNames.indexOf(name)), dataFormat);
            if (problem.isPresent()) {
                throw fail(table, uri, statement.label() + ": " + problem.get());
            }
        }
    }

    private static ValidationException fail(String table, String uri, String what) {
        return new ValidationException("Cannot write table " + table + " to the Lance table at '" + uri + "': " + what);
    }

    /** Why values of {@code declared} cannot be stored in {@code stored} unchanged, or empty if they can. */
    private static Optional<String> problem(String path, LogicalType declared, Field stored, FileVersion dataFormat) {
        if (declared.isNullable() && !stored.isNullable()) {
            return Optional.of("column '" + path + "' is NOT NULL in the Lance table but declared "
                    + declared.asSummaryString() + "; declare it "
                    + declared.copy(false).asSummaryString()
                    + ", so that Flink checks every row for NULL before it is written");
        }
        ArrowType a = stored.getType();
        boolean sameType = switch (declared.getTypeRoot()) {
            case BOOLEAN -> a instanceof ArrowType.Bool;
            case TINYINT -> signedInt(a, 8);
            case SMALLINT -> signedInt(a, 16);
            case INTEGER -> signedInt(a, 32);
            case BIGINT -> signedInt(a, 64);
            case FLOAT -> a instanceof ArrowType.FloatingPoint f && f.getPrecision() == FloatingPointPrecision.SINGLE;
            case DOUBLE -> a instanceof ArrowType.FloatingPoint f && f.getPrecision() == FloatingPointPrecision.DOUBLE;
            case CHAR, VARCHAR -> a instanceof ArrowType.Utf8 || a instanceof ArrowType.LargeUtf8;
            case BINARY ->
                a instanceof ArrowType.Binary
                        || a instanceof ArrowType.LargeBinary
                        || a instanceof ArrowType.FixedSizeBinary fb
                                && fb.getByteWidth() == ((BinaryType) declared).getLength();
            case VARBINARY -> a instanceof ArrowType.Binary || a instanceof ArrowType.LargeBinary;
            case DATE -> a instanceof ArrowType.Date;
            case TIME_WITHOUT_TIME_ZONE -> a instanceof ArrowType.Time;
            case TIMESTAMP_WITHOUT_TIME_ZONE -> a instanceof ArrowType.Timestamp t && t.getTimezone() == null;
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE -> a instanceof ArrowType.Timestamp t && t.getTimezone() != null;
            case DECIMAL ->
                a instanceof ArrowType.Decimal d
                        && d.getPrecision() == ((DecimalType) declared).getPrecision()
                        && d.getScale() == ((DecimalType) declared).getScale();
            case ARRAY ->
                a instanceof ArrowType.List || a instanceof ArrowType.LargeList || a instanceof ArrowType.FixedSizeList;
            case ROW -> a instanceof ArrowType.Struct;
            case MAP -> a instanceof ArrowType.Map;
            default -> false;
        };
        if (!sameType) {
            return Optional.of(typeMismatch(path, declared, stored));
        }
        return switch (declared.getTypeRoot()) {
            case ARRAY ->
                problem(
                        path + "." + LanceTypeMapping.LIST_ELEMENT_NAME,
                        ((ArrayType) declared).getElementType(),
                        stored.getChildren().get(0),
                        dataFormat);
            case MAP -> mapEntries(path, (MapType) declared, stored, dataFormat);
            case ROW -> rowFields(path, (RowType) declared, stored, dataFormat);
            default -> Optional.empty();
        };
    }

    private static Optional<String> mapEntries(String path, MapType declared, Field stored, FileVersion dataFormat) {
        if (dataFormat != null && dataFormat.compareTo(FileVersion.V2_2) < 0) {
            return Optional.of("column '" + path + "' is a MAP (" + declared.asSummaryString() + "), but maps need"
                    + " data storage version 2.2 and this Lance table is version " + dataFormat.label() + " (all data"
                    + " files of a table have its version). Create the table with data storage version 2.2 (a Lance"
                    + " catalog does so for tables with MAP columns) and copy the rows into it, or store the entries"
                    + " as an ARRAY<ROW<key, value>> column");
        }
        List<Field> entries = stored.getChildren().get(0).getChildren();
        if (entries.size() != 2) {
            return Optional.of("column '" + path + "' is a MAP, but the Lance table's map entries have the fields "
                    + entries.stream().map(Field::getName).toList() + " instead of a key and a value");
        }
        // Keys are NOT NULL in Lance while Flink map keys are nullable types: the writer refuses a
        // NULL key when it meets one, naming the column, so the key's declared nullability is moot.
        Optional<String> key = problem(
                path + "." + entries.get(0).getName(), declared.getKeyType().copy(false), entries.get(0), dataFormat);
        return key.isPresent()
                ? key
                : problem(path + "." + entries.get(1).getName(), declared.getValueType(), entries.get(1), dataFormat);
    }

    private static Optional<String> rowFields(String path, RowType declared, Field stored, FileVersion dataFormat) {
        List<String> storedNames = new ArrayList<>();
        for (Field c : stored.getChildren()) {
            storedNames.add(c.getName());
        }
        if (!declared.getFieldNames().equals(storedNames)) {
            return Optional.of("column '" + path + "' is declared with the fields " + declared.getFieldNames()
                    + ", but the Lance table stores the struct fields " + storedNames
                    + "; declare exactly those, in that order");
        }
        for (int i = 0; i < storedNames.size(); i++) {
            Optional<String> p = problem(
                    path + "." + storedNames.get(i),
                    declared.getTypeAt(i),
                    stored.getChildren().get(i),
                    dataFormat);
            if (p.isPresent()) {
                return p;
            }
        }
        return Optional.empty();
    }

    private static boolean signedInt(ArrowType a, int bits) {
        return a instanceof ArrowType.Int i && i.getIsSigned() && i.getBitWidth() == bits;
    }

    private static String typeMismatch(String path, LogicalType declared, Field stored) {
        String storedAs = "Arrow type " + stored.getType();
        String fix;
        try {
            LogicalType readAs = LanceTypeMapping.toLogicalType(path, stored);
            ArrowType a = stored.getType();
            boolean exact = !(a instanceof ArrowType.Int i && !i.getIsSigned())
                    && !(a instanceof ArrowType.FloatingPoint f && f.getPrecision() == FloatingPointPrecision.HALF);
            storedAs = readAs.asSummaryString() + " (" + storedAs + ")";
            fix = exact
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
}
