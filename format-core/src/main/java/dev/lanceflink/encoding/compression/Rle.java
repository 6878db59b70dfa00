package dev.lanceflink.encoding.compression;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * {@code rle} (CompressiveEncoding member 8, compression.md §3.5): runs of equal T-bit values
 * (T = 8, 16, 32, 64; floats and dates compared as raw bit patterns) stored as two parallel arrays,
 * the run values ({@code T/8} bytes each, little-endian) and the run lengths (one unsigned byte
 * each, 1 … 255; longer runs are split into 255s plus a remainder). 7.0.0 always uses u8 lengths.
 *
 * <p>Two byte formats:
 * <ul>
 *   <li><b>mini-block</b>: the chunk has two value buffers, run values then run lengths.</li>
 *   <li><b>block</b> (2.2 rep/def levels): {@code [u64 V][run values: V bytes][run lengths: V/(T/8) bytes]}.</li>
 * </ul>
 *
 * <p>Decoding rule, both forms: expand the runs in order and <em>stop as soon as the requested
 * count is reached</em>. Lance's mini-block writer rolls a chunk back to a power-of-two checkpoint in
 * the middle of a run, so the runs of a non-final chunk may describe more values than the chunk
 * holds; the surplus reappears at the start of the next chunk. Runs that describe fewer values than
 * requested are an error.
 */
public final class Rle {
    private static final String SCHEME = "rle";

    private Rle() {}

    // ---------------------------------------------------------------- decoding (mini-block form)

    /**
     * Expands {@code count} raw little-endian T-bit values into {@code dst} at {@code dstOffset}
     * from the run values {@code [runValuesOffset, +runValuesLength)} and the u8 run lengths
     * {@code [runLengthsOffset, +runLengthsLength)} (they may live in the same buffer).
     */
    public static void decode(
            int bitsPerValue,
            ByteBuffer runValues,
            int runValuesOffset,
            int runValuesLength,
            ByteBuffer runLengths,
            int runLengthsOffset,
            int runLengthsLength,
            int count,
            ByteBuffer dst,
            int dstOffset) {
        int t = Buffers.checkWordBits(SCHEME, bitsPerValue);
        int runs = checkRuns(
                t, runValues, runValuesOffset, runValuesLength, runLengths, runLengthsOffset, runLengthsLength, count);
        Buffers.checkOutput(dst, dstOffset, (long) count * (t / 8));
        ByteBuffer values = Buffers.le(runValues);
        ByteBuffer out = Buffers.le(dst);
        int bytes = t / 8;
        int produced = 0;
        for (int run = 0; run < runs && produced < count; run++) {
            int len = Math.min(runLengths.get(runLengthsOffset + run) & 0xFF, count - produced);
            int p = dstOffset + produced * bytes;
            int end = p + len * bytes;
            int v = runValuesOffset + run * bytes;
            switch (t) {
                case 8 -> {
                    byte x = values.get(v);
                    for (; p < end; p++) {
                        out.put(p, x);
                    }
                }
                case 16 -> {
                    short x = values.getShort(v);
                    for (; p < end; p += 2) {
                        out.putShort(p, x);
                    }
                }
                case 32 -> {
                    int x = values.getInt(v);
                    for (; p < end; p += 4) {
                        out.putInt(p, x);
                    }
                }
                default -> {
                    long x = values.getLong(v);
                    for (; p < end; p += 8) {
                        out.putLong(p, x);
                    }
                }
            }
            produced += len;
        }
        checkProduced(produced, count, runs);
    }

    /** As the generic {@code decode} for 16-bit values (rep/def levels) into a {@code short[]}. */
    public static void decode(
            ByteBuffer runValues,
            int runValuesOffset,
            int runValuesLength,
            ByteBuffer runLengths,
            int runLengthsOffset,
            int runLengthsLength,
            int count,
            short[] dst,
            int dstOffset) {
        int runs = checkRuns(
                16, runValues, runValuesOffset, runValuesLength, runLengths, runLengthsOffset, runLengthsLength, count);
        Buffers.checkArray(SCHEME, "decoded values", dst.length, dstOffset, count);
        ByteBuffer values = Buffers.le(runValues);
        int produced = 0;
        for (int run = 0; run < runs && produced < count; run++) {
            int len = Math.min(runLengths.get(runLengthsOffset + run) & 0xFF, count - produced);
            Arrays.fill(
                    dst, dstOffset + produced, dstOffset + produced + len, values.getShort(runValuesOffset + 2 * run));
            produced += len;
        }
        checkProduced(produced, count, runs);
    }

