package dev.lanceflink.testkit.users;

import dev.lanceflink.testkit.users.UsersTable.Row;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.types.RowKind;

/**
 * A seeded upsert changelog over {@link UsersTable} keyed by {@code id}, and the reference model
 * (key → row) it must leave in the table: inserts of new keys, updates of one or two columns with
 * and without an {@code UPDATE_BEFORE} image and sometimes as a plain {@code INSERT} of an existing
 * key (the three shapes an upsert changelog may take), deletes, and re-inserts of deleted keys.
 * The same seed and {@link Mix} give the same changelog.
 *
 * <p>With {@code ageOnly} the sink writes only {@code (id, age)}: updates change just age (the
 * other fields of the records are noise the sink must ignore) and new keys get NULL name/score.
 *
 * <p>{@link #generateTwoPhases} draws a changelog in two phases instead, for the tests where
 * another writer (released Lance, pylance) commits to the table while the sink does.
 */
public final class UsersChangelog {
    /** Key → row after every change so far. */
    public final TreeMap<Long, Row> model;
    /** The changes in order, as the sink receives them. */
    public final List<RowData> changes = new ArrayList<>();
    /** Changes that add a key absent from the model. */
    public long inserts;
    /** Changes that replace an existing key's row. */
    public long updates;
    /** Changes that remove a key. */
    public long deletes;
    /** With {@link #generateTwoPhases}: the index of the first change of the second phase. */
    public int secondPhaseStart;

    private final Mix mix;

    public UsersChangelog(Map<Long, Row> initial, Mix mix) {
        this.model = new TreeMap<>(initial);
        this.mix = mix;
    }

    /** A changelog that {@link #generateTwoPhases} draws: it has its own values, no {@link Mix}. */
    public UsersChangelog(Map<Long, Row> initial) {
        this(initial, null);
    }

    /** Appends {@code count} changes over keys {@code [0, keys)}; {@code ageOnly}: see the class comment. */
    public UsersChangelog generate(long seed, int count, long keys, boolean ageOnly) {
        if (mix == null) {
            throw new IllegalStateException("generate draws its values from a Mix; none was given");
        }
        Random r = new Random(seed);
        while (changes.size() < count) {
            long id = Math.floorMod(r.nextLong(), keys);
            Row current = model.get(id);
            if (current == null) {
                Row row = ageOnly ? new Row(null, r.nextInt(100), null) : mix.inserted.row(r);
                emit(RowKind.INSERT, id, ageOnly ? noisy(row, r) : row);
                model.put(id, row);
                inserts++;
                continue;
            }
            int dice = r.nextInt(20);
            if (dice < 2) {
                emit(RowKind.DELETE, id, current);
                model.remove(id);
                deletes++;
                continue;
            }
            Row next = ageOnly
                    ? new Row(current.name(), r.nextInt(100), current.score())
                    : mix.updated.changed(current, r);
            if (dice < mix.beforeImageBelow) {
                emit(RowKind.UPDATE_BEFORE, id, current);
            }
            emit(
                    dice % mix.insertEvery == 0 ? RowKind.INSERT : RowKind.UPDATE_AFTER,
                    id,
                    ageOnly ? noisy(next, r) : next);
            model.put(id, next);
            updates++;
        }
        return this;
    }

    /**
     * The rows {@link #generateTwoPhases} starts from: of the keys {@code [0, keys)} every other
     * one (the even keys) is present.
     */
    public static TreeMap<Long, Row> everyOtherKey(long keys) {
        TreeMap<Long, Row> rows = new TreeMap<>();
        for (long k = 0; k < keys; k += 2) {
            rows.put(k, new Row("init-" + k, (int) (k % 90), k * 0.5));
        }
        return rows;
    }

    /**
     * Appends a changelog over the keys {@code [0, keys)} in two phases. The first
     * ({@code firstPhase} changes) only inserts absent keys and deletes present ones, which the sink
     * commits as new fragments and deletion files: a table that released Lance still reads and
     * writes. The second ({@code secondPhase} changes, from {@link #secondPhaseStart} on) also
     * updates present keys, 7 times in 10 (one or two cells, with and without an UPDATE_BEFORE),
     * which the sink commits as data overlay files, after which released Lance refuses the table (in
     * update mode rewrite-rows as deleted and re-appended rows instead, which released Lance reads).
     * A concurrent-writer test needs that split to have the official SDK commit while the sink
     * commits too. The same seed gives the same changelog.
     */
    public UsersChangelog generateTwoPhases(long seed, long keys, int firstPhase, int secondPhase) {
        Random r = new Random(seed);
        for (int i = 0; i < firstPhase; i++) {
            long k = (long) (r.nextDouble() * keys);
            Row cur = model.get(k);
            if (cur == null) {
                insert(k, twoPhaseRow(k, i, r));
            } else {
                delete(k, cur);
            }
        }
        secondPhaseStart = changes.size();
        for (int i = 0; i < secondPhase; i++) {
            long k = (long) (r.nextDouble() * keys);
            Row cur = model.get(k);
            if (cur == null) {
                insert(k, twoPhaseRow(k, i, r));
            } else if (r.nextInt(10) < 7) {
                Row next = twoPhaseChanged(cur, i, r);
                if (r.nextBoolean()) {
                    emit(RowKind.UPDATE_BEFORE, k, cur);
                }
                emit(RowKind.UPDATE_AFTER, k, next);
                model.put(k, next);
                updates++;
            } else {
                delete(k, cur);
            }
        }
        return this;
    }

