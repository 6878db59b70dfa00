package dev.lanceflink.flink.sink.upsert;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.LongUnaryOperator;
import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.binary.BinarySegmentUtils;

/**
 * The key map for keys of any type, compared by their binary row bytes (as keyed state compares
 * them), with no object per key: key bytes are copied into large arenas, and an open-addressing
 * table of primitive arrays points at them: 24 bytes per slot (arena reference, key length, key
 * hash, {@link PackedLocation}), at most 70% full, plus the key's binary size.
 *
 * <p>Used today in BATCH execution, where Flink's batch keyed state keeps the current key only
 * (inputs arrive sorted by key) and the map bootstrapped from the table would be gone by the
 * first record.
 *
 * <p>The probe uses the caller's {@code key.hashCode()}, the hash Flink computes for the key group
 * anyway, so a record's key is hashed once. Removal shifts the rest of the probe run back (no
 * tombstones, see {@link LongKeyLocationMap}); the removed key's bytes become garbage in their
 * arena, and the arenas are rewritten once garbage outweighs live bytes.
 */
final class KeyLocationIndex implements KeyLocations {
    private static final int ARENA_BYTES = 4 << 20;
    private static final double MAX_LOAD = 0.7;
    private static final int MAX_CAPACITY = 1 << 30;

    private final int keyArity;
    private List<byte[]> arenas = new ArrayList<>();
    private List<MemorySegment> arenaSegments = new ArrayList<>();
    private byte[] arena;
    private int arenaUsed;
    private long liveBytes;
    private long garbageBytes;

    /** Per slot: arena index << 32 | offset (-1 = empty), key length, key hash, location. */
    private long[] refs;

    private int[] lengths;
    private int[] hashes;
    private long[] locations;
    private int size;
    private int mask;
    private int growAt;
    private transient BinaryRowData row;

