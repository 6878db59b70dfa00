package dev.lanceflink.it.peers;

import java.nio.file.Path;
import java.util.List;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.flink.sink.FlinkSinkBuilder;
import org.apache.paimon.flink.source.FlinkSourceBuilder;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.Table;
import org.apache.paimon.types.DataTypes;

/**
 * Apache Paimon's side of the peer benchmark (Flink 1.20, its own JVM): primary-key tables in a
 * file-system catalog under the run's directory, written with Paimon's DataStream sink and read
 * with its bounded source. The update table uses the {@code partial-update} merge engine and gets
 * records with NULL in every column but {@code id} and {@code age}, which is how Paimon writes only
 * some columns. Everything else is Paimon's default (dynamic buckets, Parquet, in-writer
 * compaction), except with variant {@code write-only}: {@code 'write-only' = 'true'} on both
 * tables, which leaves compaction to a separate job as our sink does.
 */
public final class PaimonPeer extends PeerWorkloads {
    private static final String DB = "bench";
    private final Path warehouse;
    private final boolean writeOnly;
    private final Catalog catalog;

    private PaimonPeer(Path warehouse, boolean writeOnly) throws Exception {
        this.warehouse = warehouse;
        this.writeOnly = writeOnly;
        this.catalog = CatalogFactory.createCatalog(
                CatalogContext.create(new org.apache.paimon.fs.Path(warehouse.toUri().toString())));
        catalog.createDatabase(DB, true);
    }

    public static void main(String[] argv) throws Exception {
        PeerRun.Args args = PeerRun.Args.parse(argv);
        boolean writeOnly = switch (args.variant()) {
            case "", "defaults" -> false;
            case "write-only" -> true;
            default -> throw new IllegalArgumentException("Paimon variant '" + args.variant()
                    + "' is unknown; use defaults or write-only");
        };
        new PaimonPeer(args.dir(), writeOnly).main(args);
        System.exit(0); // Paimon's and Flink's pool threads are not all daemons
    }

    private void create(String table, boolean partialUpdate) throws Exception {
        Schema.Builder b = Schema.newBuilder()
                .column("id", DataTypes.BIGINT().notNull())
                .column("name", DataTypes.STRING())
                .column("age", DataTypes.INT())
                .column("score", DataTypes.DOUBLE())
                .column("vec", DataTypes.ARRAY(DataTypes.FLOAT().notNull()))
                .primaryKey("id");
        if (partialUpdate) {
            b.option("merge-engine", "partial-update");
        }
        if (writeOnly) {
            b.option("write-only", "true");
        }
        catalog.createTable(Identifier.create(DB, table), b.build(), false);
    }

    private Table table(String name) throws Exception {
        return catalog.getTable(Identifier.create(DB, name));
    }

    @Override
    protected void createAppendTable(String table, int dim) throws Exception {
        create(table, false);
    }

    @Override
    protected void createUpdateTable(String table, int dim) throws Exception {
        create(table, true);
    }

    @Override
    protected boolean vectorElementsNotNull() {
        return true;
    }

    @Override
    protected UpdateShape updateShape() {
        return UpdateShape.FULL_WIDTH_NULLS;
    }

    @Override
    protected void sinkAppend(DataStream<RowData> rows, String table) throws Exception {
        new FlinkSinkBuilder(table(table)).forRowData(rows).parallelism(PARALLELISM).build();
    }

    @Override
    protected void sinkUpdates(DataStream<RowData> rows, String table) throws Exception {
        sinkAppend(rows, table);
    }

    @Override
    protected void sinkChanges(DataStream<RowData> rows, String table) throws Exception {
        sinkAppend(rows, table);
    }

    @Override
    protected DataStream<RowData> scan(StreamExecutionEnvironment env, String table, List<String> columns)
            throws Exception {
        Table t = table(table);
        int[] projection = columns.stream().mapToInt(c -> t.rowType().getFieldNames().indexOf(c)).toArray();
        return new FlinkSourceBuilder(t).env(env).sourceBounded(true).projection(projection)
                .sourceParallelism(PARALLELISM).build();
    }

    @Override
    protected Path tableDir(String table) {
        return warehouse.resolve(DB + ".db").resolve(table);
    }
}
