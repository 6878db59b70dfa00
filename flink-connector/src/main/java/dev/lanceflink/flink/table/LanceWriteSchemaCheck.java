package dev.lanceflink.flink.table;

import dev.lanceflink.flink.types.LanceTypeException;
import dev.lanceflink.flink.types.LanceTypeMapping;
import java.util.ArrayList;
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
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;

/**
 * Checks, when an {@code INSERT INTO} is planned, that the rows of a Flink table declaration can
 * be appended to a Lance table unchanged: the sink writes each row field by position into the
 * table's column of that position, with the table's stored type.
 *
 * <p>So the declaration must list every column of the Lance table, in the table's order, and each
 * declared type must mean exactly the stored type: no widening or narrowing (Flink has no unsigned
 * integers or half floats, so such columns cannot be written), DECIMAL precision and scale equal,
 * ROW fields equal by name and order. A nullable declaration of a NOT NULL column is refused:
 * declared NOT NULL, Flink itself checks every row before the sink sees it (and fails the job,
 * naming the column, by default). Lengths of CHAR/VARCHAR/BINARY/VARBINARY do not matter for
 * variable-length columns.
 *
 * <p>TIMESTAMP(p) and TIMESTAMP_LTZ(p) need a precision that fits the stored unit without loss
 * and is represented in Flink's binary rows the same way as the unit's own precision (epoch
 * milliseconds for p &le; 3, milliseconds plus nanoseconds above): p = 0 for seconds, 0..3 for
 * milliseconds, 4..6 for microseconds, 7..9 for nanoseconds. The writer reads a timestamp with the
 * unit's precision, so a declaration outside that range would be misread, not just truncated.
 */
final class LanceWriteSchemaCheck {
    private LanceWriteSchemaCheck() {}

    /**
     * @param table the Flink table, for messages
     * @param uri the Lance table's location, for messages
     * @param declared the physical columns of the Flink declaration, in order
     * @param stored the Lance table's schema (latest version)
     * @throws ValidationException naming the first column that does not fit, and what to declare
     */
    static void check(String table, String uri, RowType declared, Schema stored) {
        List<String> declaredNames = declared.getFieldNames();
        List<String> storedNames = new ArrayList<>();
        for (Field f : stored.getFields()) {
            storedNames.add(f.getName());
        }
        for (String name : declaredNames) {
            if (!storedNames.contains(name)) {
                throw fail(table, uri, "column '" + name + "' does not exist in the Lance table; its columns are "
                        + storedNames);
            }
        }
        for (Field f : stored.getFields()) {
            if (!declaredNames.contains(f.getName())) {
                throw fail(table, uri, "the Lance table has column '" + f.getName() + "', which the table does not "
                        + "declare. INSERT INTO writes whole rows: declare every column of the Lance table, in its "
                        + "order: " + storedNames);
            }
        }
        if (!declaredNames.equals(storedNames)) {
            throw fail(table, uri, "the columns are declared in the order " + declaredNames + ", but rows are "
                    + "written by position: declare them in the Lance table's order " + storedNames);
        }
        for (int i = 0; i < declaredNames.size(); i++) {
            Optional<String> problem = problem(declaredNames.get(i), declared.getTypeAt(i), stored.getFields().get(i));
            if (problem.isPresent()) {
                throw fail(table, uri, problem.get());
            }
        }
    }

    private static ValidationException fail(String table, String uri, String what) {
        return new ValidationException("Cannot write table " + table + " to the Lance table at '" + uri + "': " + what);
    }

