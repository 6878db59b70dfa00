package dev.lanceflink.file;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Which column of one data file holds which table field: the manifest's {@code DataFile.fields}
 * and {@code column_indices}, pairwise (file-format.md §5.2). This is the only mapping a table
 * reader may use. The field ids stored inside the file are the writer's business: Lance's own
 * file writer numbers them 0, 1, … whatever the table's ids, a column may have been renamed or
 * dropped since, and a file may hold fields that the current schema no longer has.
 *
 * <p>Tombstoned slots ({@value #TOMBSTONE}) are skipped. A column index of -1 (a field without a
 * column of its own, such as a struct parent in a 2.1 file) is kept, so that a reader can tell
 * "listed without a column" from "not in this file".
 */
public final class ColumnMap {
    /** Field id of a superseded slot (the same value as {@code DataFile.TOMBSTONE}). */
    public static final int TOMBSTONE = -2;
    /** {@link #column} of a field that is not in the file. */
    public static final int ABSENT = Integer.MIN_VALUE;
    /** {@link #column} of a field listed without a column of its own. */
    public static final int NO_COLUMN = -1;

    private final Map<Integer, Integer> columns;

    private ColumnMap(Map<Integer, Integer> columns) {
        this.columns = columns;
    }

    /**
     * The map of a {@code DataFile} entry.
     *
     * @throws IllegalArgumentException if a field id is listed twice or has no column index
     *     (Lance requires one index per field for v2 files)
     */
    public static ColumnMap of(int[] fieldIds, int[] columnIndices) {
        if (columnIndices.length < fieldIds.length) {
            throw new IllegalArgumentException("the data file lists " + fieldIds.length + " field ids "
                    + Arrays.toString(fieldIds) + " but only " + columnIndices.length + " column indices "
                    + Arrays.toString(columnIndices));
        }
        Map<Integer, Integer> m = new HashMap<>();
        for (int i = 0; i < fieldIds.length; i++) {
            int id = fieldIds[i];
            if (id == TOMBSTONE) {
                continue;
            }
            if (id < 0 || columnIndices[i] < NO_COLUMN) {
                throw new IllegalArgumentException(
                        "the data file's slot " + i + " has field id " + id + " and column index " + columnIndices[i]);
            }
            if (m.putIfAbsent(id, columnIndices[i]) != null) {
                throw new IllegalArgumentException(
                        "the data file lists field id " + id + " twice: " + Arrays.toString(fieldIds));
            }
        }
        return new ColumnMap(m);
    }

    /** The column of field {@code id}, {@link #NO_COLUMN} or {@link #ABSENT}. */
    public int column(int id) {
        Integer c = columns.get(id);
        return c == null ? ABSENT : c;
    }

    public boolean contains(int id) {
        return columns.containsKey(id);
    }

    public boolean isEmpty() {
        return columns.isEmpty();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ColumnMap m && columns.equals(m.columns);
    }

    @Override
    public int hashCode() {
        return columns.hashCode();
    }

    @Override
    public String toString() {
        return "ColumnMap" + columns;
    }
}
