package dev.lanceflink.it.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * SQL jobs reach the session cluster the way {@code bin/sql-client.sh -f script.sql} sends them
 * (what the connector's SQL tests need, with the connector jar added to {@code lib/}): a query
 * prints its rows, an {@code INSERT} runs as a FINISHED batch job on the cluster, and a failing
 * statement is reported.
 */
class SqlClientSubmissionTest {

    @RegisterExtension
    static final FlinkSessionClusterExtension FLINK = FlinkSessionClusterExtension.shared();

    @TempDir
    Path dir;

    @Test
    void aScriptQueriesAndInsertsOnTheCluster() throws Exception {
        Path script = Files.writeString(dir.resolve("job.sql"), """
        SET 'execution.runtime-mode' = 'batch';
        SET 'table.dml-sync' = 'true';
        SELECT x * 7 AS y FROM (VALUES (1), (6)) AS t(x);
        CREATE TABLE src (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '25');
        CREATE TABLE dst (id BIGINT) WITH ('connector' = 'blackhole');
        INSERT INTO dst SELECT id FROM src;
        """);

        CliResult run = FLINK.cluster().runSqlClient(script, Duration.ofMinutes(3));

        assertThat(run.exitCode()).as(run.describe()).isZero();
        assertThat(run.sqlErrors()).as(run.describe()).isEmpty();
        assertThat(run.stdout()).containsPattern("\\|\\s+7 \\|").containsPattern("\\|\\s+42 \\|");
        // With table.dml-sync the client prints no job id; the job's name is unique in this test run.
        List<JsonNode> inserts = new ArrayList<>();
        for (JsonNode job : FLINK.cluster().rest("/jobs/overview").path("jobs")) {
            if (job.path("name").asText().equals("insert-into_default_catalog.default_database.dst")) {
                inserts.add(job);
            }
        }
        assertThat(inserts).hasSize(1);
        JsonNode insert = inserts.get(0);
        assertThat(insert.path("jobType").asText()).isEqualTo("BATCH");
        assertThat(insert.path("state").asText()).isEqualTo("FINISHED");
    }

    @Test
    void aFailingStatementIsReportedAndStopsTheScript() throws Exception {
        Path script = Files.writeString(dir.resolve("bad.sql"), """
        SELECT * FROM no_such_table;
        CREATE TABLE never (id BIGINT) WITH ('connector' = 'blackhole');
        """);

        CliResult run = FLINK.cluster().runSqlClient(script, Duration.ofMinutes(2));

        assertThat(run.sqlErrors()).as(run.describe()).hasSize(1);
        assertThat(run.sqlErrors().get(0)).contains("Object 'no_such_table' not found");
        assertThat(run.stdout()).doesNotContain("CREATE TABLE never");
    }
}
