package dev.lanceflink.encoding.compression;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Builds an FSST symbol table from a page of strings, following the iterative algorithm of the
 * FSST paper (Boncz, Neumann, Leis, VLDB 2020):
 *
 * <ol>
 *   <li>Take a sample of about 16 KiB of whole strings (all strings when the page is smaller),
 *       picked with a fixed seed so that the same page always yields the same table.</li>
 *   <li>Starting from an empty table, run rounds: compress the sample greedily with the current
 *       table, counting how often each symbol (or escaped byte) occurs and how often each pair of
 *       consecutive symbols occurs; then form candidates — every counted symbol and every
 *       concatenation of a counted pair (cut to 8 bytes), plus each symbol extended by the next byte
 *       — weigh each by {@code occurrences × length} (single bytes × 8, which lowers the escape rate)
 *       and keep the 255 heaviest as the next table. Rare candidates are dropped with a threshold
 *       that rises over the rounds ({@code 5·frac/128} occurrences for frac = 8, 38, 68, 98, 108, 128;
 *       the last round adds no pair candidates).</li>
 *   <li>Keep the table whose greedy compression of the sample saved the most bytes.</li>
 *   <li>Pages larger than a sample are trained on {@value #TRIALS} samples (fixed seeds); the
 *       table that compresses a stride sample of about 64 KiB of the page best wins.</li>
 * </ol>
 *
 * If no table saves bytes on the sample the strings are left uncompressed (an uncompressed table,
 * which every reader accepts). The result does not have to match Lance's table byte for byte (its sample is random); every
 * FSST decoder, Lance's included, decodes any valid table.
 */
final class FsstTrainer {
    private static final int SAMPLE_TARGET = 16 * 1024;
    private static final int[] FRACTIONS = {8, 38, 68, 98, 108, 128};
    private static final int MAX_SYMBOLS = 255;
    /** Extended codes: 0 … 254 table symbols, 256 + b the escaped single byte b. */
    private static final int EXT = 512;

    private static final long SAMPLE_SEED = 0x5EED_F557L;
    /** Samples (and tables) tried per page above {@link #SAMPLE_TARGET} bytes. */
    private static final int TRIALS = 3;

    private static final int VALIDATION_BYTES = 64 * 1024;

    private final byte[] sample;
    private final int[] sampleOffsets;
    private final int sampleCount;
    private final Scratch scratch;
    private final int[] count1;
    private final int[] count2;
    private final CandidateSet candidates;

    private FsstTrainer(byte[] sample, int[] sampleOffsets, int sampleCount, Scratch scratch) {
        this.sample = sample;
        this.sampleOffsets = sampleOffsets;
        this.sampleCount = sampleCount;
        this.scratch = scratch;
        this.count1 = scratch.count1;
        this.count2 = scratch.count2;
        // Distinct candidates ≤ 512 symbols + 2 pairs per greedy step (≤ 2 per sample byte): keep the load ≤ 1/2.
        int maxCandidates = 2 * sample.length + EXT;
        this.candidates = scratch.candidates(Integer.highestOneBit(2 * maxCandidates - 1) << 1);
        scratch.clearPairs();
    }

    /**
     * The counters, candidate set and matcher, shared by the trials of one page. They are large
     * (1 MiB of pair counters, a candidate set of some MiB, 128 KiB of 2-byte codes) next to the
     * 16 KiB sample, and allocating and clearing them for every trial and round cost more than
     * the training's matching: the pair counters are cleared where they were counted, the
     * candidates where they were added, the matcher where its last table was loaded.
     */
    private static final class Scratch {
        final int[] count1 = new int[EXT];
        final int[] count2 = new int[EXT * EXT];
        /**
         * One bit per cell of {@link #count2}, set where it is not 0: the counted pairs are
         * found (and cleared) word by word in (first, second) order, without scanning or
         * sorting the 1 MiB of counters.
         */
        final long[] counted = new long[EXT * EXT / 64];

        final FsstMatcher matcher = new FsstMatcher();
        private CandidateSet candidates;

        /** An empty candidate set of exactly {@code capacity} slots (the slots decide ties, so the capacity is kept). */
        CandidateSet candidates(int capacity) {
            if (candidates == null || candidates.values.length != capacity) {
                candidates = new CandidateSet(capacity);
            }
            candidates.clear();
            return candidates;
        }

        void clearPairs() {
            for (int w = 0; w < counted.length; w++) {
                long bits = counted[w];
                while (bits != 0) {
                    count2[(w << 6) + Long.numberOfTrailingZeros(bits)] = 0;
                    bits &= bits - 1;
                }
                counted[w] = 0;
            }
        }
    }

    static FsstSymbolTable train(byte[] data, long[] offsets, int count) {
        long total = offsets[count] - offsets[0];
        Scratch scratch = new Scratch();
        if (total <= SAMPLE_TARGET) {
            FsstTrainer trainer = sample(data, offsets, count, SAMPLE_SEED, scratch);
            return trainer.run(terminator(trainer.sample));
        }
        // A 16 KiB sample is a small part of a page, and which part it is moves the result by a few
        // percent either way; Lance draws one sample at random. Tables from a few samples, judged on a
        // larger stride sample of the page, keep the lucky one: bytes on disk for some extra training.
        FsstSymbolTable best = null;
        long bestSize = Long.MAX_VALUE;
        for (int t = 0; t < TRIALS; t++) {
            FsstTrainer trainer = sample(data, offsets, count, SAMPLE_SEED + t, scratch);
            FsstSymbolTable table = trainer.run(terminator(trainer.sample));
            long size = validationSize(table, data, offsets, count);
            if (size < bestSize) {
                bestSize = size;
                best = table;
            }
        }
        return best;
    }

    /** Compressed bytes of every {@code step}-th string, about {@link #VALIDATION_BYTES} of input. */
    private static long validationSize(FsstSymbolTable table, byte[] data, long[] offsets, int count) {
        long total = offsets[count] - offsets[0];
        long values = Math.max(1, VALIDATION_BYTES * (long) count / Math.max(1, total));
        int step = (int) Math.max(1, count / values);
        byte[] out = new byte[1024];
        long size = 0;
        for (int i = 0; i < count; i += step) {
            int start = Math.toIntExact(offsets[i]);
            int len = (int) (offsets[i + 1] - offsets[i]);
            if (out.length < 2 * len) {
                out = new byte[2 * len];
            }
            size += table.compress(data, start, len, out, 0);
        }
        return size;
    }

    /** Whole strings, about {@link #SAMPLE_TARGET} bytes; long strings are cut into 512-byte pieces. */
    private static FsstTrainer sample(byte[] data, long[] offsets, int count, long seed, Scratch scratch) {
        long total = offsets[count] - offsets[0];
        int cap = (int) Math.min(total, 2L * SAMPLE_TARGET + 512);
        byte[] buf = new byte[cap];
        int[] offs = new int[Math.max(2, count + 1)];
        int n = 0;
        int size = 0;
        if (total <= SAMPLE_TARGET) {
            for (int i = 0; i < count; i++) {
                int len = (int) (offsets[i + 1] - offsets[i]);
                System.arraycopy(data, Math.toIntExact(offsets[i]), buf, size, len);
                size += len;
                offs[++n] = size;
            }
        } else {
            SplittableRandom random = new SplittableRandom(seed);
            int[] grown = offs;
            while (size < SAMPLE_TARGET) {
                int i = random.nextInt(count);
                int start = Math.toIntExact(offsets[i]);
                int len = (int) Math.min(offsets[i + 1] - offsets[i], 512);
                if (len == 0) {
                    continue;
                }
                if (len > 8) {
                    start += random.nextInt((int) (offsets[i + 1] - offsets[i]) - len + 1);
                }
                if (n + 2 > grown.length) {
                    grown = Arrays.copyOf(grown, grown.length * 2);
                }
                System.arraycopy(data, start, buf, size, len);
                size += len;
                grown[++n] = size;
            }
            offs = grown;
        }
        return new FsstTrainer(Arrays.copyOf(buf, size), offs, n, scratch);
    }

    /** The least frequent byte of the sample (stored in the header as an encoder hint). */
    private static int terminator(byte[] sample) {
        int[] histo = new int[256];
        for (byte b : sample) {
            histo[b & 0xFF]++;
        }
        int best = 0;
        for (int b = 1; b < 256; b++) {
            if (histo[b] < histo[best]) {
                best = b;
            }
        }
        return best;
    }

    private FsstSymbolTable run(int terminator) {
        Table current = new Table(0, new long[256], new byte[256]);
        Table best = current;
        long bestGain = Long.MIN_VALUE;
        for (int round = 0; round <= FRACTIONS.length; round++) {
            boolean last = round == FRACTIONS.length;
            long gain = compressCount(current, !last && FRACTIONS[round] < 128);
            if (gain >= bestGain) {
                bestGain = gain;
                best = current;
            }
            if (!last) {
                current = makeTable(current, FRACTIONS[round]);
            }
        }
        if (bestGain <= 0) {
            // No table saves anything on this data (e.g. random bytes): store the strings as they are.
            return FsstSymbolTable.uncompressed();
        }
        return new FsstSymbolTable(true, best.count, best.symbols, best.lengths, 0, terminator);
    }

    /** Greedily compresses the sample with {@code table}; fills the counters and returns the bytes saved. */
    private long compressCount(Table table, boolean countPairs) {
        Arrays.fill(count1, 0);
        if (countPairs) {
            scratch.clearPairs();
        }
        long[] counted = scratch.counted;
        FsstMatcher matcher = scratch.matcher;
        matcher.reload(table.count, table.symbols, table.lengths);
        long gain = 0;
        for (int s = 0; s < sampleCount; s++) {
            int p = sampleOffsets[s];
            int end = sampleOffsets[s + 1];
            int prev = -1;
            while (p < end) {
                int m = matcher.match(sample, p, end);
                int ext;
                int len;
                if (m >= 0) {
                    ext = m & 0xFF;
                    len = m >>> 8;
                    gain += len - 1;
                } else {
                    ext = 256 + (sample[p] & 0xFF);
                    len = 1;
                    gain -= 1;
                }
                count1[ext]++;
                if (len > 1) {
                    count1[256 + (sample[p] & 0xFF)]++;
                }
                if (countPairs && prev >= 0) {
                    int pair = prev * EXT + ext;
                    count2[pair]++;
                    counted[pair >>> 6] |= 1L << pair;
                    if (len > 1) {
                        pair = prev * EXT + 256 + (sample[p] & 0xFF);
                        count2[pair]++;
                        counted[pair >>> 6] |= 1L << pair;
                    }
                }
                prev = ext;
                p += len;
            }
        }
        return gain;
    }

    private Table makeTable(Table table, int frac) {
        candidates.clear();
        int threshold = 5 * frac / 128;
        long[] counted = scratch.counted;
        for (int c1 = 0; c1 < EXT; c1++) {
            int n1 = count1[c1];
            if (n1 == 0) {
                continue;
            }
            long v1 = symbolValue(table, c1);
            int l1 = symbolLength(table, c1);
            if (n1 >= threshold) {
                candidates.add(v1, l1, (long) n1 * l1 * (l1 == 1 ? 8 : 1));
            }
            if (frac >= 128 || l1 == 8) {
                continue;
            }
            int row = c1 * EXT;
            // The counted pairs of this first symbol in ascending second symbol, the order a
            // scan of the row visits them in (candidates are added in that order, as always).
            for (int w = row >>> 6; w < (row + EXT) >>> 6; w++) {
                for (long bits = counted[w]; bits != 0; bits &= bits - 1) {
                    int c2 = (w << 6) + Long.numberOfTrailingZeros(bits) - row;
                    int n2 = count2[row + c2];
                    if (n2 < threshold) {
                        continue;
                    }
                    int l2 = symbolLength(table, c2);
                    int len = Math.min(8, l1 + l2);
                    long v = v1 | (symbolValue(table, c2) << (8 * l1));
                    if (len < 8) {
                        v &= (1L << (8 * len)) - 1;
                    }
                    candidates.add(v, len, (long) n2 * len);
                }
            }
        }
        int[] chosen = candidates.top(MAX_SYMBOLS);
        long[] symbols = new long[256];
        byte[] lengths = new byte[256];
        for (int i = 0; i < chosen.length; i++) {
            symbols[i] = candidates.value(chosen[i]);
            lengths[i] = (byte) candidates.length(chosen[i]);
        }
        return new Table(chosen.length, symbols, lengths);
    }

    private static long symbolValue(Table table, int ext) {
        return ext >= 256 ? ext - 256 : table.symbols[ext];
    }

    private static int symbolLength(Table table, int ext) {
        return ext >= 256 ? 1 : table.lengths[ext];
    }

    private record Table(int count, long[] symbols, byte[] lengths) {}

    /** Open-addressing map (symbol bytes, length) → accumulated weight, without boxing. */
    private static final class CandidateSet {
        private final long[] values;
        private final byte[] lengths;
        private final long[] weights;
        private final int[] used;
        private int size;

        CandidateSet(int capacity) {
            values = new long[capacity];
            lengths = new byte[capacity];
            weights = new long[capacity];
            used = new int[capacity];
        }

        void clear() {
            for (int i = 0; i < size; i++) {
                lengths[used[i]] = 0;
            }
            size = 0;
        }

        void add(long value, int length, long weight) {
            int mask = values.length - 1;
            long h = (value ^ ((long) length << 59)) * 0x9E3779B97F4A7C15L;
            int slot = (int) (h >>> 40) & mask;
            while (lengths[slot] != 0) {
                if (values[slot] == value && lengths[slot] == length) {
                    weights[slot] += weight;
                    return;
                }
                slot = (slot + 1) & mask;
            }
            if (size >= used.length - 1) {
                return; // full: cannot happen with the capacity chosen from the sample size
            }
            values[slot] = value;
            lengths[slot] = (byte) length;
            weights[slot] = weight;
            used[size++] = slot;
        }

        /** Slots of the {@code k} heaviest candidates (ties broken by slot, so the choice is deterministic). */
        int[] top(int k) {
            long[] keys = new long[size];
            for (int i = 0; i < size; i++) {
                int slot = used[i];
                long inverted = Integer.MAX_VALUE - Math.min(weights[slot], Integer.MAX_VALUE);
                keys[i] = inverted << 32 | slot;
            }
            Arrays.sort(keys);
            int n = Math.min(k, size);
            int[] out = new int[n];
            for (int i = 0; i < n; i++) {
                out[i] = (int) keys[i];
            }
            return out;
        }

        long value(int slot) {
            return values[slot];
        }

        int length(int slot) {
            return lengths[slot];
        }
    }
}
