package dev.lanceflink.flink.sink.upsert;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.schema.ColumnSet;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.RawValueData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.types.RowKind;
import org.apache.flink.types.variant.Variant;

/**
 * A table row that shows only the columns a change writes: every other column reads as NULL.
 * An UPDATE's record carries the whole row (the planner sends every declared column), but the
 * writer uses only the written cells; serializing the others would ship, for instance, a whole
 * embedding per row across the shuffle to update one INT. {@link LocatedChangeSerializer} writes
 * only the written cells of such a change, which reads back as a {@link WrittenCellsRow}.
 *
 * <p>A view, not a copy: it reads the wrapped row, which must stay unchanged while it is used.
 */
final class WrittenColumnsRow implements RowData {
    private final ColumnSet columns;
    private final RowData row;
    private final int arity;

    private WrittenColumnsRow(ColumnSet columns, RowData row, int arity) {
        this.columns = columns;
        this.row = row;
        this.arity = arity;
    }

    /** {@code row} with the columns outside {@code columns} NULL; {@code row} itself if it has no other column. */
    static RowData of(ColumnSet columns, RowData row) {
        requireNonNull(row, "row is null");
        return of(columns, row, row.getArity());
    }

    /**
     * The first {@code arity} fields of {@code row} (a record with trailing fields that are not
     * table columns, e.g. the row address), those outside {@code columns} NULL.
     */
    static RowData of(ColumnSet columns, RowData row, int arity) {
        requireNonNull(columns, "columns is null");
        requireNonNull(row, "row is null");
        if (arity > row.getArity()) {
            throw new IllegalArgumentException("A row of " + row.getArity() + " fields has no first " + arity);
        }
        if (arity == row.getArity() && columns.containsAll(ColumnSet.firstColumns(arity))) {
            return row;
        }
        return new WrittenColumnsRow(columns, row, arity);
    }

    @Override
    public int getArity() {
        return arity;
    }

    @Override
    public RowKind getRowKind() {
        return row.getRowKind();
    }

    @Override
    public void setRowKind(RowKind kind) {
        row.setRowKind(kind);
    }

    @Override
    public boolean isNullAt(int pos) {
        return !columns.contains(pos) || row.isNullAt(pos);
    }

    @Override
    public boolean getBoolean(int pos) {
        return row.getBoolean(pos);
    }

    @Override
    public byte getByte(int pos) {
        return row.getByte(pos);
    }

    @Override
    public short getShort(int pos) {
        return row.getShort(pos);
    }

    @Override
    public int getInt(int pos) {
        return row.getInt(pos);
    }

    @Override
    public long getLong(int pos) {
        return row.getLong(pos);
    }

    @Override
    public float getFloat(int pos) {
        return row.getFloat(pos);
    }

    @Override
    public double getDouble(int pos) {
        return row.getDouble(pos);
    }

    @Override
    public StringData getString(int pos) {
        return row.getString(pos);
    }

    @Override
    public DecimalData getDecimal(int pos, int precision, int scale) {
        return row.getDecimal(pos, precision, scale);
    }

    @Override
    public TimestampData getTimestamp(int pos, int precision) {
        return row.getTimestamp(pos, precision);
    }

    @Override
    public <T> RawValueData<T> getRawValue(int pos) {
        return row.getRawValue(pos);
    }

    @Override
    public byte[] getBinary(int pos) {
        return row.getBinary(pos);
    }

    @Override
    public ArrayData getArray(int pos) {
        return row.getArray(pos);
    }

    @Override
    public MapData getMap(int pos) {
        return row.getMap(pos);
    }

    @Override
    public RowData getRow(int pos, int numFields) {
        return row.getRow(pos, numFields);
    }

    @Override
    public Variant getVariant(int pos) {
        return row.getVariant(pos);
    }
}
