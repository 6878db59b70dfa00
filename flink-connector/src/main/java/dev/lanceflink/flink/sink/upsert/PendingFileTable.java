package dev.lanceflink.flink.sink.upsert;

import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.RowAddress;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * The data files this sink wrote whose rows the key map still names by file ({@link
 * PackedLocation} pending slots): slot → the file's random 64-bit id, and the fragment a manifest
 * has shown it in, once one has. A few slots per checkpoint (one per data file), so a small table
 * instead of 8 more bytes in every key's entry.
 *
 * <p>A slot's location stays valid after its file is committed: {@link #current} turns it into a
 * row address when the key is next touched, and {@link #compact} turns all of a map's at once and
 * frees the slots of committed files.
 */
final class PendingFileTable {
    private static final long UNRESOLVED = -1;

    private long[] fileIds = new long[16];
    private long[] fragments = new long[16];
    private int size;
    private final Map<Long, Integer> slotOfFile = new HashMap<>();

    /** The slot of data file {@code fileId}, taken now if it has none. */
    int slotOf(long fileId) {
        if (fileId == 0) {
            throw new IllegalArgumentException("file id 0 is reserved for committed rows");
        }
        Integer slot = slotOfFile.get(fileId);
        if (slot != null) {
            return slot;
        }
        if (size == PackedLocation.MAX_SLOTS - 1) {
            throw new IllegalStateException("The upsert sink's key map has named " + size + " pending data files");
        }
        if (size == fileIds.length) {
            int n = (int) Math.min(PackedLocation.MAX_SLOTS - 1L, 2L * size);
            fileIds = Arrays.copyOf(fileIds, n);
            fragments = Arrays.copyOf(fragments, n);
        }
        fileIds[size] = fileId;
        fragments[size] = UNRESOLVED;
        slotOfFile.put(fileId, size);
        return size++;
    }

    /** How many slots are taken. */
    int size() {
        return size;
    }

    /** The data file id in {@code slot}. */
    long fileId(int slot) {
        if (slot < 0 || slot >= size) {
            throw new IllegalArgumentException("pending-file slot " + slot + " is not taken (" + size + " are)");
        }
        return fileIds[slot];
    }

    /** The packed location of the row at {@code offset} of data file {@code fileId}. */
    long pack(long fileId, long offset) {
        return PackedLocation.ofPending(slotOf(fileId), offset);
    }

    /** The packed form of a {fileId, position} location ({0, row address} for a committed row). */
    long pack(long[] location) {
        return location[0] == 0 ? PackedLocation.ofRowAddress(location[1]) : pack(location[0], location[1]);
    }

    /** The data file id of {@code location}, 0 for a row address. */
    long fileIdOf(long location) {
        return PackedLocation.isPending(location) ? fileId(PackedLocation.slot(location)) : 0;
    }

    /** {fileId, position} ({0, row address} for a committed row), the form of the sink's changes and state. */
    long[] unpack(long location) {
        return PackedLocation.isPending(location)
                ? new long[] {fileId(PackedLocation.slot(location)), PackedLocation.offset(location)}
                : new long[] {0, location};
    }

    /**
     * Notes the fragment of every slot's file that {@code filesInManifest} (a manifest's {@code
     * PendingFiles.index}) names.
     *
     * @return how many slots were resolved now
     */
    int resolve(Map<Long, Fragment> filesInManifest) {
        int resolved = 0;
        for (int slot = 0; slot < size; slot++) {
            if (fragments[slot] == UNRESOLVED) {
                Fragment f = filesInManifest.get(fileIds[slot]);
                if (f != null) {
                    fragments[slot] = f.id();
                    resolved++;
                }
            }
        }
        return resolved;
    }

    /**
     * Rewrites {@code map}'s locations in files {@link #resolve} has seen committed as row
     * addresses, drops those files' slots and renumbers the others (in {@code map} too). Any
     * packed location held outside {@code map} is invalid afterwards: call it where there is none
     * (at a barrier, after the checkpoint's changes are emitted).
     *
     * @return how many slots were freed
     */
    int compact(KeyLocations map) {
        int[] newSlot = new int[size];
        int kept = 0;
        for (int slot = 0; slot < size; slot++) {
            newSlot[slot] = fragments[slot] == UNRESOLVED ? kept++ : -1;
        }
        if (kept == size) {
            return 0;
        }
        map.replaceLocations(location -> {
            if (!PackedLocation.isPending(location)) {
                return location;
            }
            int slot = PackedLocation.slot(location);
            long offset = PackedLocation.offset(location);
            return newSlot[slot] >= 0
                    ? PackedLocation.ofPending(newSlot[slot], offset)
                    : PackedLocation.ofRowAddress(RowAddress.of(fragments[slot], offset));
        });
        int freed = size - kept;
        slotOfFile.clear();
        for (int slot = 0; slot < size; slot++) {
            if (newSlot[slot] >= 0) {
                fileIds[newSlot[slot]] = fileIds[slot];
                fragments[newSlot[slot]] = UNRESOLVED;
                slotOfFile.put(fileIds[slot], newSlot[slot]);
            }
        }
        size = kept;
        return freed;
    }

    /**
     * {@code location} as a row address if it is in a file {@link #resolve} has seen committed,
     * else unchanged. The address is the one at the commit: a later compaction is followed by the
     * caller (the rewrite log), as for any row address.
     */
    long current(long location) {
        if (location == PackedLocation.NONE || !PackedLocation.isPending(location)) {
            return location;
        }
        long fragment = fragments[PackedLocation.slot(location)];
        return fragment == UNRESOLVED
                ? location
                : PackedLocation.ofRowAddress(RowAddress.of(fragment, PackedLocation.offset(location)));
    }
}
