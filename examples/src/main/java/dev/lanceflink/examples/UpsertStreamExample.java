package dev.lanceflink.examples;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.VersionInfo;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.flink.sink.LanceSinkBuilder;
import dev.lanceflink.flink.sink.LanceSinkMode;
import dev.lanceflink.table.Fragment;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.Collector;

/**
 * A changelog streamed into a Lance table through the exactly-once upsert sink (DataStream API):
 * a table of 10,000 accounts gets 50,000 changes keyed by {@code id} — balance updates with their
 * before-images, new accounts, closed accounts. Updates land as data overlay files holding only
 * the changed cells; rows move nowhere, so row addresses and indices stay valid.
 *
 * <p>Usage: {@code UpsertStreamExample [table-directory] [changes]}.
 */
public final class UpsertStreamExample {
    private static final Schema ACCOUNTS = new Schema(List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
            new Field("balance", FieldType.nullable(new ArrowType.Int(64, true)), null),
            new Field("visits", FieldType.nullable(new ArrowType.Int(32, true)), null)));

    private UpsertStreamExample() {}

    public static void main(String[] args) throws Exception {
        String uri = args.length > 0 ? args[0] : "quickstart-data/accounts.lance";
        long changes = args.length > 1 ? Long.parseLong(args[1]) : 50_000;
        int accounts = 10_000;
        createAccounts(uri, accounts);

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(500);
        LanceSinkBuilder.forTable(uri)
                .mode(LanceSinkMode.UPSERT)
                .primaryKey("id")
                .uidSuffix("accounts")
                .sinkTo(env.fromSequence(0, changes - 1)
                        .setParallelism(1)
                        .flatMap(new Changes(accounts))
                        .setParallelism(1)
                        .returns(RowData.class));
        env.execute("lance-flink example: upsert stream into " + uri);

        try (Dataset ds = Dataset.open(uri, Map.of())) {
            long overlays = ds.manifest().fragments().stream()
                    .mapToLong(f -> f.overlays().size())
                    .sum();
            long physical = ds.manifest().fragments().stream()
                    .mapToLong(Fragment::physicalRows)
                    .sum();
            List<VersionInfo> versions = ds.versions();
            System.out.println(
                    "== upserted " + changes + " changes into " + uri + ": " + ds.countRows() + " live rows ("
                            + physical + " stored), " + overlays + " overlay files, " + (versions.size() - 1)
                            + " versions committed by the sink");
            VersionInfo last = versions.get(versions.size() - 1);
            System.out.println(
                    "   last commit: version " + last.version() + ", " + last.operation() + ", " + last.properties());
        }
    }

    private static void createAccounts(String uri, int n) throws Exception {
        try (BufferAllocator allocator = new RootAllocator();
                VectorSchemaRoot root = VectorSchemaRoot.create(ACCOUNTS, allocator)) {
            BigIntVector id = (BigIntVector) root.getVector("id");
            BigIntVector balance = (BigIntVector) root.getVector("balance");
            IntVector visits = (IntVector) root.getVector("visits");
            root.allocateNew();
            for (int i = 0; i < n; i++) {
                id.setSafe(i, i);
                balance.setSafe(i, 1_000);
                visits.setSafe(i, 0);
            }
            root.setRowCount(n);
            Dataset.write(uri, Map.of(), List.of(root), ACCOUNTS, WriteParams.of(WriteMode.OVERWRITE))
                    .close();
        }
    }

    /**
     * Change {@code i}: mostly a balance update of an existing account (UPDATE_BEFORE + UPDATE_AFTER,
     * so only the balance cell is overlaid), every 50th a new account, every 97th a closed one.
     * The before-image is made up (a real CDC source carries the true one); its visits equal the
     * after-image's, which is what makes the overlay sparse.
     */
    static final class Changes implements FlatMapFunction<Long, RowData> {
        private static final long serialVersionUID = 1L;
        private final int accounts;

        Changes(int accounts) {
            this.accounts = accounts;
        }

        @Override
        public void flatMap(Long i, Collector<RowData> out) {
            if (i % 50 == 0) {
                out.collect(GenericRowData.ofKind(RowKind.INSERT, accounts + i, 0L, 1));
            } else if (i % 97 == 0) {
                out.collect(GenericRowData.ofKind(RowKind.DELETE, (i * 31) % accounts, null, null));
            } else {
                long id = (i * 7919) % accounts;
                out.collect(GenericRowData.ofKind(RowKind.UPDATE_BEFORE, id, 0L, 0));
                out.collect(GenericRowData.ofKind(RowKind.UPDATE_AFTER, id, 1_000 + i, 0));
            }
        }
    }
}
