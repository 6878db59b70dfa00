package dev.lanceflink.flink.sink.upsert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.SmallIntType;
import org.apache.flink.table.types.logical.TinyIntType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;

/**
 * The keyBy key: a one-column integral key is written straight into its bytes, which must be the
 * bytes Flink's row serializer writes (the same hash, so the same key group, and equal to keys in
 * state written before).
 */
class PrimaryKeySelectorTest {
    @Test
    void anIntegralKeyHasTheBytesOfTheSerializersBinaryRow() {
        for (LogicalType t : new LogicalType[] {
            new TinyIntType(false), new SmallIntType(false), new IntType(false), new BigIntType(false)
        }) {
            RowType row = RowType.of(new LogicalType[] {new VarCharType(10), t}, new String[] {"name", "id"});
            PrimaryKeySelector keys = new PrimaryKeySelector(row, new int[] {1});
            RowDataSerializer serializer = new RowDataSerializer(keys.keyType());
            for (long v : new long[] {0, 1, -1, 100, -128, 127, Long.MIN_VALUE, Long.MAX_VALUE, 0x1234_5678_9ABCL}) {
                Object value = switch (t.getTypeRoot()) {
                    case TINYINT -> (byte) v;
                    case SMALLINT -> (short) v;
                    case INTEGER -> (int) v;
                    default -> v;
                };
                GenericRowData record = GenericRowData.of(StringData.fromString("x"), value);
                record.setRowKind(RowKind.UPDATE_AFTER); // the key's row kind is always INSERT
                BinaryRowData expected =
                        serializer.toBinaryRow(GenericRowData.of(value)).copy();
                RowData key = keys.getKey(record);
                assertThat(key).as("%s %s", t, v).isEqualTo(expected);
                assertThat(key.hashCode()).isEqualTo(expected.hashCode());
                assertThat(((BinaryRowData) key).getSizeInBytes()).isEqualTo(expected.getSizeInBytes());
            }
        }
    }

    @Test
    void aNullKeyIsRefusedWithTheColumnsName() {
        RowType row = RowType.of(new LogicalType[] {new BigIntType(), new IntType()}, new String[] {"id", "age"});
        assertThatThrownBy(() -> new PrimaryKeySelector(row, new int[] {0}).getKey(GenericRowData.of(null, 3)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("NULL in primary key column 'id'");
    }
}