    /** As the generic {@code decode} for 32-bit values (e.g. dictionary indices) into an {@code int[]}. */
    public static void decode(
            ByteBuffer runValues,
            int runValuesOffset,
            int runValuesLength,
            ByteBuffer runLengths,
            int runLengthsOffset,
            int runLengthsLength,
            int count,
            int[] dst,
            int dstOffset) {
        int runs = checkRuns(
                32, runValues, runValuesOffset, runValuesLength, runLengths, runLengthsOffset, runLengthsLength, count);
        Buffers.checkArray(SCHEME, "decoded values", dst.length, dstOffset, count);
        ByteBuffer values = Buffers.le(runValues);
        int produced = 0;
        for (int run = 0; run < runs && produced < count; run++) {
            int len = Math.min(runLengths.get(runLengthsOffset + run) & 0xFF, count - produced);
            Arrays.fill(
                    dst, dstOffset + produced, dstOffset + produced + len, values.getInt(runValuesOffset + 4 * run));
            produced += len;
        }
        checkProduced(produced, count, runs);
    }

    /** As the generic {@code decode} for 64-bit values into a {@code long[]}. */
    public static void decode(
            ByteBuffer runValues,
            int runValuesOffset,
            int runValuesLength,
            ByteBuffer runLengths,
            int runLengthsOffset,
            int runLengthsLength,
            int count,
            long[] dst,
            int dstOffset) {
        int runs = checkRuns(
                64, runValues, runValuesOffset, runValuesLength, runLengths, runLengthsOffset, runLengthsLength, count);
        Buffers.checkArray(SCHEME, "decoded values", dst.length, dstOffset, count);
        ByteBuffer values = Buffers.le(runValues);
        int produced = 0;
        for (int run = 0; run < runs && produced < count; run++) {
            int len = Math.min(runLengths.get(runLengthsOffset + run) & 0xFF, count - produced);
            Arrays.fill(
                    dst, dstOffset + produced, dstOffset + produced + len, values.getLong(runValuesOffset + 8 * run));
            produced += len;
        }
        checkProduced(produced, count, runs);
    }

    private static int checkRuns(
            int t,
            ByteBuffer runValues,
            int runValuesOffset,
            int runValuesLength,
            ByteBuffer runLengths,
            int runLengthsOffset,
            int runLengthsLength,
            int count) {
        Buffers.checkCount(SCHEME, count);
        Buffers.checkRange(SCHEME, "run values", runValues, runValuesOffset, runValuesLength);
        Buffers.checkRange(SCHEME, "run lengths", runLengths, runLengthsOffset, runLengthsLength);
        int bytes = t / 8;
        if (runValuesLength % bytes != 0 || runValuesLength / bytes != runLengthsLength) {
            throw new CompressedDataException(SCHEME + ": " + runValuesLength + " bytes of " + t
                    + "-bit run values do not pair up with " + runLengthsLength
                    + " one-byte run lengths; expected " + bytes + " value bytes per run length");
        }
        return runLengthsLength;
    }

    private static void checkProduced(int produced, int count, int runs) {
        if (produced < count) {
            throw new CompressedDataException(SCHEME + ": the " + runs + " runs describe only " + produced
                    + " values but " + count + " were expected; the run lengths or the value count are wrong");
        }
    }

    // ---------------------------------------------------------------- decoding (block form)

    /**
     * Decodes the block form {@code [u64 V][run values][run lengths]} in
     * {@code [srcOffset, srcOffset+srcLength)} into {@code count} raw little-endian T-bit values.
     */
    public static void decodeBlock(
            int bitsPerValue, ByteBuffer src, int srcOffset, int srcLength, int count, ByteBuffer dst, int dstOffset) {
        int t = Buffers.checkWordBits(SCHEME, bitsPerValue);
        int valuesLength = blockValuesLength(t, src, srcOffset, srcLength);
        decode(
                t,
                src,
                srcOffset + 8,
                valuesLength,
                src,
                srcOffset + 8 + valuesLength,
                valuesLength / (t / 8),
                count,
                dst,
                dstOffset);
    }

    /** Decodes the block form for 16-bit values (2.2 rep/def levels) into a {@code short[]}. */
    public static void decodeBlock(
            ByteBuffer src, int srcOffset, int srcLength, int count, short[] dst, int dstOffset) {
        int valuesLength = blockValuesLength(16, src, srcOffset, srcLength);
        decode(
                src,
                srcOffset + 8,
                valuesLength,
                src,
                srcOffset + 8 + valuesLength,
                valuesLength / 2,
                count,
                dst,
                dstOffset);
    }

