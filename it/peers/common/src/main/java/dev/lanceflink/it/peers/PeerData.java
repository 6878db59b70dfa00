package dev.lanceflink.it.peers;

/**
 * The one deterministic generator of the peer benchmark, and the checksums of what each table must
 * hold afterwards. Pure Java on purpose: this file is compiled into every system's runner (ours in
 * the it module, Paimon's and Iceberg's standalone projects), so all of them write exactly the
 * same values, generated at the same cost inside the job, and their scans are checked against the
 * same expected state.
 *
 * <p>A row is a function of its id and a seed: {@code (id int64, name string, age int32, score
 * float64, vec float32[dim])}; the initial rows use {@code seed = id}. Updates visit the keys in
 * the order {@code (j * stride) % rows}, a permutation when the stride is coprime with the row
 * count, so no key is changed twice in one workload and the expected state does not depend on
 * the order in which the systems apply the changes.
 */
public final class PeerData {
    /** The scan checksums of a table state: rows, the (id, age) sum and the whole-row sum. */
    public record Expected(long rows, long narrowSum, long fullSum) {}

    /** Kinds of the streaming changelog: 10% inserts, 5% deletes, the rest updates. */
    public enum Change { INSERT, UPDATE, DELETE }

    /** Seeds of streamed rows start here, far from every id, so their cells differ from the old ones. */
    static final long STREAM_SEED_BASE = 1L << 40;

    private PeerData() {}

    /** SplitMix64's finalizer: cheap, well mixed, the same on every JVM. */
    public static long mix(long x) {
        x = (x ^ (x >>> 30)) * 0xBF58476D1CE4E5B9L;
        x = (x ^ (x >>> 27)) * 0x94D049BB133111EBL;
        return x ^ (x >>> 31);
    }

    public static String name(long seed) {
        return "user-" + seed;
    }

    public static int age(long seed) {
        return (int) Long.remainderUnsigned(mix(seed), 100);
    }

    public static double score(long seed) {
        return (mix(seed ^ 0x5DEECE66DL) >>> 11) * 0x1.0p-53 * 1000.0;
    }

    /** Fills {@code out} with floats in [-1, 1) from a xorshift stream seeded by {@code seed}. */
    public static void vector(long seed, float[] out) {
        long s = mix(seed + 0x9E3779B97F4A7C15L) | 1;
        for (int d = 0; d < out.length; d++) {
            s ^= s << 13;
            s ^= s >>> 7;
            s ^= s << 17;
            out[d] = (float) ((s >>> 40) * 0x1.0p-23 - 1.0);
        }
    }

    /**
     * The smallest stride from 7919 up that is coprime with {@code rows}, so that {@link
     * #changedKey} visits each key at most once.
     */
    public static long stride(long rows) {
        long s = 7919;
        while (gcd(s, rows) != 1) {
            s++;
        }
        return s;
    }

    private static long gcd(long a, long b) {
        while (b != 0) {
            long t = a % b;
            a = b;
            b = t;
        }
        return a;
    }

    /** The key the {@code j}-th update or change touches, on a table of ids [0, rows). */
    public static long changedKey(long j, long rows, long stride) {
        return Math.floorMod(j * stride, rows);
    }

    /** The new age of the {@code j}-th cell update: 100..199, never an initial age (0..99). */
    public static int updatedAge(long j) {
        return 100 + (int) (j % 100);
    }

    public static Change change(long j) {
        int bucket = (int) Long.remainderUnsigned(mix(j ^ 0x2545F4914F6CDD1DL), 20);
        return bucket < 2 ? Change.INSERT : bucket == 2 ? Change.DELETE : Change.UPDATE;
    }

    /** The id the {@code j}-th change writes: a new id for inserts, an existing one otherwise. */
    public static long changeId(long j, long rows, long stride) {
        return change(j) == Change.INSERT ? rows + j : changedKey(j, rows, stride);
    }

    /** The seed of the row the {@code j}-th insert or update writes. */
    public static long changeSeed(long j) {
        return STREAM_SEED_BASE + j;
    }

    // ---- checksums ---------------------------------------------------------------------------------

    /** Order-independent: tables are summed row by row, whatever order the scans return. */
    public static long narrowHash(long id, int age) {
        return mix(id * 1_000_003L + age + 17);
    }

    public static long fullHash(long id, String name, int age, double score, float[] vec, int dim) {
        long h = mix(id);
        h = h * 31 + name.hashCode();
        h = h * 31 + age;
        h = h * 31 + Double.hashCode(score);
        for (int d = 0; d < dim; d++) {
            h = h * 0x100000001B3L ^ Float.floatToIntBits(vec[d]);
        }
        return mix(h);
    }

    /** The update table after {@code updates} cell updates of {@code age}. */
    public static Expected afterUpdates(long rows, int dim, long updates) {
        long stride = stride(rows);
        int[] age = new int[Math.toIntExact(rows)];
        for (int k = 0; k < rows; k++) {
            age[k] = age(k);
        }
        for (long j = 0; j < updates; j++) {
            age[(int) changedKey(j, rows, stride)] = updatedAge(j);
        }
        float[] vec = new float[dim];
        long narrow = 0;
        long full = 0;
        for (int k = 0; k < rows; k++) {
            vector(k, vec);
            narrow += narrowHash(k, age[k]);
            full += fullHash(k, name(k), age[k], score(k), vec, dim);
        }
        return new Expected(rows, narrow, full);
    }

    /** The append table of {@code rows} rows after {@code changes} streamed changes (full rows). */
    public static Expected afterChanges(long rows, int dim, long changes) {
        long stride = stride(rows);
        int n = Math.toIntExact(rows + changes);
        long[] seed = new long[n]; // -1: absent
        for (int k = 0; k < n; k++) {
            seed[k] = k < rows ? k : -1;
        }
        for (long j = 0; j < changes; j++) {
            int id = (int) changeId(j, rows, stride);
            seed[id] = change(j) == Change.DELETE ? -1 : changeSeed(j);
        }
        float[] vec = new float[dim];
        long count = 0;
        long narrow = 0;
        long full = 0;
        for (int k = 0; k < n; k++) {
            long s = seed[k];
            if (s < 0) {
                continue;
            }
            count++;
            vector(s, vec);
            narrow += narrowHash(k, age(s));
            full += fullHash(k, name(s), age(s), score(s), vec, dim);
        }
        return new Expected(count, narrow, full);
    }
}
