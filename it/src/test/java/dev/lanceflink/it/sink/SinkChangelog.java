package dev.lanceflink.it.sink;

import dev.lanceflink.testkit.users.UsersChangelog;
import dev.lanceflink.testkit.users.UsersTable;
import dev.lanceflink.testkit.users.UsersTable.Row;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.RowKind;

/**
 * A seeded changelog over the keys {@code [0, keys)} of the {@link UsersTable}, together with the
 * table it must leave behind (the model).
 *
 * <p>It has two phases. The first only inserts absent keys and deletes present ones, which the
 * sink commits as new fragments and deletion files: a table that released Lance still reads and
 * writes. The second also updates present keys (with and without an UPDATE_BEFORE), which the sink
 * commits as data overlay files, after which released Lance refuses the table (in update mode
 * rewrite-rows as deleted and re-appended rows instead, which released Lance reads). A concurrent-writer
 * test needs that split to have the official SDK commit while the sink commits too.
 */
public final class SinkChangelog {
    public final List<RowData> changes = new ArrayList<>();
    public final TreeMap<Long, Row> model;
    /** Index of the first change of the second phase (the first that may be an update). */
    int secondPhaseStart;

    public int updates;

    public SinkChangelog(TreeMap<Long, Row> initial) {
        this.model = new TreeMap<>(initial);
    }

    /** {@code keys} rows: the keys {@code [0, keys)} with every other one present. */
    public static TreeMap<Long, Row> initialRows(long keys) {
        TreeMap<Long, Row> rows = new TreeMap<>();
        for (long k = 0; k < keys; k += 2) {
            rows.put(k, new Row("init-" + k, (int) (k % 90), k * 0.5));
        }
        return rows;
    }

    public SinkChangelog generate(long seed, long keys, int firstPhase, int secondPhase) {
        Random r = new Random(seed);
        for (int i = 0; i < firstPhase; i++) {
            long k = (long) (r.nextDouble() * keys);
            Row cur = model.get(k);
            if (cur == null) {
                insert(k, randomRow(k, i, r));
            } else {
                delete(k, cur);
            }
        }
        secondPhaseStart = changes.size();
        for (int i = 0; i < secondPhase; i++) {
            long k = (long) (r.nextDouble() * keys);
            Row cur = model.get(k);
            if (cur == null) {
                insert(k, randomRow(k, i, r));
            } else if (r.nextInt(10) < 7) {
                Row next = changed(cur, i, r);
                if (r.nextBoolean()) {
                    changes.add(UsersChangelog.rowData(RowKind.UPDATE_BEFORE, k, cur));
                }
                changes.add(UsersChangelog.rowData(RowKind.UPDATE_AFTER, k, next));
                model.put(k, next);
                updates++;
            } else {
                delete(k, cur);
            }
        }
        return this;
    }

    private void insert(long k, Row row) {
        changes.add(UsersChangelog.rowData(RowKind.INSERT, k, row));
        model.put(k, row);
    }

    private void delete(long k, Row cur) {
        changes.add(UsersChangelog.rowData(RowKind.DELETE, k, cur));
        model.remove(k);
    }

    private static Row randomRow(long k, int i, Random r) {
        return new Row(
                r.nextInt(8) == 0 ? null : "n-" + k + "-" + i,
                r.nextInt(8) == 0 ? null : r.nextInt(120),
                r.nextInt(8) == 0 ? null : r.nextInt(1_000_000) / 8.0);
    }

    /** Changes one or two cells, so that sparse overlays cover different column sets. */
    private static Row changed(Row cur, int i, Random r) {
        return switch (r.nextInt(3)) {
            case 0 -> new Row(cur.name(), cur.age() == null ? 1 : cur.age() + 1, cur.score());
            case 1 -> new Row("u-" + i, cur.age(), r.nextInt(4) == 0 ? null : r.nextInt(1000) / 4.0);
            default -> new Row(r.nextInt(5) == 0 ? null : "v-" + i, r.nextInt(120), cur.score());
        };
    }
}
