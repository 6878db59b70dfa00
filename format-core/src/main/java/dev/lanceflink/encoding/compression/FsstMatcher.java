package dev.lanceflink.encoding.compression;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Greedy longest-symbol lookup over an FSST table, used to compress and, during training, to
 * measure a candidate table. Symbols of 3 … 8 bytes are found through an open-addressing hash of
 * their first three bytes, each bucket listing its symbols longest first; 2-byte symbols through a
 * 65536-entry table; 1-byte symbols through a 256-entry table. Unlike the reference FSST builder,
 * several long symbols may share a 3-byte prefix, so any valid table (also one parsed from a file)
 * compresses correctly.
 */
final class FsstMatcher {
    private static final VarHandle LONG_LE =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final int HASH_SLOTS = 1024;

    private final long[] symbols;
    private final byte[] lengths;
    /** code of the 1-byte symbol per byte value, or -1. */
    private final short[] byteCode = new short[256];
    /** code of the 2-byte symbol per (second byte << 8 | first byte), or -1. */
    private final short[] shortCode = new short[65536];
    /** 24-bit prefix per slot, -1 when empty. */
    private final int[] slotKey = new int[HASH_SLOTS];

    private final short[] slotStart = new short[HASH_SLOTS];
    private final short[] slotEnd = new short[HASH_SLOTS];
    /** codes of the long symbols, grouped by bucket, each group longest first. */
    private final short[] longCodes;

    FsstMatcher(int symbolCount, long[] symbols, byte[] lengths) {
        this.symbols = symbols;
        this.lengths = lengths;
        Arrays.fill(byteCode, (short) -1);
        Arrays.fill(shortCode, (short) -1);
        Arrays.fill(slotKey, -1);
        int longCount = 0;
        for (int c = 0; c < symbolCount; c++) {
            int len = lengths[c];
            if (len == 1) {
                byteCode[(int) symbols[c] & 0xFF] = (short) c;
            } else if (len == 2) {
                shortCode[(int) symbols[c] & 0xFFFF] = (short) c;
            } else {
                longCount++;
            }
        }
        // Order long symbols by (slot, length desc) so each bucket is one contiguous run.
        long[] order = new long[longCount];
        int k = 0;
        for (int c = 0; c < symbolCount; c++) {
            if (lengths[c] >= 3) {
                int slot = findSlot((int) symbols[c] & 0xFFFFFF, true);
                order[k++] = ((long) slot << 16) | ((long) (8 - lengths[c]) << 8) | c;
            }
        }
        Arrays.sort(order);
        longCodes = new short[longCount];
        for (int i = 0; i < longCount; i++) {
            int slot = (int) (order[i] >>> 16);
            longCodes[i] = (short) (order[i] & 0xFF);
            if (i == 0 || (int) (order[i - 1] >>> 16) != slot) {
                slotStart[slot] = (short) i;
            }
            slotEnd[slot] = (short) (i + 1);
        }
    }

    private static int hash(int key) {
        return (key * 0x9E3779B1) >>> 22;
    }

    /** Slot of a 24-bit prefix: its slot if present, else (when inserting) the free slot claimed for it, else -1. */
    private int findSlot(int key, boolean insert) {
        int slot = hash(key);
        while (true) {
            int k = slotKey[slot];
            if (k == key) {
                return slot;
            }
            if (k == -1) {
                if (insert) {
                    slotKey[slot] = key;
                    return slot;
                }
                return -1;
            }
            slot = (slot + 1) & (HASH_SLOTS - 1);
        }
    }

    /**
     * The longest symbol matching {@code src} at {@code pos} (with {@code end} the end of the
     * string): {@code code | length << 8}, or -1 when no symbol matches (the byte must be escaped).
     */
    int match(byte[] src, int pos, int end) {
        int remaining = end - pos;
        long word;
        if (remaining >= 8) {
            word = (long) LONG_LE.get(src, pos);
        } else {
            word = 0;
            for (int k = 0; k < remaining; k++) {
                word |= (src[pos + k] & 0xFFL) << (8 * k);
            }
        }
        if (remaining >= 3 && longCodes.length > 0) {
            int slot = findSlot((int) word & 0xFFFFFF, false);
            if (slot >= 0) {
                for (int i = slotStart[slot], e = slotEnd[slot]; i < e; i++) {
                    int c = longCodes[i];
                    int len = lengths[c];
                    if (len <= remaining) {
                        long masked = len == 8 ? word : word & ((1L << (8 * len)) - 1);
                        if (masked == symbols[c]) {
                            return c | len << 8;
                        }
                    }
                }
            }
        }
        if (remaining >= 2) {
            int c = shortCode[(int) word & 0xFFFF];
            if (c >= 0) {
                return c | 2 << 8;
            }
        }
        int c = byteCode[(int) word & 0xFF];
        return c >= 0 ? c | 1 << 8 : -1;
    }

    /** Compresses one string; {@code dst} has room for {@code 2·srcLength} bytes. */
    int compress(byte[] src, int srcOffset, int srcLength, byte[] dst, int dstOffset) {
        int p = srcOffset;
        int end = srcOffset + srcLength;
        int o = dstOffset;
        while (p < end) {
            int m = match(src, p, end);
            if (m >= 0) {
                dst[o++] = (byte) m;
                p += m >>> 8;
            } else {
                dst[o++] = (byte) FsstSymbolTable.ESCAPE;
                dst[o++] = src[p++];
            }
        }
        return o - dstOffset;
    }
}
