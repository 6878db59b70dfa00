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
import dev.lanceflink.testkit.flink.MiniClusters;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.typeinfo.Types;
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
 * The README's SQL upserts, run as written: {@link #UPSERT} from an append-only {@code updates}, a
 * CDC changelog and an upsert changelog keyed by the primary key, all without an ON CONFLICT
 * clause, which Flink 2.3 demands of an upsert sink whose input's upsert key is not the primary
 * key (an append-only input has none; the sink declares itself insert-only for it and resolves
 * conflicts by arrival order itself); and {@link #UPSERT_OTHER_KEY} from a changelog keyed by
 * another column, which needs {@code ON CONFLICT DO DEDUPLICATE}. Also pinned: the statements are
 * in the README, where Flink refuses or accepts the clause, and what the materializer does.
 */
class LanceSqlUpsertStatementsITCase {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = MiniClusters.oneTaskManager(2);

    /** Verbatim in the README's SQL block. */
    static final String UPSERT = "INSERT INTO users (id, age) SELECT id, age FROM updates;";
    /** Verbatim in the README: a changelog keyed by another column needs a conflict strategy. */
    static final String UPSERT_OTHER_KEY =
            "INSERT INTO users (id, age) SELECT id, age FROM changes_by_uid ON CONFLICT DO DEDUPLICATE;";

    private static final String USERS_DDL =
            "CREATE TABLE users (id BIGINT NOT NULL, name STRING, age INT," + " PRIMARY KEY (id) NOT ENFORCED)";

    @TempDir
    Path dir;

    String uri;

    @BeforeEach
    void createUsers() throws Exception {
        uri = dir.resolve("users.lance").toString();
        Dataset.write(uri, Map.of(), List.of(), USERS, WriteParams.of(WriteMode.CREATE))
                .close();
        TableEnvironment t = batch();
        t.executeSql("INSERT INTO users VALUES (1, 'Alice', 30), (2, 'Bob', 25), (3, 'Carol', 40), (4, 'Dan', 22)")
                .await();
    }

    @Test
    void readmeShowsTheStatementThisTestRuns() throws Exception {
        String readme = Files.readString(Path.of("..", "README.md"));
        assertThat(readme)
                .as("README.md's upsert snippets; keep them and this test's constants the same")
                .contains(UPSERT)
                .contains(UPSERT_OTHER_KEY);
    }

    /** Append-only {@code updates}: new keys become rows, existing ones overlays of {@code age}, the last row wins. */
    @Test
    void upsertFromAnAppendOnlySourceNeedsNoOnConflictClause() throws Exception {
        TableEnvironment s = streaming();
        // "The last to arrive" is the last in the VALUES list only along one path: at parallelism 2
        // the planner rebalances the single VALUES task's rows over two tasks before the sink's key
        // shuffle, and key 2's two rows may swap (seen in CI: 52 won). The README says so.
        s.getConfig().set("parallelism.default", "1");
        s.executeSql("CREATE TEMPORARY VIEW updates AS SELECT * FROM (VALUES (CAST(2 AS BIGINT), 52),"
                + " (CAST(3 AS BIGINT), 53), (CAST(9 AS BIGINT), 59), (CAST(2 AS BIGINT), 62)) AS v(id, age)");
        s.executeSql(statement(UPSERT)).await();

        assertThat(rows(batch(), "SELECT * FROM users ORDER BY id"))
                .containsExactly(
                        "+I[1, Alice, 30]", "+I[2, Bob, 62]", "+I[3, Carol, 53]", "+I[4, Dan, 22]", "+I[9, null, 59]");
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
                Row.ofKind(RowKind.UPDATE_BEFORE, 2L, 25),
                Row.ofKind(RowKind.UPDATE_AFTER, 2L, 52),
                Row.ofKind(RowKind.INSERT, 9L, 59),
                Row.ofKind(RowKind.UPDATE_BEFORE, 9L, 59),
                Row.ofKind(RowKind.UPDATE_AFTER, 9L, 69),
                Row.ofKind(RowKind.INSERT, 10L, 100),
                Row.ofKind(RowKind.DELETE, 10L, 100),
                Row.ofKind(RowKind.DELETE, 4L, 22));
        s.createTemporaryView("updates", changelog(s, env, ChangelogMode.all(), changes));
        s.executeSql(statement(UPSERT)).await();

        assertThat(rows(batch(), "SELECT * FROM users ORDER BY id"))
                .containsExactly("+I[1, Alice, 30]", "+I[2, Bob, 52]", "+I[3, Carol, 40]", "+I[9, null, 69]");
    }

    /**
     * An upsert changelog keyed by {@code id} (what {@code upsert-kafka} produces: no before-images).
     * The sink asks for before-images, so the planner puts a ChangelogNormalize in front; still no
     * ON CONFLICT clause. ChangelogNormalize keeps the last row of every key it has seen and drops a
     * delete of a key it has not (here key 4, written before the job): the README warns of it.
     */
    @Test
    void upsertFromAnUpsertChangelogNeedsNoOnConflictClause() throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(200);
        StreamTableEnvironment s = StreamTableEnvironment.create(env);
        s.executeSql(USERS_DDL + " WITH ('connector' = 'lance', 'path' = '" + uri + "')");
        s.createTemporaryView(
                "updates",
                changelog(
                        s,
                        env,
                        ChangelogMode.upsert(),
                        List.of(
                                Row.ofKind(RowKind.UPDATE_AFTER, 2L, 52), Row.ofKind(RowKind.INSERT, 9L, 59),
                                Row.ofKind(RowKind.UPDATE_AFTER, 9L, 69), Row.ofKind(RowKind.INSERT, 10L, 100),
                                Row.ofKind(RowKind.DELETE, 10L, 100), Row.ofKind(RowKind.DELETE, 4L, 22))));
        s.executeSql(statement(UPSERT)).await();

        assertThat(rows(batch(), "SELECT * FROM users ORDER BY id"))
                .containsExactly(
                        "+I[1, Alice, 30]", "+I[2, Bob, 52]", "+I[3, Carol, 40]", "+I[4, Dan, 22]", "+I[9, null, 69]");
    }

    private static org.apache.flink.table.api.Table changelog(
            StreamTableEnvironment s, StreamExecutionEnvironment env, ChangelogMode mode, List<Row> changes) {
        return s.fromChangelogStream(
                env.fromData(changes, Types.ROW_NAMED(new String[] {"id", "age"}, Types.LONG, Types.INT)),
                Schema.newBuilder()
                        .column("id", DataTypes.BIGINT().notNull())
                        .column("age", DataTypes.INT())
                        .primaryKey("id")
                        .build(),
                mode);
    }

    /**
     * What the README states about the clause: refused for an append-only input (the sink is
     * insert-only there), accepted for a changelog keyed by the primary key, where it changes
     * nothing.
     */
    @Test
    void onConflictIsRefusedForAnAppendOnlyInputAndAcceptedForAChangelogKeyedByThePrimaryKey() throws Exception {
        TableEnvironment s = streaming();
        s.executeSql("CREATE TEMPORARY VIEW updates AS SELECT * FROM (VALUES (CAST(2 AS BIGINT), 52)) AS v(id, age)");
        assertThatThrownBy(() -> s.executeSql(statement(UPSERT) + " ON CONFLICT DO DEDUPLICATE")
                        .await())
                .satisfies(e -> assertThat(ExceptionUtils.stringifyException(e))
                        .contains("ON CONFLICT clause is only allowed for upsert sinks"));

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.enableCheckpointing(200);
        StreamTableEnvironment c = StreamTableEnvironment.create(env);
        c.executeSql(USERS_DDL + " WITH ('connector' = 'lance', 'path' = '" + uri + "')");
        c.createTemporaryView(
                "updates", changelog(c, env, ChangelogMode.all(), List.of(Row.ofKind(RowKind.INSERT, 9L, 59))));
        assertThat(c.explainSql(statement(UPSERT) + " ON CONFLICT DO DEDUPLICATE"))
                .doesNotContain("upsertMaterialize");
        c.executeSql(statement(UPSERT) + " ON CONFLICT DO DEDUPLICATE").await();
        assertThat(rows(batch(), "SELECT age FROM users WHERE id = 9")).containsExactly("+I[59]");
    }

    /**
     * A changelog keyed by another column ({@code uid}): its upsert key is not the table's primary
     * key, so Flink demands a conflict strategy, and DEDUPLICATE puts a SinkUpsertMaterializer in
     * front of the sink; the README's statement for this case runs as written. The materializer
     * turns an update whose before-image empties a key's row list into a DELETE and then an INSERT,
     * so the existing row of key 2 is deleted and a new one inserted with only the INSERT's columns
     * (name NULL): the README warns of this for partial-column INSERTs.
     */
    @Test
    void aChangelogKeyedByAnotherColumnNeedsOnConflictDoDeduplicate() throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(200);
        StreamTableEnvironment s = StreamTableEnvironment.create(env);
        s.executeSql(USERS_DDL + " WITH ('connector' = 'lance', 'path' = '" + uri + "')");
        List<Row> changes = List.of(
                Row.ofKind(RowKind.INSERT, 100L, 2L, 52),
                Row.ofKind(RowKind.INSERT, 101L, 9L, 59),
                Row.ofKind(RowKind.UPDATE_BEFORE, 100L, 2L, 52),
                Row.ofKind(RowKind.UPDATE_AFTER, 100L, 2L, 62));
        s.createTemporaryView(
                "changes_by_uid",
                s.fromChangelogStream(
                        env.fromData(
                                changes,
                                Types.ROW_NAMED(new String[] {"uid", "id", "age"}, Types.LONG, Types.LONG, Types.INT)),
                        Schema.newBuilder()
                                .column("uid", DataTypes.BIGINT().notNull())
                                .column("id", DataTypes.BIGINT())
                                .column("age", DataTypes.INT())
                                .primaryKey("uid")
                                .build(),
                        ChangelogMode.all()));
        String withoutClause = statement(UPSERT_OTHER_KEY).replace(" ON CONFLICT DO DEDUPLICATE", "");
        assertThatThrownBy(() -> s.executeSql(withoutClause).await())
                .hasMessageContaining("The query has an upsert key that differs from the primary key");

        assertThat(s.explainSql(statement(UPSERT_OTHER_KEY))).contains("upsertMaterialize=[true]");
        s.executeSql(statement(UPSERT_OTHER_KEY)).await();
        assertThat(rows(batch(), "SELECT * FROM users ORDER BY id"))
                .containsExactly(
                        "+I[1, Alice, 30]", "+I[2, null, 62]", "+I[3, Carol, 40]", "+I[4, Dan, 22]", "+I[9, null, 59]");
    }

    /**
     * {@code 'sink.key-map.max-memory'}: an in-memory key map (the default) estimated over it stops
     * the upsert before anything is written, naming keyed state; a budget of 0 is refused when the
     * statement is planned.
     */
    @Test
    void aKeyMapOverItsMemoryBudgetStopsTheUpsertNamingKeyedState() throws Exception {
        TableEnvironment s = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        s.getConfig().set("parallelism.default", "2");
        s.getConfig().set("execution.checkpointing.interval", "200ms");
        s.getConfig().set("restart-strategy.type", "fixed-delay");
        s.getConfig().set("restart-strategy.fixed-delay.attempts", "1000");
        s.executeSql(
                USERS_DDL + " WITH ('connector' = 'lance', 'path' = '" + uri + "', 'sink.key-map.max-memory' = '1b')");
        s.executeSql("CREATE TEMPORARY VIEW updates AS SELECT * FROM (VALUES (CAST(2 AS BIGINT), 52)) AS v(id, age)");
        assertThatThrownBy(() -> s.executeSql(statement(UPSERT)).await())
                .satisfies(e -> assertThat(ExceptionUtils.stringifyException(e))
                        .contains("The in-memory key map of the upsert sink for")
                        .contains("more than its budget of 1 bytes ('sink.key-map.max-memory')")
                        .contains("use 'sink.key-map' = 'keyed-state'")
                        .contains("the job is stopped, not restarted"));
        s.executeSql("DROP TABLE users");
        s.executeSql(
                USERS_DDL + " WITH ('connector' = 'lance', 'path' = '" + uri + "', 'sink.key-map.max-memory' = '0b')");
        assertThatThrownBy(() -> s.executeSql(statement(UPSERT)).await())
                .hasStackTraceContaining("'sink.key-map.max-memory' must be positive, got 0");
        assertThat(rows(batch(), "SELECT * FROM users ORDER BY id"))
                .containsExactly("+I[1, Alice, 30]", "+I[2, Bob, 25]", "+I[3, Carol, 40]", "+I[4, Dan, 22]");
    }

    /** A README statement without its semicolon, as executeSql takes it. */
    private static String statement(String readme) {
        return readme.substring(0, readme.length() - 1);
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
            assertThat(m.fragments())
                    .flatMap(Fragment::overlays)
                    .isNotEmpty()
                    .allSatisfy(o -> assertThat(o.dataFile().fields()).containsExactly(ageId));
            assertThat(m.fragments().stream().mapToLong(Fragment::physicalRows).sum())
                    .as("existing keys were overlaid, not appended")
                    .isEqualTo(keys);
        }
    }
}
