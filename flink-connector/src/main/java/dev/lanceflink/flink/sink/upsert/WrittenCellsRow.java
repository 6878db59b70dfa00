package dev.lanceflink.flink.sink.upsert;

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
 * A table row as an update reads back from the shuffle to the writers: only the cells of the
 * columns it writes, packed in column order in {@code cells}, shown at their table positions;
 * every other column reads as NULL. It is what {@link WrittenColumnsRow} shows on the sending
 * side, without the row under it: the writer buffers these until its checkpoint, so they hold
 * only the written values.
 *
 * <p>Like every {@link RowData}, a field is read only after {@link #isNullAt} said it is not
 * NULL; read anyway, a column not written gives 0, false or null (a binary row's NULL field
 * gives its empty slot).
 */
final class WrittenCellsRow implements RowData {
    private final ColumnSet columns;
    private final RowData cells;
    private final int arity;

    /**
     * @param columns the written columns, each below {@code arity}
     * @param cells their values, field {@code i} the column {@code columns} holds {@code i}-th
     */
    WrittenCellsRow(ColumnSet columns, RowData cells, int arity) {
        this.columns = columns;
        this.cells = cells;
        this.arity = arity;
    }

    @Override
    public int getArity() {
        return arity;
    }

    @Override
    public RowKind getRowKind() {
        return cells.getRowKind();
    }

    @Override
    public void setRowKind(RowKind kind) {
        cells.setRowKind(kind);
    }

    @Override
    public boolean isNullAt(int pos) {
        int i = columns.indexOf(pos);
        return i < 0 || cells.isNullAt(i);
    }

    @Override
    public boolean getBoolean(int pos) {
        int i = columns.indexOf(pos);
        return i >= 0 && cells.getBoolean(i);
    }

    @Override
    public byte getByte(int pos) {
        int i = columns.indexOf(pos);
        return i < 0 ? 0 : cells.getByte(i);
    }

    @Override
    public short getShort(int pos) {
        int i = columns.indexOf(pos);
        return i < 0 ? 0 : cells.getShort(i);
    }

    @Override
    public int getInt(int pos) {
        int i = columns.indexOf(pos);
        return i < 0 ? 0 : cells.getInt(i);
    }

    @Override
    public long getLong(int pos) {
        int i = columns.indexOf(pos);
        return i < 0 ? 0 : cells.getLong(i);
    }

    @Override
    public float getFloat(int pos) {
        int i = columns.indexOf(pos);
        return i < 0 ? 0 : cells.getFloat(i);
    }

    @Override
    public double getDouble(int pos) {
        int i = columns.indexOf(pos);
        return i < 0 ? 0 : cells.getDouble(i);
    }

    @Override
    public StringData getString(int pos) {
        int i = columns.indexOf(pos);
        return i < 0 ? null : cells.getString(i);
    }

    @Override
    public DecimalData getDecimal(int pos, int precision, int scale) {
        int i = columns.indexOf(pos);
        return i < 0 ? null : cells.getDecimal(i, precision, scale);
    }

    @Override
    public TimestampData getTimestamp(int pos, int precision) {
        int i = columns.indexOf(pos);
        return i < 0 ? null : cells.getTimestamp(i, precision);
    }

    @Override
    public <T> RawValueData<T> getRawValue(int pos) {
        int i = columns.indexOf(pos);
        return i < 0 ? null : cells.getRawValue(i);
    }

    @Override
    public byte[] getBinary(int pos) {
        int i = columns.indexOf(pos);
        return i < 0 ? null : cells.getBinary(i);
    }

    @Override
    public ArrayData getArray(int pos) {
        int i = columns.indexOf(pos);
        return i < 0 ? null : cells.getArray(i);
    }

    @Override
    public MapData getMap(int pos) {
        int i = columns.indexOf(pos);
        return i < 0 ? null : cells.getMap(i);
    }

    @Override
    public RowData getRow(int pos, int numFields) {
        int i = columns.indexOf(pos);
        return i < 0 ? null : cells.getRow(i, numFields);
    }

    @Override
    public Variant getVariant(int pos) {
        int i = columns.indexOf(pos);
        return i < 0 ? null : cells.getVariant(i);
    }
}
