package dev.lanceflink.dataset;

import dev.lanceflink.schema.LanceSchema;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Checks that written data fits a table: the same columns in the same order with the same types
 * (names, types and children compared; field metadata ignored), and no NULL in a column the table
 * declares NOT NULL.
 */
final class WriteSchemaCheck {
    private WriteSchemaCheck() {}

    static void checkSchema(LanceSchema table, Schema data, String uri) {
        List<Field> expected = table.toArrow().getFields();
        List<Field> actual = data.getFields();
        if (expected.size() != actual.size()) {
            throw new SchemaMismatchException("The data written to " + uri + " has " + actual.size() + " columns "
                    + names(actual) + " but the table has " + expected.size() + " " + names(expected)
                    + "; write exactly the table's columns, in its order");
        }
        for (int i = 0; i < expected.size(); i++) {
            compare(expected.get(i), actual.get(i), expected.get(i).getName(), uri);
        }
    }

    private static void compare(Field want, Field got, String path, String uri) {
        if (!want.getName().equals(got.getName())) {
            throw new SchemaMismatchException("The data written to " + uri + " has column '" + got.getName()
                    + "' where the table has '" + path + "'");
        }
        if (!want.getType().equals(got.getType())) {
            throw new SchemaMismatchException("Column '" + path + "' of " + uri + " is " + want.getType()
                    + " but the data has " + got.getType() + "; cast the data to the table's type");
        }
        if (want.getChildren().size() != got.getChildren().size()) {
            throw new SchemaMismatchException("Column '" + path + "' of " + uri + " has children "
                    + names(want.getChildren()) + " but the data has " + names(got.getChildren()));
        }
        for (int i = 0; i < want.getChildren().size(); i++) {
            Field wc = want.getChildren().get(i);
            compare(wc, got.getChildren().get(i), path + "." + wc.getName(), uri);
        }
    }

    /** Rejects NULLs in NOT NULL columns (top level and inside structs / lists). */
    static void checkNulls(LanceSchema table, VectorSchemaRoot batch, String uri) {
        List<Field> fields = table.toArrow().getFields();
        for (int i = 0; i < fields.size(); i++) {
            checkNulls(fields.get(i), batch.getVector(i), fields.get(i).getName(), uri);
        }
    }

    private static void checkNulls(Field field, FieldVector v, String path, String uri) {
        if (!field.isNullable() && v.getNullCount() > 0) {
            int row = 0;
            while (!v.isNull(row)) {
                row++;
            }
            throw new SchemaMismatchException("Column '" + path + "' of " + uri + " is NOT NULL, but the data has"
                    + " a NULL at row " + row + " of a batch (" + v.getNullCount() + " NULLs in that batch)");
        }
        if (v instanceof StructVector && v.getNullCount() > 0) {
            return; // children of a NULL struct hold no values, whatever their validity says
        }
        List<FieldVector> children = v.getChildrenFromFields();
        for (int i = 0; i < field.getChildren().size() && i < children.size(); i++) {
            Field c = field.getChildren().get(i);
            checkNulls(c, children.get(i), path + "." + c.getName(), uri);
        }
    }

    private static String names(List<Field> fields) {
        return fields.stream().map(Field::getName).toList().toString();
    }
}