    private static int blockValuesLength(int t, ByteBuffer src, int srcOffset, int srcLength) {
        Buffers.checkRange(SCHEME, "block", src, srcOffset, srcLength);
        if (srcLength < 8) {
            throw new CompressedDataException(
                    SCHEME + ": block of " + srcLength + " bytes is shorter than its 8-byte run-values-size header");
        }
        long v = Buffers.le(src).getLong(srcOffset);
        int bytes = t / 8;
        if (v < 0 || v % bytes != 0 || 8 + v + v / bytes != srcLength) {
            throw new CompressedDataException(SCHEME + ": block header declares " + v + " bytes of " + t
                    + "-bit run values, so the block should be 8 + " + v + " + " + (v / bytes)
                    + " bytes, but it has " + srcLength + " bytes");
        }
        return (int) v;
    }

    // ---------------------------------------------------------------- encoding

    /**
     * Number of run entries (pairs) {@link #encode} produces for these values: maximal runs of
     * equal values, each split into ceil(length / 255) entries.
     */
    public static int countEntries(int bitsPerValue, ByteBuffer src, int srcOffset, int count) {
        int t = Buffers.checkWordBits(SCHEME, bitsPerValue);
        checkSource(t, src, srcOffset, count);
        ByteBuffer in = Buffers.le(src);
        int bytes = t / 8;
        int entries = 0;
        int i = 0;
        while (i < count) {
            long v = read(in, srcOffset + i * bytes, t);
            int j = i + 1;
            while (j < count && j - i < 255 && read(in, srcOffset + j * bytes, t) == v) {
                j++;
            }
            entries++;
            i = j;
        }
        return entries;
    }

    /**
     * Encodes {@code count} raw little-endian T-bit values into run values (at
     * {@code runValuesOffset} of {@code runValues}, {@code T/8} bytes per entry) and u8 run lengths
     * (at {@code runLengthsOffset} of {@code runLengths}).
     *
     * @return the number of entries written ({@link #countEntries})
     */
    public static int encode(
            int bitsPerValue,
            ByteBuffer src,
            int srcOffset,
            int count,
            ByteBuffer runValues,
            int runValuesOffset,
            ByteBuffer runLengths,
            int runLengthsOffset) {
        int t = Buffers.checkWordBits(SCHEME, bitsPerValue);
        checkSource(t, src, srcOffset, count);
        ByteBuffer in = Buffers.le(src);
        ByteBuffer values = Buffers.le(runValues);
        int bytes = t / 8;
        int entries = 0;
        int i = 0;
        while (i < count) {
            long v = read(in, srcOffset + i * bytes, t);
            int j = i + 1;
            while (j < count && j - i < 255 && read(in, srcOffset + j * bytes, t) == v) {
                j++;
            }
            int vp = runValuesOffset + entries * bytes;
            Buffers.checkOutput(runValues, vp, bytes);
            Buffers.checkOutput(runLengths, runLengthsOffset + entries, 1);
            switch (t) {
                case 8 -> values.put(vp, (byte) v);
                case 16 -> values.putShort(vp, (short) v);
                case 32 -> values.putInt(vp, (int) v);
                default -> values.putLong(vp, v);
            }
            runLengths.put(runLengthsOffset + entries, (byte) (j - i));
            entries++;
            i = j;
        }
        return entries;
    }

    /** Encodes 16-bit values (rep/def levels); see {@link #encode(int, ByteBuffer, int, int, ByteBuffer, int, ByteBuffer, int)}. */
    public static int encode(
            short[] src,
            int srcOffset,
            int count,
            ByteBuffer runValues,
            int runValuesOffset,
            ByteBuffer runLengths,
            int runLengthsOffset) {
        Buffers.checkArray(SCHEME, "values to encode", src.length, srcOffset, count);
        ByteBuffer values = Buffers.le(runValues);
        int entries = 0;
        int i = 0;
        while (i < count) {
            short v = src[srcOffset + i];
            int j = i + 1;
            while (j < count && j - i < 255 && src[srcOffset + j] == v) {
                j++;
            }
            Buffers.checkOutput(runValues, runValuesOffset + 2L * entries, 2);
            Buffers.checkOutput(runLengths, runLengthsOffset + (long) entries, 1);
            values.putShort(runValuesOffset + 2 * entries, v);
            runLengths.put(runLengthsOffset + entries, (byte) (j - i));
            entries++;
            i = j;
        }
        return entries;
    }

    /** Most values Lance puts in one mini-block chunk. */
    public static final int MAX_CHUNK_VALUES = 4096;
    /** Most bytes of runs (values plus lengths) Lance puts in one mini-block chunk. */
    public static final int MAX_CHUNK_RUN_BYTES = 8186;

