package dev.lanceflink.flink.table;

import static dev.lanceflink.flink.table.SqlTestSupport.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.compact.FragmentRewriter;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.file.writer.FileWriterOptions;
import dev.lanceflink.overlay.OverlayCommits;
import dev.lanceflink.overlay.StagedWrite;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.testkit.flink.MiniClusters;
import dev.lanceflink.testkit.users.UsersTable;
import dev.lanceflink.txn.CommitOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.internal.TableEnvironmentInternal;
import org.apache.flink.table.operations.Operation;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code UPDATE} and row-level {@code DELETE} read the version pinned when they are planned and
 * commit only if no other writer changed the rows they read since. Each test plans the statement
 * (parse: the scan is pinned and its context reaches the sink), commits a change of its own with
 * format-core, then runs the planned statement. No other SQL statement may be planned on the
 * thread in between: Flink keeps the scan's context in a thread-local that the next statement's
 * planning clears, which is why the concurrent changes here are made with format-core.
 *
 * <p>{@code users} (id, name, age) = (1, Alice, 30) (2, Bob, 25) (3, Carol, 40) (4, Dan, 22) in
 * fragment 0, offsets 0..3, version 2.
 */
class LanceSqlModificationScanITCase {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = MiniClusters.oneTaskManager(2);

    private static final Schema USERS = UsersTable.EXAMPLE_SCHEMA;
    private static final Field AGE = USERS.findField("age");

    @TempDir
    Path dir;

    String uri;

    @BeforeEach
    void createUsers() throws Exception {
        uri = dir.resolve("users.lance").toString();
        Dataset.write(uri, Map.of(), List.of(), USERS, WriteParams.of(WriteMode.CREATE))
                .close();
        batch("")
                .executeSql("INSERT INTO users VALUES (1, 'Alice', 30), (2, 'Bob', 25), (3, 'Carol', 40),"
                        + " (4, 'Dan', 22)")
                .await();
        assertThat(latestVersion()).isEqualTo(2);
    }

    private TableEnvironment batch(String options) {
        TableEnvironment t = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        t.getConfig().set("parallelism.default", "1");
        t.getConfig().set("restart-strategy.type", "none");
        t.executeSql("CREATE TABLE users (id BIGINT NOT NULL, name STRING, age INT) WITH ('connector' = 'lance',"
                + " 'path' = '" + uri + "'" + options + ")");
        return t;
    }

    /** Plans {@code sql} the way executeSql does, without running it. */
    private static Operation plan(TableEnvironment t, String sql) {
        return ((TableEnvironmentInternal) t).getParser().parse(sql).get(0);
    }

    private static void run(TableEnvironment t, Operation planned) throws Exception {
        ((TableEnvironmentInternal) t).executeInternal(planned).await();
    }

    private long latestVersion() throws Exception {
        try (Dataset d = Dataset.open(uri, Map.of())) {
            return d.version();
        }
    }

    /** Another writer sets {@code age} of fragment 0 at {@code offset} (one DataOverlay version). */
    private void otherWriterSetsAge(long offset, int age) throws Exception {
        try (Dataset d = Dataset.open(uri, Map.of());
                VectorSchemaRoot values = VectorSchemaRoot.create(new Schema(List.of(AGE)), d.allocator())) {
            IntVector v = (IntVector) values.getVector(0);
            v.allocateNew(1);
            v.set(0, age);
            values.setRowCount(1);
            d.update(new long[] {offset}, values).close();
        }
    }

    /** Another writer appends one row (one Append version). */
    private void otherWriterAppends(long id, String name, int age) throws Exception {
        try (Dataset d = Dataset.open(uri, Map.of());
                VectorSchemaRoot row = VectorSchemaRoot.create(USERS, d.allocator())) {
            ((BigIntVector) row.getVector(0)).setSafe(0, id);
            ((VarCharVector) row.getVector(1)).setSafe(0, name.getBytes(StandardCharsets.UTF_8));
            ((IntVector) row.getVector(2)).setSafe(0, age);
            row.setRowCount(1);
            d.append(List.of(row), WriteParams.of(WriteMode.APPEND)).close();
        }
    }

    /** Another writer compacts every fragment into a new one (one Rewrite version). */
    private void otherWriterCompacts() throws Exception {
        try (Dataset d = Dataset.open(uri, Map.of())) {
            List<Long> ids = d.fragments().stream().map(Fragment::id).toList();
            StagedWrite rewrite = FragmentRewriter.rewrite(
                    d.store(), d.manifest(), ids, 1000, d.allocator(), FileWriterOptions.defaults());
            OverlayCommits.commit(d.store(), d.version(), rewrite, Map.of(), CommitOptions.defaults());
        }
    }

    @Test
    void theScanReadsThePinnedVersionAndAConcurrentAppendIsNoConflict() throws Exception {
        TableEnvironment t = batch("");
        Operation update = plan(t, "UPDATE users SET age = 0 WHERE age > 24");
        otherWriterAppends(5, "Eve", 50); // version 3, not read

        run(t, update);

        assertThat(latestVersion()).isEqualTo(4);
        assertThat(rows(t, "SELECT * FROM users ORDER BY id"))
                .containsExactly(
                        "+I[1, Alice, 0]", "+I[2, Bob, 0]", "+I[3, Carol, 0]", "+I[4, Dan, 22]", "+I[5, Eve, 50]");
    }

