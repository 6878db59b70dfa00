package dev.lanceflink.file;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.schema.LanceField;
import java.util.Arrays;

/**
 * A top-level table field as one data file stores it: the field (names, types and ids from the
 * table schema), restricted to the nodes the file holds, and the file column of every node that
 * owns one, in pre-order. In a 2.1+ file those are the leaves and packed structs; in a 2.0 file
 * every node owns a column (struct headers and list offsets included) except the children of a
 * packed struct. Obtained from {@link LanceFileReader#project}.
 */
public final class FileField {
    private final LanceField field;
    private final int[] columns;

    FileField(LanceField field, int[] columns) {
        this.field = requireNonNull(field, "field is null");
        if (columns.length == 0) {
            throw new IllegalArgumentException("field '" + field.pathString() + "' has no column");
        }
        this.columns = columns.clone();
    }

    /** The table field, restricted to the nodes the file holds. */
    public LanceField field() {
        return field;
    }

    /** The file column of the {@code i}-th column-owning node in pre-order. */
    public int column(int i) {
        return columns[i];
    }

    public int columnCount() {
        return columns.length;
    }

    /** The column whose row count is the field's (its first). */
    public int firstColumn() {
        return columns[0];
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FileField f && Arrays.equals(columns, f.columns) && field.equals(f.field);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(columns) * 31 + field.id();
    }

    @Override
    public String toString() {
        return field + " in columns " + Arrays.toString(columns);
    }
}
