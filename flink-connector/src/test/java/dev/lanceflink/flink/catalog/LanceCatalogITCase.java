package dev.lanceflink.flink.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.flink.testutil.SampleTable;
import dev.lanceflink.schema.LanceField;
import dev.lanceflink.testkit.flink.MiniClusters;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.catalog.CatalogBaseTable;
import org.apache.flink.table.catalog.CatalogTable;
import org.apache.flink.table.catalog.ObjectPath;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The Lance catalog through SQL on a MiniCluster, over a local warehouse. */
class LanceCatalogITCase {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = MiniClusters.oneTaskManager(2);

    @TempDir
    Path warehouse;

    TableEnvironment t;

    @BeforeEach
    void createCatalog() {
        t = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        t.getConfig().set("parallelism.default", "1");
        t.executeSql("CREATE CATALOG lake WITH ('type' = 'lance', 'warehouse' = '" + warehouse + "')");
        t.executeSql("USE CATALOG lake");
    }

    private List<String> rows(String sql) throws Exception {
        List<String> out = new ArrayList<>();
        try (CloseableIterator<Row> it = t.executeSql(sql).collect()) {
            it.forEachRemaining(r -> out.add(r.toString()));
        }
        return out;
    }

    @Test
    void defaultDatabaseExistsAsAMarkerObject() throws Exception {
        assertThat(rows("SHOW DATABASES")).containsExactly("+I[default]");
        assertThat(warehouse.resolve("default/" + Warehouse.DATABASE_MARKER)).isRegularFile();
        assertThat(rows("SHOW CURRENT DATABASE")).containsExactly("+I[default]");
    }

    @Test
    void createsListsAndDropsDatabasesAndTables() throws Exception {
        t.executeSql("CREATE DATABASE sales COMMENT 'orders and customers' WITH ('owner' = 'ops')");
        assertThat(rows("SHOW DATABASES")).containsExactly("+I[default]", "+I[sales]");
        assertThat(t.getCatalog("lake").orElseThrow().getDatabase("sales").getComment())
                .isEqualTo("orders and customers");
        assertThat(t.getCatalog("lake").orElseThrow().getDatabase("sales").getProperties())
                .isEqualTo(Map.of("owner", "ops"));
        assertThatThrownBy(() -> t.executeSql("CREATE DATABASE sales")).hasStackTraceContaining("already exists");

        t.executeSql("CREATE TABLE sales.users (id BIGINT, name STRING, age INT, emb ARRAY<FLOAT>, "
                + "PRIMARY KEY (id) NOT ENFORCED) COMMENT 'people' WITH ('vector-dimensions' = 'emb:2')");
        t.executeSql("CREATE TABLE sales.orders (id BIGINT NOT NULL, user_id BIGINT, amount DECIMAL(12, 2))");
        assertThat(rows("SHOW TABLES FROM sales")).containsExactly("+I[orders]", "+I[users]");

        assertThatThrownBy(() -> t.executeSql("DROP DATABASE sales")).hasStackTraceContaining("is not empty");
        t.executeSql("DROP TABLE sales.orders");
        assertThat(rows("SHOW TABLES FROM sales")).containsExactly("+I[users]");
        assertThat(warehouse.resolve("sales/orders.lance")).doesNotExist();
        t.executeSql("DROP DATABASE sales CASCADE");
        assertThat(rows("SHOW DATABASES")).containsExactly("+I[default]");
        assertThat(warehouse.resolve("sales")).doesNotExist();
    }

