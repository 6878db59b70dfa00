package dev.lanceflink.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.table.DataFile;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code lance-flink sql}: statements that Flink fails in its own internal terms end in one
 * {@code {"error": ...}} line that says what is wrong and what to do, with no stack trace, and
 * commit nothing. The table is a Lance catalog's {@code lake.db.t}, also declared as a connector
 * table {@code c} on the same path.
 */
class SqlStatementFailuresTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    @TempDir
    static Path dir;

    static String warehouse;
    static String tableUri;

    private record Run(int code, String out, String err) {
        String error() throws Exception {
            assertThat(out.lines()).as("one line on stdout: %s", out).hasSize(1);
            return MAPPER.readTree(out).get("error").asText();
        }
    }

    private static Run sql(String script) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = LanceFlinkCli.run(
                new String[] {"sql", "--format", "json", "-e", script},
                out,
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static String catalog() {
        return "SET 'table.local-time-zone' = 'UTC';\n" + "CREATE CATALOG lake WITH ('type' = 'lance', 'warehouse' = '"
                + warehouse + "');\n";
    }

    private static String connectorTable() {
        return "CREATE TABLE c (id BIGINT NOT NULL, name STRING NOT NULL, ts TIMESTAMP(6)) WITH ('connector' = 'lance',"
                + " 'path' = '" + tableUri + "');\n";
    }

    private static long latestVersion() throws Exception {
        try (Dataset d = Dataset.open(tableUri, Map.of())) {
            return d.version();
        }
    }

    /** v1: empty; v2: id 1; v3: id 2. */
    @BeforeAll
    static void createTable() throws Exception {
        warehouse = dir.resolve("warehouse").toString();
        tableUri = dir.resolve("warehouse/db/t.lance").toString();
        Run r = sql(catalog() + "CREATE DATABASE lake.db;\n"
                + "CREATE TABLE lake.db.t (id BIGINT NOT NULL, name STRING NOT NULL, ts TIMESTAMP(6));\n"
                + "INSERT INTO lake.db.t VALUES (1, 'a', TIMESTAMP '2026-01-01 10:00:00');\n");
        assertThat(r.code()).as(r.err()).isZero();
        Thread.sleep(20); // versions 2 and 3 get distinct commit times, whatever the clock's resolution
        r = sql(catalog() + "INSERT INTO lake.db.t VALUES (2, 'b', TIMESTAMP '2026-01-02 10:00:00');\n");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(latestVersion()).isEqualTo(3);
    }

    @Test
    void aNullInANotNullColumnIsOneLineNamingTheColumnAndTheTable() throws Exception {
        Run viaCatalog = sql(catalog() + "INSERT INTO lake.db.t VALUES (CAST(NULL AS BIGINT), 'x',"
                + " CAST(NULL AS TIMESTAMP(6)));");
        assertThat(viaCatalog.code()).isEqualTo(1);
        assertThat(viaCatalog.error())
                .isEqualTo("statement 3 (line 3): column 'id' of lake.db.t is NOT NULL, but the"
                        + " statement writes NULL into it in some rows. Give it a value in every row (e.g."
                        + " COALESCE(<expression>, <default>) in the query) or leave those rows out (WHERE <expression> IS NOT"
                        + " NULL)");
        assertThat(viaCatalog.err()).doesNotContain("\tat ");

        Run viaConnector = sql(connectorTable() + "INSERT INTO c SELECT * FROM (VALUES (CAST(3 AS BIGINT), 'c',"
                + " CAST(NULL AS TIMESTAMP(6))), (4, CAST(NULL AS STRING), CAST(NULL AS TIMESTAMP(6))))"
                + " AS v(id, name, ts);");
        assertThat(viaConnector.code()).isEqualTo(1);
        assertThat(viaConnector.error())
                .startsWith("statement 2 (line 2): column 'name' of"
                        + " default_catalog.default_database.c is NOT NULL, but the statement writes NULL into it");
        assertThat(viaConnector.err()).doesNotContain("\tat ");

        Run update = sql(catalog() + "UPDATE lake.db.t SET name = CAST(NULL AS STRING) WHERE id = 2;");
        assertThat(update.code()).isEqualTo(1);
        assertThat(update.error())
                .startsWith("statement 3 (line 3): column 'name' of lake.db.t is NOT NULL, but the"
                        + " UPDATE sets it to NULL in some rows. Set it to a value");
        assertThat(latestVersion()).as("nothing committed").isEqualTo(3);
    }

    @Test
    void timestampAddInAnUpdateSuggestsTheIntervalForm() throws Exception {
        Run r = sql(connectorTable() + "UPDATE c SET ts = TIMESTAMPADD(DAY, 1, ts) WHERE id = 1;");
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.error())
                .isEqualTo("statement 2 (line 2): Flink's planner cannot convert"
                        + " TIMESTAMPADD(DAY, 1, `ts`) in the SET clause of an UPDATE (a limitation of Flink's SQL planner, not"
                        + " of the table); write `ts` + INTERVAL '1' DAY instead");
        assertThat(r.err()).doesNotContain("\tat ");
        assertThat(latestVersion()).isEqualTo(3);

        // The suggestion works (on a copy, so that the other tests see the table as created).
        Path copy = dir.resolve("copy.lance");
        copyTree(Path.of(tableUri), copy);
        Run fixed = sql("CREATE TABLE c (id BIGINT NOT NULL, ts TIMESTAMP(6)) WITH ('connector' = 'lance', 'path' = '"
                + copy + "');\nUPDATE c SET ts = `ts` + INTERVAL '1' DAY WHERE id = 1;\n"
                + "SELECT id, ts FROM c ORDER BY id;");
        assertThat(fixed.code()).as(fixed.err()).isZero();
        assertThat(fixed.out())
                .isEqualTo("[{\"id\":1,\"ts\":\"2026-01-02T10:00:00.000000\"},"
                        + "{\"id\":2,\"ts\":\"2026-01-02T10:00:00.000000\"}]\n");
    }

    @Test
    void theTimestampAddRewriteKeepsTheValue() {
        assertThat(StatementFailures.timestampAddRewrite("TIMESTAMPADD(WEEK, -2, `t`.`ts`)"))
                .isEqualTo("`t`.`ts` - INTERVAL '14' DAY");
        assertThat(StatementFailures.timestampAddRewrite("TIMESTAMPADD(HOUR, `n` + 1, COALESCE(`ts`, `b`))"))
                .isEqualTo("COALESCE(`ts`, `b`) + (`n` + 1) * INTERVAL '1' HOUR");
        assertThat(StatementFailures.timestampAddRewrite("TIMESTAMPADD(QUARTER, `n`, `ts`)"))
                .isEqualTo("`ts` + (`n`) * 3 * INTERVAL '1' MONTH");
        assertThat(StatementFailures.timestampAddRewrite("TIMESTAMPADD(MICROSECOND, 1, `ts`)"))
                .isNull();
        assertThat(StatementFailures.timestampAddRewrite("UPPER(`name`)")).isNull();
    }

    @Test
    void timeTravelOnAnotherCatalogsTableSaysToUseThatCatalog() throws Exception {
        Instant v2;
        try (Dataset d = Dataset.open(tableUri, Map.of())) {
            v2 = d.versions().get(1).timestamp();
        }
        String asOf = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS")
                .withZone(ZoneOffset.UTC)
                .format(v2.plusMillis(1));
        Run r = sql(catalog() + "SELECT id FROM lake.db.t FOR SYSTEM_TIME AS OF TIMESTAMP '" + asOf + "';");
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.error())
                .isEqualTo(
                        "statement 3 (line 3): FOR SYSTEM_TIME AS OF on lake.db.t fails while the"
                                + " current catalog (default_catalog) is a Flink in-memory catalog: Flink asks the current catalog"
                                + " first, and that one cannot answer for a past time. Run USE CATALOG lake; first, then the query");
        assertThat(r.err()).doesNotContain("\tat ");

        // What it says works: version 2 (id 1 only), by the qualified name too.
        Run used = sql(catalog() + "USE CATALOG lake;\n"
                + "SELECT id FROM lake.db.t FOR SYSTEM_TIME AS OF TIMESTAMP '" + asOf + "';\n"
                + "SELECT id FROM db.t ORDER BY id;");
        assertThat(used.code()).as(used.err()).isZero();
        assertThat(used.out().lines().toList()).containsExactly("[{\"id\":1}]", "[{\"id\":1},{\"id\":2}]");

        Run connector = sql(connectorTable() + "SELECT id FROM c FOR SYSTEM_TIME AS OF TIMESTAMP '" + asOf + "';");
        assertThat(connector.code()).isEqualTo(1);
        assertThat(connector.error())
                .startsWith("statement 2 (line 2): FOR SYSTEM_TIME AS OF needs a table of a"
                        + " catalog that keeps versions")
                .contains("/*+ OPTIONS('as-of' = ");
    }

    @Test
    void aMissingDataFileIsOneLineNamingTheFileFragmentAndVersion() throws Exception {
        Path copy = dir.resolve("broken.lance");
        copyTree(Path.of(tableUri), copy);
        DataFile lost;
        long fragment;
        try (Dataset d = Dataset.open(copy.toString(), Map.of())) {
            fragment = d.fragments().get(1).id();
            lost = d.fragments().get(1).files().get(0);
        }
        Files.delete(copy.resolve(lost.rootRelativePath()));
        String expected = "Version 3 of table " + copy + " references the data file " + lost.path() + " of fragment "
                + fragment + ", but " + copy.resolve(lost.rootRelativePath()) + " does not exist";

        Run select = sql("CREATE TABLE b (id BIGINT NOT NULL) WITH ('connector' = 'lance', 'path' = '" + copy + "');\n"
                + "SELECT id FROM b;");
        assertThat(select.code()).isEqualTo(1);
        assertThat(select.error())
                .startsWith("statement 2 (line 2): ")
                .contains(expected)
                .contains("Restore the file");
        assertThat(select.err()).doesNotContain("\tat ");
        assertThat(org.slf4j.LoggerFactory.getILoggerFactory().getClass().getSimpleName())
                .as("the CLI's binding")
                .isEqualTo("SimpleLoggerFactory");
        assertThat(org.slf4j.LoggerFactory.getLogger(
                                "org.apache.flink.connector.base.source.reader.fetcher.SplitFetcherManager")
                        .isErrorEnabled())
                .as("Flink's split fetcher does not log the same failure with its stack trace")
                .isFalse();

        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = LanceFlinkCli.run(
                new String[] {"dump", copy.toString()}, out, new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(code).isEqualTo(1);
        assertThat(MAPPER.readTree(out.toString(StandardCharsets.UTF_8))
                        .get("error")
                        .asText())
                .startsWith(expected);
        assertThat(err.toString(StandardCharsets.UTF_8)).doesNotContain("\tat ");
    }

    private static void copyTree(Path from, Path to) throws Exception {
        try (var paths = Files.walk(from)) {
            for (Path p : (Iterable<Path>) paths::iterator) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target);
                }
            }
        }
    }
}
