package dev.lanceflink.encoding.compression;

/**
 * A deliberately naive, bit-by-bit transcription of compression.md §3.2, used only to check the
 * optimised kernel: value {@code i = FL_ORDER[r/8]·16 + (r%8)·128 + ℓ} is row {@code r} of lane
 * {@code ℓ}, stored in bits {@code [r·W, r·W+W)} of the lane's little-endian word stream, whose
 * word {@code k} sits at word position {@code k·LANES + ℓ}.
 */
final class FastLanesReference {
    private static final int[] FL_ORDER = {0, 4, 2, 6, 1, 5, 3, 7};

    private FastLanesReference() {}

    static byte[] pack(int t, int width, long[] values) {
        int lanes = 1024 / t;
        byte[] out = new byte[128 * width];
        for (int lane = 0; lane < lanes; lane++) {
            for (int r = 0; r < t; r++) {
                int i = FL_ORDER[r / 8] * 16 + (r % 8) * 128 + lane;
                long v = i < values.length ? values[i] : 0;
                for (int b = 0; b < width; b++) {
                    if (((v >>> b) & 1) != 0) {
                        int bit = r * width + b;
                        int word = bit / t;
                        int inWord = bit % t;
                        int byteIndex = (word * lanes + lane) * (t / 8) + inWord / 8;
                        out[byteIndex] |= (byte) (1 << (inWord % 8));
                    }
                }
            }
        }
        return out;
    }

    static long[] unpack(int t, int width, byte[] packed) {
        int lanes = 1024 / t;
        long[] values = new long[1024];
        for (int lane = 0; lane < lanes; lane++) {
            for (int r = 0; r < t; r++) {
                int i = FL_ORDER[r / 8] * 16 + (r % 8) * 128 + lane;
                long v = 0;
                for (int b = 0; b < width; b++) {
                    int bit = r * width + b;
                    int word = bit / t;
                    int inWord = bit % t;
                    int byteIndex = (word * lanes + lane) * (t / 8) + inWord / 8;
                    if ((packed[byteIndex] & (1 << (inWord % 8))) != 0) {
                        v |= 1L << b;
                    }
                }
                values[i] = v;
            }
        }
        return values;
    }
}
