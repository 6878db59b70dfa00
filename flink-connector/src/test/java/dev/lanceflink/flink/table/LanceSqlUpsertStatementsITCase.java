package dev.lanceflink.flink.table;

import static dev.lanceflink.flink.table.SqlTestSupport.USERS;
import static dev.lanceflink.flink.table.SqlTestSupport.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's streaming upsert, run as written: {@link #UPSERT} from an append-only {@code updates}
 * and from a changelog {@code updates} keyed by the primary key, both without an ON CONFLICT
 * clause, which Flink 2.3 demands of an upsert sink whose input's upsert key is not the primary
 * key (an append-only input has none). The sink declares itself insert-only for such inputs and
 * resolves conflicts by arrival order itself; the README says so, and this test pins both the
 * statement text in the README and the planner's refusal of an ON CONFLICT clause.
 */
class LanceSqlUpsertStatementsITCase {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(2).build());

    /** Verbatim in the README's SQL block. */
    static final String UPSERT = "INSERT INTO users (id, age) SELECT id, age FROM updates;";

    private static final String USERS_DDL = "CREATE TABLE users (id BIGINT NOT NULL, name STRING, age INT,"
            + " PRIMARY KEY (id) NOT ENFORCED)";

    @TempDir
    Path dir;
    String uri;

    @BeforeEach
    void createUsers() throws Exception {
        uri = dir.resolve("users.lance").toString();
        Dataset.write(uri, Map.of(), List.of(), USERS, WriteParams.of(WriteMode.CREATE)).close();
        TableEnvironment t = batch();
        t.executeSql("INSERT INTO users VALUES (1, 'Alice', 30), (2, 'Bob', 25), (3, 'Carol', 40), (4, 'Dan', 22)")
                .await();
    }

    @Test
    void readmeShowsTheStatementThisTestRuns() throws Exception {
        String readme = Files.readString(Path.of("..", "README.md"));
        assertThat(readme).as("README.md's upsert snippet; keep it and this test's UPSERT the same").contains(UPSERT);
    }

    /** Append-only {@code updates}: new keys become rows, existing ones overlays of {@code age}, the last row wins. */
    @Test
    void upsertFromAnAppendOnlySourceNeedsNoOnConflictClause() throws Exception {
        TableEnvironment s = streaming();
        s.executeSql("CREATE TEMPORARY VIEW updates AS SELECT * FROM (VALUES (CAST(2 AS BIGINT), 52),"
                + " (CAST(3 AS BIGINT), 53), (CAST(9 AS BIGINT), 59), (CAST(2 AS BIGINT), 62)) AS v(id, age)");
        s.executeSql(statement()).await();

        assertThat(rows(batch(), "SELECT * FROM users ORDER BY id")).containsExactly("+I[1, Alice, 30]",
                "+I[2, Bob, 62]", "+I[3, Carol, 53]", "+I[4, Dan, 22]", "+I[9, null, 59]");
        assertOnlyAgeOverlaidAndOneRowPerKey(5);
    }

    /**
     * A CDC-style changelog keyed by {@code id} (inserts, before/after images, deletes): updates of
     * existing keys become overlays, a delete of a row written before the job a deletion.
     */
    @Test
    void upsertFromAChangelogKeyedByThePrimaryKeyNeedsNoOnConflictClause() throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(200);
        StreamTableEnvironment s = StreamTableEnvironment.create(env);
        s.executeSql(USERS_DDL + " WITH ('connector' = 'lance', 'path' = '" + uri + "')");
        List<Row> changes = List.of(
                Row.ofKind(RowKind.UPDATE_BEFORE, 2L, 25), Row.ofKind(RowKind.UPDATE_AFTER, 2L, 52),
                Row.ofKind(RowKind.INSERT, 9L, 59),
                Row.ofKind(RowKind.UPDATE_BEFORE, 9L, 59), Row.ofKind(RowKind.UPDATE_AFTER, 9L, 69),
                Row.ofKind(RowKind.INSERT, 10L, 100), Row.ofKind(RowKind.DELETE, 10L, 100),
                Row.ofKind(RowKind.DELETE, 4L, 22));
        s.createTemporaryView("updates", s.fromChangelogStream(
                env.fromData(changes, Types.ROW_NAMED(new String[] {"id", "age"}, Types.LONG, Types.INT)),
                Schema.newBuilder().column("id", DataTypes.BIGINT().notNull()).column("age", DataTypes.INT())
                        .primaryKey("id").build(),
                ChangelogMode.all()));
        s.executeSql(statement()).await();

        assertThat(rows(batch(), "SELECT * FROM users ORDER BY id")).containsExactly("+I[1, Alice, 30]",
                "+I[2, Bob, 52]", "+I[3, Carol, 40]", "+I[9, null, 69]");
    }

    /**
     * The flip side, which the README states: with the sink insert-only (append input) or asking
     * for before-images (updating input), Flink refuses an ON CONFLICT clause.
     */
    @Test
    void anOnConflictClauseIsRefusedByThePlanner() {
        TableEnvironment s = streaming();
        s.executeSql("CREATE TEMPORARY VIEW updates AS SELECT * FROM (VALUES (CAST(2 AS BIGINT), 52)) AS v(id, age)");
        assertThatThrownBy(() -> s.executeSql(statement() + " ON CONFLICT DO DEDUPLICATE").await())
                .satisfies(e -> assertThat(ExceptionUtils.stringifyException(e))
                        .contains("ON CONFLICT clause is only allowed for upsert sinks"));
    }

    private static String statement() {
        return UPSERT.substring(0, UPSERT.length() - 1);
    }

    private TableEnvironment streaming() {
        TableEnvironment s = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        s.getConfig().set("parallelism.default", "2");
        s.getConfig().set("execution.checkpointing.interval", "200ms");
        s.executeSql(USERS_DDL + " WITH ('connector' = 'lance', 'path' = '" + uri + "')");
        return s;
    }

    private TableEnvironment batch() {
        TableEnvironment t = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        t.getConfig().set("parallelism.default", "1");
        t.executeSql("CREATE TABLE users (id BIGINT NOT NULL, name STRING, age INT) WITH ('connector' = 'lance',"
                + " 'path' = '" + uri + "')");
        return t;
    }

    private void assertOnlyAgeOverlaidAndOneRowPerKey(long keys) throws Exception {
        try (Dataset d = Dataset.open(uri, Map.of())) {
            Manifest m = d.manifest();
            int ageId = m.schema().fields().get(2).id();
            assertThat(m.fragments()).flatMap(Fragment::overlays).isNotEmpty()
                    .allSatisfy(o -> assertThat(o.dataFile().fields()).containsExactly(ageId));
            assertThat(m.fragments().stream().mapToLong(Fragment::physicalRows).sum())
                    .as("existing keys were overlaid, not appended").isEqualTo(keys);
        }
    }
}
