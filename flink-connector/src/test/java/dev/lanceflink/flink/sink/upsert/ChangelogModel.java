package dev.lanceflink.flink.sink.upsert;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.TreeMap;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.types.RowKind;

/**
 * A seeded changelog over the table {@code (id BIGINT NOT NULL, name STRING, age INT, score
 * DOUBLE)} and the reference model it must produce: inserts of new keys, updates with and without
 * before-images (changing one or two columns), deletes, and re-inserts of deleted keys.
 *
 * <p>With {@code ageOnly} the sink writes only {@code (id, age)}: updates change just age (the
 * other fields of the records are noise the sink must ignore) and new keys get NULL name/score.
 */
public final class ChangelogModel {
    /** One model row. */
    public record Row(String name, Integer age, Double score) {}

    public final TreeMap<Long, Row> model = new TreeMap<>();
    public final List<RowData> changes = new ArrayList<>();
    public long inserts;
    public long updates;
    public long deletes;

    public ChangelogModel(Map<Long, Row> initial) {
        model.putAll(initial);
    }

    /** Initial rows for keys 0..n-1. */
    public static TreeMap<Long, Row> initialRows(long n) {
        TreeMap<Long, Row> m = new TreeMap<>();
        for (long id = 0; id < n; id++) {
            m.put(id, new Row("init-" + id, (int) (id % 90), id % 5 == 0 ? null : id * 0.5));
        }
        return m;
    }

    public ChangelogModel generate(long seed, int count, long keys, boolean ageOnly) {
        Random r = new Random(seed);
        while (changes.size() < count) {
            long id = Math.floorMod(r.nextLong(), keys);
            Row cur = model.get(id);
            if (cur == null) {
                Row row = ageOnly ? new Row(null, r.nextInt(100), null)
                        : new Row(r.nextInt(10) == 0 ? null : "n" + r.nextInt(1000), r.nextInt(100),
                                r.nextInt(4) == 0 ? null : r.nextInt(10_000) / 8.0);
                emit(RowKind.INSERT, id, ageOnly ? noisy(row, r) : row);
                model.put(id, row);
                inserts++;
                continue;
            }
            int dice = r.nextInt(20);
            if (dice < 2) {
                emit(RowKind.DELETE, id, cur);
                model.remove(id);
                deletes++;
                continue;
            }
            Row next = ageOnly ? new Row(cur.name(), r.nextInt(100), cur.score()) : change(cur, r);
            if (dice < 11) {
                emit(RowKind.UPDATE_BEFORE, id, cur);
            }
            emit(dice % 3 == 0 ? RowKind.INSERT : RowKind.UPDATE_AFTER, id, ageOnly ? noisy(next, r) : next);
            model.put(id, next);
            updates++;
        }
        return this;
    }

    private static Row noisy(Row row, Random r) {
        // columns the sink must not write: give them values that would be wrong
        return new Row("noise-" + r.nextInt(), row.age(), -1.0);
    }

    private static Row change(Row cur, Random r) {
        String name = cur.name();
        Integer age = cur.age();
        Double score = cur.score();
        int cols = 1 + r.nextInt(2);
        for (int i = 0; i < cols; i++) {
            switch (r.nextInt(3)) {
                case 0 -> name = r.nextInt(8) == 0 ? null : "u" + r.nextInt(100_000);
                case 1 -> age = r.nextInt(100);
                default -> score = r.nextInt(6) == 0 ? null : r.nextInt(100_000) / 4.0;
            }
        }
        return new Row(name, age, score);
    }

    private void emit(RowKind kind, long id, Row row) {
        GenericRowData g = GenericRowData.ofKind(kind, id, row.name() == null ? null : StringData.fromString(row.name()),
                row.age(), row.score());
        changes.add(g);
    }

    public static boolean same(Row a, Row b) {
        return Objects.equals(a, b);
    }
}
