package dev.lanceflink.flink.sink.upsert;

import java.util.function.LongUnaryOperator;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.writer.BinaryRowWriter;
import org.apache.flink.table.types.logical.LogicalType;

/**
 * The key map for a key of one integral column (TINYINT to BIGINT): two parallel arrays, {@code
 * long[] keys} and {@code long[] locations}, open addressing with linear probing, at most 70% full
 * and grown to 50% full, so 23-32 bytes per key (against ~190 in heap keyed state).
 *
 * <p>Key 0 marks an empty slot, so the arrays need no fill and no flag array; the key 0 itself (a
 * common key) lives in a field of its own. Removal shifts the following entries of the probe run
 * back (no tombstones): an upsert sink removes a key per delete, forever, and tombstones would
 * fill the table until a rehash, making misses (every insert of a new key) probe ever longer.
 *
 * <p>The slot is a multiply-shift of a 64-bit mix of the key onto any capacity, not a power of two,
 * which is what keeps the memory bound at 32 bytes per key right after growing.
 */
final class LongKeyLocationMap implements KeyLocations {
    private static final double MAX_LOAD = 0.7;
    /** The load right after growing. */
    private static final double GROWN_LOAD = 0.5;

    private static final int MIN_CAPACITY = 16;
    /** Largest array length the JVM allocates reliably. */
    private static final int MAX_CAPACITY = Integer.MAX_VALUE - 8;

    private final IntegralKey keyType;
    private long[] keys;
    private long[] locations;
    /** Entries in the arrays (key 0 not counted). */
    private int used;

    private int growAt;
    private long zeroKeyLocation = NONE;
    private transient BinaryRowData row;
    private transient BinaryRowWriter rowWriter;

    LongKeyLocationMap(IntegralKey keyType) {
        this(keyType, 0);
    }

    /** @param expectedKeys keys to hold without growing (a bootstrap's count) */
    LongKeyLocationMap(IntegralKey keyType, long expectedKeys) {
        this.keyType = keyType;
        allocate(capacityFor(expectedKeys, MAX_LOAD));
    }

    /** The location of {@code key}, or {@link #NONE}. */
    long get(long key) {
        if (key == 0) {
            return zeroKeyLocation;
        }
        int n = keys.length;
        for (int i = home(key, n); keys[i] != 0; i = next(i, n)) {
            if (keys[i] == key) {
                return locations[i];
            }
        }
        return NONE;
    }

    /** @return the previous location of {@code key}, or {@link #NONE} */
    long put(long key, long location) {
        return put(key, location, true);
    }

    /**
     * Sets the location of {@code key} unless it has one (one probe where {@link #get} then
     * {@link #put} take two: the bootstrap's duplicate check).
     *
     * @return {@link #NONE} if the location was set, else the key's location, left as it was
     */
    long putIfAbsent(long key, long location) {
        return put(key, location, false);
    }

    /** @return the key's location before, or {@link #NONE}; replaced only if {@code replace} */
    private long put(long key, long location, boolean replace) {
        if (location == NONE) {
            throw new IllegalArgumentException("NONE is not a location; remove the key instead");
        }
        if (key == 0) {
            long previous = zeroKeyLocation;
            if (replace || previous == NONE) {
                zeroKeyLocation = location;
            }
            return previous;
        }
        int n = keys.length;
        int i = home(key, n);
        for (; keys[i] != 0; i = next(i, n)) {
            if (keys[i] == key) {
                long previous = locations[i];
                if (replace) {
                    locations[i] = location;
                }
                return previous;
            }
        }
        keys[i] = key;
        locations[i] = location;
        if (++used > growAt) {
            grow();
        }
        return NONE;
    }

    /** @return the removed location of {@code key}, or {@link #NONE} */
    long remove(long key) {
        if (key == 0) {
            long previous = zeroKeyLocation;
            zeroKeyLocation = NONE;
            return previous;
        }
        int n = keys.length;
        int i = home(key, n);
        while (keys[i] != key) {
            if (keys[i] == 0) {
                return NONE;
            }
            i = next(i, n);
        }
        long previous = locations[i];
        // Backward shift: move each later entry of the run into the hole if the hole is on its
        // probe path (between its home slot and where it is), so lookups never meet a gap.
        int hole = i;
        for (int j = next(i, n); keys[j] != 0; j = next(j, n)) {
            int home = home(keys[j], n);
            if (distance(home, j, n) >= distance(hole, j, n)) {
                keys[hole] = keys[j];
                locations[hole] = locations[j];
                hole = j;
            }
        }
        keys[hole] = 0;
        locations[hole] = 0;
        used--;
        return previous;
    }

    @Override
    public long get(BinaryRowData key, int hash) {
        return get(keyType.read(key));
    }

