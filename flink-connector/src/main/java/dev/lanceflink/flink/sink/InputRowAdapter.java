package dev.lanceflink.flink.sink;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeFamily;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;

/**
 * Re-lays rows of the stream's declared types out in the types the table's columns read as,
 * for the change sinks (upsert, row-address updates), whose operators read cells with the table's
 * types.
 *
 * <p>Why it is needed: a {@code BinaryRowData} lays a timestamp out by its precision (compact
 * milliseconds up to 3 digits, else milliseconds plus nanoseconds elsewhere), so a
 * {@code TIMESTAMP(3)} cell read as the {@code TIMESTAMP(6)} of a microsecond column would be
 * garbage. Values are read with the declared types and handed on as {@link GenericRowData},
 * which the table's serializer writes in the table's layout; a timestamp with more digits than
 * the column's unit is truncated by the writer, as an append does. Types whose binary layout does
 * not depend on the difference (CHAR vs VARCHAR, BINARY vs VARBINARY, TIME precision, names and
 * nullability of nested fields) need no adapter.
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
        boolean relayout = false;
        for (int i = 0; i < table.getFieldCount(); i++) {
            LogicalType want = table.getTypeAt(i);
            LogicalType got = declared.getTypeAt(i);
            if (sameLayout(got, want)) {
                continue;
            }
            if (isTimestamp(got) && got.getTypeRoot() == want.getTypeRoot()) {
                relayout = true;
                continue;
            }
            throw new IllegalArgumentException(
                    "Column '" + table.getFieldNames().get(i) + "' of " + tableName
                            + " is " + want + ", but field " + i + " ('"
                            + declared.getFieldNames().get(i) + "') of the"
                            + " stream's rows is " + got + "; cast it before the sink");
        }
        if (!relayout) {
            return Optional.empty();
        }
        List<LogicalType> types = new ArrayList<>(declared.getChildren());
        return Optional.of(new InputRowAdapter(types.toArray(new LogicalType[0])));
    }

    private static boolean isTimestamp(LogicalType t) {
        return t instanceof TimestampType || t instanceof LocalZonedTimestampType;
    }

    /**
     * True if cells of type {@code a} can be read with type {@code b} from the same binary row:
     * equal but for nullability, field names and lengths of character and binary strings, and
     * TIME's precision (always an int of milliseconds); containers recursively.
     */
    static boolean sameLayout(LogicalType a, LogicalType b) {
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
            return compact(a) == compact(b);
        }
        if (a.getTypeRoot() != b.getTypeRoot()
                || a.getChildren().size() != b.getChildren().size()
                || a.getChildren().isEmpty()) {
            return false;
        }
        for (int i = 0; i < a.getChildren().size(); i++) {
            if (!sameLayout(a.getChildren().get(i), b.getChildren().get(i))) {
                return false;
            }
        }
        return true;
    }

    /** Whether a binary row holds the timestamp as compact milliseconds (precision up to 3). */
    private static boolean compact(LogicalType timestamp) {
        int precision = timestamp instanceof TimestampType t
                ? t.getPrecision()
                : ((LocalZonedTimestampType) timestamp).getPrecision();
        return precision <= 3;
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
