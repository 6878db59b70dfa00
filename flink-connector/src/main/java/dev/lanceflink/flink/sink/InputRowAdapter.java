package dev.lanceflink.flink.sink;

import dev.lanceflink.flink.types.TypeCompatibility;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

/**
 * Re-lays rows of the stream's declared types out in the types the table's columns read as,
 * for the change sinks (upsert, row-address updates), whose operators read cells with the table's
 * types. Whether a stream needs it, and which declared types are accepted at all, is decided by
 * {@link TypeCompatibility#changeRowsNeedRelayout} (a {@code BinaryRowData} lays a timestamp out
 * by its precision); this function only does it: values are read with the declared types and
 * handed on as {@link GenericRowData}, which the table's serializer writes in the table's layout.
 */
final class InputRowAdapter implements MapFunction<RowData, RowData> {
    private static final long serialVersionUID = 1L;

    private final LogicalType[] declared;
    private transient RowData.FieldGetter[] getters;

    private InputRowAdapter(LogicalType[] declared) {
        this.declared = declared;
    }

    /**
     * The adapter from {@code declared} to {@code table} rows (both with any trailing extra
     * fields), or empty when the rows can be read with the table's types as they are.
     *
     * @throws IllegalArgumentException naming the field if a declared type cannot be stored in the
     *     table's column
     */
    static Optional<InputRowAdapter> between(RowType declared, RowType table, String tableName) {
        if (declared.getFieldCount() != table.getFieldCount()) {
            throw new IllegalArgumentException("The stream's rows have " + declared.getFieldCount() + " fields "
                    + declared + ", but the sink into " + tableName + " expects " + table.getFieldCount() + ": "
                    + table.getFieldNames());
        }
        boolean relayout = TypeCompatibility.changeRowsNeedRelayout(declared, table, tableName);
        if (!relayout) {
            return Optional.empty();
        }
        List<LogicalType> types = new ArrayList<>(declared.getChildren());
        return Optional.of(new InputRowAdapter(types.toArray(new LogicalType[0])));
    }

    @Override
    public RowData map(RowData in) {
        if (getters == null) {
            getters = new RowData.FieldGetter[declared.length];
            for (int i = 0; i < declared.length; i++) {
                getters[i] = RowData.createFieldGetter(declared[i], i);
            }
        }
        GenericRowData out = new GenericRowData(in.getRowKind(), getters.length);
        for (int i = 0; i < getters.length; i++) {
            out.setField(i, getters[i].getFieldOrNull(in));
        }
        return out;
    }
}
