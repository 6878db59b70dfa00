package dev.lanceflink.it.maintenance;

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
 * A seeded changelog over {@code users(id BIGINT NOT NULL, name STRING, age INT, score DOUBLE)}
 * keyed by {@code id}, and the reference model (key → row) it must leave in the table.
 *
 * <p>The mix is what makes compaction interesting: most changes update one or two columns of an
 * existing key (so the upsert sink writes overlays, which the compactor then merges or folds),
 * some delete a key, some insert new or previously deleted keys. Updates come with and without an
 * {@code UPDATE_BEFORE} image and sometimes as a plain {@code INSERT} of an existing key, the
 * three shapes an upsert changelog may take.
 */
final class UpsertChangelog {
    /** One row of the model; {@code null} fields are SQL NULLs. */
    record Row(String name, Integer age, Double score) {}

    /** Key → row after every change so far. */
    final TreeMap<Long, Row> model;
    /** The changes in order, as the sink receives them. */
    final List<RowData> changes = new ArrayList<>();
    /** Changes that add a key absent from the model (each writes at most one new physical row). */
    long inserts;
    /** Changes that replace an existing key's row. */
    long updates;
    /** Changes that remove a key. */
    long deletes;

    private UpsertChangelog(Map<Long, Row> initial) {
        this.model = new TreeMap<>(initial);
    }

    /** Keys {@code 0..n-1} with deterministic values (some NULLs), the table's initial content. */
    static TreeMap<Long, Row> initialRows(int n) {
        TreeMap<Long, Row> rows = new TreeMap<>();
        for (long id = 0; id < n; id++) {
            rows.put(id, new Row(id % 7 == 0 ? null : "user-" + id, (int) (id % 80), id % 4 == 0 ? null : id * 0.25));
        }
        return rows;
    }

    /**
     * {@code count} changes over keys {@code 0..keys-1}, starting from {@code initial}; the same
     * seed gives the same changelog.
     */
    static UpsertChangelog generate(Map<Long, Row> initial, long seed, int count, long keys) {
        UpsertChangelog log = new UpsertChangelog(initial);
        Random r = new Random(seed);
        while (log.changes.size() < count) {
            long id = Math.floorMod(r.nextLong(), keys);
            Row current = log.model.get(id);
            if (current == null) {
                Row row = new Row(r.nextInt(9) == 0 ? null : "new-" + r.nextInt(10_000), r.nextInt(100),
                        r.nextInt(5) == 0 ? null : r.nextInt(40_000) / 8.0);
                log.emit(RowKind.INSERT, id, row);
                log.model.put(id, row);
                log.inserts++;
                continue;
            }
            int dice = r.nextInt(20);
            if (dice < 2) {
                log.emit(RowKind.DELETE, id, current);
                log.model.remove(id);
                log.deletes++;
                continue;
            }
            Row next = changed(current, r);
            if (dice < 10) {
                log.emit(RowKind.UPDATE_BEFORE, id, current);
            }
            log.emit(dice % 4 == 0 ? RowKind.INSERT : RowKind.UPDATE_AFTER, id, next);
            log.model.put(id, next);
            log.updates++;
        }
        return log;
    }

    /** One or two of the three value columns change; sometimes to NULL. */
    private static Row changed(Row cur, Random r) {
        String name = cur.name();
        Integer age = cur.age();
        Double score = cur.score();
        int columns = 1 + r.nextInt(2);
        for (int i = 0; i < columns; i++) {
            switch (r.nextInt(3)) {
                case 0 -> name = r.nextInt(10) == 0 ? null : "upd-" + r.nextInt(1_000_000);
                case 1 -> age = r.nextInt(100);
                default -> score = r.nextInt(7) == 0 ? null : r.nextInt(1_000_000) / 16.0;
            }
        }
        return new Row(name, age, score);
    }

    private void emit(RowKind kind, long id, Row row) {
        changes.add(GenericRowData.ofKind(kind, id, row.name() == null ? null : StringData.fromString(row.name()),
                row.age(), row.score()));
    }
}
