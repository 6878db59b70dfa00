package dev.lanceflink.flink.sink.upsert;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.flink.sink.LanceSinkBuilder;
import dev.lanceflink.flink.sink.LanceSinkMode;
import dev.lanceflink.flink.sink.UpdateMode;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.OverlayCoverage;
import dev.lanceflink.testkit.flink.JobEnvironments;
import dev.lanceflink.testkit.flink.MiniClusters;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tables wider than 64 columns through the upsert and row-address sinks, on a MiniCluster: a
 * {@value WideTable#COLUMNS}-column table of mixed types ({@link WideTable}) gets an upsert of a
 * few columns on both sides of the 64th (overlays, dense and — with before-images — sparse), the
 * same upsert in update mode rewrite-rows (the unwritten columns carried over from the old rows),
 * and SQL UPDATEs of columns beyond index 64 in both update modes; each time the table read back
 * equals the model cell by cell.
 */
class WideTableITCase {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = MiniClusters.oneTaskManager(2);

    /** The changelog the source emits (static: the source function is serialized). */
    static volatile List<RowData> CHANGES;

    /** Written columns: on both sides of 63/64/65, one of each type, the last column too. */
    private static final int[] OVERLAID = {0, 3, 6, 63, 64, 65, 130, 200, 206, 234, 239, 295, 299};

    private static final int[] REWRITTEN = {0, 2, 66, 130, 234, 299};

    @TempDir
    Path dir;

    private String uri;

    @BeforeEach
    void reset() {
        uri = dir.resolve("wide.lance").toString();
    }

    private static TreeMap<Long, Object[]> initialRows(int count) {
        TreeMap<Long, Object[]> rows = new TreeMap<>();
        for (long id = 0; id < count; id++) {
            rows.put(id, WideTable.plainRow(id, 0));
        }
        return rows;
    }

    /**
     * A changelog over {@code model} writing {@code written} (other fields of the records carry
     * values that must not land), applied to the model as the sink must apply it: updates of
     * existing keys (every fourth with a before-image and one changed column), deletes, inserts
     * of new keys (unwritten columns NULL) and an insert deleted again.
     */
    private static List<RowData> changelog(TreeMap<Long, Object[]> model, int[] written) {
        Set<Integer> writtenSet = Arrays.stream(written).boxed().collect(Collectors.toSet());
        List<RowData> out = new ArrayList<>();
        long existing = model.lastKey() + 1;
        for (long id = 0; id < existing; id++) {
            if (id % 10 == 5) {
                out.add(WideTable.toRowData(RowKind.DELETE, model.get(id)));
                model.remove(id);
            } else if (id % 4 == 1) {
                // A before-image and one changed written column: sparse overlays, whose fields
                // cover different rows.
                Object[] before = model.get(id);
                Object[] after = before.clone();
                int c = written[1 + (int) (id % (written.length - 1))];
                after[c] = WideTable.value(c, id, 2) != null ? WideTable.value(c, id, 2) : WideTable.value(c, id, 3);
                out.add(WideTable.toRowData(RowKind.UPDATE_BEFORE, before));
                out.add(WideTable.toRowData(RowKind.UPDATE_AFTER, after));
                model.put(id, after);
            } else if (id % 3 != 2) {
                Object[] record = WideTable.plainRow(id, 1);
                out.add(WideTable.toRowData(RowKind.UPDATE_AFTER, record));
                Object[] row = model.get(id).clone();
                for (int c : written) {
                    row[c] = record[c];
                }
                model.put(id, row);
            }
        }
        for (long id = existing; id < existing + 60; id++) {
            Object[] record = WideTable.plainRow(id, 1);
            out.add(WideTable.toRowData(RowKind.INSERT, record));
            Object[] row = new Object[WideTable.COLUMNS];
            for (int c = 0; c < WideTable.COLUMNS; c++) {
                row[c] = writtenSet.contains(c) ? record[c] : null;
            }
            model.put(id, row);
        }
        out.add(WideTable.toRowData(RowKind.DELETE, model.remove(existing + 7)));
        return out;
    }

    private void runUpsert(LanceSinkBuilder sink) throws Exception {
        StreamExecutionEnvironment env = JobEnvironments.noRestarts(2, 200);
        sink.sinkTo(env.fromSequence(0, CHANGES.size() - 1)
                .setParallelism(1)
                .uid("changes")
                .map(new ChangeAt())
                .setParallelism(1)
                .uid("change-at")
                .returns(InternalTypeInfo.of(WideTable.rowType())));
        env.execute("wide upsert");
    }

    private LanceSinkBuilder sink(int[] written) {
        return LanceSinkBuilder.forTable(uri)
                .mode(LanceSinkMode.UPSERT)
                .primaryKey("id")
                .rowsPerFile(150)
                .batchRows(64)
                .uidSuffix("wide-it")
                .commitRetries(2)
                .commitRetryBackoff(Duration.ZERO)
                .writtenColumns(Arrays.stream(written).mapToObj(WideTable::name).toArray(String[]::new));
    }

    @Test
    void upsertOfAFewColumnsOfA300ColumnTableOverlaysThemAndEndsEqualToTheModel() throws Exception {
        TreeMap<Long, Object[]> model = initialRows(400);
        WideTable.create(uri, model, 150);
        CHANGES = changelog(model, OVERLAID);

        runUpsert(sink(OVERLAID));

        WideTable.assertTableEquals(uri, model);
        Manifest m = manifest();
        List<DataOverlayFile> overlays =
                m.fragments().stream().flatMap(f -> f.overlays().stream()).toList();
        assertThat(overlays).as("updates land as overlays").isNotEmpty();
        // The columns the overlays' field ids belong to (a list column's file names its item).
        Map<Integer, Integer> columnOfField = new HashMap<>();
        for (int c = 0; c < WideTable.COLUMNS; c++) {
            int column = c;
            m.schema().fields().get(c).preOrder().forEach(f -> columnOfField.put(f.id(), column));
        }
        Set<Integer> overlaidColumns = new HashSet<>();
        overlays.forEach(
                o -> Arrays.stream(o.dataFile().fields()).forEach(id -> overlaidColumns.add(columnOfField.get(id))));
        assertThat(overlaidColumns)
                .as("the written columns, the key excluded, and no other")
                .isEqualTo(IntStream.of(OVERLAID).filter(c -> c != 0).boxed().collect(Collectors.toSet()));
        assertThat(overlays)
                .as("before-images changing one column make sparse overlays")
                .anyMatch(o -> o.coverage() instanceof OverlayCoverage.PerField);
        long physical = m.fragments().stream().mapToLong(Fragment::physicalRows).sum();
        assertThat(physical).as("rows are only written for new keys").isLessThanOrEqualTo(400 + 60);
    }

    @Test
    void upsertOfA300ColumnTableInRewriteRowsModeCarriesTheOtherColumnsOver() throws Exception {
        TreeMap<Long, Object[]> model = initialRows(300);
        WideTable.create(uri, model, 150);
        CHANGES = changelog(model, REWRITTEN);

        runUpsert(sink(REWRITTEN).updateMode(UpdateMode.REWRITE_ROWS));

        WideTable.assertTableEquals(uri, model);
        Manifest m = manifest();
        assertThat(m.fragments()).allSatisfy(f -> assertThat(f.overlays()).isEmpty());
        long physical = m.fragments().stream().mapToLong(Fragment::physicalRows).sum();
        assertThat(physical - model.size())
                .as("old versions of updated rows are deleted, not overlaid")
                .isGreaterThan(100);
    }

    @Test
    void sqlUpdatesOfColumnsBeyondIndex64InBothUpdateModes() throws Exception {
        TreeMap<Long, Object[]> model = initialRows(200);
        WideTable.create(uri, model, 80);

        // c73 INT, c211 STRING, c284 BOOLEAN: past the first 64 columns.
        sql("").executeSql("UPDATE wide SET c73 = c73 + 1, c211 = CONCAT('sql-', CAST(id AS STRING)),"
                        + " c284 = NOT c284 WHERE MOD(id, 4) = 1")
                .await();
        for (Map.Entry<Long, Object[]> e : model.entrySet()) {
            if (e.getKey() % 4 == 1) {
                Object[] row = e.getValue();
                row[73] = row[73] == null ? null : (Integer) row[73] + 1;
                row[211] = "sql-" + e.getKey();
                row[284] = row[284] == null ? null : !(Boolean) row[284];
            }
        }
        WideTable.assertTableEquals(uri, model);
        Manifest m = manifest();
        int[] c211 = {m.schema().fields().get(211).id()};
        assertThat(m.fragments())
                .flatMap(Fragment::overlays)
                .anySatisfy(o -> assertThat(o.dataFile().fields()).contains(c211));

        // c66 DOUBLE, c299 BIGINT, in whole rewritten rows.
        sql(", 'sink.update-mode' = 'rewrite-rows'")
                .executeSql("UPDATE wide SET c66 = CAST(-1.5 AS DOUBLE), c299 = id * 10" + " WHERE MOD(id, 5) = 2")
                .await();
        for (Map.Entry<Long, Object[]> e : model.entrySet()) {
            if (e.getKey() % 5 == 2) {
                e.getValue()[66] = -1.5;
                e.getValue()[299] = e.getKey() * 10;
            }
        }
        WideTable.assertTableEquals(uri, model);
        assertThat(manifest().fragments().stream()
                        .mapToLong(Fragment::physicalRows)
                        .sum())
                .as("rewritten rows are appended")
                .isEqualTo(200 + 40);
    }

    private TableEnvironment sql(String options) {
        TableEnvironment t = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        t.getConfig().set("parallelism.default", "2");
        String columns = WideTable.DECLARED.getFields().stream()
                .map(f -> "`" + f.getName() + "` " + f.getType().asSerializableString())
                .collect(Collectors.joining(", "));
        String vectors = WideTable.VECTORS.entrySet().stream()
                .map(e -> e.getKey() + ":" + e.getValue())
                .collect(Collectors.joining(","));
        t.executeSql("CREATE TABLE wide (" + columns + ") WITH ('connector' = 'lance', 'path' = '" + uri + "',"
                + " 'vector-dimensions' = '" + vectors + "'" + options + ")");
        return t;
    }

    private Manifest manifest() throws Exception {
        try (Dataset ds = Dataset.open(uri, Map.of())) {
            return ds.manifest();
        }
    }

    /** Emits change {@code i}; a millisecond's pause every 20 changes so that they span checkpoints. */
    static final class ChangeAt implements MapFunction<Long, RowData> {
        private static final long serialVersionUID = 1L;

        @Override
        public RowData map(Long i) throws Exception {
            if (i % 20 == 0) {
                Thread.sleep(1);
            }
            return CHANGES.get((int) (long) i);
        }
    }
}