    @Test
    void createdTableIsAnEmptyLanceDatasetWithTheMappedSchemaAndPrimaryKey() throws Exception {
        t.executeSql("CREATE TABLE users (id BIGINT, name STRING NOT NULL, emb ARRAY<FLOAT>, tags ARRAY<STRING>, "
                + "PRIMARY KEY (id) NOT ENFORCED) COMMENT 'people' WITH ('vector-dimensions' = 'emb:3', "
                + "'scan.batch-size' = '64')");
        String uri = warehouse.resolve("default/users.lance").toString();
        try (Dataset d = Dataset.open(uri, Map.of())) {
            assertThat(d.version()).isEqualTo(1);
            assertThat(d.fragments()).isEmpty();
            List<Field> fields = d.schema().toArrow().getFields();
            assertThat(fields).extracting(Field::getName).containsExactly("id", "name", "emb", "tags");
            assertThat(fields.get(0).getType()).isEqualTo(new ArrowType.Int(64, true));
            assertThat(fields.get(0).isNullable()).isFalse();
            assertThat(fields.get(1).isNullable()).isFalse();
            assertThat(fields.get(2).getType()).isEqualTo(new ArrowType.FixedSizeList(3));
            assertThat(fields.get(3).getType()).isEqualTo(ArrowType.List.INSTANCE);
            LanceField id = d.schema().fieldByName("id").orElseThrow();
            assertThat(id.isUnenforcedPrimaryKey()).isTrue();
            assertThat(id.unenforcedPrimaryKeyPosition()).isEqualTo(1);
            assertThat(d.schema().fieldByName("name").orElseThrow().isUnenforcedPrimaryKey())
                    .isFalse();
            assertThat(d.manifest().config())
                    .containsEntry("flink.comment", "people")
                    .containsEntry("flink.option.vector-dimensions", "emb:3")
                    .containsEntry("flink.option.scan.batch-size", "64");
        }

        CatalogBaseTable table = t.getCatalog("lake").orElseThrow().getTable(new ObjectPath("default", "users"));
        assertThat(table.getComment()).isEqualTo("people");
        assertThat(table.getUnresolvedSchema().getPrimaryKey().orElseThrow().getColumnNames())
                .containsExactly("id");
        assertThat(table.getOptions())
                .containsEntry("connector", "lance")
                .containsEntry("path", uri)
                .containsEntry("vector-dimensions", "emb:3")
                .containsEntry("scan.batch-size", "64");
        assertThat(rows("DESCRIBE users"))
                .containsExactly(
                        "+I[id, BIGINT, false, PRI(id), null, null]",
                        "+I[name, STRING, false, null, null, null]",
                        "+I[emb, ARRAY<FLOAT>, true, null, null, null]",
                        "+I[tags, ARRAY<STRING>, true, null, null, null]");
        assertThat(rows("SELECT * FROM users")).isEmpty();
    }

    @Test
    void readsATableWrittenByFormatCore() throws Exception {
        SampleTable.write(warehouse.resolve("default/items.lance").toString());
        assertThat(rows("SHOW TABLES")).containsExactly("+I[items]");
        assertThat(rows("SELECT id, name, price, vec FROM items WHERE id IN (0, 3, 7)"))
                .containsExactly(
                        "+I[0, n0, 0.25, [0.0, 0.0]]",
                        "+I[3, null, 3.25, [3.0, -3.0]]",
                        "+I[7, n7, 7.25, [7.0, -7.0]]");
        // Time travel through the factory's option, as a hint on the catalog table.
        assertThat(rows("SELECT COUNT(*) FROM items /*+ OPTIONS('version' = '1') */"))
                .containsExactly("+I[5]");
        CatalogTable table =
                (CatalogTable) t.getCatalog("lake").orElseThrow().getTable(new ObjectPath("default", "items"));
        assertThat(table.getOptions()).containsEntry("vector-dimensions", "vec:2");
    }

    @Test
    void insertsIntoATableCreatedByTheCatalog() throws Exception {
        t.executeSql("CREATE TABLE events (id BIGINT NOT NULL, kind STRING, price DECIMAL(8, 2))");
        t.executeSql("INSERT INTO events VALUES (1, 'a', 1.25), (2, 'b', CAST(NULL AS DECIMAL(8, 2)))")
                .await();
        assertThat(rows("SELECT id, kind, price FROM events ORDER BY id"))
                .containsExactly("+I[1, a, 1.25]", "+I[2, b, null]");
        try (Dataset d = Dataset.open(warehouse.resolve("default/events.lance").toString(), Map.of())) {
            assertThat(d.version()).isEqualTo(2);
            assertThat(d.countRows()).isEqualTo(2);
        }
    }