    /**
     * How many of the next {@code remaining} values a writer should put into one mini-block chunk:
     * all of them when they are at most {@value #MAX_CHUNK_VALUES} and their runs take at most
     * {@value #MAX_CHUNK_RUN_BYTES} bytes (the final chunk), otherwise the largest power of two
     * (at least 2, at most 4096) whose runs fit that budget. Chunks cut this way never overshoot:
     * their runs describe exactly their values (Lance's own writer may overshoot, which readers
     * accept; both are valid).
     */
    public static int miniBlockChunkValues(int bitsPerValue, ByteBuffer src, int srcOffset, int remaining) {
        int t = Buffers.checkWordBits(SCHEME, bitsPerValue);
        checkSource(t, src, srcOffset, remaining);
        if (remaining <= 1) {
            return remaining;
        }
        ByteBuffer in = Buffers.le(src);
        int bytes = t / 8;
        int limit = Math.min(remaining, MAX_CHUNK_VALUES);
        int entries = 0;
        int runLength = 0;
        long previous = 0;
        int bestPowerOfTwo = 1;
        for (int i = 0; i < limit; i++) {
            long v = read(in, srcOffset + i * bytes, t);
            if (i == 0 || v != previous || runLength == 255) {
                entries++;
                runLength = 1;
                previous = v;
            } else {
                runLength++;
            }
            if ((long) entries * (bytes + 1) > MAX_CHUNK_RUN_BYTES) {
                return bestPowerOfTwo;
            }
            int prefix = i + 1;
            if ((prefix & (prefix - 1)) == 0) {
                bestPowerOfTwo = prefix;
            }
        }
        return remaining <= MAX_CHUNK_VALUES ? remaining : bestPowerOfTwo;
    }

    /** Upper bound of {@link #encodeBlock} output: {@code 8 + count·(T/8 + 1)}. */
    public static long maxEncodedBlockSize(int bitsPerValue, int count) {
        int t = Buffers.checkWordBits(SCHEME, bitsPerValue);
        Buffers.checkCount(SCHEME, count);
        return 8 + (long) count * (t / 8 + 1);
    }

    /**
     * Writes the block form {@code [u64 V][run values][run lengths]} of {@code count} raw T-bit
     * values at {@code dstOffset} of {@code dst}.
     *
     * @return bytes written
     */
    public static int encodeBlock(
            int bitsPerValue, ByteBuffer src, int srcOffset, int count, ByteBuffer dst, int dstOffset) {
        int t = Buffers.checkWordBits(SCHEME, bitsPerValue);
        int entries = countEntries(t, src, srcOffset, count);
        int valuesLength = entries * (t / 8);
        Buffers.checkOutput(dst, dstOffset, 8L + valuesLength + entries);
        ByteBuffer out = Buffers.le(dst);
        out.putLong(dstOffset, valuesLength);
        encode(t, src, srcOffset, count, out, dstOffset + 8, out, dstOffset + 8 + valuesLength);
        return 8 + valuesLength + entries;
    }

    /** Writes the block form for 16-bit values (2.2 rep/def levels). */
    public static int encodeBlock(short[] src, int srcOffset, int count, ByteBuffer dst, int dstOffset) {
        Buffers.checkArray(SCHEME, "values to encode", src.length, srcOffset, count);
        int entries = 0;
        for (int i = 0; i < count; ) {
            int j = i + 1;
            while (j < count && j - i < 255 && src[srcOffset + j] == src[srcOffset + i]) {
                j++;
            }
            entries++;
            i = j;
        }
        int valuesLength = entries * 2;
        Buffers.checkOutput(dst, dstOffset, 8L + valuesLength + entries);
        ByteBuffer out = Buffers.le(dst);
        out.putLong(dstOffset, valuesLength);
        encode(src, srcOffset, count, out, dstOffset + 8, out, dstOffset + 8 + valuesLength);
        return 8 + valuesLength + entries;
    }

    private static void checkSource(int t, ByteBuffer src, int srcOffset, int count) {
        Buffers.checkCount(SCHEME, count);
        if (srcOffset < 0 || (long) srcOffset + (long) count * (t / 8) > src.limit()) {
            throw new IndexOutOfBoundsException(SCHEME + ": values to encode need bytes [" + srcOffset + ", "
                    + ((long) srcOffset + (long) count * (t / 8)) + ") but the source has " + src.limit());
        }
    }

    private static long read(ByteBuffer in, int pos, int t) {
        return switch (t) {
            case 8 -> in.get(pos);
            case 16 -> in.getShort(pos);
            case 32 -> in.getInt(pos);
            default -> in.getLong(pos);
        };
    }
}
