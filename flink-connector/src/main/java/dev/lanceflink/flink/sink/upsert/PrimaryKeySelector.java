package dev.lanceflink.flink.sink.upsert;

import static java.util.Objects.requireNonNull;

import java.util.List;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.RowType;

/**
 * The primary key of a table row as a {@code BinaryRowData}: binary rows have byte-wise
 * {@code equals}/{@code hashCode}, so the same key always lands in the same key group, whether
 * it comes from a record or from the table scan that bootstraps the key map.
 */
public final class PrimaryKeySelector implements KeySelector<RowData, RowData> {
    private static final long serialVersionUID = 1L;

    /** A binary row of one fixed-width field: 8 bytes of null bits and row kind, one 8-byte slot. */
    private static final int INTEGRAL_KEY_BYTES = 16;

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
        if (keyPositions.length == 1 && LongKeyLocationMap.IntegralKey.supports(keyType.getTypeAt(0))) {
            return integralKey(row);
        }
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
                throw nullKey(row, keyPositions[i]);
            }
            key.setField(i, getters[i].getFieldOrNull(row));
        }
        return keySerializer.toBinaryRow(key).copy();
    }

    /**
     * A one-column integral key written straight into its 16 bytes (the null bits and row kind,
     * all zero, then the value's slot): the bytes {@link RowDataSerializer#toBinaryRow} writes,
     * so the same hash and key group, without the row object, the boxed value and the
     * type-generic writer. The selector runs twice per record (partitioner and operator).
     */
    private RowData integralKey(RowData row) {
        int p = keyPositions[0];
        if (row.isNullAt(p)) {
            throw nullKey(row, p);
        }
        BinaryRowData key = new BinaryRowData(1);
        key.pointTo(MemorySegmentFactory.wrap(new byte[INTEGRAL_KEY_BYTES]), 0, INTEGRAL_KEY_BYTES);
        switch (keyType.getTypeAt(0).getTypeRoot()) {
            case TINYINT -> key.setByte(0, row.getByte(p));
            case SMALLINT -> key.setShort(0, row.getShort(p));
            case INTEGER -> key.setInt(0, row.getInt(p));
            default -> key.setLong(0, row.getLong(p));
        }
        return key;
    }

    private IllegalArgumentException nullKey(RowData row, int position) {
        return new IllegalArgumentException("A record has NULL in primary key column '"
                + rowType.getFieldNames().get(position) + "' (" + row.getRowKind() + "); every record of"
                + " an upsert stream needs its whole key. Filter such records before the Lance sink");
    }
}
