package dev.lanceflink.it.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The maintenance benchmark's changelog and its end check, in well under a second (the
 * benchmark itself runs outside the suite): the mix of changes, and a check that finds the
 * prefix a table holds and refuses a table that lost, duplicated or altered a change.
 */
class MaintenanceBenchmarkTest {
    private static final long SEED = MaintenanceBenchmark.SEED;
    private static final int HOT = 500;

    @Test
    void theChangelogMixesAppendsUpsertsDeletesAndMarkers() {
        Map<MaintenanceBenchChanges.Kind, Integer> counts = new EnumMap<>(MaintenanceBenchChanges.Kind.class);
        Set<Long> appendedKeys = new HashSet<>();
        for (long i = 0; i < 20_000; i++) {
            MaintenanceBenchChanges.Kind kind = MaintenanceBenchChanges.kind(SEED, i);
            counts.merge(kind, 1, Integer::sum);
            long key = MaintenanceBenchChanges.key(SEED, i, HOT);
            RowData row = MaintenanceBenchChanges.change(SEED, i, HOT);
            assertThat(row.getLong(0)).isEqualTo(key);
            switch (kind) {
                case MARKER ->
                    assertThat(i % MaintenanceBenchChanges.MARKER_EVERY).isZero();
                case APPEND ->
                    assertThat(appendedKeys.add(key))
                            .as("append key %s new", key)
                            .isTrue();
                case DELETE -> assertThat(row.getRowKind()).isEqualTo(RowKind.DELETE);
                case UPSERT -> {
                    assertThat(key).isBetween(0L, HOT - 1L);
                    assertThat(row.getDouble(3)).isEqualTo((double) i);
                }
            }
        }
        assertThat(counts.get(MaintenanceBenchChanges.Kind.MARKER)).isEqualTo(1_000);
        // 19,000 non-marker changes: about 20% appends, 3% deletes, 77% upserts.
        assertThat(counts.get(MaintenanceBenchChanges.Kind.APPEND)).isBetween(3_500, 4_100);
        assertThat(counts.get(MaintenanceBenchChanges.Kind.DELETE)).isBetween(400, 750);
        assertThat(counts.get(MaintenanceBenchChanges.Kind.UPSERT)).isBetween(14_200, 15_000);
        // The same change in another JVM: a pure function of seed and index.
        assertThat(MaintenanceBenchChanges.change(SEED, 12_345, HOT).toString())
                .isEqualTo(MaintenanceBenchChanges.change(SEED, 12_345, HOT).toString());
    }

    @Test
    void theCheckFindsThePrefixATableHolds(@TempDir Path dir) throws Exception {
        // A prefix between two markers: 3,047 changes, the last marker 3,040.
        String uri = dir.resolve("t.lance").toString();
        write(uri, modelRows(3_047, null));
        assertThat(MaintenanceBenchmark.check(uri, HOT)).isEqualTo(3_047);
    }

    @Test
    void theCheckRefusesALostDuplicatedOrAlteredChange(@TempDir Path dir) throws Exception {
        List<Object[]> rows = modelRows(3_047, null);
        // Lost: one appended row missing.
        Object[] appended = rows.stream()
                .filter(r -> (long) r[0] >= MaintenanceBenchChanges.APPEND_BASE)
                .findFirst()
                .orElseThrow();
        String lost = dir.resolve("lost.lance").toString();
        write(lost, modelRows(3_047, r -> (long) r[0] != (long) appended[0]));
        assertThatThrownBy(() -> MaintenanceBenchmark.check(lost, HOT))
                .hasMessageContaining("equals the model after none of the changes 3041..3060");

        // Duplicated: a key twice.
        String twice = dir.resolve("twice.lance").toString();
        List<Object[]> doubled = new ArrayList<>(rows);
        doubled.add(rows.get(0));
        write(twice, doubled);
        assertThatThrownBy(() -> MaintenanceBenchmark.check(twice, HOT)).hasMessageContaining("appears twice");

        // Altered: a hot key holding a change that wrote another key.
        String altered = dir.resolve("altered.lance").toString();
        List<Object[]> changed = new ArrayList<>(rows);
        int at = indexOfHotChange(changed);
        Object[] r = changed.get(at);
        long other = otherUpsert(3_047, (long) r[0]);
        changed.set(at, new Object[] {r[0], "c-" + other, (int) (other % 100), (double) other});
        write(altered, changed);
        assertThatThrownBy(() -> MaintenanceBenchmark.check(altered, HOT))
                .hasMessageContaining("holds the row of change " + other);

        // Old: a key holding an older change of its own (an update lost), the prefix still bracketed.
        String old = dir.resolve("old.lance").toString();
        List<Object[]> stale = new ArrayList<>(rows);
        int k = indexOfKeyUpdatedTwice(stale, 3_047);
        long key = (long) stale.get(k)[0];
        long previous = previousUpsertOf(key, (long) (double) stale.get(k)[3]);
        stale.set(k, new Object[] {key, "c-" + previous, (int) (previous % 100), (double) previous});
        write(old, stale);
        assertThatThrownBy(() -> MaintenanceBenchmark.check(old, HOT))
                .hasMessageContaining("equals the model after none of the changes");
    }

