package dev.lanceflink.flink.sink.upsert;

import java.util.function.LongUnaryOperator;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

/**
 * One subtask's key → {@link PackedLocation} map, on the heap with no object per key.
 *
 * <p>Keys are the keyBy key, a {@link BinaryRowData}, passed with its {@code hashCode()} (the
 * word-wise murmur hash Flink also derives the key group from), so that a caller hashes a key
 * once per record: {@link KeyLocationIndex} probes with it, {@link LongKeyLocationMap} reads the
 * key's one integral field instead and ignores it. Nothing is allocated per call.
 */
interface KeyLocations {
    /** What {@link #get}, {@link #put} and {@link #remove} return for an absent key. */
    long NONE = PackedLocation.NONE;

    /** The location of {@code key}, or {@link #NONE}. {@code hash} is {@code key.hashCode()}. */
    long get(BinaryRowData key, int hash);

    /**
     * Sets the location of {@code key} (the map copies what it keeps of the key).
     *
     * @return the previous location, or {@link #NONE}
     */
    long put(BinaryRowData key, int hash, long location);

    /** @return the removed location, or {@link #NONE} if {@code key} had none */
    long remove(BinaryRowData key, int hash);

    int size();

    /**
     * Whether the map uses the {@code hash} argument. {@link LongKeyLocationMap} does not (it mixes
     * the key's long), so a caller that hashes a key only for the map may pass 0 then: in the
     * micro-benchmark a murmur of a cold key row cost more than the whole probe.
     */
    default boolean usesHash() {
        return true;
    }

    /**
     * Visits every entry. {@code key} is valid during the call only (it may be reused). Not for the
     * hot path: the long map writes a binary row per entry.
     */
    void forEach(Visitor visitor);

    /**
     * Replaces every location by {@code f(location)}, which must be a location too (not {@link
     * #NONE}): for turning resolved pending locations into row addresses in one pass.
     */
    void replaceLocations(LongUnaryOperator f);

    /** Bytes of the map's arrays (and key arenas): what it holds on the heap, about. */
    long heapBytes();

    /** One entry of {@link #forEach}. */
    @FunctionalInterface
    interface Visitor {
        void visit(BinaryRowData key, long location);
    }

    /**
     * The map for keys of {@code keyType}: a {@link LongKeyLocationMap} when the key is one
     * TINYINT, SMALLINT, INTEGER or BIGINT column, else a {@link KeyLocationIndex}.
     */
    static KeyLocations forKey(RowType keyType) {
        return forKey(keyType, 0);
    }

    /**
     * About how many heap bytes the map for keys of {@code keyType} takes per key, for a budget
     * check before it is built: 32 for one integral column ({@link LongKeyLocationMap}, at most
     * right after growing); else the {@link KeyLocationIndex} slot (24 bytes at 70% load) plus the
     * key's binary row, its fixed part exactly and 16 bytes for each variable-length field (a
     * guess: longer strings take more, so the estimate is a floor for them).
     */
    static long estimatedBytesPerKey(RowType keyType) {
        if (keyType.getFieldCount() == 1 && LongKeyLocationMap.IntegralKey.supports(keyType.getTypeAt(0))) {
            return 32;
        }
        long bytes = 35 + BinaryRowData.calculateFixPartSizeInBytes(keyType.getFieldCount());
        for (LogicalType t : keyType.getChildren()) {
            if (!BinaryRowData.isInFixedLengthPart(t)) {
                bytes += 16;
            }
        }
        return bytes;
    }

    /**
     * @param expectedKeys keys the map is sized for (a bootstrap's estimate), so that it does not
     *     grow, rehashing every key, while the table is scanned into it
     */
    static KeyLocations forKey(RowType keyType, long expectedKeys) {
        if (keyType.getFieldCount() == 1) {
            LogicalType t = keyType.getTypeAt(0);
            if (LongKeyLocationMap.IntegralKey.supports(t)) {
                return new LongKeyLocationMap(LongKeyLocationMap.IntegralKey.of(t), expectedKeys);
            }
        }
        return new KeyLocationIndex(keyType.getFieldCount());
    }
}
