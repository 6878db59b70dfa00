package dev.lanceflink.flink.sink.upsert;

import dev.lanceflink.table.RowAddress;
import java.util.HashMap;
import java.util.Random;
import java.util.UUID;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;

/**
 * Put and get ns/op of the key maps ({@link LongKeyLocationMap}, {@link KeyLocationIndex}) against
 * {@code HashMap<BinaryRowData, long[]>} (what heap keyed state amounts to, minus its own
 * overhead), for BIGINT keys and UUID string keys, keys prebuilt as binary rows and hashed per
 * operation as the resolver would. Not a test: run its main (args: keys, rounds). Next to the
 * code because the maps are package-private.
 */
public final class KeyLocationsBenchmark {
    private KeyLocationsBenchmark() {}

    private interface Map {
        void put(BinaryRowData key, long location);

        long get(BinaryRowData key);

        long bytes();
    }

    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        only = args.length > 2 ? args[2] : "";
        Random random = new Random(1);
        RowDataSerializer longKeys = new RowDataSerializer(RowType.of(new BigIntType(false)));
        RowDataSerializer stringKeys =
                new RowDataSerializer(RowType.of(new VarCharType(false, VarCharType.MAX_LENGTH)));
        BinaryRowData[] bigints = new BinaryRowData[n];
        BinaryRowData[] uuids = new BinaryRowData[n];
        for (int i = 0; i < n; i++) {
            bigints[i] = longKeys.toBinaryRow(GenericRowData.of(random.nextLong() >>> 20))
                    .copy();
            uuids[i] = stringKeys
                    .toBinaryRow(GenericRowData.of(
                            StringData.fromString(UUID.randomUUID().toString())))
                    .copy();
        }
        int[] order = new int[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        for (int i = n - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        System.out.printf(
                "%d keys, %d rounds, best round per cell (ns/op); machine shared, figures noisy%n", n, rounds);
        System.out.printf("%-34s %10s %10s %12s%n", "map", "put", "get", "bytes/key");
        run("BIGINT LongKeyLocationMap (long)", n, rounds, bigints, order, () -> longApi());
        run(
                "BIGINT LongKeyLocationMap (row)",
                n,
                rounds,
                bigints,
                order,
                () -> of(new LongKeyLocationMap(LongKeyLocationMap.IntegralKey.BIGINT)));
        run(
                "BIGINT LongKeyLocationMap (row, hash 0)",
                n,
                rounds,
                bigints,
                order,
                () -> noHash(new LongKeyLocationMap(LongKeyLocationMap.IntegralKey.BIGINT)));
        run("BIGINT KeyLocationIndex", n, rounds, bigints, order, () -> of(new KeyLocationIndex(1)));
        run("BIGINT HashMap<BinaryRowData,long[]>", n, rounds, bigints, order, KeyLocationsBenchmark::hashMap);
        run("UUID KeyLocationIndex", n, rounds, uuids, order, () -> of(new KeyLocationIndex(1)));
        run("UUID HashMap<BinaryRowData,long[]>", n, rounds, uuids, order, KeyLocationsBenchmark::hashMap);
    }

    private static long sink;
    /** Runs only the cells whose name contains this (a JVM per map keeps call sites monomorphic). */
    private static String only;

    private static void run(
            String name, int n, int rounds, BinaryRowData[] keys, int[] order, java.util.function.Supplier<Map> maps) {
        if (!name.contains(only)) {
            return;
        }
        long bestPut = Long.MAX_VALUE;
        long bestGet = Long.MAX_VALUE;
        long bytes = 0;
        for (int r = 0; r < rounds; r++) {
            Map m = maps.get();
            long t0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                m.put(keys[i], PackedLocation.ofRowAddress(RowAddress.of(i >>> 16, i & 0xFFFF)));
            }
            long t1 = System.nanoTime();
            long s = 0;
            for (int i = 0; i < n; i++) {
                s += m.get(keys[order[i]]);
            }
            long t2 = System.nanoTime();
            sink += s;
            bestPut = Math.min(bestPut, t1 - t0);
            bestGet = Math.min(bestGet, t2 - t1);
            bytes = m.bytes();
        }
        System.out.printf(
                "%-34s %10.1f %10.1f %12s%n",
                name,
                (double) bestPut / n,
                (double) bestGet / n,
                bytes < 0 ? "n/a" : String.format("%.1f", (double) bytes / n));
    }

    private static Map of(KeyLocations l) {
        return new Map() {
            @Override
            public void put(BinaryRowData key, long location) {
                l.put(key, key.hashCode(), location);
            }

            @Override
            public long get(BinaryRowData key) {
                return l.get(key, key.hashCode());
            }

            @Override
            public long bytes() {
                return l.heapBytes();
            }
        };
    }

    /** {@link #of} without computing the key's hash, which the long map does not use. */
    private static Map noHash(KeyLocations l) {
        return new Map() {
            @Override
            public void put(BinaryRowData key, long location) {
                l.put(key, 0, location);
            }

            @Override
            public long get(BinaryRowData key) {
                return l.get(key, 0);
            }

            @Override
            public long bytes() {
                return l.heapBytes();
            }
        };
    }

    /** The long map with the key read once from the row, as a resolver holding it would. */
    private static Map longApi() {
        LongKeyLocationMap l = new LongKeyLocationMap(LongKeyLocationMap.IntegralKey.BIGINT);
        return new Map() {
            @Override
            public void put(BinaryRowData key, long location) {
                l.put(key.getLong(0), location);
            }

            @Override
            public long get(BinaryRowData key) {
                return l.get(key.getLong(0));
            }

            @Override
            public long bytes() {
                return l.heapBytes();
            }
        };
    }

    /** The baseline: the {fileId, position} arrays keyed state holds, in a HashMap (keys shared, not copied). */
    private static Map hashMap() {
        HashMap<BinaryRowData, long[]> h = new HashMap<>();
        return new Map() {
            @Override
            public void put(BinaryRowData key, long location) {
                h.put(key, new long[] {0, location});
            }

            @Override
            public long get(BinaryRowData key) {
                long[] l = h.get(key);
                return l == null ? -1 : l[1];
            }

            @Override
            public long bytes() {
                return -1;
            }
        };
    }
}
