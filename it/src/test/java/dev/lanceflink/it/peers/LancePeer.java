package dev.lanceflink.it.peers;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.flink.sink.KeyMapMode;
import dev.lanceflink.flink.sink.LanceSinkBuilder;
import dev.lanceflink.flink.sink.LanceSinkMode;
import dev.lanceflink.flink.source.LanceSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;

/**
 * Our side of the peer benchmark (the connector on Flink 2.3, in a JVM of its own like the
 * peers'): Lance tables written by {@link LanceSinkBuilder} and read by {@link LanceSource}. New
 * rows go through APPEND mode; the cell updates through UPSERT mode on {@code id} with records of
 * {@code (id, age)} only ({@code inputColumns}), so only {@code age} is written, as Paimon's
 * partial-update does; the changelog through UPSERT mode with whole rows and deletes. The vector
 * is a {@code fixed_size_list<float32, dim>}, Lance's vector column.
 */
public final class LancePeer extends PeerWorkloads {
    private final Path dir;
    /** The upsert sinks' key map ({@code --variant}, a {@code 'sink.key-map'} value), or null for the sink's default. */
    private final KeyMapMode keyMap;

    private LancePeer(Path dir, KeyMapMode keyMap) {
        this.dir = dir;
        this.keyMap = keyMap;
    }

    public static void main(String[] argv) throws Exception {
        PeerRun.Args args = PeerRun.Args.parse(argv);
        KeyMapMode keyMap = args.variant().isEmpty()
                ? null
                : KeyMapMode.ofOptionValue(args.variant())
                        .orElseThrow(() -> new IllegalArgumentException("The lance runner's variant is a key map ("
                                + "keyed-state or in-memory), got '" + args.variant() + "'"));
        new LancePeer(args.dir(), keyMap).main(args);
        System.exit(0);
    }

    private String uri(String table) {
        return tableDir(table).toString();
    }

    private void create(String table, int dim) throws Exception {
        Schema schema = new Schema(List.of(
                new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
                new Field("name", FieldType.nullable(new ArrowType.Utf8()), null),
                new Field("age", FieldType.nullable(new ArrowType.Int(32, true)), null),
                new Field(
                        "score", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), null),
                new Field(
                        "vec",
                        FieldType.nullable(new ArrowType.FixedSizeList(dim)),
                        List.of(new Field(
                                "item",
                                FieldType.notNullable(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
                                null)))));
        Files.createDirectories(dir);
        Dataset.write(uri(table), Map.of(), List.of(), schema, WriteParams.of(WriteMode.CREATE))
                .close();
    }

    @Override
    protected void createAppendTable(String table, int dim) throws Exception {
        create(table, dim);
    }

    @Override
    protected void createUpdateTable(String table, int dim) throws Exception {
        create(table, dim);
    }

    @Override
    protected boolean vectorElementsNotNull() {
        return true;
    }

    @Override
    protected UpdateShape updateShape() {
        return UpdateShape.ID_AGE;
    }

    @Override
    protected void sinkAppend(DataStream<RowData> rows, String table) {
        LanceSinkBuilder.forTable(uri(table))
                .mode(LanceSinkMode.APPEND)
                .uidSuffix(table)
                .sinkTo(rows);
    }

    @Override
    protected void sinkUpdates(DataStream<RowData> rows, String table) {
        upsert(table).inputColumns("id", "age").sinkTo(rows);
    }

    @Override
    protected void sinkChanges(DataStream<RowData> rows, String table) {
        upsert(table).sinkTo(rows);
    }

    private LanceSinkBuilder upsert(String table) {
        LanceSinkBuilder b = LanceSinkBuilder.forTable(uri(table))
                .mode(LanceSinkMode.UPSERT)
                .primaryKey("id")
                .uidSuffix(table);
        return keyMap == null ? b : b.keyMap(keyMap);
    }

    @Override
    protected DataStream<RowData> scan(StreamExecutionEnvironment env, String table, List<String> columns) {
        LanceSource source = LanceSource.builder(uri(table)).columns(columns).build();
        return env.fromSource(
                source,
                WatermarkStrategy.noWatermarks(),
                "Lance source",
                InternalTypeInfo.of(source.producedRowType()));
    }

    @Override
    protected Path tableDir(String table) {
        return dir.resolve(table + ".lance");
    }
}
