package dev.lanceflink.flink.sink.upsert;

import static java.util.Objects.requireNonNull;

import java.util.List;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.RowType;

/**
 * The primary key of a table row as a {@code BinaryRowData}: binary rows have byte-wise
 * {@code equals}/{@code hashCode}, so the same key always lands in the same key group, whether
 * it comes from a record or from the table scan that bootstraps the key map.
 */
public final class PrimaryKeySelector implements KeySelector<RowData, RowData> {
    private static final long serialVersionUID = 1L;

    private final RowType rowType;
    private final int[] keyPositions;
    private final RowType keyType;
    private transient RowData.FieldGetter[] getters;
    private transient RowDataSerializer keySerializer;

    /** @param rowType the table's row type; @param keyPositions the key columns' positions in it */
    public PrimaryKeySelector(RowType rowType, int[] keyPositions) {
        this.rowType = requireNonNull(rowType, "rowType is null");
        this.keyPositions = keyPositions.clone();
        if (keyPositions.length == 0) {
            throw new IllegalArgumentException("A primary key needs at least one column");
        }
        this.keyType = keyType(rowType, keyPositions);
    }

    public static RowType keyType(RowType rowType, int[] keyPositions) {
        RowType.RowField[] fields = new RowType.RowField[keyPositions.length];
        for (int i = 0; i < keyPositions.length; i++) {
            RowType.RowField f = rowType.getFields().get(keyPositions[i]);
            fields[i] = new RowType.RowField(f.getName(), f.getType().copy(false));
        }
        return new RowType(false, List.of(fields));
    }

    public RowType keyType() {
        return keyType;
    }

    @Override
    public RowData getKey(RowData row) {
        if (getters == null) {
            getters = new RowData.FieldGetter[keyPositions.length];
            for (int i = 0; i < keyPositions.length; i++) {
                getters[i] = RowData.createFieldGetter(rowType.getTypeAt(keyPositions[i]), keyPositions[i]);
            }
            keySerializer = new RowDataSerializer(keyType);
        }
        GenericRowData key = new GenericRowData(keyPositions.length);
        for (int i = 0; i < keyPositions.length; i++) {
            if (row.isNullAt(keyPositions[i])) {
                throw new IllegalArgumentException("A record has NULL in primary key column '"
                        + rowType.getFieldNames().get(keyPositions[i]) + "' (" + row.getRowKind() + "); every record of"
                        + " an upsert stream needs its whole key. Filter such records before the Lance sink");
            }
            key.setField(i, getters[i].getFieldOrNull(row));
        }
        return keySerializer.toBinaryRow(key).copy();
    }
}
