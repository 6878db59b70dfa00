package dev.lanceflink.it.interop;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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
  @ValueSource(strings = {"all-types-2.0", "all-types-2.1", "all-types-2.2", "big-delete", "maps",
      "history", "history-stable-row-ids", "overlays"})
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
        cells += expected.get("num_rows").asLong() * expected.get("schema").size();
      } catch (AssertionError e) {
        failures.add(e.getMessage());
      }
    }
    System.out.printf("pylance-written %s: %d versions, %d rows, %d cells compared equal%s%n",
        scenario, versions, rows, cells, failures.isEmpty() ? "" : "; " + failures.size() + " versions differ");
    assertThat(failures).as("versions of %s that we read differently from pylance", scenario).isEmpty();
  }
}
