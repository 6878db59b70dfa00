package dev.lanceflink.it.peers;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.Table;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.TableLoader;
import org.apache.iceberg.flink.sink.FlinkSink;
import org.apache.iceberg.flink.source.IcebergSource;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.types.Types;

/**
 * Apache Iceberg's side of the peer benchmark (Flink 2.1, its own JVM): format v2 Hadoop tables
 * (a directory each, under the run's directory) with {@code id} as identifier field, written with
 * Iceberg's {@code FlinkSink} and read with its FLIP-27 {@code IcebergSource}. New rows are
 * appended; updates and the changelog go through upsert mode, which takes whole rows (Iceberg has
 * no partial-column update), so the cell updates write full rows with the new {@code age}.
 * Everything else is Iceberg's default (Parquet with zstd).
 */
public final class IcebergPeer extends PeerWorkloads {
    private final Path dir;
    private final HadoopTables tables = new HadoopTables(new org.apache.hadoop.conf.Configuration());

    private IcebergPeer(Path dir) {
        this.dir = dir;
    }

    public static void main(String[] argv) throws Exception {
        PeerRun.Args args = PeerRun.Args.parse(argv);
        new IcebergPeer(args.dir()).main(args);
        System.exit(0); // Iceberg's worker pools are not all daemons
    }

    private String location(String table) {
        return tableDir(table).toUri().toString();
    }

    private void create(String table) {
        Schema schema = new Schema(List.of(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.optional(2, "name", Types.StringType.get()),
                Types.NestedField.optional(3, "age", Types.IntegerType.get()),
                Types.NestedField.optional(4, "score", Types.DoubleType.get()),
                Types.NestedField.optional(5, "vec", Types.ListType.ofRequired(6, Types.FloatType.get()))),
                Set.of(1));
        tables.create(schema, PartitionSpec.unpartitioned(), SortOrder.unsorted(), Map.of("format-version", "2"),
                location(table));
    }

    private TableLoader loader(String table) {
        return TableLoader.fromHadoopTable(location(table));
    }

    @Override
    protected void createAppendTable(String table, int dim) {
        create(table);
    }

    @Override
    protected void createUpdateTable(String table, int dim) {
        create(table);
    }

    @Override
    protected boolean vectorElementsNotNull() {
        return true;
    }

    @Override
    protected UpdateShape updateShape() {
        return UpdateShape.FULL_ROW;
    }

    @Override
    protected void sinkAppend(DataStream<RowData> rows, String table) {
        FlinkSink.forRowData(rows).tableLoader(loader(table)).writeParallelism(PARALLELISM).append();
    }

    @Override
    protected void sinkUpdates(DataStream<RowData> rows, String table) {
        sinkChanges(rows, table);
    }

    @Override
    protected void sinkChanges(DataStream<RowData> rows, String table) {
        FlinkSink.forRowData(rows).tableLoader(loader(table)).upsert(true).equalityFieldColumns(List.of("id"))
                .writeParallelism(PARALLELISM).append();
    }

    @Override
    protected DataStream<RowData> scan(StreamExecutionEnvironment env, String table, List<String> columns) {
        Table t = tables.load(location(table));
        Schema projected = t.schema().select(columns);
        IcebergSource<RowData> source = IcebergSource.forRowData().tableLoader(loader(table)).streaming(false)
                .project(projected).build();
        // fromSource keeps the job's parallelism (2); buildStream would infer one from the splits.
        return env.fromSource(source, WatermarkStrategy.noWatermarks(), "Iceberg source",
                InternalTypeInfo.of(FlinkSchemaUtil.convert(projected)));
    }

    @Override
    protected Path tableDir(String table) {
        return dir.resolve(table);
    }
}
