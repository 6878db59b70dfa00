package dev.lanceflink.flink.catalog;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.s3.RequestCounter;
import dev.lanceflink.s3.S3ObjectStore;
import dev.lanceflink.s3.S3ProxyExtension;
import dev.lanceflink.s3.S3TestClients;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Listing databases and tables of a warehouse on S3 (S3Proxy) goes one level at a time: its LIST
 * requests depend on the number of databases and tables, not on the data files below them.
 */
class WarehouseOnS3Test {
    @RegisterExtension
    static final S3ProxyExtension S3 = new S3ProxyExtension();

    private final RequestCounter counter = new RequestCounter();

    /** A table of 10 rows in 5 data files (the keys a recursive listing would have to read). */
    private static void writeTable(String uri, Map<String, String> options) throws Exception {
        Schema schema = new Schema(List.of(new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null)));
        try (BufferAllocator alloc = new RootAllocator();
                VectorSchemaRoot root = VectorSchemaRoot.create(schema, alloc)) {
            BigIntVector id = (BigIntVector) root.getVector("id");
            for (int i = 0; i < 10; i++) {
                id.setSafe(i, i);
            }
            root.setRowCount(10);
            Dataset.write(
                            uri,
                            options,
                            List.of(root),
                            schema,
                            WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(2))
                    .close();
        }
    }

    @Test
    void listsDatabasesAndTablesOneLevelAtATime() throws Exception {
        String root = S3TestClients.freshUri(S3.server(), "warehouse");
        Map<String, String> options = S3.server().storageOptions();
        writeTable(root + "/sales/orders.lance", options);
        writeTable(root + "/sales/users.lance", options);
        writeTable(root + "/imported/items.lance", options);

        try (Warehouse w =
                Warehouse.on(root, options, S3TestClients.open(root, S3.server().config(), counter, null))) {
            assertThat(w.createDatabaseMarker("sales", "{}".getBytes(UTF_8))).isTrue();
            assertThat(w.createDatabaseMarker("empty", "{}".getBytes(UTF_8))).isTrue();
            try (S3ObjectStore raw = S3ObjectStore.open(root, S3.server().config())) {
                raw.put("logs/2026/app.log", "not a table".getBytes(UTF_8)); // a directory that is no database
                raw.put("sales/notes.lance/readme.txt", new byte[] {1}); // named like a table, never committed
            }

            counter.reset();
            assertThat(w.listTables("sales")).containsExactly("orders", "users");
            // One delimiter LIST of sales/, then one LIST of each candidate's _versions/ (its first
            // page holds a manifest): no request reads the data files' keys.
            assertThat(counter.snapshot()).isEqualTo(Map.of("ListObjectsV2", 4));

            counter.reset();
            assertThat(w.listDatabases()).containsExactly("empty", "imported", "sales");
            // LIST of the root; HEAD of each directory's marker; for the two without one
            // (imported, logs), a LIST of the directory and of each candidate table's _versions/.
            assertThat(counter.snapshot()).isEqualTo(Map.of("ListObjectsV2", 4, "HeadObject", 4));
            assertThat(w.databaseExists("imported")).isTrue();
            assertThat(w.databaseExists("logs")).isFalse();
            assertThat(w.listTables("empty")).isEmpty();
        }
    }
}
