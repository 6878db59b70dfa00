package dev.lanceflink.it.interop;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lanceflink.cli.LanceFlinkCli;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tables written through Flink SQL, read by current Lance: a connector table created by its first
 * INSERT (file version 2.2, stable row ids), then UPDATE (an overlay), row-level and pushed-down
 * DELETE, an upsert-free INSERT, INSERT OVERWRITE and an UPDATE after it. At every version
 * pylance with the overlay variable reads what we read and validates; row ids and row addresses
 * take the same rows in both.
 */
class PylanceReadsSqlWritesITCase {

    private static final PylanceOracle PYLANCE = PylanceOracle.fromBuild().withOverlays();

    @Test
    void everyVersionOfASqlHistoryReadsTheSameInPylance(@TempDir Path dir) throws Exception {
        String uri = dir.resolve("items.lance").toString();
        String table = "CREATE TABLE items (id BIGINT NOT NULL, name STRING, price DOUBLE, tags ARRAY<STRING>,"
                + " PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'lance', 'path' = '" + uri + "',"
                + " 'create.stable-row-ids' = 'true', 'sink.rows-per-file' = '4')";
        sql(table + "; INSERT INTO items VALUES (1, 'a', 1.5, ARRAY['x']), (2, 'b', 2.5, ARRAY['y', 'z']),"
                + " (3, 'c', 3.5, CAST(NULL AS ARRAY<STRING>)), (4, 'd', 4.5, ARRAY['w']), (5, 'e', 5.5, ARRAY['v']),"
                + " (6, 'f', 6.5, ARRAY['u'])");
        sql(table + "; UPDATE items SET price = price * 10, name = 'updated' WHERE id IN (2, 5)");
        sql(table + "; DELETE FROM items WHERE id = 3");
        sql(table + "; DELETE FROM items WHERE price > 50");
        sql(table + "; INSERT INTO items VALUES (7, 'g', 7.5, ARRAY['t'])");
        sql(table + "; INSERT OVERWRITE items SELECT id + 100, name, price, tags FROM items");
        sql(table + "; UPDATE items SET tags = ARRAY['after-overwrite'] WHERE id = 101");

        List<String> failures = new ArrayList<>();
        JsonNode all = PYLANCE.run("dump-all", uri);
        int versions = 0;
        for (JsonNode theirs : all.get("versions")) {
            String v = theirs.get("version").asText();
            versions++;
            JsonNode valid =
                    PYLANCE.execute(List.of("validate", uri, "--version", v)).json();
            if (valid.has("error")) {
                failures.add("version " + v + ": validate() failed: "
                        + valid.get("error").asText());
            }
            try {
                DumpComparator.exact().assertSame("version " + v, OurCli.run("dump", uri, "--version", v), theirs);
            } catch (AssertionError e) {
                failures.add(e.getMessage());
            }
        }
        assertThat(failures).isEmpty();
        assertThat(versions).isGreaterThanOrEqualTo(8);

        // Take by stable row id and by address: the same rows as our read of _rowaddr says.
        JsonNode ours = OurCli.run("dump", uri, "--with-row-address", "--order-by", "id");
        StringBuilder addresses = new StringBuilder();
        for (JsonNode row : ours.get("rows")) {
            addresses
                    .append(addresses.length() == 0 ? "" : ",")
                    .append(row.get("_rowaddr").asText());
        }
        JsonNode byAddress = PYLANCE.run("take", uri, "--row-addresses", addresses.toString());
        assertThat(ids(byAddress)).containsExactlyInAnyOrderElementsOf(ids(ours));
        JsonNode withIds = PYLANCE.run("dump", uri, "--with-row-id");
        StringBuilder rowIds = new StringBuilder();
        for (JsonNode row : withIds.get("rows")) {
            rowIds.append(rowIds.length() == 0 ? "" : ",")
                    .append(row.get("_rowid").asText());
        }
        JsonNode byRowId = PYLANCE.run("take", uri, "--row-ids", rowIds.toString());
        assertThat(ids(byRowId)).containsExactlyInAnyOrderElementsOf(ids(ours));
        assertThat(ids(ours)).containsExactly(101L, 102L, 104L, 106L, 107L);
        System.out.printf(
                "pylance reading a SQL history: %d versions identical, take by %d row ids and addresses%n",
                versions, ids(ours).size());
    }

    /**
     * Types only SQL writes in this suite: TIME at every precision Flink stores, MAP (alone, holding
     * lists, inside a ROW), with NULLs at each level, in a table the first INSERT creates (2.2).
     */
    @Test
    void pylanceReadsTimesAndMapsWeWrite(@TempDir Path dir) throws Exception {
        String uri = dir.resolve("typed.lance").toString();
        String table = "CREATE TABLE typed (id INT NOT NULL, t0 TIME(0), t3 TIME(3), t6 TIME(6),"
                + " m MAP<STRING, INT>, ml MAP<INT, ARRAY<STRING>>, r ROW<n INT, tags MAP<STRING, DOUBLE>>)"
                + " WITH ('connector' = 'lance', 'path' = '" + uri + "')";
        sql(table + "; INSERT INTO typed VALUES"
                + " (1, TIME '01:02:03', TIME '23:59:59.999', CAST('12:00:00.123456' AS TIME(6)), MAP['a', 1, 'b', 2],"
                + " MAP[1, ARRAY['x', 'y']], ROW(7, MAP['k', 1.5])),"
                + " (2, CAST(NULL AS TIME(0)), TIME '00:00:00.001', CAST(NULL AS TIME(6)), MAP['c', CAST(NULL AS INT)],"
                + " CAST(NULL AS MAP<INT, ARRAY<STRING>>), CAST(NULL AS ROW<n INT, tags MAP<STRING, DOUBLE>>)),"
                + " (3, TIME '00:00:00', CAST(NULL AS TIME(3)), CAST('00:00:00.000001' AS TIME(6)),"
                + " CAST(NULL AS MAP<STRING, INT>), MAP[2, CAST(NULL AS ARRAY<STRING>)], ROW(CAST(NULL AS INT),"
                + " CAST(NULL AS MAP<STRING, DOUBLE>)))");
        sql(
                table
                        + "; UPDATE typed SET t3 = TIME '10:10:10.100', m = CAST(MAP['z', 26] AS MAP<STRING, INT>) WHERE id = 2");
        List<String> failures = new ArrayList<>();
        JsonNode all = PYLANCE.run("dump-all", uri);
        for (JsonNode theirs : all.get("versions")) {
            String v = theirs.get("version").asText();
            PylanceOracle.collectDifference(failures, "version " + v, OurCli.run("dump", uri, "--version", v), theirs);
        }
        assertThat(failures).isEmpty();
        JsonNode last = all.get("versions").get(all.get("versions").size() - 1);
        assertThat(last.toString()).contains("\"10:10:10.100\"").contains("{\"key\":\"z\",\"value\":26}");
        System.out.printf(
                "pylance reading our TIME and MAP columns: %d versions identical%n",
                all.get("versions").size());
    }

    private static List<Long> ids(JsonNode dump) {
        List<Long> ids = new ArrayList<>();
        dump.get("rows").forEach(r -> ids.add(r.get("id").asLong()));
        return ids;
    }

    /** Runs statements with {@code bin/lance-flink sql} in this JVM; fails with its error line. */
    private static void sql(String statements) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = LanceFlinkCli.run(
                new String[] {"sql", "-e", statements}, out, new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(code)
                .as("sql %s%nstdout: %s%nstderr: %s", statements, out, err)
                .isZero();
    }
}
