package dev.lanceflink.it.maintenance;

import dev.lanceflink.testkit.users.UsersChangelog;
import dev.lanceflink.testkit.users.UsersChangelog.Mix;
import dev.lanceflink.testkit.users.UsersTable.Row;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.RowKind;

/**
 * The changelog of {@link SinkSoakRunTest}: change {@code i} is the same in the test JVM and in
 * every incarnation of the job's JVM (a seeded generator), so the reference model after any prefix
 * of the stream can be computed, and a restored job that resumes the sequence at its checkpointed
 * position continues the same changelog.
 *
 * <p>Every {@link #MARKER_EVERY}-th change (those with {@code i % MARKER_EVERY == 0}) upserts the
 * marker row {@link #MARKER_ID} with {@code score = i}. A table version holding marker {@code m}
 * therefore holds a prefix of at least {@code m + 1} and at most {@code m + MARKER_EVERY} changes
 * (the next marker is absent): the few candidate prefixes a reader checks each version against.
 *
 * <p>The other changes: an absent key is inserted (a new row: the sink appends it), a present key
 * is deleted one time in twenty, otherwise one or two of its columns change (an upsert: overlay
 * cells), arriving as {@code UPDATE_AFTER} or as a plain {@code INSERT} of the key. No
 * {@code UPDATE_BEFORE}: each change is complete on its own, so every prefix is a model state.
 */
final class SoakChangelog {
    /** The marker row's key, outside the changelog's key range. */
    static final long MARKER_ID = 1_000_000_000L;
    /** One marker per this many changes: the candidate prefixes of a version. */
    static final int MARKER_EVERY = 20;
    /** How values are drawn: as in the other maintenance tests. */
    private static final Mix MIX = Mix.MAINTENANCE_TESTS;

    final TreeMap<Long, Row> initial;
    final RowKind[] kinds;
    final long[] ids;
    /** The row a change writes (for a delete: the row it removes, as an upsert changelog carries it). */
    final Row[] rows;

    private SoakChangelog(TreeMap<Long, Row> initial, int count) {
        this.initial = initial;
        this.kinds = new RowKind[count];
        this.ids = new long[count];
        this.rows = new Row[count];
    }

    /** {@code count} changes over keys {@code [0, keys)}, starting from {@code initialKeys} rows. */
    static SoakChangelog generate(long seed, int count, int initialKeys, long keys) {
        SoakChangelog log = new SoakChangelog(MIX.initialRows(initialKeys), count);
        TreeMap<Long, Row> model = new TreeMap<>(log.initial);
        Random r = new Random(seed);
        for (int i = 0; i < count; i++) {
            if (i % MARKER_EVERY == 0) {
                log.set(i, RowKind.UPDATE_AFTER, MARKER_ID, new Row("marker", 0, (double) i));
                continue;
            }
            long id = Math.floorMod(r.nextLong(), keys);
            Row current = model.get(id);
            if (current == null) {
                Row row = MIX.inserted.row(r);
                log.set(i, RowKind.INSERT, id, row);
                model.put(id, row);
            } else if (r.nextInt(20) == 0) {
                log.set(i, RowKind.DELETE, id, current);
                model.remove(id);
            } else {
                Row next = MIX.updated.changed(current, r);
                log.set(i, r.nextBoolean() ? RowKind.UPDATE_AFTER : RowKind.INSERT, id, next);
                model.put(id, next);
            }
        }
        return log;
    }

    private void set(int i, RowKind kind, long id, Row row) {
        kinds[i] = kind;
        ids[i] = id;
        rows[i] = row;
    }

    int size() {
        return ids.length;
    }

    /** Change {@code i} as the sink receives it. */
    RowData rowData(int i) {
        return UsersChangelog.rowData(kinds[i], ids[i], rows[i]);
    }

    /** Applies change {@code i} to {@code model}. */
    void apply(int i, Map<Long, Row> model) {
        if (kinds[i] == RowKind.DELETE) {
            model.remove(ids[i]);
        } else {
            model.put(ids[i], rows[i]);
        }
    }

    /** The model after all changes. */
    TreeMap<Long, Row> finalModel() {
        TreeMap<Long, Row> model = new TreeMap<>(initial);
        for (int i = 0; i < size(); i++) {
            apply(i, model);
        }
        return model;
    }
}
