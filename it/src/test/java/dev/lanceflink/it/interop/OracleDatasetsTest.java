package dev.lanceflink.it.interop;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lanceflink.it.interop.OracleDatasets.OracleDataset;
import dev.lanceflink.it.interop.OracleDatasets.Variant;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves the harness: the official SDK writes every {@link Variant} and reads back exactly the
 * rows {@link InteropData} generated, per version; and the manifest facts the variants promise
 * (file versions, fragment counts, stable row ids, deletion files) hold. All writing and
 * dumping happens in one oracle JVM, all inspection in a second one.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OracleDatasetsTest {

    private final OracleProcess oracle = OracleProcess.fromBuild();
    private Map<Variant, OracleDataset> datasets;
    private List<JsonNode> inspections;

    @BeforeAll
    void writeAllVariants(@TempDir Path dir) {
        datasets = OracleDatasets.shared(oracle);
        List<List<String>> commands = new ArrayList<>();
        for (Variant variant : Variant.values()) {
            commands.add(List.of("inspect", datasets.get(variant).uri()));
        }
        commands.add(List.of("versions", datasets.get(Variant.MULTI_VERSION).uri()));
        commands.add(List.of("inspect", datasets.get(Variant.MULTI_VERSION).uri(), "--version", "2"));
        commands.add(List.of("dump", datasets.get(Variant.STABLE_ROW_IDS).uri(), "--with-row-id", "--order-by", "id"));
        inspections = oracle.batch(dir.resolve("inspect"), commands);
        for (int i = 0; i < commands.size(); i++) {
            OracleProcess.requireOk(commands.get(i), inspections.get(i));
        }
    }

    @Test
    void everyVersionOfEveryVariantReadsBackAsGenerated() {
        List<String> failures = new ArrayList<>();
        for (OracleDataset dataset : datasets.values()) {
            assertThat(dataset.oracleDumps()).hasSize(dataset.variant().versions());
            dataset.expectedByVersion().forEach((version, expected) -> {
                try {
                    DumpComparator.exact()
                            .withVersionCheck()
                            .assertSame(
                                    dataset.variant() + " version " + version,
                                    expected,
                                    dataset.oracleDumps().get(version));
                } catch (AssertionError e) {
                    failures.add(e.getMessage());
                }
            });
        }
        assertThat(failures).isEmpty();
        assertThat(datasets.get(Variant.V2_1).expectedDump().path("num_rows").asInt())
                .isEqualTo(300);
        assertThat(datasets.get(Variant.MULTI_VERSION)
                        .expectedDump()
                        .path("num_rows")
                        .asInt())
                .isEqualTo(200 + 100 - 60 + 50 - 10);
        assertThat(datasets.get(Variant.STABLE_ROW_IDS)
                        .expectedDump()
                        .path("num_rows")
                        .asInt())
                .isEqualTo(250 - 36);
    }

    @Test
    void variantsHaveTheAdvertisedFileVersionsAndLayout() {
        assertThat(inspection(Variant.V2_0).path("data_storage_version").asText())
                .isEqualTo("2.0");
        assertThat(inspection(Variant.V2_1).path("data_storage_version").asText())
                .isEqualTo("2.1");
        assertThat(inspection(Variant.V2_2).path("data_storage_version").asText())
                .isEqualTo("2.2");
        assertThat(inspection(Variant.V2_2)
                        .path("fragments")
                        .get(0)
                        .path("files")
                        .get(0)
                        .path("file_version")
                        .asText())
                .isEqualTo("2.2");

        JsonNode multi = inspection(Variant.MULTI_FRAGMENT);
        assertThat(multi.path("fragments")).hasSize(4);
        List<Integer> physicalRows = new ArrayList<>();
        multi.path("fragments")
                .forEach(f -> physicalRows.add(f.path("physical_rows").asInt()));
        assertThat(physicalRows).containsExactly(300, 300, 300, 100);

        JsonNode stable = inspection(Variant.STABLE_ROW_IDS);
        assertThat(stable.path("stable_row_ids").asBoolean()).isTrue();
        assertThat(stable.path("fragments")).hasSize(4); // 64 + 64 + 22, then the append
        stable.path("fragments").forEach(f -> {
            assertThat(f.path("has_row_id_meta").asBoolean()).isTrue();
            assertThat(f.path("deletion_file").isObject()).isTrue();
        });
        assertThat(inspection(Variant.V2_1).path("stable_row_ids").asBoolean()).isFalse();

        JsonNode multiVersion = inspection(Variant.MULTI_VERSION);
        assertThat(multiVersion.path("version").asLong()).isEqualTo(5);
        assertThat(multiVersion.path("fragments")).hasSize(3);
        assertThat(multiVersion
                        .path("fragments")
                        .get(2)
                        .path("deletion_file")
                        .path("type")
                        .asText())
                .isEqualTo("array");
    }

    @Test
    void versionsAndTimeTravelAreReported() {
        JsonNode versions = inspections.get(Variant.values().length);
        assertThat(versions.path("latest_version").asLong()).isEqualTo(5);
        List<Long> ids = new ArrayList<>();
        versions.path("versions").forEach(v -> ids.add(v.path("version").asLong()));
        assertThat(ids).containsExactly(1L, 2L, 3L, 4L, 5L);

        JsonNode v2 = inspections.get(Variant.values().length + 1);
        assertThat(v2.path("version").asLong()).isEqualTo(2);
        assertThat(v2.path("num_rows").asLong()).isEqualTo(300);
    }

    @Test
    void stableRowIdsAreDenseInInsertionOrderAndSurviveDeletes() {
        JsonNode dump = inspections.get(Variant.values().length + 2);
        assertThat(dump.path("rows")).hasSize(214);
        // Stable row ids are assigned 0, 1, 2, ... in insertion order; rows keep theirs when
        // other rows are deleted, so here the row id equals the key.
        dump.path("rows")
                .forEach(row -> assertThat(row.path("_rowid").asLong())
                        .isEqualTo(row.path("id").asLong()));
    }

    private JsonNode inspection(Variant variant) {
        return inspections.get(variant.ordinal());
    }
}
