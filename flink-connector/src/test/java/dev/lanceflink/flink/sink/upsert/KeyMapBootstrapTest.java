package dev.lanceflink.flink.sink.upsert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.committer.core.TableLocation;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.flink.types.LanceTypeMapping;
import dev.lanceflink.testkit.users.UsersChangelog.Mix;
import dev.lanceflink.testkit.users.UsersTable;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.flink.api.common.TaskInfoImpl;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The key map's bootstrap from the table: every key lands in exactly one subtask with its row
 * address, and a key the table holds twice is refused, also now that the bootstrap looks keys up
 * only when their hash was seen before; both when keys are put as scanned (heap) and key group
 * after key group (RocksDB).
 */
class KeyMapBootstrapTest {
    private static final int MAX_PARALLELISM = 128;

    @TempDir
    Path dir;

    /** The map in a plain HashMap; counts the look-ups the bootstrap makes. */
    private static final class MapLocations implements KeyMapBootstrap.Locations {
        final Map<RowData, long[]> map = new HashMap<>();
        int gets;

        @Override
        public long[] get(RowData key) {
            gets++;
            return map.get(key);
        }

        int lastGroup = -1;
        boolean groupsInOrder = true;

        @Override
        public void put(RowData key, long[] location) {
            int group = KeyGroupRangeAssignment.assignToKeyGroup(key, MAX_PARALLELISM);
            groupsInOrder &= group >= lastGroup;
            lastGroup = group;
            map.put(key, location);
        }
    }

    @ParameterizedTest(name = "in key-group order: {0}")
    @ValueSource(booleans = {false, true})
    void everyKeyLandsInItsSubtaskWithItsRowAddress(boolean inKeyGroupOrder) throws Exception {
        String uri = dir.resolve("t.lance").toString();
        UsersTable.create(uri, Mix.SINK_TESTS.initialRows(3_000), 1_000);
        TableLocation table = new TableLocation(uri, Map.of());
        RowType rowType = rowType(uri);
        Map<Long, Long> addresses = new HashMap<>();
        long loaded = 0;
        int gets = 0;
        for (int subtask = 0; subtask < 2; subtask++) {
            KeyGroupRange range =
                    KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(MAX_PARALLELISM, 2, subtask);
            MapLocations locations = new MapLocations();
            loaded += KeyMapBootstrap.load(
                    table,
                    rowType,
                    new int[] {0},
                    locations,
                    new TaskInfoImpl("resolver", MAX_PARALLELISM, subtask, 2, 0),
                    range,
                    inKeyGroupOrder);
            if (inKeyGroupOrder) {
                assertThat(locations.groupsInOrder)
                        .as("key groups put one after the other")
                        .isTrue();
            }
            gets += locations.gets;
            for (Map.Entry<RowData, long[]> e : locations.map.entrySet()) {
                assertThat(range.contains(KeyGroupRangeAssignment.assignToKeyGroup(e.getKey(), MAX_PARALLELISM)))
                        .isTrue();
                assertThat(e.getValue()[0]).isZero();
                assertThat(addresses.put(e.getKey().getLong(0), e.getValue()[1]))
                        .isNull();
            }
        }
        assertThat(loaded).isEqualTo(3_000);
        assertThat(addresses).hasSize(3_000);
        for (long id = 0; id < 3_000; id++) {
            // Files of 1,000 rows: fragment id / 1000, offset id % 1000.
            assertThat(addresses.get(id)).as("address of key %s", id).isEqualTo((id / 1_000) << 32 | id % 1_000);
        }
        assertThat(gets)
                .as("look-ups only for keys whose hash was seen (none here)")
                .isLessThan(10);
    }

    /** A table of 2,000 users (ids 0..1,999) with a second row of id 1,234 appended; its URI. */
    private String tableHoldingKey1234Twice() throws Exception {
        String uri = dir.resolve("t.lance").toString();
        UsersTable.create(uri, Mix.SINK_TESTS.initialRows(2_000), 1_000);
        try (BufferAllocator a = new RootAllocator();
                VectorSchemaRoot root = VectorSchemaRoot.create(UsersTable.SCHEMA, a)) {
            root.allocateNew();
            ((BigIntVector) root.getVector("id")).setSafe(0, 1_234);
            ((VarCharVector) root.getVector("name")).setSafe(0, "again".getBytes(StandardCharsets.UTF_8));
            root.setRowCount(1);
            Dataset.write(uri, Map.of(), List.of(root), UsersTable.SCHEMA, WriteParams.of(WriteMode.APPEND))
                    .close();
        }
        return uri;
    }

