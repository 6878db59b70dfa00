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

/**
 * {@link KeyLocationIndex} agrees with a HashMap over random puts, removals and re-puts through
 * several growths, compares keys by their bytes, and gives back the bytes of removed keys.
 */
class KeyLocationIndexTest {
    private static final RowType KEY_TYPE =
            RowType.of(new BigIntType(false), new VarCharType(false, VarCharType.MAX_LENGTH));
    private static final RowDataSerializer KEYS = new RowDataSerializer(KEY_TYPE);

    private static BinaryRowData key(long id, String name) {
        return KEYS.toBinaryRow(GenericRowData.of(id, StringData.fromString(name)))
                .copy();
    }

    private static String name(long id) {
        return "k" + (id % 7) + "-with-a-name-longer-than-seven-bytes".substring(0, (int) (id % 30));
    }

    /** A random packed location: a row address or a row of a pending file. */
    static long randomLocation(Random random) {
        return random.nextBoolean()
                ? PackedLocation.ofRowAddress(
                        (long) random.nextInt(Integer.MAX_VALUE) << 32 | random.nextInt() & 0xFFFF_FFFFL)
                : PackedLocation.ofPending(random.nextInt(PackedLocation.MAX_SLOTS), random.nextInt() & 0xFFFF_FFFFL);
    }

    @Test
    void matchesAHashMapOverManyKeysWithGrowthRemovalAndReinsertion() {
        KeyLocationIndex index = new KeyLocationIndex(2);
        Map<List<Object>, Long> model = new HashMap<>();
        Random random = new Random(42);
        for (int i = 0; i < 200_000; i++) {
            long id = random.nextInt(50_000);
            BinaryRowData k = key(id, name(id));
            List<Object> m = List.of(id, name(id));
            if (random.nextInt(4) == 0) {
                Long expected = model.remove(m);
                assertThat(index.remove(k, k.hashCode())).isEqualTo(expected == null ? KeyLocations.NONE : expected);
            } else {
                long loc = randomLocation(random);
                Long expected = model.put(m, loc);
                assertThat(index.put(k, k.hashCode(), loc)).isEqualTo(expected == null ? KeyLocations.NONE : expected);
            }
        }
        assertThat(index.size()).isEqualTo(model.size());
        for (long id = 0; id < 50_000; id++) {
            Long expected = model.get(List.of(id, name(id)));
            BinaryRowData k = key(id, name(id));
            assertThat(index.get(k, k.hashCode()))
                    .as("key %s", id)
                    .isEqualTo(expected == null ? KeyLocations.NONE : expected);
        }
        BinaryRowData other = key(1, "other");
        assertThat(index.get(other, other.hashCode())).isEqualTo(KeyLocations.NONE);
        Map<List<Object>, Long> visited = new HashMap<>();
        index.forEach(
                (k, loc) -> visited.put(List.of(k.getLong(0), k.getString(1).toString()), loc));
        assertThat(visited).isEqualTo(model);
    }

    @Test
    void keysCompareByBytesNotByObject() {
        KeyLocationIndex index = new KeyLocationIndex(2);
        BinaryRowData a = key(7, "a");
        index.put(a, a.hashCode(), PackedLocation.ofRowAddress(42));
        BinaryRowData again = key(7, "a");
        BinaryRowData b = key(7, "b");
        assertThat(index.get(again, again.hashCode())).isEqualTo(42);
        assertThat(index.get(b, b.hashCode())).isEqualTo(KeyLocations.NONE);
        assertThat(index.size()).isEqualTo(1);
    }

    @Test
    void removedKeysFreeTheirSlotsAndTheirBytes() {
        KeyLocationIndex index = new KeyLocationIndex(2);
        String longName = "x".repeat(200);
        for (int round = 0; round < 5; round++) {
            for (long id = 0; id < 30_000; id++) {
                BinaryRowData k = key(id, longName);
                index.put(k, k.hashCode(), PackedLocation.ofRowAddress(id));
            }
            for (long id = 0; id < 30_000; id++) {
                BinaryRowData k = key(id, longName);
                assertThat(index.remove(k, k.hashCode())).isEqualTo(id);
            }
        }
        assertThat(index.size()).isZero();
        // 30k keys of ~220 bytes are ~6.6 MB of arena: five rounds must not keep five copies.
        assertThat(index.heapBytes()).isLessThan(3 * (4 << 20) + 24L * (1 << 16));
        BinaryRowData k = key(3, longName);
        index.put(k, k.hashCode(), PackedLocation.ofPending(1, 2));
        assertThat(index.get(key(3, longName), k.hashCode())).isEqualTo(PackedLocation.ofPending(1, 2));
    }
}
