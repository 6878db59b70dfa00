package dev.lanceflink.flink.sink.upsert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.SmallIntType;
import org.apache.flink.table.types.logical.TinyIntType;
import org.apache.flink.table.types.logical.VarCharType;
import org.junit.jupiter.api.Test;

/**
 * {@link LongKeyLocationMap} agrees with a HashMap over random puts, removals and re-puts through
 * many growths (the empty-slot key 0 and the extreme keys included), stays within 32 bytes per key
 * at a million keys, and reads and writes keys as the keyBy's binary rows.
 */
class LongKeyLocationMapTest {
    private static final long[] SPECIAL = {0, 1, -1, Long.MIN_VALUE, Long.MAX_VALUE, Long.MIN_VALUE + 1};

    private static long none(Long l) {
        return l == null ? KeyLocations.NONE : l;
    }

    @Test
    void matchesAHashMapOverRandomOperationsThroughManyGrowths() {
        LongKeyLocationMap map = new LongKeyLocationMap(LongKeyLocationMap.IntegralKey.BIGINT);
        Map<Long, Long> model = new HashMap<>();
        Random random = new Random(7);
        long growths = 0;
        long lastBytes = map.heapBytes();
        for (int i = 0; i < 600_000; i++) {
            long key = switch (random.nextInt(5)) {
                case 0 -> SPECIAL[random.nextInt(SPECIAL.length)];
                case 1 -> random.nextLong();
                default -> random.nextInt(150_000) - 1_000; // dense, with negatives: long probe runs
            };
            int op = random.nextInt(10);
            if (op < 3) {
                assertThat(map.remove(key)).as("remove %s", key).isEqualTo(none(model.remove(key)));
            } else if (op < 5) {
                assertThat(map.get(key)).as("get %s", key).isEqualTo(none(model.get(key)));
            } else if (op < 6) {
                long loc = KeyLocationIndexTest.randomLocation(random);
                assertThat(map.putIfAbsent(key, loc))
                        .as("putIfAbsent %s", key)
                        .isEqualTo(none(model.putIfAbsent(key, loc)));
            } else {
                long loc = KeyLocationIndexTest.randomLocation(random);
                assertThat(map.put(key, loc)).as("put %s", key).isEqualTo(none(model.put(key, loc)));
            }
            if (map.heapBytes() != lastBytes) {
                growths++;
                lastBytes = map.heapBytes();
            }
        }
        assertThat(growths).as("grown several times").isGreaterThan(5);
        assertThat(map.size()).isEqualTo(model.size());
        for (Map.Entry<Long, Long> e : model.entrySet()) {
            assertThat(map.get(e.getKey())).as("key %s", e.getKey()).isEqualTo(e.getValue());
        }
        for (long k : SPECIAL) {
            assertThat(map.get(k)).as("special key %s", k).isEqualTo(none(model.get(k)));
        }
        // Removing everything leaves no entry behind (backward shift keeps every run reachable).
        for (Long k : model.keySet().toArray(Long[]::new)) {
            assertThat(map.remove(k)).isEqualTo(model.remove(k));
        }
        assertThat(map.size()).isZero();
        for (long k : SPECIAL) {
            assertThat(map.get(k)).isEqualTo(KeyLocations.NONE);
        }
    }

    @Test
    void aMillionKeysTakeAtMost32BytesEach() {
        LongKeyLocationMap grown = new LongKeyLocationMap(LongKeyLocationMap.IntegralKey.BIGINT);
        LongKeyLocationMap presized = new LongKeyLocationMap(LongKeyLocationMap.IntegralKey.BIGINT, 1_000_000);
        Random random = new Random(3);
        double worst = 0;
        for (int i = 0; i < 1_000_000; i++) {
            long key = i % 2 == 0 ? i : random.nextLong();
            grown.put(key, PackedLocation.ofRowAddress(i));
            presized.put(key, PackedLocation.ofRowAddress(i));
            if (i >= 1_000) {
                worst = Math.max(worst, (double) grown.heapBytes() / grown.size());
            }
        }
        assertThat((double) grown.heapBytes() / grown.size()).isLessThanOrEqualTo(32);
        assertThat(worst).as("right after any growth past 1000 keys").isLessThanOrEqualTo(32.001);
        assertThat((double) presized.heapBytes() / presized.size()).isLessThanOrEqualTo(23);
    }

    @Test
    void keysAreTheKeyByBinaryRowsOfEachIntegralType() {
        for (LogicalType t : new LogicalType[] {
            new TinyIntType(false), new SmallIntType(false), new IntType(false), new BigIntType(false)
        }) {
            RowType row = RowType.of(t);
            PrimaryKeySelector keys = new PrimaryKeySelector(row, new int[] {0});
            KeyLocations map = KeyLocations.forKey(keys.keyType());
            assertThat(map).isInstanceOf(LongKeyLocationMap.class);
            Map<BinaryRowData, Long> model = new HashMap<>();
            for (long v : new long[] {0, 1, -1, 100, -128, 127}) {
                Object value = switch (t.getTypeRoot()) {
                    case TINYINT -> (byte) v;
                    case SMALLINT -> (short) v;
                    case INTEGER -> (int) v;
                    default -> v;
                };
                BinaryRowData key = (BinaryRowData) keys.getKey(GenericRowData.of(value));
                map.put(key, key.hashCode(), PackedLocation.ofRowAddress(v & 0xFF));
                model.put(key, v & 0xFF);
                assertThat(map.get(key, key.hashCode())).isEqualTo(v & 0xFF);
            }
            Map<BinaryRowData, Long> visited = new HashMap<>();
            map.forEach((k, loc) -> {
                assertThat(visited.put(k.copy(), loc)).isNull();
            });
            // Equal bytes and hash: the same key group as the keyBy's key, for state and rescaling.
            assertThat(visited).as("%s", t).isEqualTo(model);
        }
        assertThat(KeyLocations.forKey(RowType.of(new VarCharType(false, 10)))).isInstanceOf(KeyLocationIndex.class);
        assertThat(KeyLocations.forKey(RowType.of(new BigIntType(false), new IntType(false))))
                .isInstanceOf(KeyLocationIndex.class);
    }

    @Test
    void replaceLocationsRewritesEveryEntryAndRefusesNone() {
        LongKeyLocationMap map = new LongKeyLocationMap(LongKeyLocationMap.IntegralKey.BIGINT);
        map.put(0, PackedLocation.ofPending(0, 1));
        map.put(5, PackedLocation.ofPending(0, 2));
        map.put(6, PackedLocation.ofRowAddress(9));
        map.replaceLocations(l ->
                PackedLocation.isPending(l) ? PackedLocation.ofRowAddress(1L << 32 | PackedLocation.offset(l)) : l);
        assertThat(map.get(0)).isEqualTo(1L << 32 | 1);
        assertThat(map.get(5)).isEqualTo(1L << 32 | 2);
        assertThat(map.get(6)).isEqualTo(9);
        assertThatThrownBy(() -> map.replaceLocations(l -> KeyLocations.NONE))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> map.put(1, KeyLocations.NONE)).isInstanceOf(IllegalArgumentException.class);
    }
}