    @Test
    void aConcurrentUpdateOfTheSameCellFailsTheUpdateAndKeepsTheOtherValue() throws Exception {
        TableEnvironment t = batch("");
        Operation increment = plan(t, "UPDATE users SET age = age + 1 WHERE id = 2");
        otherWriterSetsAge(1, 26); // the same increment, committed first as version 3

        assertThatThrownBy(() -> run(t, increment))
                .satisfies(e -> assertThat(ExceptionUtils.stringifyException(e))
                        .contains(
                                "the statement read version 2, and version 3 (DataOverlay, committed by another writer)"
                                        + " overlaid field 'age' (id 2) of fragment 0 at 1 of the rows this statement updates")
                        .contains("rerun the statement"));

        assertThat(latestVersion()).isEqualTo(3);
        assertThat(rows(t, "SELECT * FROM users ORDER BY id"))
                .containsExactly("+I[1, Alice, 30]", "+I[2, Bob, 26]", "+I[3, Carol, 40]", "+I[4, Dan, 22]");
    }

    @Test
    void aConcurrentUpdateOfOtherCellsIsNoConflict() throws Exception {
        TableEnvironment t = batch("");
        Operation increment = plan(t, "UPDATE users SET age = age + 1 WHERE id = 2");
        otherWriterSetsAge(3, 99); // Dan: version 3

        run(t, increment);

        assertThat(latestVersion()).isEqualTo(4);
        assertThat(rows(t, "SELECT * FROM users ORDER BY id"))
                .containsExactly("+I[1, Alice, 30]", "+I[2, Bob, 26]", "+I[3, Carol, 40]", "+I[4, Dan, 99]");
    }

    @Test
    void aConcurrentCompactionFailsUpdateAndRowLevelDeleteCleanly() throws Exception {
        TableEnvironment t = batch("");
        Operation update = plan(t, "UPDATE users SET age = age + 1 WHERE id = 2");
        otherWriterCompacts(); // version 3: fragment 0 becomes fragment 1

        assertThatThrownBy(() -> run(t, update))
                .satisfies(
                        e -> assertThat(ExceptionUtils.stringifyException(e))
                                .contains("The changes of checkpoint")
                                .contains(
                                        "version 3 (Rewrite, committed by another writer) rewrote (compacted) fragment(s) [0]"));
        assertThat(latestVersion()).isEqualTo(3);

        // Not expressible in Lance, so a row-level DELETE of the rows' addresses in fragment 1.
        Operation delete = plan(t, "DELETE FROM users WHERE UPPER(name) = 'BOB'");
        otherWriterCompacts(); // version 4: fragment 1 becomes fragment 2

        assertThatThrownBy(() -> run(t, delete))
                .satisfies(e -> assertThat(ExceptionUtils.stringifyException(e))
                        .contains("The changes of checkpoint")
                        .contains("the statement read version 3, and version 4 (Rewrite, committed by another writer)"
                                + " rewrote (compacted) fragment(s) [1]"));
        assertThat(latestVersion()).isEqualTo(4);
        assertThat(rows(t, "SELECT * FROM users ORDER BY id"))
                .containsExactly("+I[1, Alice, 30]", "+I[2, Bob, 25]", "+I[3, Carol, 40]", "+I[4, Dan, 22]");
    }

    @Test
    void aRowLevelDeleteAfterAConcurrentUpdateOfItsRowsDeletesThem() throws Exception {
        TableEnvironment t = batch("");
        Operation delete = plan(t, "DELETE FROM users WHERE UPPER(name) = 'BOB'");
        otherWriterSetsAge(1, 26); // version 3: an overlay of the row being deleted; the deletion wins

        run(t, delete);

        assertThat(rows(t, "SELECT * FROM users ORDER BY id"))
                .containsExactly("+I[1, Alice, 30]", "+I[3, Carol, 40]", "+I[4, Dan, 22]");
    }

    @Test
    void aPushedDownDeleteEvaluatesItsFilterAtCommitAndNeedsNoPin() throws Exception {
        TableEnvironment t = batch("");
        Operation delete = plan(t, "DELETE FROM users WHERE age > 24");
        otherWriterSetsAge(3, 60); // version 3: Dan now matches

        run(t, delete);

        assertThat(rows(t, "SELECT * FROM users ORDER BY id")).isEmpty();
        assertThat(latestVersion()).isEqualTo(4);
    }

    @Test
    void aTimeTravelTableCannotBeUpdated() {
        TableEnvironment t = batch(", 'version' = '1'");
        assertThatThrownBy(() ->
                        t.executeSql("UPDATE users SET age = 1 WHERE id = 2").await())
                .satisfies(e -> assertThat(ExceptionUtils.stringifyException(e))
                        .contains("sets 'version' (time travel), but INSERT INTO and DELETE always change the"
                                + " latest version"));
    }
}
