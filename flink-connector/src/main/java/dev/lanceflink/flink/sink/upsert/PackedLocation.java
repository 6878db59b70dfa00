package dev.lanceflink.flink.sink.upsert;

import dev.lanceflink.table.RowAddress;

/**
 * A key's row location in one {@code long}, as the key maps store it (no object, no second array).
 *
 * <ul>
 *   <li>bit 63 = 0: a row address, {@code fragment id << 32 | offset} ({@link RowAddress}). Lance
 *       assigns fragment ids from the manifest's {@code max_fragment_id}, one by one, so they stay
 *       far below 2^31; one at or above it is refused here rather than read back as a pending row.
 *   <li>bit 63 = 1: a row in a data file this sink wrote whose commit may not have landed yet,
 *       {@code 1 << 63 | slot << 32 | offset}: {@code slot} indexes the {@link PendingFileTable}
 *       that holds the file's random 64-bit id (what {@code PendingFiles} names the file after).
 * </ul>
 *
 * <p>{@link #NONE} (-1, all bits set) would be slot 2^31-1, offset 2^32-1; the table never hands out
 * that slot, so no location takes that value and the maps return it for an absent key.
 */
final class PackedLocation {
    /** No location: what the maps return for an absent key. */
    static final long NONE = -1L;
    /** One past the largest pending-file slot: slot {@code 2^31-1} would make {@link #NONE} ambiguous. */
    static final int MAX_SLOTS = Integer.MAX_VALUE;

    private static final long PENDING = Long.MIN_VALUE;
    private static final long OFFSET_MASK = 0xFFFF_FFFFL;
    private static final long FRAGMENT_LIMIT = 1L << 31;

    private PackedLocation() {}

    /** The committed row at {@code address}. */
    static long ofRowAddress(long address) {
        long fragment = RowAddress.fragmentId(address);
        if (fragment >= FRAGMENT_LIMIT) {
            throw new IllegalStateException("Row " + RowAddress.describe(address) + " has a fragment id of 2^31 or"
                    + " more; the upsert sink's key map keeps fragment ids below 2^31 (Lance numbers fragments"
                    + " from 0 up, so such a table was written by something else): use sink.key-map = keyed-state");
        }
        return address;
    }

    /** The row at {@code offset} of the data file in pending-file slot {@code slot}. */
    static long ofPending(int slot, long offset) {
        if (slot < 0 || slot >= MAX_SLOTS) {
            throw new IllegalArgumentException("pending-file slot " + slot + " is outside [0, 2^31-1)");
        }
        if (offset < 0 || offset > OFFSET_MASK) {
            throw new IllegalArgumentException("row offset " + offset + " in a data file is outside [0, 2^32)");
        }
        return PENDING | (long) slot << 32 | offset;
    }

    /** Whether {@code location} (not {@link #NONE}) names a row in a pending-file slot. */
    static boolean isPending(long location) {
        return location < 0;
    }

    /** The row address of a committed {@code location}. */
    static long rowAddress(long location) {
        if (isPending(location)) {
            throw new IllegalArgumentException(describe(location) + " is not a row address");
        }
        return location;
    }

    /** The pending-file slot of a pending {@code location}. */
    static int slot(long location) {
        if (!isPending(location) || location == NONE) {
            throw new IllegalArgumentException(describe(location) + " is not in a pending data file");
        }
        return (int) ((location & ~PENDING) >>> 32);
    }

    /** The row's offset: in its fragment (row address) or in its data file (pending). */
    static long offset(long location) {
        return location & OFFSET_MASK;
    }

    /** For messages. */
    static String describe(long location) {
        if (location == NONE) {
            return "no location";
        }
        return isPending(location)
                ? "pending-file slot " + slot(location) + ", offset " + offset(location)
                : RowAddress.describe(location);
    }
}
