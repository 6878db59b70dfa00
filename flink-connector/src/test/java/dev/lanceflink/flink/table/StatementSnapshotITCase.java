package dev.lanceflink.flink.table;

import static dev.lanceflink.flink.table.SqlTestSupport.USERS;
import static dev.lanceflink.flink.table.SqlTestSupport.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.schema.LanceField;
import dev.lanceflink.schema.LanceSchema;
import dev.lanceflink.testkit.flink.MiniClusters;
import dev.lanceflink.txn.CommitOptions;
import dev.lanceflink.txn.Operation;
import dev.lanceflink.txn.TableCommitter;
import dev.lanceflink.txn.Transaction;
import dev.lanceflink.txn.TransactionStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.functions.ScalarFunction;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A row-level statement carries the version its scan read from planning to its commit, whatever
 * else the same thread plans and runs in between: statement A is planned (its job held up by a
 * filter that waits for the test), statement B is planned, run and committed on the same thread and table
 * environment, then A commits. A's commit is checked against B's change (same cells: refused;
 * other rows: committed on top) and records the version A read, not the one B read or wrote.
 *
 * <p>The statement also carries the schema it was planned with ({@link
 * dev.lanceflink.table.TableSnapshot}): its writes go to the field ids of that schema, so a column
 * renamed meanwhile gets the update under its new name, and a column dropped meanwhile fails the
 * commit with a one-line reason instead of losing the values.
 */
class StatementSnapshotITCase {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = MiniClusters.oneTaskManager(2);

    @TempDir
    Path dir;

    String uri;
    long loaded;

    /**
     * Releases the jobs held by {@link HeldTrue}. The MiniCluster runs in this JVM and the job has
     * no jars of its own, so the function's class, and this latch, are the test's.
     */
    static volatile CountDownLatch release = new CountDownLatch(1);

    /** True, once the test releases it: holds the job of the statement using it past another's commit. */
    public static final class HeldTrue extends ScalarFunction {
        public boolean eval(Long id) throws InterruptedException {
            if (!release.await(2, TimeUnit.MINUTES)) {
                throw new IllegalStateException("the test did not release the held statement");
            }
            return true;
        }
    }

    @BeforeEach
    void createUsers() throws Exception {
        uri = dir.resolve("users.lance").toString();
        Dataset.write(uri, Map.of(), List.of(), USERS, WriteParams.of(WriteMode.CREATE))
                .close();
        environment()
                .executeSql("INSERT INTO users VALUES (1, 'Alice', 30), (2, 'Bob', 25), (3, 'Carol', 40)")
                .await();
        loaded = latestVersion();
        release = new CountDownLatch(1);
    }

    private TableEnvironment environment() {
        TableEnvironment t = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        t.getConfig().set("parallelism.default", "1");
        t.executeSql("CREATE TABLE users (id BIGINT NOT NULL, name STRING, age INT) WITH ('connector' = 'lance',"
                + " 'path' = '" + uri + "')");
        t.createTemporarySystemFunction("held_true", HeldTrue.class);
        return t;
    }

    private long latestVersion() throws Exception {
        try (Dataset d = Dataset.open(uri, Map.of())) {
            return d.version();
        }
    }

    private long readVersionOf(long version) throws Exception {
        ObjectStore store = new LocalObjectStore(Path.of(uri));
        return TransactionStore.readForVersion(store, version).readVersion();
    }

    @Test
    void aStatementPlannedBeforeAnotherCommitsAgainstTheVersionItRead() throws Exception {
        TableEnvironment t = environment();
        TableResult a = t.executeSql("UPDATE users SET age = 31 WHERE id = 1 AND held_true(id)");
        t.executeSql("UPDATE users SET name = 'Robert' WHERE id = 2").await();
        release.countDown();
        long b = latestVersion();
        assertThat(b).as("B committed while A's job was held up").isEqualTo(loaded + 1);
        assertThat(readVersionOf(b)).isEqualTo(loaded);

        a.await();
        assertThat(latestVersion()).isEqualTo(loaded + 2);
        assertThat(readVersionOf(loaded + 2))
                .as("A records the version its scan read, planned before B ran")
                .isEqualTo(loaded);
        assertThat(rows(t, "SELECT * FROM users ORDER BY id"))
                .containsExactly("+I[1, Alice, 31]", "+I[2, Robert, 25]", "+I[3, Carol, 40]");
    }

