package dev.lanceflink.encoding.compression;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Greedy longest-symbol lookup over an FSST table, used to compress and, during training, to
 * measure a candidate table. Symbols of 3 … 8 bytes are found through an open-addressing hash of
 * their first three bytes, which tells the lengths of the symbols starting with them, and a
 * second open-addressing hash of (bytes, length) that is probed for each of those lengths,
 * longest first; 2-byte symbols through a 65536-entry table; 1-byte symbols through a 256-entry
 * table. Unlike the reference FSST builder, several long symbols may share a 3-byte prefix, so
 * any valid table (also one parsed from a file) compresses correctly.
 *
 * <p>Why two hashes rather than a list of symbols per prefix: trained on similar strings (names
 * like {@code user-123456}), dozens of symbols share their first three bytes, and scanning them
 * at every position made compression cost ~100 ns per 11-byte string; with at most six probes per
 * position it does not depend on how many symbols share a prefix.
 */
final class FsstMatcher {
    private static final VarHandle LONG_LE =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final int HASH_SLOTS = 1024;
    /** Slots of the (bytes, length) hash: at most 255 long symbols, so the load stays at most 1/4. */
    private static final int SYMBOL_SLOTS = 1024;

    private static final int SYMBOL_SHIFT = 64 - Integer.numberOfTrailingZeros(SYMBOL_SLOTS);

    /** code of the 1-byte symbol per byte value, or -1. */
    private final short[] byteCode = new short[256];
    /** code of the 2-byte symbol per (second byte << 8 | first byte), or -1. */
    private final short[] shortCode = new short[65536];
    /** 24-bit prefix per slot, -1 when empty. */
    private final int[] slotKey = new int[HASH_SLOTS];
    /** Per prefix slot: bit {@code len - 3} set when a symbol of {@code len} bytes starts with the prefix. */
    private final byte[] slotLengths = new byte[HASH_SLOTS];
    /** The (bytes, length) hash of the long symbols: bytes, length (0 = empty slot) and code. */
    private final long[] symbolWord = new long[SYMBOL_SLOTS];

    private final byte[] symbolLength = new byte[SYMBOL_SLOTS];
    private final short[] symbolCode = new short[SYMBOL_SLOTS];
    private boolean anyLong;
    /** The keys {@link #shortCode} holds codes at, for {@link #reload}. */
    private int[] loadedShort = new int[0];

    private int loadedShorts;

    FsstMatcher(int symbolCount, long[] symbols, byte[] lengths) {
        Arrays.fill(byteCode, (short) -1);
        Arrays.fill(shortCode, (short) -1);
        Arrays.fill(slotKey, -1);
        load(symbolCount, symbols, lengths);
    }

    /**
     * An empty matcher for {@link #reload}: the trainer matches with a new table every round, and
     * reloading clears only what the last table set instead of allocating and filling the 128 KiB
     * of 2-byte codes again.
     */
    FsstMatcher() {
        this(0, new long[0], new byte[0]);
    }

    /** Replaces the table this matcher looks symbols up in. */
    void reload(int symbolCount, long[] symbols, byte[] lengths) {
        for (int i = 0; i < loadedShorts; i++) {
            shortCode[loadedShort[i]] = -1;
        }
        Arrays.fill(byteCode, (short) -1);
        Arrays.fill(slotKey, -1);
        Arrays.fill(slotLengths, (byte) 0);
        Arrays.fill(symbolLength, (byte) 0);
        load(symbolCount, symbols, lengths);
    }

    private void load(int symbolCount, long[] symbols, byte[] lengths) {
        if (loadedShort.length < symbolCount) {
            loadedShort = new int[symbolCount];
        }
        loadedShorts = 0;
        boolean longs = false;
        // Codes in ascending order; a long symbol is kept only if new, so equal long symbols match
        // the lowest code, equal short ones the highest (as the matcher always did).
        for (int c = 0; c < symbolCount; c++) {
            int len = lengths[c];
            if (len == 1) {
                byteCode[(int) symbols[c] & 0xFF] = (short) c;
            } else if (len == 2) {
                int key = (int) symbols[c] & 0xFFFF;
                shortCode[key] = (short) c;
                loadedShort[loadedShorts++] = key;
            } else {
                longs = true;
                int slot = findSlot((int) symbols[c] & 0xFFFFFF, true);
                slotLengths[slot] |= (byte) (1 << (len - 3));
                int h = symbolSlot(symbols[c], len);
                while (symbolLength[h] != 0 && !(symbolLength[h] == len && symbolWord[h] == symbols[c])) {
                    h = (h + 1) & (SYMBOL_SLOTS - 1);
                }
                if (symbolLength[h] == 0) {
                    symbolWord[h] = symbols[c];
                    symbolLength[h] = (byte) len;
                    symbolCode[h] = (short) c;
                }
            }
        }
        this.anyLong = longs;
    }

    private static int hash(int key) {
        return (key * 0x9E3779B1) >>> 22;
    }

    private static int symbolSlot(long word, int len) {
        return (int) (((word + len) * 0x9E3779B97F4A7C15L) >>> SYMBOL_SHIFT);
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

    /** The code of the {@code len}-byte symbol {@code word} (higher bytes zero), or -1. */
    private int longCode(long word, int len) {
        int h = symbolSlot(word, len);
        while (true) {
            int l = symbolLength[h];
            if (l == 0) {
                return -1;
            }
            if (l == len && symbolWord[h] == word) {
                return symbolCode[h];
            }
            h = (h + 1) & (SYMBOL_SLOTS - 1);
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
        if (remaining >= 3 && anyLong) {
            int slot = findSlot((int) word & 0xFFFFFF, false);
            if (slot >= 0) {
                int lens = slotLengths[slot] & 0xFF;
                if (remaining < 8) {
                    lens &= (1 << (remaining - 2)) - 1; // only symbols of at most `remaining` bytes
                }
                while (lens != 0) {
                    int bit = 31 - Integer.numberOfLeadingZeros(lens);
                    int len = bit + 3;
                    int c = longCode(len == 8 ? word : word & ((1L << (8 * len)) - 1), len);
                    if (c >= 0) {
                        return c | len << 8;
                    }
                    lens &= ~(1 << bit);
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