    /** @param keyArity the key rows' field count (for {@link #forEach}'s rows) */
    KeyLocationIndex(int keyArity) {
        this.keyArity = keyArity;
        allocate(1 << 10);
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public long get(BinaryRowData key, int hash) {
        int slot = find(key, hash);
        return refs[slot] >= 0 ? locations[slot] : NONE;
    }

    @Override
    public long put(BinaryRowData key, int hash, long location) {
        if (location == NONE) {
            throw new IllegalArgumentException("NONE is not a location; remove the key instead");
        }
        int slot = find(key, hash);
        if (refs[slot] >= 0) {
            long previous = locations[slot];
            locations[slot] = location;
            return previous;
        }
        refs[slot] = store(key);
        lengths[slot] = key.getSizeInBytes();
        hashes[slot] = hash;
        locations[slot] = location;
        liveBytes += key.getSizeInBytes();
        if (++size > growAt) {
            grow();
        }
        return NONE;
    }

    @Override
    public long remove(BinaryRowData key, int hash) {
        int slot = find(key, hash);
        if (refs[slot] < 0) {
            return NONE;
        }
        long previous = locations[slot];
        liveBytes -= lengths[slot];
        garbageBytes += lengths[slot];
        // Backward shift: see LongKeyLocationMap.remove.
        int hole = slot;
        for (int j = (slot + 1) & mask; refs[j] >= 0; j = (j + 1) & mask) {
            int home = spread(hashes[j]) & mask;
            if (((j - home) & mask) >= ((j - hole) & mask)) {
                move(j, hole);
                hole = j;
            }
        }
        refs[hole] = -1;
        size--;
        if (garbageBytes > ARENA_BYTES && garbageBytes > liveBytes) {
            compactArenas();
        }
        return previous;
    }

    @Override
    public void forEach(Visitor visitor) {
        if (row == null) {
            row = new BinaryRowData(keyArity);
        }
        for (int i = 0; i < refs.length; i++) {
            if (refs[i] >= 0) {
                row.pointTo(arenaSegments.get((int) (refs[i] >>> 32)), (int) refs[i], lengths[i]);
                visitor.visit(row, locations[i]);
            }
        }
    }

    @Override
    public void replaceLocations(LongUnaryOperator f) {
        for (int i = 0; i < refs.length; i++) {
            if (refs[i] >= 0) {
                long location = f.applyAsLong(locations[i]);
                if (location == NONE) {
                    throw new IllegalArgumentException("replaceLocations must map a location to a location, not NONE");
                }
                locations[i] = location;
            }
        }
    }

    @Override
    public long heapBytes() {
        return 24L * refs.length + (long) arenas.size() * ARENA_BYTES;
    }

    private static int spread(int hash) {
        return hash ^ (hash >>> 16);
    }

    /** The slot holding {@code key}, or the empty slot where it would go. */
    private int find(BinaryRowData key, int hash) {
        assert hash == key.hashCode() : "the hash passed is not the key's hashCode()";
        int length = key.getSizeInBytes();
        int slot = spread(hash) & mask;
        while (refs[slot] >= 0) {
            if (hashes[slot] == hash && lengths[slot] == length && sameBytes(slot, key)) {
                return slot;
            }
            slot = (slot + 1) & mask;
        }
        return slot;
    }

    private boolean sameBytes(int slot, BinaryRowData key) {
        byte[] a = arenas.get((int) (refs[slot] >>> 32));
        int offset = (int) refs[slot];
        MemorySegment[] segments = key.getSegments();
        int length = key.getSizeInBytes();
        if (segments.length == 1) {
            return segments[0].equalTo(arenaSegments.get((int) (refs[slot] >>> 32)), key.getOffset(), offset, length);
        }
        byte[] bytes = BinarySegmentUtils.copyToBytes(segments, key.getOffset(), length);
        return Arrays.equals(a, offset, offset + length, bytes, 0, length);
    }

    private long store(BinaryRowData key) {
        int length = key.getSizeInBytes();
        if (arena == null || arenaUsed + length > arena.length) {
            arena = new byte[Math.max(ARENA_BYTES, length)];
            arenas.add(arena);
            arenaSegments.add(MemorySegmentFactory.wrap(arena));
            arenaUsed = 0;
        }
        BinarySegmentUtils.copyToBytes(key.getSegments(), key.getOffset(), arena, arenaUsed, length);
        long ref = ((long) (arenas.size() - 1) << 32) | arenaUsed;
        arenaUsed += length;
        return ref;
    }

    private void move(int from, int to) {
        refs[to] = refs[from];
        lengths[to] = lengths[from];
        hashes[to] = hashes[from];
        locations[to] = locations[from];
    }

    /** Copies the live keys into new arenas, dropping the bytes of removed ones. */
    private void compactArenas() {
        List<byte[]> oldArenas = arenas;
        arenas = new ArrayList<>();
        arenaSegments = new ArrayList<>();
        arena = null;
        arenaUsed = 0;
        for (int i = 0; i < refs.length; i++) {
            if (refs[i] >= 0) {
                byte[] from = oldArenas.get((int) (refs[i] >>> 32));
                int length = lengths[i];
                if (arena == null || arenaUsed + length > arena.length) {
                    arena = new byte[Math.max(ARENA_BYTES, length)];
                    arenas.add(arena);
                    arenaSegments.add(MemorySegmentFactory.wrap(arena));
                    arenaUsed = 0;
                }
                System.arraycopy(from, (int) refs[i], arena, arenaUsed, length);
                refs[i] = ((long) (arenas.size() - 1) << 32) | arenaUsed;
                arenaUsed += length;
            }
        }
        garbageBytes = 0;
    }

    private void allocate(int capacity) {
        refs = new long[capacity];
        Arrays.fill(refs, -1L);
        lengths = new int[capacity];
        hashes = new int[capacity];
        locations = new long[capacity];
        mask = capacity - 1;
        growAt = (int) (capacity * MAX_LOAD);
    }

    private void grow() {
        long[] oldRefs = refs;
        int[] oldLengths = lengths;
        int[] oldHashes = hashes;
        long[] oldLocations = locations;
        if (oldRefs.length >= MAX_CAPACITY) {
            throw new IllegalStateException("The upsert sink's key index is full (" + size + " keys in one"
                    + " subtask); raise the sink's parallelism");
        }
        allocate(oldRefs.length * 2);
        for (int i = 0; i < oldRefs.length; i++) {
            if (oldRefs[i] < 0) {
                continue;
            }
            int slot = spread(oldHashes[i]) & mask;
            while (refs[slot] >= 0) {
                slot = (slot + 1) & mask;
            }
            refs[slot] = oldRefs[i];
            lengths[slot] = oldLengths[i];
            hashes[slot] = oldHashes[i];
            locations[slot] = oldLocations[i];
        }
    }
}