    private void insert(long k, Row row) {
        emit(RowKind.INSERT, k, row);
        model.put(k, row);
        inserts++;
    }

    private void delete(long k, Row cur) {
        emit(RowKind.DELETE, k, cur);
        model.remove(k);
        deletes++;
    }

    private static Row twoPhaseRow(long k, int i, Random r) {
        return new Row(
                r.nextInt(8) == 0 ? null : "n-" + k + "-" + i,
                r.nextInt(8) == 0 ? null : r.nextInt(120),
                r.nextInt(8) == 0 ? null : r.nextInt(1_000_000) / 8.0);
    }

    /** Changes one or two cells, so that sparse overlays cover different column sets. */
    private static Row twoPhaseChanged(Row cur, int i, Random r) {
        return switch (r.nextInt(3)) {
            case 0 -> new Row(cur.name(), cur.age() == null ? 1 : cur.age() + 1, cur.score());
            case 1 -> new Row("u-" + i, cur.age(), r.nextInt(4) == 0 ? null : r.nextInt(1000) / 4.0);
            default -> new Row(r.nextInt(5) == 0 ? null : "v-" + i, r.nextInt(120), cur.score());
        };
    }

    private static Row noisy(Row row, Random r) {
        // columns the sink must not write: give them values that would be wrong
        return new Row("noise-" + r.nextInt(), row.age(), -1.0);
    }

    private void emit(RowKind kind, long id, Row row) {
        changes.add(rowData(kind, id, row));
    }

    /** The record of {@code row} under key {@code id} as the sink receives it. */
    public static RowData rowData(RowKind kind, long id, Row row) {
        return GenericRowData.ofKind(
                kind, id, row.name() == null ? null : StringData.fromString(row.name()), row.age(), row.score());
    }

    /**
     * How new and changed values are drawn. Two mixes, each the one a group of tests was tuned
     * with (their bounds and figures depend on the exact changelog of their seeds).
     */
    public enum Mix {
        /** The sink and upsert ITCases': short names, a before-image for 9 of 18 updates. */
        SINK_TESTS(new Values(10, "n", 1_000, 4, 10_000, 8.0), new Values(8, "u", 100_000, 6, 100_000, 4.0), 11, 3) {
            @Override
            Row initialRow(long id) {
                return new Row("init-" + id, (int) (id % 90), id % 5 == 0 ? null : id * 0.5);
            }
        },
        /** The maintenance and soak tests': more NULLs in the initial rows, more distinct values. */
        MAINTENANCE_TESTS(
                new Values(9, "new-", 10_000, 5, 40_000, 8.0),
                new Values(10, "upd-", 1_000_000, 7, 1_000_000, 16.0),
                10,
                4) {
            @Override
            Row initialRow(long id) {
                return new Row(id % 7 == 0 ? null : "user-" + id, (int) (id % 80), id % 4 == 0 ? null : id * 0.25);
            }
        };

        /** Values of inserted keys. */
        public final Values inserted;
        /** Values that updates change cells to. */
        public final Values updated;
        /** Of the update dice (2..19), those below this come with an UPDATE_BEFORE. */
        final int beforeImageBelow;
        /** Updates whose dice is a multiple of this arrive as a plain INSERT of the key. */
        final int insertEvery;

        Mix(Values inserted, Values updated, int beforeImageBelow, int insertEvery) {
            this.inserted = inserted;
            this.updated = updated;
            this.beforeImageBelow = beforeImageBelow;
            this.insertEvery = insertEvery;
        }

        abstract Row initialRow(long id);

        /** Keys {@code 0..n-1} with deterministic values (some NULLs), a table's initial content. */
        public TreeMap<Long, Row> initialRows(long n) {
            TreeMap<Long, Row> rows = new TreeMap<>();
            for (long id = 0; id < n; id++) {
                rows.put(id, initialRow(id));
            }
            return rows;
        }
    }

    /**
     * The odds of NULL and the ranges of drawn values: a name is NULL one time in
     * {@code nameNullOneIn}, else {@code namePrefix} and a number below {@code nameBound}; an age
     * is below 100; a score NULL one time in {@code scoreNullOneIn}, else a number below
     * {@code scoreBound} divided by {@code scoreDivisor}.
     */
    public record Values(
            int nameNullOneIn,
            String namePrefix,
            int nameBound,
            int scoreNullOneIn,
            int scoreBound,
            double scoreDivisor) {
        String name(Random r) {
            return r.nextInt(nameNullOneIn) == 0 ? null : namePrefix + r.nextInt(nameBound);
        }

        Double score(Random r) {
            return r.nextInt(scoreNullOneIn) == 0 ? null : r.nextInt(scoreBound) / scoreDivisor;
        }

        /** A new row: name, age and score drawn in that order. */
        public Row row(Random r) {
            String name = name(r);
            int age = r.nextInt(100);
            return new Row(name, age, score(r));
        }

        /** {@code current} with one or two of its three value columns drawn again; sometimes to NULL. */
        public Row changed(Row current, Random r) {
            String name = current.name();
            Integer age = current.age();
            Double score = current.score();
            int columns = 1 + r.nextInt(2);
            for (int c = 0; c < columns; c++) {
                switch (r.nextInt(3)) {
                    case 0 -> name = name(r);
                    case 1 -> age = r.nextInt(100);
                    default -> score = score(r);
                }
            }
            return new Row(name, age, score);
        }
    }
}
