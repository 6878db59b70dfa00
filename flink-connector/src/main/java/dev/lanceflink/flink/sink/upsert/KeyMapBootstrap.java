package dev.lanceflink.flink.sink.upsert;

import dev.lanceflink.committer.core.TableLocation;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.flink.types.ArrowColumnVectors;
import dev.lanceflink.read.ScanOptions;
import dev.lanceflink.read.Scanner;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.flink.api.common.TaskInfo;
import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.binary.BinarySegmentUtils;
import org.apache.flink.table.data.columnar.ColumnarRowData;
import org.apache.flink.table.data.columnar.vector.VectorizedColumnBatch;
import org.apache.flink.table.types.logical.RowType;

/**
 * Fills the key → row address map from the table on the sink's first start: scans the key
 * columns with their row addresses (overlays resolved, deleted rows skipped) and keeps the keys
 * of this subtask's key groups. A key found twice means the table is not unique on the declared
 * key, which the upsert sink cannot work with: that is an error, not a guess.
 */
final class KeyMapBootstrap {
    private KeyMapBootstrap() {}

    /** Where the map lives: keyed state (streaming) or {@link KeyLocationIndex} (batch). */
    interface Locations {
        /** The location ({fileId, position}) of {@code key}, or null. */
        long[] get(RowData key) throws Exception;

        void put(RowData key, long[] location) throws Exception;
    }

    /**
     * A heap map of one integral key column ({@link LongKeyLocationMap}): loaded straight from the
     * key vector, without a key row object, a second hash or a duplicate pre-check per scanned row
     * (the map finds a duplicate itself when it puts). In the cell-update benchmark the row-object
     * path was about a third of the writer threads' CPU, and it delays every subtask's first
     * record.
     */
    interface LongLocations extends Locations {
        /** {@code key} as the binary row the keyBy makes of it (reused between calls): its key group. */
        BinaryRowData keyRow(long key);

        /**
         * Puts the committed row at {@code address} for {@code key} unless the key has a location.
         *
         * @return null, or the key's location ({fileId, position}) found instead
         */
        long[] putIfAbsent(long key, long address);
    }

    /** @return how many keys this subtask loaded */
    static long load(
            TableLocation table,
            RowType rowType,
            int[] keyPositions,
            Locations locations,
            TaskInfo task,
            KeyGroupRange ownGroups)
            throws Exception {
        return load(table, rowType, keyPositions, locations, task, ownGroups, false);
    }

    /**
     * @param inKeyGroupOrder put the keys into {@code locations} key group after key group (buffered
     *     first, about 30 bytes per key): RocksDB then flushes files of disjoint key ranges, which
     *     its compaction moves down instead of rewriting them, so the bootstrap writes and the
     *     first checkpoints upload the map about once instead of several times
     * @return how many keys this subtask loaded
     */
    static long load(
            TableLocation table,
            RowType rowType,
            int[] keyPositions,
            Locations locations,
            TaskInfo task,
            KeyGroupRange ownGroups,
            boolean inKeyGroupOrder)
            throws Exception {
        return load(table, rowType, keyPositions, locations, task, ownGroups, inKeyGroupOrder, -1);
    }

