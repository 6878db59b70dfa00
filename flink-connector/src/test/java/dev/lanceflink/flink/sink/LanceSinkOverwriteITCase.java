package dev.lanceflink.flink.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.read.ScanOptions;
import dev.lanceflink.read.Scanner;
import dev.lanceflink.testkit.flink.MiniClusters;
import dev.lanceflink.txn.Operation;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.source.legacy.SourceFunction;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link LanceSinkBuilder#overwrite(boolean)} on the DataStream API: a bounded BATCH job replaces
 * the table's rows in one commit, also with writers that get no rows; streaming execution and the
 * change modes are refused when the sink is attached.
 */
class LanceSinkOverwriteITCase {
    private static final Schema SCHEMA = new Schema(List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
            new Field("name", FieldType.nullable(new ArrowType.Utf8()), null)));

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = MiniClusters.oneTaskManager(3);

    @TempDir
    Path dir;

    private String uri;

    @BeforeEach
    void createTableWithRows() throws Exception {
        uri = dir.resolve("t.lance").toString();
        Dataset.write(uri, Map.of(), List.of(), SCHEMA, WriteParams.of(WriteMode.CREATE))
                .close();
        StreamExecutionEnvironment env = env(RuntimeExecutionMode.BATCH);
        LanceSinkBuilder.forTable(uri).sinkTo(rows(env, 1, 100));
        env.execute("initial rows");
    }

    private static StreamExecutionEnvironment env(RuntimeExecutionMode mode) {
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        conf.set(ExecutionOptions.RUNTIME_MODE, mode);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(3);
        return env;
    }

    private static DataStream<RowData> rows(StreamExecutionEnvironment env, long from, long to) {
        return env.fromSequence(from, to)
                .map((MapFunction<Long, RowData>) id -> GenericRowData.of(id, StringData.fromString("n" + id)))
                .returns(RowData.class);
    }

    @Test
    void batchOverwriteReplacesTheRowsInOneCommit() throws Exception {
        StreamExecutionEnvironment env = env(RuntimeExecutionMode.BATCH);
        // 2 rows for 3 writers: one writer writes nothing
        LanceSinkBuilder.forTable(uri).overwrite(true).sinkTo(rows(env, 1000, 1001));
        env.execute("overwrite");

        assertThat(ids()).containsExactlyInAnyOrder(1000L, 1001L);
        try (Dataset ds = Dataset.open(uri, Map.of())) {
            assertThat(ds.transaction().orElseThrow().operation()).isInstanceOf(Operation.Overwrite.class);
            assertThat(ds.versions()).hasSize(3);
        }
    }

    @Test
    void batchOverwriteWithoutRowsEmptiesTheTable() throws Exception {
        StreamExecutionEnvironment env = env(RuntimeExecutionMode.BATCH);
        LanceSinkBuilder.forTable(uri).overwrite(true).sinkTo(rows(env, 1, 100).filter(r -> false));
        env.execute("overwrite with nothing");

        assertThat(ids()).isEmpty();
        try (Dataset ds = Dataset.open(uri, Map.of())) {
            assertThat(ds.transaction().orElseThrow().operation()).isInstanceOf(Operation.Overwrite.class);
        }
    }

    @Test
    void streamingExecutionIsRefusedWhenTheSinkIsAttached() {
        StreamExecutionEnvironment env = env(RuntimeExecutionMode.STREAMING);
        LanceSinkBuilder builder = LanceSinkBuilder.forTable(uri).overwrite(true);

        assertThatThrownBy(() -> builder.sinkTo(rows(env, 1, 10)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(
                        "The Lance sink for " + uri + " overwrites the table, which needs BATCH execution")
                .hasMessageContaining("the job runs in STREAMING mode");
    }

    @Test
    void automaticModeIsRefusedWithAnUnboundedSourceAndAcceptedWithBoundedOnes() {
        StreamExecutionEnvironment env = env(RuntimeExecutionMode.AUTOMATIC);
        DataStream<RowData> unbounded = env.addSource(new EndlessRows(), TypeInformation.of(RowData.class));

        assertThatThrownBy(() -> LanceSinkBuilder.forTable(uri).overwrite(true).sinkTo(unbounded))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("execution.runtime-mode is AUTOMATIC and these sources are unbounded");
        assertThat(LanceSinkBuilder.forTable(uri).overwrite(true).sinkTo(rows(env, 1, 10)))
                .isNotNull();
    }

    @Test
    void changeModesCannotOverwrite() {
        StreamExecutionEnvironment env = env(RuntimeExecutionMode.BATCH);
        LanceSinkBuilder builder = LanceSinkBuilder.forTable(uri)
                .mode(LanceSinkMode.UPSERT)
                .primaryKey("id")
                .overwrite(true);

        assertThatThrownBy(() -> builder.sinkTo(rows(env, 1, 10)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("only the APPEND mode writes; mode UPSERT changes existing rows");
    }

    private List<Long> ids() throws Exception {
        List<Long> out = new ArrayList<>();
        try (Dataset ds = Dataset.open(uri, Map.of());
                Scanner s = ds.scan(ScanOptions.all())) {
            while (s.hasNext()) {
                try (VectorSchemaRoot b = s.next()) {
                    BigIntVector v = (BigIntVector) b.getVector("id");
                    for (int i = 0; i < b.getRowCount(); i++) {
                        out.add(v.get(i));
                    }
                }
            }
        }
        return out;
    }

    /** A legacy source function: Flink treats it as unbounded. Never run in these tests. */
    private static final class EndlessRows implements SourceFunction<RowData> {
        private static final long serialVersionUID = 1L;
        private volatile boolean running = true;

        @Override
        public void run(SourceContext<RowData> ctx) throws Exception {
            while (running) {
                Thread.sleep(100);
            }
        }

        @Override
        public void cancel() {
            running = false;
        }
    }
}
