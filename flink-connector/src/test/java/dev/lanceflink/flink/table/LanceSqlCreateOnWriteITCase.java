package dev.lanceflink.flink.table;

import static dev.lanceflink.flink.table.SqlTestSupport.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.flink.catalog.CatalogSchemas;
import dev.lanceflink.flink.types.VectorDimensions;
import dev.lanceflink.s3.S3ProxyExtension;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.testkit.flink.MiniClusters;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code 'connector' = 'lance'} table whose path holds no Lance table creates it at its first
 * write, from the declaration (as the Lance catalog would: vectors, primary key, MAP → 2.2,
 * {@code 'create.*'} options), on the local file system and on S3; concurrent creators end with
 * one table that both write into.
 */
class LanceSqlCreateOnWriteITCase {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = MiniClusters.oneTaskManager(4);

    @RegisterExtension
    static final S3ProxyExtension S3 = new S3ProxyExtension();

    @TempDir
    Path dir;

    private static TableEnvironment batch() {
        TableEnvironment t = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        t.getConfig().set("parallelism.default", "1");
        return t;
    }

    private static String with(String uri, Map<String, String> storage, String extra) {
        String s = storage.entrySet().stream()
                .map(e -> ", 'storage." + e.getKey() + "' = '" + e.getValue() + "'")
                .collect(Collectors.joining());
        return " WITH ('connector' = 'lance', 'path' = '" + uri + "'" + s + extra + ")";
    }

    private static Manifest manifest(String uri, Map<String, String> storage, long version) throws Exception {
        try (Dataset d = Dataset.open(uri, storage);
                Dataset at = d.checkoutVersion(version)) {
            return at.manifest();
        }
    }

    @Test
    void firstInsertCreatesTheTableWithTheDeclaredColumnsAndVectors() throws Exception {
        String uri = dir.resolve("items.lance").toString();
        TableEnvironment t = batch();
        t.executeSql("CREATE TABLE items (id BIGINT NOT NULL, name STRING, embedding ARRAY<FLOAT>,"
                + " addr BIGINT METADATA FROM '_rowaddr' VIRTUAL, up AS UPPER(name))"
                + with(uri, Map.of(), ", 'vector-dimensions' = 'embedding:3'"));
        t.executeSql("INSERT INTO items (id, name, embedding) VALUES (1, 'a', ARRAY[CAST(1 AS FLOAT), 2, 3]),"
                        + " (2, 'b', CAST(NULL AS ARRAY<FLOAT>))")
                .await();

        Manifest created = manifest(uri, Map.of(), 1);
        assertThat(created.fragments()).as("version 1 is the empty table").isEmpty();
        Manifest latest = manifest(uri, Map.of(), 2);
        assertThat(latest.dataFormat().version())
                .as("current Lance's default, as the catalog")
                .isEqualTo("2.2");
        assertThat(latest.usesStableRowIds()).isFalse();
        assertThat(latest.schema().fields().stream().map(f -> f.name()).toList())
                .containsExactly("id", "name", "embedding");
        assertThat(latest.schema()
                        .fieldByName("embedding")
                        .orElseThrow()
                        .toArrow()
                        .getType())
                .isEqualTo(new ArrowType.FixedSizeList(3));
        assertThat(rows(t, "SELECT id, up, embedding FROM items ORDER BY id"))
                .containsExactly("+I[1, A, [1.0, 2.0, 3.0]]", "+I[2, B, null]");
    }

    @Test
    void firstUpsertCreatesAPrimaryKeyTableWithMapsAsTwoTwoAndTheCreateOptions() throws Exception {
        String uri = dir.resolve("kv.lance").toString();
        TableEnvironment t = batch();
        t.executeSql("CREATE TABLE kv (id BIGINT NOT NULL, tags MAP<STRING, INT>, PRIMARY KEY (id) NOT ENFORCED)"
                + with(uri, Map.of(), ", 'create.stable-row-ids' = 'true'"));
        t.executeSql("INSERT INTO kv VALUES (1, MAP['x', 1]), (2, MAP['y', 2])").await();
        t.executeSql("INSERT INTO kv VALUES (1, MAP['z', 3])").await();

        Manifest m = manifest(uri, Map.of(), 1);
        assertThat(m.dataFormat().version()).as("MAP columns force 2.2").isEqualTo("2.2");
        assertThat(m.usesStableRowIds()).isTrue();
        assertThat(m.schema().fieldByName("id").orElseThrow().isUnenforcedPrimaryKey())
                .isTrue();
        assertThat(rows(t, "SELECT * FROM kv ORDER BY id")).containsExactly("+I[1, {z=3}]", "+I[2, {y=2}]");

        String old = dir.resolve("old.lance").toString();
        t.executeSql("CREATE TABLE old_format (id BIGINT)" + with(old, Map.of(), ", 'create.file-version' = '2.0'"));
        t.executeSql("INSERT INTO old_format VALUES (7)").await();
        assertThat(manifest(old, Map.of(), 1).dataFormat().version()).isEqualTo("2.0");

        t.executeSql("CREATE TABLE bad (id BIGINT, m MAP<STRING, INT>)"
                + with(dir.resolve("bad.lance").toString(), Map.of(), ", 'create.file-version' = '2.1'"));
        assertThatThrownBy(() ->
                        t.executeSql("INSERT INTO bad VALUES (1, MAP['a', 1])").await())
                .hasStackTraceContaining("with data storage version 2.1: it has a MAP column, which Lance stores only"
                        + " in version 2.2 files; set 'create.file-version' = '2.2' or leave it unset");
    }

