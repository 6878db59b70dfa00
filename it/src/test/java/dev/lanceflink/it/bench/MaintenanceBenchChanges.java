package dev.lanceflink.it.bench;

import java.util.Arrays;
import java.util.BitSet;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.types.RowKind;

/**
 * The changelog of {@link MaintenanceBenchmark}: change {@code i} is a pure function of the seed and
 * {@code i} (no generator state), so the job can run unbounded and the check at the end replays
 * any prefix of it without having kept anything.
 *
 * <p>Every {@link #MARKER_EVERY}-th change upserts the marker row ({@link #MARKER_ID}, score
 * {@code i}): the source has parallelism 1, so a version holding marker {@code m} holds the
 * changes {@code 0..m} and fewer than {@link #MARKER_EVERY} after them; the sampler reads the
 * committed prefix (and so the sink's throughput) from it. The others: {@link #APPEND_PERCENT}%
 * append a new row (key {@link #APPEND_BASE} + i, never touched again), {@link #DELETE_PERCENT}%
 * delete a random key of the {@code hotKeys} the table starts with, the rest upsert a random one
 * of them (a whole row; an absent key is inserted again). A row's cells encode the change that
 * wrote it (name {@code c-i}, age {@code i % 100}, score {@code i}); the table's initial rows have
 * name {@code init-k}, age {@code k % 100}, score {@code -1 - k}.
 */
final class MaintenanceBenchChanges {
    static final long MARKER_ID = 1L << 50;
    static final int MARKER_EVERY = 20;
    static final long APPEND_BASE = 1L << 40;
    static final int APPEND_PERCENT = 20;
    static final int DELETE_PERCENT = 3;

    /** What a hot key holds in the model: nothing, its initial row, or the row of change {@code i >= 0}. */
    static final int ABSENT = -1;

    static final int INITIAL = -2;

    enum Kind {
        MARKER,
        APPEND,
        DELETE,
        UPSERT
    }

    private MaintenanceBenchChanges() {}