    /** Why values of {@code declared} cannot be stored in {@code stored} unchanged, or empty if they can. */
    private static Optional<String> problem(String path, LogicalType declared, Field stored) {
        if (declared.isNullable() && !stored.isNullable()) {
            return Optional.of("column '" + path + "' is NOT NULL in the Lance table but declared "
                    + declared.asSummaryString() + "; declare it " + declared.copy(false).asSummaryString()
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
            case BINARY -> a instanceof ArrowType.Binary || a instanceof ArrowType.LargeBinary
                    || a instanceof ArrowType.FixedSizeBinary fb && fb.getByteWidth() == ((BinaryType) declared).getLength();
            case VARBINARY -> a instanceof ArrowType.Binary || a instanceof ArrowType.LargeBinary;
            case DATE -> a instanceof ArrowType.Date;
            case TIMESTAMP_WITHOUT_TIME_ZONE -> a instanceof ArrowType.Timestamp t && t.getTimezone() == null;
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE -> a instanceof ArrowType.Timestamp t && t.getTimezone() != null;
            case DECIMAL -> a instanceof ArrowType.Decimal d
                    && d.getPrecision() == ((DecimalType) declared).getPrecision()
                    && d.getScale() == ((DecimalType) declared).getScale();
            case ARRAY -> a instanceof ArrowType.List || a instanceof ArrowType.LargeList
                    || a instanceof ArrowType.FixedSizeList;
            case ROW -> a instanceof ArrowType.Struct;
            case MAP -> a instanceof ArrowType.Map;
            default -> false;
        };
        if (!sameType) {
            return Optional.of(typeMismatch(path, declared, stored));
        }
        return switch (declared.getTypeRoot()) {
            case TIMESTAMP_WITHOUT_TIME_ZONE -> timestampPrecision(path, declared,
                    ((TimestampType) declared).getPrecision(), (ArrowType.Timestamp) a);
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE -> timestampPrecision(path, declared,
                    ((LocalZonedTimestampType) declared).getPrecision(), (ArrowType.Timestamp) a);
            case ARRAY -> problem(path + "." + LanceTypeMapping.LIST_ELEMENT_NAME,
                    ((ArrayType) declared).getElementType(), stored.getChildren().get(0));
            case MAP -> {
                Field entries = stored.getChildren().get(0);
                // Lance map keys are always NOT NULL while Flink's are nullable by default: a NULL
                // key fails the writer, so the key's nullability is not part of the check.
                Optional<String> key = problem(path + ".key", ((MapType) declared).getKeyType().copy(false),
                        entries.getChildren().get(0));
                yield key.isPresent() ? key
                        : problem(path + ".value", ((MapType) declared).getValueType(), entries.getChildren().get(1));
            }
            case ROW -> rowFields(path, (RowType) declared, stored);
            default -> Optional.empty();
        };
    }

    private static Optional<String> rowFields(String path, RowType declared, Field stored) {
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
            Optional<String> p = problem(path + "." + storedNames.get(i), declared.getTypeAt(i),
                    stored.getChildren().get(i));
            if (p.isPresent()) {
                return p;
            }
        }
        return Optional.empty();
    }

    private static boolean signedInt(ArrowType a, int bits) {
        return a instanceof ArrowType.Int i && i.getIsSigned() && i.getBitWidth() == bits;
    }

    private static Optional<String> timestampPrecision(String path, LogicalType declared, int precision,
            ArrowType.Timestamp stored) {
        int unitPrecision;
        int lowest;
        switch (stored.getUnit()) {
            case SECOND -> {
                unitPrecision = 0;
                lowest = 0;
            }
            case MILLISECOND -> {
                unitPrecision = 3;
                lowest = 0;
            }
            case MICROSECOND -> {
                unitPrecision = 6;
                lowest = 4;
            }
            default -> {
                unitPrecision = 9;
                lowest = 7;
            }
        }
        if (precision >= lowest && precision <= unitPrecision) {
            return Optional.empty();
        }
        String unit = stored.getUnit().name().toLowerCase(java.util.Locale.ROOT) + "s";
        return Optional.of("column '" + path + "' is declared " + declared.asSummaryString() + ", but the Lance "
                + "table stores " + unit + "; declare a precision from " + lowest + " to " + unitPrecision
                + ", e.g. " + (declared instanceof TimestampType
                        ? new TimestampType(declared.isNullable(), unitPrecision)
                        : new LocalZonedTimestampType(declared.isNullable(), unitPrecision)).asSummaryString());
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
            fix = exact ? "declare it " + readAs.copy(declared.isNullable() && readAs.isNullable()).asSummaryString()
                    : "Flink has no type holding exactly these values (no unsigned integers, no half floats), so "
                            + "Flink cannot write this column";
        } catch (LanceTypeException e) {
            fix = "Flink cannot write this column: " + e.getMessage();
        }
        return "column '" + path + "' is declared " + declared.asSummaryString() + " but the Lance table stores "
                + storedAs + "; " + fix;
    }
}