    @Test
    void twoConcurrentCreatorsOnTheLocalFileSystemEndWithOneTableHoldingBothJobsRows() throws Exception {
        concurrentCreators(dir.resolve("race.lance").toString(), Map.of());
    }

    @Test
    void twoConcurrentCreatorsOnS3EndWithOneTableHoldingBothJobsRows() throws Exception {
        String bucket = S3.server().createBucket("create-race-" + System.nanoTime());
        concurrentCreators("s3://" + bucket + "/tables/race.lance", S3.server().storageOptions());
    }

    private void concurrentCreators(String uri, Map<String, String> storage) throws Exception {
        int jobs = 2;
        CyclicBarrier start = new CyclicBarrier(jobs);
        ExecutorService pool = Executors.newFixedThreadPool(jobs);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int j = 0; j < jobs; j++) {
                int job = j;
                done.add(pool.submit(() -> {
                    TableEnvironment t = batch();
                    t.executeSql("CREATE TABLE race (id BIGINT NOT NULL, job INT)" + with(uri, storage, ""));
                    start.await();
                    t.executeSql("INSERT INTO race VALUES (" + (job * 10 + 1) + ", " + job + "), (" + (job * 10 + 2)
                                    + ", " + job + ")")
                            .await();
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(manifest(uri, storage, 1).fragments())
                .as("one creation, version 1: the empty table")
                .isEmpty();
        try (Dataset d = Dataset.open(uri, storage)) {
            assertThat(d.version()).as("version 1 and one append per job").isEqualTo(3);
            assertThat(d.countRows()).isEqualTo(4);
        }
        TableEnvironment t = batch();
        t.executeSql("CREATE TABLE race (id BIGINT NOT NULL, job INT)" + with(uri, storage, ""));
        assertThat(rows(t, "SELECT id FROM race ORDER BY id")).containsExactly("+I[1]", "+I[2]", "+I[11]", "+I[12]");
    }

    /** The loser of a race against a creator of other columns fails naming the path and the difference. */
    @Test
    void aCreatorLosingToATableOfOtherColumnsFailsNamingTheDifference() throws Exception {
        String uri = dir.resolve("other.lance").toString();
        CatalogSchemas.NewTable winner = CatalogSchemas.newTable(
                "w",
                new ResolvedSchema(
                        List.of(
                                Column.physical("id", DataTypes.BIGINT().notNull()),
                                Column.physical("name", DataTypes.STRING())),
                        List.of(),
                        null),
                VectorDimensions.none(),
                null,
                false);
        CatalogSchemas.NewTable loser = CatalogSchemas.newTable(
                "l",
                new ResolvedSchema(
                        List.of(
                                Column.physical("id", DataTypes.BIGINT().notNull()),
                                Column.physical("name", DataTypes.INT())),
                        List.of(),
                        null),
                VectorDimensions.none(),
                null,
                false);
        assertThat(CatalogSchemas.createIfAbsent("w", uri, Map.of(), winner)).isTrue();
        assertThat(CatalogSchemas.createIfAbsent("w2", uri, Map.of(), winner))
                .as("same columns: adopted")
                .isFalse();
        assertThatThrownBy(() -> CatalogSchemas.createIfAbsent("l", uri, Map.of(), loser))
                .hasMessageContaining("the Lance table at '" + uri + "' was created by another writer with other"
                        + " columns than l declares (column 'name' is Utf8 in the table but declared Int(32, true))");
        assertThat(manifest(uri, Map.of(), 1).fragments()).isEmpty();
    }
}