    /**
     * @param version the version to scan, or -1 for the latest: the in-memory key map replays its
     *     uncommitted changes against the version it scanned
     * @return how many keys this subtask loaded
     */
    static long load(
            TableLocation table,
            RowType rowType,
            int[] keyPositions,
            Locations locations,
            TaskInfo task,
            KeyGroupRange ownGroups,
            boolean inKeyGroupOrder,
            long version)
            throws Exception {
        List<String> keyColumns = new ArrayList<>();
        for (int p : keyPositions) {
            keyColumns.add(rowType.getFieldNames().get(p));
        }
        RowType keyType = PrimaryKeySelector.keyType(rowType, keyPositions);
        int[] identity = new int[keyPositions.length];
        for (int i = 0; i < identity.length; i++) {
            identity[i] = i;
        }
        PrimaryKeySelector keys = new PrimaryKeySelector(keyType, identity);
        int maxParallelism = task.getMaxNumberOfParallelSubtasks();
        long loaded = 0;
        IntSet seenHashes = new IntSet();
        // Hashes seen more than once: in key-group order, those keys are looked up when put.
        IntSet collidedHashes = new IntSet();
        GroupBuffer[] buffers = inKeyGroupOrder ? new GroupBuffer[ownGroups.getNumberOfKeyGroups()] : null;
        try (Dataset latest = Dataset.open(table.uri(), table.storageOptions());
                Dataset ds = version < 0 ? latest.checkoutLatest() : latest.checkoutVersion(version);
                Scanner scan = ds.scan(ScanOptions.all().withColumns(keyColumns).withRowAddress(true))) {
            while (scan.hasNext()) {
                try (VectorSchemaRoot batch = scan.next()) {
                    List<FieldVector> keyVectors =
                            new ArrayList<>(batch.getFieldVectors().subList(0, keyColumns.size()));
                    UInt8Vector addresses = (UInt8Vector) batch.getVector(ScanOptions.ROW_ADDRESS);
                    if (buffers == null
                            && locations instanceof LongLocations longs
                            && keyVectors.size() == 1
                            && keyVectors.get(0) instanceof BaseIntVector ints) {
                        loaded += loadLongKeys(
                                table,
                                keyColumns,
                                longs,
                                ints,
                                addresses,
                                batch.getRowCount(),
                                maxParallelism,
                                ownGroups);
                        continue;
                    }
                    VectorizedColumnBatch columns = ArrowColumnVectors.batch(keyVectors, batch.getRowCount());
                    ColumnarRowData row = new ColumnarRowData(columns);
                    for (int r = 0; r < batch.getRowCount(); r++) {
                        row.setRowId(r);
                        RowData key = keys.getKey(row);
                        int group = KeyGroupRangeAssignment.assignToKeyGroup(key, maxParallelism);
                        if (!ownGroups.contains(group)) {
                            continue;
                        }
                        long address = addresses.get(r);
                        loaded++;
                        if (buffers != null) {
                            if (!seenHashes.add(key.hashCode())) {
                                collidedHashes.add(key.hashCode());
                            }
                            int slot = group - ownGroups.getStartKeyGroup();
                            if (buffers[slot] == null) {
                                buffers[slot] = new GroupBuffer();
                            }
                            buffers[slot].add((BinaryRowData) key, address);
                            continue;
                        }
                        // Look a key up only if its hash was seen before: on RocksDB a get of a
                        // missing key searches every level, and it made the bootstrap ~10x slower.
                        long[] earlier = seenHashes.add(key.hashCode()) ? null : locations.get(key);
                        putUnique(table, keyColumns, locations, key, earlier, address);
                    }
                }
            }
        }
        if (buffers != null) {
            for (int i = 0; i < buffers.length; i++) {
                GroupBuffer b = buffers[i];
                buffers[i] = null; // free each group's bytes as soon as they are in the state
                if (b == null) {
                    continue;
                }
                MemorySegment segment = MemorySegmentFactory.wrap(b.bytes);
                int offset = 0;
                for (int k = 0; k < b.count; k++) {
                    BinaryRowData key = new BinaryRowData(keyType.getFieldCount());
                    key.pointTo(segment, offset, b.lengths[k]);
                    offset += b.lengths[k];
                    long[] earlier = collidedHashes.contains(key.hashCode()) ? locations.get(key) : null;
                    putUnique(table, keyColumns, locations, key, earlier, b.addresses[k]);
                }
            }
        }
        return loaded;
    }

