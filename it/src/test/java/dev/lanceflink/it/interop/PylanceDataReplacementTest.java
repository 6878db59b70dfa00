package dev.lanceflink.it.interop;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.io.ObjectStores;
import dev.lanceflink.table.DataFile;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.testkit.users.UsersTable;
import dev.lanceflink.txn.CommitOptions;
import dev.lanceflink.txn.Operation;
import dev.lanceflink.txn.TableCommitter;
import dev.lanceflink.txn.Transaction;
import dev.lanceflink.txn.TransactionStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code DataReplacement} built on read version R and committed after a {@code DataOverlay} of
 * the same field landed as R+1: current Lance (pylance 14, overlays enabled) supersedes only the
 * overlays committed up to R and keeps the concurrent one. Ours must do the same when it commits
 * such a replacement, keep R as the transaction's read version, and read pylance's result alike.
 *
 * <p>The table: fragments 0 (ids 0..29) and 1 (30..59); version 2 adds {@code bonus = age * 10}
 * in its own data files (pylance's add_columns); version 3 overlays {@code bonus} of ids 1 and 2
 * with 100 (seen by the replacement); the replacement reads version 3 and sets fragment 0's
 * {@code bonus} to {@code 1000 + offset}; before it commits, an overlay sets ids 2 and 3 to 200
 * (version 4). After it (version 5): id 1 has the replaced value, ids 2 and 3 keep 200.
 */
class PylanceDataReplacementTest {
    private static final PylanceOracle PYLANCE = PylanceOracle.fromBuild().withOverlays();
    private static final int READ_VERSION = 3;

    @TempDir
    Path dir;

    @Test
    void pylanceKeepsTheOverlayCommittedAfterTheReplacementsReadVersionAndWeReadItAlike() throws Exception {
        String uri = table("pylance.lance");
        JsonNode results = ops(uri, concurrentOverlay(), replacement(false));

        assertThat(results.get(1).path("version").asLong())
                .as("pylance's answer %s", results)
                .isEqualTo(5);
        assertBonusAsExpected(uri);
        assertReadAlike(uri);
    }

    @Test
    void ourReplacementKeepsItTooAndKeepsItsReadVersion() throws Exception {
        String uri = table("ours.lance");
        JsonNode staged = ops(uri, replacement(true), concurrentOverlay());
        assertThat(staged.get(1).path("version").asLong())
                .as("pylance's answer %s", staged)
                .isEqualTo(4);
        JsonNode f = staged.get(0).get("data_file");
        DataFile file = new DataFile(
                f.get("path").asText(),
                new int[] {f.get("fields").get(0).asInt()},
                new int[] {0},
                f.get("file_major_version").asInt(),
                f.get("file_minor_version").asInt(),
                0);
        Transaction replace = Transaction.of(
                READ_VERSION, new Operation.DataReplacement(List.of(new Operation.DataReplacementGroup(0, file))));

        Manifest committed;
        try (ObjectStore store = ObjectStores.open(uri, Map.of())) {
            committed = TableCommitter.commit(store, replace, CommitOptions.defaults());
            assertThat(TransactionStore.readForVersion(store, committed.version())
                            .readVersion())
                    .as("the read version of the rebased replacement, as Lance keeps it")
                    .isEqualTo(READ_VERSION);
        }

        assertThat(committed.version()).isEqualTo(5);
        assertBonusAsExpected(uri);
        assertReadAlike(uri);
        assertThat(PYLANCE.run("validate", uri).path("valid").asBoolean())
                .as("pylance's validate()")
                .isTrue();
    }

    /** Versions 1 to 3 (see the class comment). */
    private String table(String name) throws Exception {
        String uri = dir.resolve(name).toString();
        TreeMap<Long, UsersTable.Row> rows = new TreeMap<>();
        for (long id = 0; id < 60; id++) {
            rows.put(id, new UsersTable.Row("n" + id, (int) id, id / 2.0));
        }
        UsersTable.create(uri, rows, 30);
        ObjectNode addBonus = op("add_columns");
        addBonus.putObject("columns").put("bonus", "CAST(age * 10 AS INT)");
        ObjectNode seen = op("stale_overlay")
                .put("read_version", 2)
                .put("column", "bonus")
                .put("age", 100);
        seen.set("ids", ids(1, 2));
        JsonNode results = ops(uri, addBonus, seen);
        assertThat(results.get(1).path("version").asLong())
                .as("setup %s", results)
                .isEqualTo(READ_VERSION);
        return uri;
    }

    private static ObjectNode concurrentOverlay() {
        ObjectNode o = op("stale_overlay")
                .put("read_version", READ_VERSION)
                .put("column", "bonus")
                .put("age", 200);
        o.set("ids", ids(2, 3));
        return o;
    }

    private static ObjectNode replacement(boolean stageOnly) {
        ObjectNode o = op("stale_replacement")
                .put("read_version", READ_VERSION)
                .put("column", "bonus")
                .put("fragment", 0)
                .put("stage", stageOnly);
        ArrayNode values = o.putArray("values");
        for (int offset = 0; offset < 30; offset++) {
            values.add(1000 + offset);
        }
        return o;
    }

    private static void assertBonusAsExpected(String uri) {
        JsonNode rows = PYLANCE.run("dump", uri, "--columns", "id,bonus", "--filter", "id < 5 OR id = 30")
                .get("rows");
        List<String> got = new ArrayList<>();
        rows.forEach(r -> got.add(r.get("id").asLong() + "=" + r.get("bonus").asInt()));
        assertThat(got)
                .as("bonus after the replacement (pylance)")
                .containsExactly("0=1000", "1=1001", "2=200", "3=200", "4=1004", "30=300");
    }

    /** Our reader and pylance's agree on the versions before and after the replacement. */
    private static void assertReadAlike(String uri) {
        List<String> failures = new ArrayList<>();
        for (int v = 4; v <= 5; v++) {
            PylanceOracle.collectDifference(
                    failures,
                    "version " + v,
                    OurCli.run("dump", uri, "--version", Integer.toString(v), "--with-row-address"),
                    PYLANCE.run("dump", uri, "--version", Integer.toString(v), "--with-row-address"));
        }
        assertThat(failures).as("versions pylance reads differently").isEmpty();
    }

    private static ObjectNode op(String kind) {
        return DumpComparator.MAPPER.createObjectNode().put("op", kind);
    }

    private static ArrayNode ids(long... ids) {
        ArrayNode a = DumpComparator.MAPPER.createArrayNode();
        for (long id : ids) {
            a.add(id);
        }
        return a;
    }

    private JsonNode ops(String uri, ObjectNode... ops) throws Exception {
        ArrayNode list = DumpComparator.MAPPER.createArrayNode();
        for (ObjectNode o : ops) {
            list.add(o);
        }
        Path file = Files.createTempFile(dir, "ops-", ".json");
        Files.writeString(file, DumpComparator.MAPPER.writeValueAsString(list), StandardCharsets.UTF_8);
        return PYLANCE.run("ops", uri, file.toString()).get("results");
    }
}
