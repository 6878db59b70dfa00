package dev.lanceflink.flink.sink.upsert;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanceflink.schema.ColumnSet;
import dev.lanceflink.table.RowAddress;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.FloatType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;

/**
 * {@link RowAddressChanges}: an update carries only its written cells to the writers (the record
 * holds the whole row, the embedding included), a rewrite of every column carries them all.
 */
class RowAddressChangesTest {
    private static final RowType TABLE =
            RowType.of(new BigIntType(false), new IntType(), new ArrayType(new FloatType()));
    private static final int DIMS = 768;

    private static GenericRowData record(long id, int age) {
        float[] embedding = new float[DIMS];
        embedding[5] = 1.5f;
        GenericRowData r = GenericRowData.of(id, age, new GenericArrayData(embedding), RowAddress.of(3, id));
        r.setRowKind(RowKind.UPDATE_AFTER);
        return r;
    }

    private static LocatedChange roundTrip(LocatedChange c, int[] bytes) throws Exception {
        LocatedChangeSerializer s = new LocatedChangeSerializer(TABLE);
        DataOutputSerializer out = new DataOutputSerializer(64);
        s.serialize(c, out);
        bytes[0] = out.length();
        return s.deserialize(new DataInputDeserializer(out.getSharedBuffer(), 0, out.length()));
    }

    @Test
    void anUpdateOfOneColumnShipsThatCellOnly() throws Exception {
        LocatedChange c = new RowAddressChanges(TABLE, ColumnSet.of(1)).map(record(7, 42));
        assertThat(c.kind()).isEqualTo(LocatedChange.Kind.UPDATE);
        assertThat(c.position()).isEqualTo(RowAddress.of(3, 7));
        int[] bytes = new int[1];
        LocatedChange read = roundTrip(c, bytes);
        assertThat(bytes[0]).as("a row of three fields, two NULL: no embedding").isLessThan(100);
        assertThat(read.row().getArity()).isEqualTo(3);
        assertThat(read.row().getInt(1)).isEqualTo(42);
        assertThat(read.row().isNullAt(0)).isTrue();
        assertThat(read.row().isNullAt(2)).isTrue();
        assertThat(read.columns()).isEqualTo(ColumnSet.of(1));
    }

    @Test
    void aRewriteOfEveryColumnShipsTheWholeRow() throws Exception {
        LocatedChange c =
                RowAddressChanges.rewrites(TABLE, ColumnSet.firstColumns(3)).map(record(7, 42));
        int[] bytes = new int[1];
        LocatedChange read = roundTrip(c, bytes);
        assertThat(bytes[0]).isGreaterThan(DIMS * 4);
        assertThat(read.row().getLong(0)).isEqualTo(7);
        assertThat(read.row().getArray(2).getFloat(5)).isEqualTo(1.5f);
    }

    @Test
    void writtenColumnsRowHidesTheOthersAndTheTrailingFields() {
        GenericRowData r = record(9, 1);
        var view = WrittenColumnsRow.of(ColumnSet.of(0, 2), r, 3);
        assertThat(view.getArity()).isEqualTo(3);
        assertThat(view.isNullAt(1)).isTrue();
        assertThat(view.getLong(0)).isEqualTo(9);
        assertThat(view.getRowKind()).isEqualTo(RowKind.UPDATE_AFTER);
        GenericRowData full = GenericRowData.of(1L, 2, null);
        assertThat(WrittenColumnsRow.of(ColumnSet.firstColumns(3), full)).isSameAs(full);
    }
}