    /** One batch of a single integral key column into a heap map; see {@link LongLocations}. */
    private static long loadLongKeys(
            TableLocation table,
            List<String> keyColumns,
            LongLocations locations,
            BaseIntVector keys,
            UInt8Vector addresses,
            int rows,
            int maxParallelism,
            KeyGroupRange ownGroups) {
        long loaded = 0;
        if (keys.getNullCount() > 0 || addresses.getNullCount() > 0) {
            for (int r = 0; r < rows; r++) {
                if (keys.isNull(r)) {
                    throw new IllegalStateException("The table " + table + " has a row with NULL in primary key"
                            + " column " + keyColumns.get(0) + " (row address " + addresses.getObjectNoOverflow(r)
                            + "); the upsert sink needs a key in every row: fill it, or choose another key");
                }
            }
            throw new IllegalStateException("A scan of " + table + " gave a row without its row address");
        }
        // No NULLs (checked once per batch): values are read from the data buffers, without the
        // per-row validity check of the vectors' getters.
        ArrowBuf addressData = addresses.getDataBuffer();
        ArrowBuf keyData = keys instanceof BigIntVector ? ((BigIntVector) keys).getDataBuffer() : null;
        for (int r = 0; r < rows; r++) {
            long key = keyData != null ? keyData.getLong((long) r * Long.BYTES) : keys.getValueAsLong(r);
            int group = KeyGroupRangeAssignment.computeKeyGroupForKeyHash(
                    locations.keyRow(key).hashCode(), maxParallelism);
            if (!ownGroups.contains(group)) {
                continue;
            }
            long address = addressData.getLong((long) r * Long.BYTES);
            long[] earlier = locations.putIfAbsent(key, address);
            if (earlier != null) {
                throw duplicateKey(table, keyColumns, earlier, address);
            }
            loaded++;
        }
        return loaded;
    }

    private static IllegalStateException duplicateKey(
            TableLocation table, List<String> keyColumns, long[] earlier, long address) {
        return new IllegalStateException("The table " + table + " has two rows with the same primary key "
                + keyColumns + " (row addresses " + earlier[1] + " and " + address + "). The upsert sink needs a"
                + " key that is unique in the table: deduplicate the table or choose another key");
    }

    private static void putUnique(
            TableLocation table,
            List<String> keyColumns,
            Locations locations,
            RowData key,
            long[] earlier,
            long address)
            throws Exception {
        if (earlier != null) {
            throw duplicateKey(table, keyColumns, earlier, address);
        }
        locations.put(key, new long[] {0, address});
    }

    /** The keys of one key group, in scan order: their binary rows back to back, with their addresses. */
    private static final class GroupBuffer {
        byte[] bytes = new byte[256];
        int used;
        int[] lengths = new int[16];
        long[] addresses = new long[16];
        int count;

        void add(BinaryRowData key, long address) {
            int length = key.getSizeInBytes();
            if (used + length > bytes.length) {
                bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, used + length));
            }
            BinarySegmentUtils.copyToBytes(key.getSegments(), key.getOffset(), bytes, used, length);
            used += length;
            if (count == lengths.length) {
                lengths = Arrays.copyOf(lengths, count * 2);
                addresses = Arrays.copyOf(addresses, count * 2);
            }
            lengths[count] = length;
            addresses[count] = address;
            count++;
        }
    }

    /**
     * A set of ints (key hashes) without an object per entry: 4-8 bytes per key of this subtask,
     * only while the bootstrap runs.
     */
    static final class IntSet {
        private int[] slots = new int[1 << 10];
        private boolean hasZero;
        private int size;

        boolean contains(int v) {
            if (v == 0) {
                return hasZero;
            }
            int mask = slots.length - 1;
            for (int i = mix(v) & mask; slots[i] != 0; i = (i + 1) & mask) {
                if (slots[i] == v) {
                    return true;
                }
            }
            return false;
        }

        /** @return true if {@code v} was not in the set */
        boolean add(int v) {
            if (v == 0) {
                boolean added = !hasZero;
                hasZero = true;
                return added;
            }
            int mask = slots.length - 1;
            int i = mix(v) & mask;
            while (slots[i] != 0) {
                if (slots[i] == v) {
                    return false;
                }
                i = (i + 1) & mask;
            }
            slots[i] = v;
            if (++size * 2 > slots.length) {
                grow();
            }
            return true;
        }

        private void grow() {
            int[] old = slots;
            slots = new int[old.length * 2];
            int mask = slots.length - 1;
            for (int v : old) {
                if (v != 0) {
                    int i = mix(v) & mask;
                    while (slots[i] != 0) {
                        i = (i + 1) & mask;
                    }
                    slots[i] = v;
                }
            }
        }

        private static int mix(int v) {
            int h = v * 0x9E3779B9;
            return h ^ (h >>> 16);
        }
    }
}