    @ParameterizedTest(name = "in key-group order: {0}")
    @ValueSource(booleans = {false, true})
    void aKeyTheTableHoldsTwiceIsRefused(boolean inKeyGroupOrder) throws Exception {
        String uri = tableHoldingKey1234Twice();
        assertThatThrownBy(() -> KeyMapBootstrap.load(
                        new TableLocation(uri, Map.of()),
                        rowType(uri),
                        new int[] {0},
                        new MapLocations(),
                        new TaskInfoImpl("resolver", MAX_PARALLELISM, 0, 1, 0),
                        KeyGroupRange.of(0, MAX_PARALLELISM - 1),
                        inKeyGroupOrder))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("two rows with the same primary key [id]")
                .hasMessageContaining("row addresses " + ((1L << 32) | 234) + " and " + (2L << 32));
    }

    /**
     * The heap map of an integral key, loaded from the key vector without key rows: in the
     * cell-update benchmark the row-object path was about a third of the writers' CPU.
     */
    private static final class LongMapLocations implements KeyMapBootstrap.LongLocations {
        final LongKeyLocationMap map = new LongKeyLocationMap(LongKeyLocationMap.IntegralKey.BIGINT);
        int rowPuts;

        @Override
        public BinaryRowData keyRow(long key) {
            return map.keyRow(key);
        }

        @Override
        public long[] putIfAbsent(long key, long address) {
            long earlier = map.putIfAbsent(key, PackedLocation.ofRowAddress(address));
            return earlier == KeyLocations.NONE ? null : new long[] {0, PackedLocation.rowAddress(earlier)};
        }

        @Override
        public long[] get(RowData key) {
            long location = map.get((BinaryRowData) key, 0);
            return location == KeyLocations.NONE ? null : new long[] {0, PackedLocation.rowAddress(location)};
        }

        @Override
        public void put(RowData key, long[] location) {
            rowPuts++;
            map.put((BinaryRowData) key, 0, PackedLocation.ofRowAddress(location[1]));
        }
    }

    @Test
    void anIntegralKeyIsLoadedFromItsVectorIntoTheSameSubtasksAsKeyRows() throws Exception {
        String uri = dir.resolve("t.lance").toString();
        UsersTable.create(uri, Mix.SINK_TESTS.initialRows(3_000), 1_000);
        TableLocation table = new TableLocation(uri, Map.of());
        RowType rowType = rowType(uri);
        Map<Long, Long> addresses = new HashMap<>();
        long loaded = 0;
        for (int subtask = 0; subtask < 2; subtask++) {
            KeyGroupRange range =
                    KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(MAX_PARALLELISM, 2, subtask);
            TaskInfoImpl task = new TaskInfoImpl("resolver", MAX_PARALLELISM, subtask, 2, 0);
            LongMapLocations longs = new LongMapLocations();
            MapLocations rows = new MapLocations();
            long n = KeyMapBootstrap.load(table, rowType, new int[] {0}, longs, task, range);
            assertThat(KeyMapBootstrap.load(table, rowType, new int[] {0}, rows, task, range))
                    .isEqualTo(n);
            assertThat(longs.rowPuts).as("no key row put").isZero();
            assertThat(longs.map.size()).isEqualTo(rows.map.size());
            for (Map.Entry<RowData, long[]> e : rows.map.entrySet()) {
                BinaryRowData key = (BinaryRowData) e.getKey();
                assertThat(longs.map.get(key, key.hashCode()))
                        .as("key %s in subtask %s", key.getLong(0), subtask)
                        .isEqualTo(PackedLocation.ofRowAddress(e.getValue()[1]));
                assertThat(addresses.put(key.getLong(0), e.getValue()[1])).isNull();
            }
            loaded += n;
        }
        assertThat(loaded).isEqualTo(3_000);
        assertThat(addresses).hasSize(3_000);
    }

    @Test
    void anIntegralKeyTheTableHoldsTwiceIsRefused() throws Exception {
        String uri = tableHoldingKey1234Twice();
        assertThatThrownBy(() -> KeyMapBootstrap.load(
                        new TableLocation(uri, Map.of()),
                        rowType(uri),
                        new int[] {0},
                        new LongMapLocations(),
                        new TaskInfoImpl("resolver", MAX_PARALLELISM, 0, 1, 0),
                        KeyGroupRange.of(0, MAX_PARALLELISM - 1)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("two rows with the same primary key [id]")
                .hasMessageContaining("row addresses " + ((1L << 32) | 234) + " and " + (2L << 32));
    }

    @Test
    void intSetAgreesWithAHashSet() {
        KeyMapBootstrap.IntSet set = new KeyMapBootstrap.IntSet();
        Set<Integer> model = new HashSet<>();
        Random random = new Random(17);
        for (int i = 0; i < 200_000; i++) {
            int v = i % 3 == 0 ? random.nextInt(1_000) - 500 : random.nextInt();
            assertThat(set.add(v)).as("add %s", v).isEqualTo(model.add(v));
        }
        assertThat(set.add(0)).isFalse();
    }

    private static RowType rowType(String uri) throws Exception {
        try (Dataset ds = Dataset.open(uri, Map.of())) {
            return LanceTypeMapping.toRowType(ds.schema().toArrow());
        }
    }
}
