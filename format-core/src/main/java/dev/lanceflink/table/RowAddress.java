package dev.lanceflink.table;

/**
 * A row address, {@code fragment_id << 32 | offset}: where a row physically is (its fragment and
 * its offset among the fragment's physical rows, deleted ones included). Lance's {@code _rowaddr}
 * column, and what a table without stable row ids uses as its row id.
 *
 * <p>Addresses stay plain {@code long}s in arrays, vectors and Flink records — an object per row
 * would cost an allocation on every hot path — so this is the one place that knows their bit
 * layout, as static functions over {@code long}.
 */
public final class RowAddress {
    private static final long OFFSET_MASK = 0xFFFF_FFFFL;

    private RowAddress() {}

    /** The address of the row at {@code offset} of fragment {@code fragmentId} (both below 2^32). */
    public static long of(long fragmentId, long offset) {
        return fragmentId << 32 | (offset & OFFSET_MASK);
    }

    /** The address of the first physical row of fragment {@code fragmentId}. */
    public static long firstOf(long fragmentId) {
        return fragmentId << 32;
    }

    /** The fragment that holds the row at {@code address}. */
    public static long fragmentId(long address) {
        return address >>> 32;
    }

    /** The row's offset among its fragment's physical rows. */
    public static long offset(long address) {
        return address & OFFSET_MASK;
    }

    /** {@link #offset} as the unsigned int a bitmap of offsets holds. */
    public static int offsetBits(long address) {
        return (int) address;
    }

    /** "fragment 3, offset 17", for messages. */
    public static String describe(long address) {
        return "fragment " + fragmentId(address) + ", offset " + offset(address);
    }
}
