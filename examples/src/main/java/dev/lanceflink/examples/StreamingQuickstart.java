package dev.lanceflink.examples;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.VersionInfo;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.flink.sink.LanceSinkBuilder;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;

/**
 * The streaming part of the quickstart: an embedded Flink MiniCluster streams rows into a Lance
 * table through the exactly-once sink, checkpointing every 200 ms; each checkpoint becomes one
 * table version whose transaction carries the sink's idempotency marker.
 *
 * <p>Usage: {@code StreamingQuickstart [table-directory] [rows]}.
 */
public final class StreamingQuickstart {
    private static final Schema EVENTS = new Schema(List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
            new Field("name", FieldType.nullable(new ArrowType.Utf8()), null)));

    private StreamingQuickstart() {}

    public static void main(String[] args) throws Exception {
        String uri = args.length > 0 ? args[0] : "quickstart-data/events.lance";
        long rows = args.length > 1 ? Long.parseLong(args[1]) : 20_000;
        // The sink appends to an existing table: create it empty.
        try (Dataset ignored = Dataset.write(uri, Map.of(), List.of(), EVENTS, WriteParams.of(WriteMode.OVERWRITE))) {
            // created
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(200);
        LanceSinkBuilder.forTable(uri)
                .uidSuffix("events")
                .rowsPerFile(100_000)
                .sinkTo(env.fromSequence(1, rows)
                        .map((MapFunction<Long, RowData>)
                                id -> GenericRowData.of(id, id % 10 == 0 ? null : StringData.fromString("event-" + id)))
                        .returns(RowData.class));
        env.execute("lance-flink quickstart: stream into " + uri);
        try (Dataset ds = Dataset.open(uri, Map.of())) {
            List<VersionInfo> versions = ds.versions();
            System.out.println("== streamed " + rows + " rows into " + uri + " with the exactly-once Flink sink: "
                    + ds.countRows() + " rows in " + (versions.size() - 1) + " checkpoint commits");
            VersionInfo last = versions.get(versions.size() - 1);
            System.out.println(
                    "   last commit: version " + last.version() + ", " + last.operation() + ", " + last.properties());
        }
    }
}
