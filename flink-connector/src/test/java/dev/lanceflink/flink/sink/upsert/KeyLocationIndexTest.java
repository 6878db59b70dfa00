package dev.lanceflink.flink.sink.upsert;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.junit.jupiter.api.Test;

class KeyLocationIndexTest {
    private static final RowDataSerializer KEYS =
            new RowDataSerializer(RowType.of(new BigIntType(false), new VarCharType(false, VarCharType.MAX_LENGTH)));

    private static BinaryRowData key(long id, String name) {
        return KEYS.toBinaryRow(GenericRowData.of(id, StringData.fromString(name)))
                .copy();
    }

    @Test
    void matchesAHashMapOverManyKeysWithGrowthRemovalAndReinsertion() {
        KeyLocationIndex index = new KeyLocationIndex();
        Map<List<Object>, long[]> model = new HashMap<>();
        Random random = new Random(42);
        for (int i = 0; i < 200_000; i++) {
            long id = random.nextInt(50_000);
            String name = "k" + (id % 7) + "-with-a-name-longer-than-seven-bytes".substring(0, (int) (id % 30));
            BinaryRowData k = key(id, name);
            List<Object> m = List.of(id, name);
            switch (random.nextInt(4)) {
                case 0 -> {
                    index.remove(k);
                    model.remove(m);
                }
                default -> {
                    long[] loc = {random.nextLong(), random.nextLong()};
                    index.put(k, loc);
                    model.put(m, loc);
                }
            }
        }
        for (long id = 0; id < 50_000; id++) {
            String name = "k" + (id % 7) + "-with-a-name-longer-than-seven-bytes".substring(0, (int) (id % 30));
            long[] expected = model.get(List.of(id, name));
            long[] actual = index.get(key(id, name));
            if (expected == null) {
                assertThat(actual).as("key %s", id).isNull();
            } else {
                assertThat(actual).as("key %s", id).containsExactly(expected);
            }
        }
        assertThat(index.get(key(1, "other"))).isNull();
    }

    @Test
    void keysCompareByBytesNotByObject() {
        KeyLocationIndex index = new KeyLocationIndex();
        index.put(key(7, "a"), new long[] {0, 42});
        assertThat(index.get(key(7, "a"))).containsExactly(0, 42);
        assertThat(index.get(key(7, "b"))).isNull();
        assertThat(index.size()).isEqualTo(1);
    }
}
