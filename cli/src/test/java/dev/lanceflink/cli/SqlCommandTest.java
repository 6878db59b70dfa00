package dev.lanceflink.cli;

import static dev.lanceflink.cli.SqlRun.sql;
import static dev.lanceflink.cli.SqlRun.sqlFromStdin;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code lance-flink sql} in-process where it runs no Flink job: usage errors, statements that fail
 * before one starts. The statements that run jobs are in {@link SqlCommandITCase}.
 */
class SqlCommandTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    @TempDir
    static Path dir;

    @Test
    void progressNamesTheStatementNotTheCommentAboveIt() {
        assertThat(SqlCommand.firstLine("-- make the table\n/* more */ CREATE TABLE t (\n  id INT\n) WITH ()"))
                .isEqualTo("CREATE TABLE t ( id INT ) WITH ()");
        assertThat(SqlCommand.firstLine("DELETE FROM t WHERE " + "x = 1 AND ".repeat(20) + "y = 2"))
                .hasSize(100)
                .endsWith("...");
    }

    @Test
    void aMissingTableIsAnErrorNamingIt() throws Exception {
        SqlRun r = sql("--format", "json", "-e", "SELECT * FROM nowhere");
        assertThat(r.code()).isEqualTo(1);
        assertThat(MAPPER.readTree(r.out()).get("error").asText()).contains("nowhere");
    }

    @Test
    void readsTheStatementsOnStandardInputWhenItIsNoTerminal() {
        // A pipe (the test JVM has no console): all of stdin is one script, as with -f.
        SqlRun r = sqlFromStdin("SET 'a' = 'x;y';\nSHOW\n  CATALOGS;\nSELECT * FROM nowhere;\nSET 'b' = '1';\n");
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.out()).contains("default_catalog").contains("{\"error\":\"statement 3 (stdin, line 4)");
        assertThat(r.err()).contains("[INFO] 'a' = 'x;y'").doesNotContain("'b' = '1'");
    }

    @Test
    void wrongCommandLinesExitWithUsage() throws Exception {
        SqlRun none = sqlFromStdin("");
        assertThat(none.code()).isEqualTo(2);
        assertThat(MAPPER.readTree(none.out()).get("error").asText())
                .startsWith("no statements")
                .endsWith("(lance-flink sql --help)");
        SqlRun help = sql("--help");
        assertThat(help.code()).isZero();
        assertThat(help.out()).startsWith("lance-flink sql [-f script.sql").doesNotContain("\\n");
        SqlRun both = sql("-e", "SELECT 1", "-f", "x.sql");
        assertThat(both.code()).isEqualTo(2);
        assertThat(MAPPER.readTree(both.out()).get("error").asText()).contains("either -f FILE or -e");
        SqlRun missing = sql("-f", dir.resolve("missing.sql").toString());
        assertThat(missing.code()).isEqualTo(2);
        assertThat(MAPPER.readTree(missing.out()).get("error").asText()).contains("cannot read the SQL script");
        SqlRun format = sql("-e", "SELECT 1", "--format", "csv");
        assertThat(format.code()).isEqualTo(2);
    }
}