    @Override
    public long put(BinaryRowData key, int hash, long location) {
        return put(keyType.read(key), location);
    }

    @Override
    public long remove(BinaryRowData key, int hash) {
        return remove(keyType.read(key));
    }

    @Override
    public boolean usesHash() {
        return false;
    }

    /** The key of {@code key}'s one column, as this map stores it. */
    long longKey(BinaryRowData key) {
        return keyType.read(key);
    }

    @Override
    public int size() {
        return used + (zeroKeyLocation == NONE ? 0 : 1);
    }

    @Override
    public void forEach(Visitor visitor) {
        if (zeroKeyLocation != NONE) {
            visitor.visit(keyRow(0), zeroKeyLocation);
        }
        for (int i = 0; i < keys.length; i++) {
            if (keys[i] != 0) {
                visitor.visit(keyRow(keys[i]), locations[i]);
            }
        }
    }

    /** The key {@code key} as the binary row the keyBy makes of it (reused between calls). */
    BinaryRowData keyRow(long key) {
        if (row == null) {
            row = new BinaryRowData(1);
            rowWriter = new BinaryRowWriter(row);
        }
        rowWriter.reset();
        keyType.write(rowWriter, key);
        rowWriter.complete();
        return row;
    }

    @Override
    public void replaceLocations(LongUnaryOperator f) {
        if (zeroKeyLocation != NONE) {
            zeroKeyLocation = checked(f.applyAsLong(zeroKeyLocation));
        }
        for (int i = 0; i < keys.length; i++) {
            if (keys[i] != 0) {
                locations[i] = checked(f.applyAsLong(locations[i]));
            }
        }
    }

    private static long checked(long location) {
        if (location == NONE) {
            throw new IllegalArgumentException("replaceLocations must map a location to a location, not NONE");
        }
        return location;
    }

    @Override
    public long heapBytes() {
        return 16L * keys.length;
    }

    private static int home(long key, int n) {
        // murmur3's 64-bit finalizer: keys are often dense ranges, which need spreading
        long h = key;
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        return (int) (((h >>> 32) * n) >>> 32);
    }

    private static int next(int i, int n) {
        return i + 1 == n ? 0 : i + 1;
    }

    /** Probe steps from slot {@code from} forward to slot {@code to}. */
    private static int distance(int from, int to, int n) {
        return to >= from ? to - from : to + n - from;
    }

    private static int capacityFor(long keys, double load) {
        long capacity = Math.max(MIN_CAPACITY, (long) Math.ceil(keys / load));
        if (capacity > MAX_CAPACITY) {
            throw new IllegalStateException("The upsert sink's key map cannot hold " + keys + " keys in one subtask;"
                    + " raise the sink's parallelism");
        }
        return (int) capacity;
    }

    private void allocate(int capacity) {
        keys = new long[capacity];
        locations = new long[capacity];
        growAt = (int) (capacity * MAX_LOAD);
    }

    private void grow() {
        long[] oldKeys = keys;
        long[] oldLocations = locations;
        allocate(capacityFor(used, GROWN_LOAD));
        int n = keys.length;
        for (int j = 0; j < oldKeys.length; j++) {
            long k = oldKeys[j];
            if (k != 0) {
                int i = home(k, n);
                while (keys[i] != 0) {
                    i = next(i, n);
                }
                keys[i] = k;
                locations[i] = oldLocations[j];
            }
        }
    }

    /** How the one key column is read from and written to the key's binary row. */
    enum IntegralKey {
        TINYINT,
        SMALLINT,
        INTEGER,
        BIGINT;

        static boolean supports(LogicalType type) {
            return switch (type.getTypeRoot()) {
                case TINYINT, SMALLINT, INTEGER, BIGINT -> true;
                default -> false;
            };
        }

        static IntegralKey of(LogicalType type) {
            return switch (type.getTypeRoot()) {
                case TINYINT -> TINYINT;
                case SMALLINT -> SMALLINT;
                case INTEGER -> INTEGER;
                case BIGINT -> BIGINT;
                default -> throw new IllegalArgumentException("not an integral key column: " + type);
            };
        }

        long read(BinaryRowData key) {
            return switch (this) {
                case TINYINT -> key.getByte(0);
                case SMALLINT -> key.getShort(0);
                case INTEGER -> key.getInt(0);
                case BIGINT -> key.getLong(0);
            };
        }

        void write(BinaryRowWriter writer, long key) {
            switch (this) {
                case TINYINT -> writer.writeByte(0, (byte) key);
                case SMALLINT -> writer.writeShort(0, (short) key);
                case INTEGER -> writer.writeInt(0, (int) key);
                case BIGINT -> writer.writeLong(0, key);
            }
        }
    }
}