    @Test
    void theSummaryComparesWithAgainstWithout() {
        MaintenanceBenchmark.Sample a0 = sample(10, 0, 1_000, 0.5);
        MaintenanceBenchmark.Sample a1 = sample(20, 100_000, 4_000, 0.5);
        MaintenanceBenchmark.Sample b0 = sample(10, 0, 1_000, 0.5);
        MaintenanceBenchmark.Sample stalled = sample(15, 0, 1_000, 0.5, 0.2); // nothing committed
        MaintenanceBenchmark.Sample b1 = sample(20, 80_000, 2_000, 0.25);
        String s = MaintenanceBenchmark.summary(List.of(
                new MaintenanceBenchmark.Run("without maintenance", 1, List.of(a0, a1), 100_000),
                new MaintenanceBenchmark.Run("with maintenance", 1, List.of(b0, stalled, b1), 80_000)));
        assertThat(s).contains("| job CPU s per 100k changes | 1.00 | 1.25 | 1.25x | ");
        assertThat(s).contains("| changes/s committed (first sample to last) | 10,000 | 8,000 | 0.80x | ");
        assertThat(s).contains("| manifest at the end, KB | 3.9 | 2.0 | 0.50x | ");
        assertThat(s).contains("| full scan at the end, s | 0.500 | 0.250 | 0.50x | ");
    }

    /** A sample whose job spent 1 CPU s per 100k changes committed since the start. */
    private static MaintenanceBenchmark.Sample sample(double t, long committed, long manifestBytes, double full) {
        return sample(t, committed, manifestBytes, full, committed / 100_000.0);
    }

    private static MaintenanceBenchmark.Sample sample(
            double t, long committed, long manifestBytes, double full, double jobCpuSeconds) {
        return new MaintenanceBenchmark.Sample(
                t,
                1,
                1,
                1,
                0,
                0,
                manifestBytes,
                0,
                0,
                full,
                full,
                0.1,
                0.1,
                committed,
                0,
                jobCpuSeconds,
                committed == 0 ? Double.NaN : jobCpuSeconds * 100_000 / committed);
    }

    /** The rows of the model after {@code prefix} changes, those {@code keep} accepts (null: all). */
    private static List<Object[]> modelRows(long prefix, java.util.function.Predicate<Object[]> keep) {
        MaintenanceBenchChanges.Model m = new MaintenanceBenchChanges.Model(SEED, HOT);
        m.advanceTo(prefix);
        List<Object[]> rows = new ArrayList<>();
        for (int k = 0; k < HOT; k++) {
            int s = m.hot[k];
            if (s == MaintenanceBenchChanges.INITIAL) {
                rows.add(new Object[] {(long) k, "init-" + k, k % 100, -1.0 - k});
            } else if (s >= 0) {
                rows.add(new Object[] {(long) k, "c-" + s, s % 100, (double) s});
            }
        }
        for (long i = 0; i < prefix; i++) {
            if (MaintenanceBenchChanges.kind(SEED, i) == MaintenanceBenchChanges.Kind.APPEND) {
                rows.add(new Object[] {MaintenanceBenchChanges.APPEND_BASE + i, "c-" + i, (int) (i % 100), (double) i});
            }
        }
        rows.add(new Object[] {
            MaintenanceBenchChanges.MARKER_ID, "c-" + m.marker, (int) (m.marker % 100), (double) m.marker
        });
        return keep == null ? rows : rows.stream().filter(keep).toList();
    }

    private static int indexOfHotChange(List<Object[]> rows) {
        for (int i = 0; i < rows.size(); i++) {
            if ((long) rows.get(i)[0] < HOT && (double) rows.get(i)[3] >= 0) {
                return i;
            }
        }
        throw new AssertionError("no hot key holds a change");
    }

    private static long otherUpsert(long prefix, long notKey) {
        for (long i = 0; i < prefix; i++) {
            if (MaintenanceBenchChanges.kind(SEED, i) == MaintenanceBenchChanges.Kind.UPSERT
                    && MaintenanceBenchChanges.key(SEED, i, HOT) != notKey) {
                return i;
            }
        }
        throw new AssertionError();
    }

    /**
     * A hot key row whose change is not the first upsert of its key and lies before the marker
     * bracket (3,041..3,060), so no candidate prefix holds the older row.
     */
    private static int indexOfKeyUpdatedTwice(List<Object[]> rows, long prefix) {
        for (int i = 0; i < rows.size(); i++) {
            Object[] r = rows.get(i);
            if ((long) r[0] < HOT
                    && (double) r[3] >= 0
                    && (double) r[3] < 3_000
                    && previousUpsertOf((long) r[0], (long) (double) r[3]) >= 0) {
                return i;
            }
        }
        throw new AssertionError("no key updated twice in " + prefix + " changes");
    }

    private static long previousUpsertOf(long key, long before) {
        for (long i = before - 1; i >= 0; i--) {
            if (MaintenanceBenchChanges.kind(SEED, i) == MaintenanceBenchChanges.Kind.UPSERT
                    && MaintenanceBenchChanges.key(SEED, i, HOT) == key) {
                return i;
            }
        }
        return -1;
    }

    private static void write(String uri, List<Object[]> rows) throws Exception {
        try (BufferAllocator a = new RootAllocator();
                VectorSchemaRoot root = VectorSchemaRoot.create(SinkBenchmark.SCHEMA, a)) {
            root.allocateNew();
            for (int i = 0; i < rows.size(); i++) {
                Object[] r = rows.get(i);
                ((BigIntVector) root.getVector("id")).setSafe(i, (long) r[0]);
                ((VarCharVector) root.getVector("name")).setSafe(i, ((String) r[1]).getBytes(StandardCharsets.UTF_8));
                ((IntVector) root.getVector("age")).setSafe(i, (int) r[2]);
                ((Float8Vector) root.getVector("score")).setSafe(i, (double) r[3]);
            }
            root.setRowCount(rows.size());
            Dataset.write(
                            uri,
                            Map.of(),
                            List.of(root),
                            SinkBenchmark.SCHEMA,
                            WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(1_000))
                    .close();
        }
    }
}
