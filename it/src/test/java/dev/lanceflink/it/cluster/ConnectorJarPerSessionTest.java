package dev.lanceflink.it.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lanceflink.dataset.Dataset;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shaded connector jar brought in per session instead of through {@code lib/}: the session
 * cluster here has no jar of ours (the shared default cluster), so the jobs can only run if the
 * client ships the jar with them. Covers {@code bin/sql-client.sh -j <jar>}, the SQL gateway's
 * REST API with {@code ADD JAR}, and {@code bin/sql-client.sh gateway --endpoint ...} against
 * that gateway; each creates a Lance table with its first INSERT and reads it back with SELECT.
 * The README's snippets are these scripts.
 */
class ConnectorJarPerSessionTest {

    @RegisterExtension
    static final FlinkSessionClusterExtension FLINK = FlinkSessionClusterExtension.shared();

    @TempDir
    Path dir;

    @Test
    void sqlClientWithTheJarOption() throws Exception {
        String uri = dir.resolve("users.lance").toString();
        Path script = Files.writeString(dir.resolve("users.sql"), """
        SET 'execution.runtime-mode' = 'batch';
        SET 'table.dml-sync' = 'true';
        CREATE TABLE users (id BIGINT NOT NULL, name STRING, age INT)
          WITH ('connector' = 'lance', 'path' = '%s');
        INSERT INTO users VALUES (1, 'ann', 29), (2, 'bob', 18);
        SELECT id, name, age, 'row-of-users' AS tag FROM users;
        """.formatted(uri));
        String jar = ConnectorJarOnSessionClusterTest.connectorJar().toString();
        FlinkSessionCluster cluster = FLINK.cluster();
        assertThat(cluster.classpath()).as("the cluster's lib/").doesNotContain("lance-flink");

        CliResult run = cluster.runSqlClient(Duration.ofMinutes(5), "-j", jar, "-f", script.toString());

        assertThat(run.exitCode()).as(run.describe()).isZero();
        assertThat(run.sqlErrors()).as(run.describe()).isEmpty();
        assertThat(run.stdout())
                .as(run.describe())
                .containsPattern("\\|\\s+1 \\|\\s+ann \\|\\s+29 \\|\\s+row-of-users \\|")
                .containsPattern("\\|\\s+2 \\|\\s+bob \\|\\s+18 \\|\\s+row-of-users \\|");
        assertThat(rows(uri)).containsExactlyInAnyOrder("1|ann|29", "2|bob|18");
    }

    @Test
    void sqlGatewayRestApiAndSqlClientInGatewayMode() throws Exception {
        String jar = ConnectorJarOnSessionClusterTest.connectorJar().toString();
        String restUri = dir.resolve("rest.lance").toString();
        String clientUri = dir.resolve("client.lance").toString();
        try (SqlGatewayProcess gateway = FLINK.cluster().startSqlGateway(Duration.ofMinutes(2))) {
            // The REST API, as a program (or curl) uses it.
            String session = gateway.openSession(Map.of("execution.runtime-mode", "batch", "table.dml-sync", "true"));
            gateway.execute(session, "ADD JAR '" + jar + "'");
            gateway.execute(
                    session,
                    "CREATE TABLE users (id BIGINT NOT NULL, name STRING, age INT)"
                            + " WITH ('connector' = 'lance', 'path' = '" + restUri + "')");
            gateway.execute(session, "INSERT INTO users VALUES (1, 'ann', 29), (2, 'bob', 18)");
            List<JsonNode> selected = gateway.execute(session, "SELECT id, name, age FROM users");
            assertThat(selected)
                    .extracting(JsonNode::toString)
                    .containsExactlyInAnyOrder("[1,\"ann\",29]", "[2,\"bob\",18]");
            assertThat(rows(restUri)).containsExactlyInAnyOrder("1|ann|29", "2|bob|18");

            // The SQL client as the gateway's client: the statements run in the gateway.
            Path script = Files.writeString(dir.resolve("client.sql"), """
          ADD JAR '%s';
          SET 'execution.runtime-mode' = 'batch';
          SET 'table.dml-sync' = 'true';
          CREATE TABLE users (id BIGINT NOT NULL, name STRING, age INT)
            WITH ('connector' = 'lance', 'path' = '%s');
          INSERT INTO users VALUES (3, 'cat', 39);
          SELECT id, name, age, 'row-of-users' AS tag FROM users;
          """.formatted(jar, clientUri));
            CliResult run = FLINK.cluster()
                    .runSqlClient(
                            Duration.ofMinutes(5),
                            "gateway",
                            "--endpoint",
                            gateway.endpoint(),
                            "-f",
                            script.toString());
            assertThat(run.exitCode()).as(run.describe()).isZero();
            assertThat(run.sqlErrors()).as(run.describe()).isEmpty();
            assertThat(run.stdout())
                    .as(run.describe())
                    .containsPattern("\\|\\s+3 \\|\\s+cat \\|\\s+39 \\|\\s+row-of-users \\|");
            assertThat(rows(clientUri)).containsExactly("3|cat|39");
        }
    }

    /** Every row of the table as "id|name|age". */
    private static List<String> rows(String uri) throws IOException {
        try (Dataset ds = Dataset.open(uri, Map.of())) {
            return ConnectorJarOnSessionClusterTest.rows(ds);
        }
    }
}
