package dev.lanceflink.it.interop;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lanceflink.dataset.Dataset;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * We read what current Lance writes: pylance builds a table history (a scenario of
 * {@code it/pylance/pylance_scenarios.py}: every type it writes in file versions 2.0/2.1/2.2,
 * both kinds of deletion file, maps, histories of delete/update/merge_insert/compact_files,
 * add/drop/alter columns with and without stable row ids, its own DataOverlay commits) and
 * dumps every version; our {@code dump} of each version must equal pylance's cell by cell.
 * Each scenario prints what it compared.
 */
class PylanceWrittenTablesTest {

    private static final PylanceOracle PYLANCE = PylanceOracle.fromBuild().withOverlays();

    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "all-types-2.0",
                "all-types-2.1",
                "all-types-2.2",
                "big-delete",
                "maps",
                "history",
                "history-stable-row-ids",
                "overlays",
                "shallow-clone",
                "branch",
                "indices"
            })
    void ourDumpEqualsPylancesAtEveryVersion(String scenario, @TempDir Path dir) {
        JsonNode built = PYLANCE.run("scenario", scenario, dir.toString());
        String uri = built.get("uri").asText();
        List<String> failures = new ArrayList<>();
        long rows = 0;
        long cells = 0;
        int versions = 0;
        for (JsonNode expected : built.get("versions")) {
            long version = expected.get("version").asLong();
            OurCli.Result ours = OurCli.execute(List.of("dump", uri, "--version", Long.toString(version)));
            versions++;
            if (ours.exitCode() != 0) {
                failures.add("version " + version + ": our dump failed: " + ours.error());
                continue;
            }
            try {
                DumpComparator.exact().assertSame(scenario + " version " + version, expected, ours.json());
                rows += expected.get("num_rows").asLong();
                cells += expected.get("num_rows").asLong()
                        * expected.get("schema").size();
            } catch (AssertionError e) {
                failures.add(e.getMessage());
            }
        }
        System.out.printf(
                "pylance-written %s: %d versions, %d rows, %d cells compared equal%s%n",
                scenario, versions, rows, cells, failures.isEmpty() ? "" : "; " + failures.size() + " versions differ");
        assertThat(failures)
                .as("versions of %s that we read differently from pylance", scenario)
                .isEmpty();
    }

    /**
     * The failure that started it: a table pylance created with its defaults (file version 2.2)
     * that we update with overlays must stay readable by pylance, at every version, and validate.
     */
    @Test
    void pylanceReadsOurOverlayUpdatesOfItsDefaultTable(@TempDir Path dir) throws Exception {
        String uri = PYLANCE.run("scenario", "all-types-2.2", dir.toString())
                .get("uri")
                .asText();
        JsonNode schema = PYLANCE.run("dump", uri).get("schema");
        List<String> columns = List.of("i32", "s", "f64", "vec", "l_s", "ts");
        ArrayNode sub = DumpComparator.MAPPER.createArrayNode();
        for (JsonNode c : schema) {
            if (columns.contains(c.get("name").asText())) {
                sub.add(c);
            }
        }
        // ids 1, 2, 4 (fragment 0), 305 (fragment 1), 650 (fragment 2), 705 (fragment 3): fragments of 300
        // rows, the last append in a fragment of its own; none of them deleted by the scenario.
        long[] addresses = {1, 2, 4, (1L << 32) | 5, (2L << 32) | 50, (3L << 32) | 5};
        ArrayNode values = DumpComparator.MAPPER.createArrayNode();
        for (int i = 0; i < addresses.length; i++) {
            ObjectNode row = values.addObject();
            row.put("i32", -1000 - i)
                    .put("s", i % 2 == 0 ? "updated-" + i : null)
                    .put("f64", i + 0.25)
                    .put("ts", "2026-12-02T10:00:0" + i + ".000001");
            ArrayNode vec = row.putArray("vec");
            for (int d = 0; d < 8; d++) {
                vec.add(i * 10 + d);
            }
            row.putArray("l_s").add("x" + i).addNull();
        }
        try (BufferAllocator allocator = new RootAllocator();
                Dataset ds = Dataset.open(uri, Map.of());
                VectorSchemaRoot root = JsonToArrow.batch(sub, values, allocator)) {
            ds.update(addresses, root).close();
        }
        List<String> failures = new ArrayList<>();
        JsonNode all = PYLANCE.run("dump-all", uri);
        for (JsonNode theirs : all.get("versions")) {
            String version = theirs.get("version").asText();
            JsonNode valid = PYLANCE.execute(List.of("validate", uri, "--version", version))
                    .json();
            if (valid.has("error")) {
                failures.add("version " + version + ": validate() failed: "
                        + valid.get("error").asText());
            }
            try {
                DumpComparator.exact()
                        .assertSame("version " + version, OurCli.run("dump", uri, "--version", version), theirs);
            } catch (AssertionError e) {
                failures.add(e.getMessage());
            }
        }
        JsonNode last = all.get("versions").get(all.get("versions").size() - 1);
        assertThat(last.get("rows").get(1).get("i32").asInt())
                .as("id 1 updated")
                .isEqualTo(-1000);
        assertThat(failures).isEmpty();
    }
}