    @Test
    void aStatementPlannedBeforeAnotherChangedTheSameCellsIsRefused() throws Exception {
        TableEnvironment t = environment();
        TableResult a = t.executeSql("UPDATE users SET age = 31 WHERE id = 1 AND held_true(id)");
        t.executeSql("UPDATE users SET age = 50 WHERE id = 1").await();
        release.countDown();
        assertThat(latestVersion()).isEqualTo(loaded + 1);

        assertThatThrownBy(a::await)
                .satisfies(e -> assertThat(ExceptionUtils.stringifyException(e))
                        .contains("the statement read version " + loaded));
        assertThat(latestVersion()).as("A committed nothing").isEqualTo(loaded + 1);
        assertThat(rows(t, "SELECT * FROM users ORDER BY id"))
                .containsExactly("+I[1, Alice, 50]", "+I[2, Bob, 25]", "+I[3, Carol, 40]");
    }

    @Test
    void aStatementPlannedBeforeAnInsertAndAnotherTablesUpdateCommitsWithItsOwnSnapshot() throws Exception {
        String items = dir.resolve("items.lance").toString();
        Dataset.write(items, Map.of(), List.of(), USERS, WriteParams.of(WriteMode.CREATE))
                .close();
        TableEnvironment t = environment();
        t.executeSql("CREATE TABLE items (id BIGINT NOT NULL, name STRING, age INT) WITH ('connector' = 'lance',"
                + " 'path' = '" + items + "')");
        t.executeSql("INSERT INTO items VALUES (1, 'pen', 1)").await();

        TableResult a = t.executeSql("UPDATE users SET age = 31 WHERE id = 1 AND held_true(id)");
        t.executeSql("UPDATE items SET age = 2 WHERE id = 1").await();
        t.executeSql("INSERT INTO users VALUES (4, 'Dan', 20)").await();
        release.countDown();
        assertThat(latestVersion()).as("B's insert committed while A was held").isEqualTo(loaded + 1);

        a.await();
        assertThat(latestVersion()).isEqualTo(loaded + 2);
        assertThat(readVersionOf(loaded + 2))
                .as("A records the version its own scan read, not the other statements'")
                .isEqualTo(loaded);
        assertThat(rows(t, "SELECT * FROM users ORDER BY id"))
                .containsExactly("+I[1, Alice, 31]", "+I[2, Bob, 25]", "+I[3, Carol, 40]", "+I[4, Dan, 20]");
        assertThat(rows(t, "SELECT * FROM items")).containsExactly("+I[1, pen, 2]");
    }

    /** Commits a Project of the latest schema with the top-level field {@code name} renamed, or dropped if {@code to} is null. */
    private void commitProject(String name, String to) throws Exception {
        try (Dataset latest = Dataset.open(uri, Map.of())) {
            List<LanceField> fields = new ArrayList<>();
            for (LanceField f : latest.schema().fields()) {
                if (!f.name().equals(name)) {
                    fields.add(f);
                } else if (to != null) {
                    fields.add(f.toBuilder().name(to).build());
                }
            }
            TableCommitter.commit(
                    new LocalObjectStore(Path.of(uri)),
                    Transaction.of(latest.version(), new Operation.Project(LanceSchema.of(fields))),
                    CommitOptions.defaults());
        }
    }

    @Test
    void aColumnRenamedAfterPlanningGetsTheUpdateUnderItsNewName() throws Exception {
        TableEnvironment t = environment();
        TableResult a = t.executeSql("UPDATE users SET age = 31 WHERE id = 1 AND held_true(id)");
        commitProject("age", "years");
        release.countDown();

        a.await();
        assertThat(latestVersion()).isEqualTo(loaded + 2);
        TableEnvironment renamed = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        renamed.executeSql("CREATE TABLE users (id BIGINT NOT NULL, name STRING, years INT) WITH ("
                + "'connector' = 'lance', 'path' = '" + uri + "')");
        assertThat(rows(renamed, "SELECT * FROM users ORDER BY id"))
                .as("the write went to the field id the statement was planned with")
                .containsExactly("+I[1, Alice, 31]", "+I[2, Bob, 25]", "+I[3, Carol, 40]");
    }

    @Test
    void aColumnDroppedAfterPlanningFailsTheUpdateNamingIt() throws Exception {
        TableEnvironment t = environment();
        TableResult a = t.executeSql("UPDATE users SET age = 31 WHERE id = 1 AND held_true(id)");
        commitProject("age", null);
        release.countDown();

        assertThatThrownBy(a::await)
                .satisfies(e -> assertThat(ExceptionUtils.stringifyException(e))
                        .contains("the statement read version " + loaded)
                        .contains("dropped the column with field id 2, which the statement writes"));
        assertThat(latestVersion()).as("the UPDATE committed nothing").isEqualTo(loaded + 1);
    }
}