    /** splitmix64 of change {@code i}: the change's dice. */
    static long dice(long seed, long i) {
        long z = seed + (i + 1) * 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    static Kind kind(long seed, long i) {
        if (i % MARKER_EVERY == 0) {
            return Kind.MARKER;
        }
        int d = (int) Long.remainderUnsigned(dice(seed, i), 100);
        return d < APPEND_PERCENT ? Kind.APPEND : d < APPEND_PERCENT + DELETE_PERCENT ? Kind.DELETE : Kind.UPSERT;
    }

    /** The key change {@code i} writes or deletes. */
    static long key(long seed, long i, int hotKeys) {
        return switch (kind(seed, i)) {
            case MARKER -> MARKER_ID;
            case APPEND -> APPEND_BASE + i;
            default -> Long.remainderUnsigned(dice(seed, i) >>> 8, hotKeys);
        };
    }

    /** Change {@code i} as the sink receives it. */
    static RowData change(long seed, long i, int hotKeys) {
        Kind kind = kind(seed, i);
        long key = key(seed, i, hotKeys);
        if (kind == Kind.DELETE) {
            // An upsert changelog's DELETE carries the key; the other columns are not read.
            return GenericRowData.ofKind(RowKind.DELETE, key, null, null, null);
        }
        RowKind rowKind = kind == Kind.UPSERT && (dice(seed, i) & 1) == 0 ? RowKind.UPDATE_AFTER : RowKind.INSERT;
        return GenericRowData.ofKind(rowKind, key, StringData.fromString("c-" + i), (int) (i % 100), (double) i);
    }

    /**
     * The table after a prefix of the changelog, moved forward change by change: per hot key
     * {@link #ABSENT}, {@link #INITIAL} or the change that wrote it; the appended rows are
     * counted (each one's cells follow from its key).
     */
    static final class Model {
        private final long seed;
        private final int hotKeys;
        final int[] hot;
        long appended;
        long marker = -1;
        long prefix;

        Model(long seed, int hotKeys) {
            this.seed = seed;
            this.hotKeys = hotKeys;
            this.hot = new int[hotKeys];
            Arrays.fill(hot, INITIAL);
        }

        /** Applies changes up to (excluding) {@code p}. */
        void advanceTo(long p) {
            for (; prefix < p; prefix++) {
                long i = prefix;
                switch (kind(seed, i)) {
                    case MARKER -> marker = i;
                    case APPEND -> appended++;
                    case DELETE -> hot[(int) key(seed, i, hotKeys)] = ABSENT;
                    case UPSERT -> hot[(int) key(seed, i, hotKeys)] = Math.toIntExact(i);
                }
            }
        }
    }

    /**
     * A version's rows as the check needs them, filled row by row from a scan; every row's cells
     * are checked against the change its score names as they arrive.
     */
    static final class TableState {
        private final long seed;
        final int[] hot;
        final BitSet appended = new BitSet();
        long appendedRows;
        long marker = -1;
        private final String where;

        TableState(long seed, int hotKeys, String where) {
            this.seed = seed;
            this.hot = new int[hotKeys];
            this.where = where;
            Arrays.fill(hot, ABSENT);
        }

        void add(long id, String name, Integer age, Double score) {
            if (score == null || age == null || name == null) {
                throw new AssertionError(where + ": row " + id + " has a NULL cell (" + name + ", " + age + ", " + score
                        + "); the changelog writes none");
            }
            double s = score;
            if (id == MARKER_ID) {
                if (marker != -1) {
                    throw new AssertionError(where + ": the marker row appears twice");
                }
                marker = (long) s;
                expectChange(id, marker, name, age, Kind.MARKER);
                return;
            }
            if (id >= APPEND_BASE) {
                long i = id - APPEND_BASE;
                expectChange(id, i, name, age, Kind.APPEND);
                if (appended.get(Math.toIntExact(i))) {
                    throw new AssertionError(where + ": appended row " + id + " appears twice");
                }
                appended.set(Math.toIntExact(i));
                appendedRows++;
                return;
            }
            if (id < 0 || id >= hot.length) {
                throw new AssertionError(where + ": row " + id + " has a key the changelog never writes");
            }
            if (hot[(int) id] != ABSENT) {
                throw new AssertionError(where + ": key " + id + " appears twice");
            }
            if (s < 0) {
                if (s != -1 - id || !name.equals("init-" + id) || age != id % 100) {
                    throw new AssertionError(where + ": key " + id + " holds (" + name + ", " + age + ", " + s
                            + "), neither its initial row nor a change's");
                }
                hot[(int) id] = INITIAL;
            } else {
                long i = (long) s;
                expectChange(id, i, name, age, Kind.UPSERT);
                if (key(seed, i, hot.length) != id) {
                    throw new AssertionError(where + ": key " + id + " holds the row of change " + i + ", which wrote"
                            + " key " + key(seed, i, hot.length));
                }
                hot[(int) id] = Math.toIntExact(i);
            }
        }

        private void expectChange(long id, long i, String name, int age, Kind kind) {
            if (i < 0 || kind(seed, i) != kind || !name.equals("c-" + i) || age != i % 100) {
                throw new AssertionError(where + ": row " + id + " (" + name + ", " + age + ", score " + i
                        + ") is not what a " + kind + " change wrote");
            }
        }

        /** Whether this is {@code m}'s table: the same hot keys and as many appended rows, none beyond its prefix. */
        boolean matches(Model m) {
            return marker == m.marker
                    && appendedRows == m.appended
                    && appended.length() <= m.prefix
                    && Arrays.equals(hot, m.hot);
        }

        /** The first hot keys where this differs from {@code m}, for the failure message. */
        String differences(Model m) {
            StringBuilder out = new StringBuilder("marker " + marker + " vs " + m.marker + ", appended " + appendedRows
                    + " vs " + m.appended + "; keys:");
            int shown = 0;
            for (int k = 0; k < hot.length && shown < 10; k++) {
                if (hot[k] != m.hot[k]) {
                    out.append(' ')
                            .append(k)
                            .append(": table ")
                            .append(hot[k])
                            .append(" model ")
                            .append(m.hot[k]);
                    shown++;
                }
            }
            return out.toString();
        }
    }

    /**
     * Change {@code i} of the sequence, at most {@code perSecond} per second (0: as fast as the
     * job takes them).
     */
    static final class Source extends RichMapFunction<Long, RowData> {
        private static final long serialVersionUID = 1L;
        private final long seed;
        private final int hotKeys;
        private final int perSecond;
        private transient long started;
        private transient long seen;

        Source(long seed, int hotKeys, int perSecond) {
            this.seed = seed;
            this.hotKeys = hotKeys;
            this.perSecond = perSecond;
        }

        @Override
        public RowData map(Long i) throws Exception {
            if (perSecond > 0 && ++seen % 100 == 0) {
                if (started == 0) {
                    started = System.nanoTime();
                }
                long due = started + seen * 1_000_000_000L / perSecond;
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                }
            }
            return change(seed, i, hotKeys);
        }
    }
}
