package dev.lanceflink.flink.sink.upsert;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.binary.BinarySegmentUtils;

/**
 * The key → row location map of the upsert sink when the job runs in BATCH execution mode.
 *
 * <p>Why not keyed state there: Flink's batch execution state backend keeps the state of the
 * current key only (inputs arrive sorted by key), so the map bootstrapped from the table on start
 * would be gone by the first record. This index holds the same entries on the heap instead, for
 * the keys of the subtask's own key groups, with no object per key: key bytes are copied into
 * large arenas, and an open-addressing table of primitive arrays points at them (about
 * 50 bytes per key plus the key's binary size). Keys compare by their binary row bytes, as the
 * keyed state does.
 */
final class KeyLocationIndex {
    private static final int ARENA_BYTES = 4 << 20;

    private final List<byte[]> arenas = new ArrayList<>();
    private byte[] arena;
    private int arenaUsed;

    /** Per slot: arena index << 32 | offset (-1 = empty), key length, key hash, location. */
    private long[] refs;

    private int[] lengths;
    private int[] hashes;
    private long[] fileIds;
    private long[] positions;
    private boolean[] present;
    private int size;
    private int mask;

    KeyLocationIndex() {
        allocate(1 << 10);
    }

    int size() {
        return size;
    }

    /** The location of {@code key} ({fileId, position}), or null if it has none. */
    long[] get(BinaryRowData key) {
        int slot = find(key, hash(key));
        return refs[slot] >= 0 && present[slot] ? new long[] {fileIds[slot], positions[slot]} : null;
    }

    /** Sets the location of {@code key}. */
    void put(BinaryRowData key, long[] location) {
        int h = hash(key);
        int slot = find(key, h);
        if (refs[slot] < 0) {
            refs[slot] = store(key);
            lengths[slot] = key.getSizeInBytes();
            hashes[slot] = h;
            size++;
        }
        fileIds[slot] = location[0];
        positions[slot] = location[1];
        present[slot] = true;
        if (size * 2 > refs.length) {
            grow();
        }
    }

    /** {@code key} has no row any more (its row was deleted); the key's bytes stay for reuse. */
    void remove(BinaryRowData key) {
        int slot = find(key, hash(key));
        if (refs[slot] >= 0) {
            present[slot] = false;
        }
    }

    private static int hash(BinaryRowData key) {
        int h = key.hashCode();
        return h ^ (h >>> 16);
    }

    /** The slot holding {@code key}, or the empty slot where it would go. */
    private int find(BinaryRowData key, int h) {
        int slot = h & mask;
        while (refs[slot] >= 0) {
            if (hashes[slot] == h && lengths[slot] == key.getSizeInBytes() && sameBytes(slot, key)) {
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
            MemorySegment s = segments[0];
            int base = key.getOffset();
            for (int i = 0; i < length; i++) {
                if (s.get(base + i) != a[offset + i]) {
                    return false;
                }
            }
            return true;
        }
        byte[] bytes = BinarySegmentUtils.copyToBytes(segments, key.getOffset(), length);
        return Arrays.equals(a, offset, offset + length, bytes, 0, length);
    }

    private long store(BinaryRowData key) {
        int length = key.getSizeInBytes();
        if (arena == null || arenaUsed + length > arena.length) {
            arena = new byte[Math.max(ARENA_BYTES, length)];
            arenas.add(arena);
            arenaUsed = 0;
        }
        BinarySegmentUtils.copyToBytes(key.getSegments(), key.getOffset(), arena, arenaUsed, length);
        long ref = ((long) (arenas.size() - 1) << 32) | arenaUsed;
        arenaUsed += length;
        return ref;
    }

    private void allocate(int capacity) {
        refs = new long[capacity];
        Arrays.fill(refs, -1L);
        lengths = new int[capacity];
        hashes = new int[capacity];
        fileIds = new long[capacity];
        positions = new long[capacity];
        present = new boolean[capacity];
        mask = capacity - 1;
    }

    private void grow() {
        long[] oldRefs = refs;
        int[] oldLengths = lengths;
        int[] oldHashes = hashes;
        long[] oldFileIds = fileIds;
        long[] oldPositions = positions;
        boolean[] oldPresent = present;
        if (oldRefs.length >= 1 << 30) {
            throw new IllegalStateException("The upsert sink's batch key index is full (" + size + " keys in one"
                    + " subtask); raise the sink's parallelism");
        }
        allocate(oldRefs.length * 2);
        for (int i = 0; i < oldRefs.length; i++) {
            if (oldRefs[i] < 0) {
                continue;
            }
            int slot = oldHashes[i] & mask;
            while (refs[slot] >= 0) {
                slot = (slot + 1) & mask;
            }
            refs[slot] = oldRefs[i];
            lengths[slot] = oldLengths[i];
            hashes[slot] = oldHashes[i];
            fileIds[slot] = oldFileIds[i];
            positions[slot] = oldPositions[i];
            present[slot] = oldPresent[i];
        }
    }
}
