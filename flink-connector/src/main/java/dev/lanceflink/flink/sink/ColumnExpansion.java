package dev.lanceflink.flink.sink;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

/**
 * Lays rows that carry some of a table's columns, in any order, out as whole rows of the table
 * (then any trailing extra fields, e.g. {@code _rowaddr}): each carried column goes to its
 * table position, every other column is NULL. The sinks then treat the NULLs as they treat
 * columns a record does not write: appended rows store NULL there, updates leave them alone.
 *
 * <p>This is what lets a Flink table declare only some of the Lance table's columns and still
 * INSERT, UPDATE and upsert; the operators after it keep working on whole table rows.
 */
final class ColumnExpansion implements MapFunction<RowData, RowData> {
    private static final long serialVersionUID = 1L;

    /** Per output field: the input field it comes from, or -1 for NULL. */
    private final int[] source;

    private final LogicalType[] inputTypes;
    private transient RowData.FieldGetter[] getters;

    private ColumnExpansion(int[] source, LogicalType[] inputTypes) {
        this.source = source;
        this.inputTypes = inputTypes;
    }

    /**
     * The expansion of rows of type {@code in} (the {@code carried} columns, then {@code extra}
     * trailing fields) to {@code table}'s columns, and the row type it produces: carried columns
     * keep their input types (so later stages read them as declared), missing ones get the
     * table's type, nullable.
     *
     * @throws IllegalArgumentException naming the column if a carried column is not in the table,
     *     is named twice, or the field count does not fit
     */
    static Expanded of(RowType in, List<String> carried, int extra, RowType table, String tableName) {
        if (in.getFieldCount() != carried.size() + extra) {
            throw new IllegalArgumentException("The stream's rows have " + in.getFieldCount() + " fields " + in
                    + ", but the sink into " + tableName + " was told they carry the columns " + carried + " and "
                    + extra + " more field(s)");
        }
        int n = table.getFieldCount();
        int[] source = new int[n + extra];
        Arrays.fill(source, -1);
        List<RowType.RowField> out = new ArrayList<>();
        for (int i = 0; i < carried.size(); i++) {
            int p = table.getFieldNames().indexOf(carried.get(i));
            if (p < 0) {
                throw new IllegalArgumentException("Column '" + carried.get(i) + "' is not a column of " + tableName
                        + " (columns: " + table.getFieldNames() + ")");
            }
            if (source[p] >= 0) {
                throw new IllegalArgumentException("Column '" + carried.get(i) + "' of " + tableName
                        + " is named twice in the carried columns " + carried);
            }
            source[p] = i;
        }
        for (int p = 0; p < n; p++) {
            out.add(new RowType.RowField(
                    table.getFieldNames().get(p),
                    source[p] >= 0
                            ? in.getTypeAt(source[p])
                            : table.getTypeAt(p).copy(true)));
        }
        for (int k = 0; k < extra; k++) {
            source[n + k] = carried.size() + k;
            out.add(new RowType.RowField(in.getFieldNames().get(carried.size() + k), in.getTypeAt(carried.size() + k)));
        }
        return new Expanded(
                new ColumnExpansion(source, in.getChildren().toArray(new LogicalType[0])), new RowType(out));
    }

    record Expanded(ColumnExpansion function, RowType rowType) {}

    @Override
    public RowData map(RowData in) {
        if (getters == null) {
            getters = new RowData.FieldGetter[inputTypes.length];
            for (int i = 0; i < inputTypes.length; i++) {
                getters[i] = RowData.createFieldGetter(inputTypes[i], i);
            }
        }
        GenericRowData out = new GenericRowData(in.getRowKind(), source.length);
        for (int p = 0; p < source.length; p++) {
            if (source[p] >= 0) {
                out.setField(p, getters[source[p]].getFieldOrNull(in));
            }
        }
        return out;
    }
}
