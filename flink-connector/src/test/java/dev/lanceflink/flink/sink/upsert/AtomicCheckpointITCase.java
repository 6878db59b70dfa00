package dev.lanceflink.flink.sink.upsert;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.VersionInfo;
import dev.lanceflink.flink.sink.KeyMapMode;
import dev.lanceflink.flink.sink.LanceSinkBuilder;
import dev.lanceflink.flink.sink.LanceSinkMode;
import dev.lanceflink.flink.sink.UpdateMode;
import dev.lanceflink.read.ScanOptions;
import dev.lanceflink.read.Scanner;
import dev.lanceflink.testkit.flink.JobEnvironments;
import dev.lanceflink.testkit.flink.MiniClusters;
import dev.lanceflink.testkit.users.UsersTable;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A reader of any version sees whole checkpoints only. The input is a stream of groups, each
 * emitted by one call of a flat-map (so no checkpoint barrier falls inside a group): delete a row,
 * insert a new one with the same age, and move one unit of age from one row to another. After
 * every whole group the table has the same number of rows and the same total age; a version with
 * a checkpoint's new rows but not its deletions, or its deletions but not its updates, breaks one
 * of the two. Every version the sink committed is read back and checked, in both update modes and both key map modes.
 */
class AtomicCheckpointITCase {
    private static final int ROWS = 1_200;
    private static final int GROUPS = 500; // deletes keys 0..499, updates keys 600..1199
    private static final int AGE = 100;

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = MiniClusters.oneTaskManager(4);

    @TempDir
    Path dir;

    static Stream<Arguments> modes() {
        return Stream.of(UpdateMode.values())
                .flatMap(u -> Stream.of(KeyMapMode.values()).map(k -> Arguments.of(u, k)));
    }

    @ParameterizedTest
    @MethodSource("modes")
    void everyVersionHoldsWholeCheckpoints(UpdateMode mode, KeyMapMode keyMap) throws Exception {
        String uri = dir.resolve("atomic.lance").toString();
        TreeMap<Long, UsersTable.Row> initial = new TreeMap<>();
        for (long id = 0; id < ROWS; id++) {
            initial.put(id, new UsersTable.Row("n" + id, AGE, 1.0));
        }
        UsersTable.create(uri, initial, 400);
        StreamExecutionEnvironment env = JobEnvironments.noRestarts(2, 100);
        LanceSinkBuilder.forTable(uri)
                .mode(LanceSinkMode.UPSERT)
                .primaryKey("id")
                .updateMode(mode)
                .keyMap(keyMap)
                .uidSuffix("atomic-" + mode)
                .commitRetryBackoff(Duration.ZERO)
                .sinkTo(env.fromSequence(0, GROUPS - 1)
                        .setParallelism(1)
                        .uid("groups")
                        .flatMap(new Groups())
                        .setParallelism(1)
                        .uid("group-rows")
                        .returns(RowData.class));
        env.execute("whole checkpoints, " + mode + ", " + keyMap);

        List<VersionInfo> sinkVersions;
        try (Dataset ds = Dataset.open(uri, Map.of())) {
            sinkVersions = ds.versions().stream().filter(v -> v.version() > 1).toList();
        }
        assertThat(sinkVersions).as("versions the sink committed").hasSizeGreaterThan(3);
        for (VersionInfo v : sinkVersions) {
            long[] countAndSum = countAndSum(uri, v.version());
            assertThat(countAndSum)
                    .as("rows and total age at version %s (%s)", v.version(), v.operation())
                    .containsExactly(ROWS, (long) ROWS * AGE);
        }
        long[] last = countAndSum(uri, sinkVersions.get(sinkVersions.size() - 1).version());
        assertThat(last).containsExactly(ROWS, (long) ROWS * AGE);
        try (Dataset ds = Dataset.open(uri, Map.of());
                Scanner s = ds.scan(ScanOptions.all().withColumns(List.of("id")))) {
            long inserted = 0;
            while (s.hasNext()) {
                try (VectorSchemaRoot b = s.next()) {
                    BigIntVector id = (BigIntVector) b.getVector("id");
                    for (int i = 0; i < b.getRowCount(); i++) {
                        assertThat(id.get(i)).as("deleted key").isGreaterThanOrEqualTo(GROUPS);
                        inserted += id.get(i) >= ROWS ? 1 : 0;
                    }
                }
            }
            assertThat(inserted).isEqualTo(GROUPS);
        }
    }

    private static long[] countAndSum(String uri, long version) throws Exception {
        long rows = 0;
        long sum = 0;
        try (Dataset ds = Dataset.open(uri, Map.of());
                Dataset at = ds.checkoutVersion(version);
                Scanner s = at.scan(ScanOptions.all().withColumns(List.of("age")))) {
            while (s.hasNext()) {
                try (VectorSchemaRoot b = s.next()) {
                    IntVector age = (IntVector) b.getVector("age");
                    for (int i = 0; i < b.getRowCount(); i++) {
                        rows++;
                        sum += age.get(i);
                    }
                }
            }
        }
        return new long[] {rows, sum};
    }

    /** Group {@code g}: delete key g, insert key ROWS + g, move one unit of age between two keys of the upper half. */
    static final class Groups implements FlatMapFunction<Long, RowData> {
        private final Map<Long, Integer> ages = new HashMap<>();

        @Override
        public void flatMap(Long g, Collector<RowData> out) throws Exception {
            Thread.sleep(4); // spread the groups over many checkpoints
            out.collect(row(RowKind.DELETE, g, AGE));
            out.collect(row(RowKind.INSERT, ROWS + g, AGE));
            long from = ROWS / 2 + g % (ROWS / 2);
            long to = ROWS / 2 + (g + 1) % (ROWS / 2);
            int fromAge = ages.getOrDefault(from, AGE) - 1;
            int toAge = ages.getOrDefault(to, AGE) + 1;
            ages.put(from, fromAge);
            ages.put(to, toAge);
            out.collect(row(RowKind.UPDATE_AFTER, from, fromAge));
            out.collect(row(RowKind.UPDATE_AFTER, to, toAge));
        }

        private static RowData row(RowKind kind, long id, int age) {
            return GenericRowData.ofKind(kind, id, StringData.fromString("n" + id), age, 1.0);
        }
    }
}
