package dev.lanceflink.flink.table;

import dev.lanceflink.file.FileVersion;
import dev.lanceflink.flink.types.TypeCompatibility;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.table.api.ValidationException;
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
 *
 * <p>This class decides which columns a statement writes and which must be declared; whether a
 * declared type fits its column is decided by {@link TypeCompatibility#statementProblem}.
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
            Optional<String> problem = TypeCompatibility.statementProblem(
                    name, declared.getTypeAt(i), stored.getFields().get(storedNames.indexOf(name)), dataFormat);
            if (problem.isPresent()) {
                throw fail(table, uri, statement.label() + ": " + problem.get());
            }
        }
    }

    private static ValidationException fail(String table, String uri, String what) {
        return new ValidationException("Cannot write table " + table + " to the Lance table at '" + uri + "': " + what);
    }
}