    /**
     * Flink's NOT NULL enforcer, before the sink, fails the job naming the column (bin/lance-flink
     * sql adds the table and what to do); the sink commits nothing of the statement.
     */
    @Test
    void aNullIntoANotNullColumnFailsTheJobNamingTheColumnAndCommitsNothing() throws Exception {
        t.executeSql("CREATE TABLE events (id BIGINT NOT NULL, kind STRING NOT NULL)");
        assertThatThrownBy(() -> t.executeSql("INSERT INTO events VALUES (1, 'a'), (2, CAST(NULL AS STRING))")
                        .await())
                .hasStackTraceContaining("Column 'kind' is NOT NULL, however, a null value is being written into it");
        try (Dataset d = Dataset.open(warehouse.resolve("default/events.lance").toString(), Map.of())) {
            assertThat(d.version()).as("only the empty table").isEqualTo(1);
        }
    }

    @Test
    void aDirectoryWithTablesButNoMarkerIsADatabase() throws Exception {
        SampleTable.write(warehouse.resolve("imported/items.lance").toString());
        Files.createDirectories(warehouse.resolve("not-a-database"));
        assertThat(rows("SHOW DATABASES")).containsExactly("+I[default]", "+I[imported]");
        assertThat(rows("SELECT COUNT(*) FROM imported.items")).containsExactly("+I[8]");
    }

    @Test
    void refusesWhatALanceCatalogCannotHold() {
        assertThatThrownBy(() -> t.executeSql("CREATE TABLE a (id INT) WITH ('path' = '/tmp/x')"))
                .hasStackTraceContaining("'path': the catalog places the table");
        assertThatThrownBy(() -> t.executeSql("CREATE TABLE a (id INT) WITH ('connector' = 'datagen')"))
                .hasStackTraceContaining("tables of a Lance catalog are Lance tables");
        assertThatThrownBy(() -> t.executeSql("CREATE TABLE a (id INT) WITH ('scan.batch-sise' = '3')"))
                .hasStackTraceContaining("'scan.batch-sise' is not an option of Lance tables");
        assertThatThrownBy(() -> t.executeSql("CREATE TABLE a (id INT, b AS id + 1)"))
                .hasStackTraceContaining("[b] are computed or metadata columns");
        assertThatThrownBy(() -> t.executeSql("CREATE TABLE a (id INT, t MULTISET<INT>)"))
                .hasStackTraceContaining("Column 't' has type MULTISET<INT>, which Lance cannot store");
        assertThatThrownBy(() -> t.executeSql("CREATE VIEW v AS SELECT 1"))
                .hasStackTraceContaining("CREATE VIEW and materialized tables is not supported by the Lance catalog");
        assertThatThrownBy(() -> t.executeSql("CREATE TABLE `.hidden` (id INT)"))
                .hasStackTraceContaining("must be non-empty, not start with '.'");
        assertThat(warehouse.resolve("default"))
                .isDirectoryNotContaining(p -> p.toString().endsWith(".lance"));
    }

    @Test
    void tableNameTakenTwiceFailsUnlessIfNotExists() throws Exception {
        t.executeSql("CREATE TABLE a (id INT)");
        assertThatThrownBy(() -> t.executeSql("CREATE TABLE a (id BIGINT)")).hasStackTraceContaining("already exists");
        t.executeSql("CREATE TABLE IF NOT EXISTS a (id BIGINT)");
        try (Dataset d = Dataset.open(warehouse.resolve("default/a.lance").toString(), Map.of())) {
            assertThat(d.version()).isEqualTo(1);
            assertThat(d.schema().toArrow().getFields().get(0).getType()).isEqualTo(new ArrowType.Int(32, true));
        }
    }
}
