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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Datasets written by the official SDK are read by our {@code bin/lance-flink dump} with exactly
 * the rows the SDK wrote, at every version (time travel included): file versions 2.0/2.1/2.2,
 * several fragments, stable row ids, appends and deletes, both deletion file types. All SDK
 * work happens in two oracle JVMs (write + inspect).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SdkWrittenDatasetsTest {

    /** Columns whose {@code --order-by} must sort exactly like the SDK oracle's. */
    private static final List<String> ORDER_BY = List.of("f32", "name", "amount", "tstz", "payload");

    private final OracleProcess oracle = OracleProcess.fromBuild();
    private Map<Variant, OracleDataset> datasets;
    private List<JsonNode> sdkInspections;

    @BeforeAll
    void writeWithTheSdk(@TempDir Path dir) {
        datasets = OracleDatasets.shared(oracle);
        String uri = datasets.get(Variant.DELETION_FILE_TYPES).uri();
        List<List<String>> commands = new ArrayList<>(
                List.of(List.of("inspect", uri, "--version", "2"), List.of("inspect", uri, "--version", "3")));
        for (Variant variant : Variant.values()) {
            commands.add(List.of("inspect", datasets.get(variant).uri()));
        }
        for (String column : ORDER_BY) {
            commands.add(List.of("dump", datasets.get(Variant.MULTI_FRAGMENT).uri(), "--order-by", column));
        }
        sdkInspections = oracle.batch(dir.resolve("inspect"), commands);
        for (int i = 0; i < commands.size(); i++) {
            OracleProcess.requireOk(commands.get(i), sdkInspections.get(i));
        }
    }

    @ParameterizedTest
    @EnumSource(Variant.class)
    void everyVersionReadsExactlyAsWritten(Variant variant) {
        OracleDataset dataset = datasets.get(variant);
        List<String> failures = new ArrayList<>();
        dataset.expectedByVersion().forEach((version, expected) -> {
            try {
                JsonNode ours = OurCli.run("dump", dataset.uri(), "--version", Long.toString(version));
                DumpComparator.exact().withVersionCheck().assertSame(variant + " version " + version, expected, ours);
            } catch (AssertionError e) {
                failures.add(e.getMessage());
            }
        });
        assertThat(failures).as("versions of %s our reader gets wrong", variant).isEmpty();
    }

    @Test
    void latestVersionIsTheDefaultAndVersionsAreListed() {
        OracleDataset dataset = datasets.get(Variant.MULTI_VERSION);
        DumpComparator.exact().withVersionCheck().assertSame(dataset.expectedDump(), OurCli.run("dump", dataset.uri()));
        JsonNode versions = OurCli.run("versions", dataset.uri()).path("versions");
        List<String> summary = new ArrayList<>();
        versions.forEach(v -> summary.add(v.path("version").asLong() + ":"
                + v.path("operation").asText() + ":" + v.path("num_rows").asLong()));
        assertThat(summary)
                .containsExactly("1:Overwrite:200", "2:Append:300", "3:Delete:240", "4:Append:290", "5:Delete:280");
    }

    /**
     * The SDK writes a small deletion as an Arrow array file and switches to a Roaring bitmap
     * above 5000 deleted rows in a fragment; our inspect reports the same types and counts.
     */
    @Test
    void bothDeletionFileTypesAreReadAndReported() {
        String uri = datasets.get(Variant.DELETION_FILE_TYPES).uri();
        JsonNode sdkSmall = sdkInspections.get(0).path("fragments").get(0).path("deletion_file");
        JsonNode sdkLarge = sdkInspections.get(1).path("fragments").get(0).path("deletion_file");
        assertThat(sdkSmall.path("type").asText()).isEqualTo("array");
        assertThat(sdkSmall.path("num_deleted_rows").asLong()).isEqualTo(1);
        assertThat(sdkLarge.path("type").asText()).isEqualTo("bitmap");
        assertThat(sdkLarge.path("num_deleted_rows").asLong()).isEqualTo(6001); // + id 17 (17 % 7 = 3)

        JsonNode oursSmall = OurCli.run("inspect", uri, "--version", "2")
                .path("fragments")
                .get(0)
                .path("deletion");
        JsonNode oursLarge = OurCli.run("inspect", uri, "--version", "3")
                .path("fragments")
                .get(0)
                .path("deletion");
        assertThat(oursSmall.path("type").asText()).isEqualTo("array");
        assertThat(oursSmall.path("num_deleted_rows").asLong()).isEqualTo(1);
        assertThat(oursSmall.path("id").asLong()).isEqualTo(sdkSmall.path("id").asLong());
        assertThat(oursLarge.path("type").asText()).isEqualTo("bitmap");
        assertThat(oursLarge.path("num_deleted_rows").asLong()).isEqualTo(6001);
        assertThat(oursLarge.path("read_version").asLong())
                .isEqualTo(sdkLarge.path("read_version").asLong());
    }

    /**
     * Our {@code inspect} of every SDK-written table names the same fields (ids, parents, logical
     * types, nullability), fragments, data files (path, field ids, column indices, file version,
     * size) and deletion files as the SDK's own inspection.
     */
    @ParameterizedTest
    @EnumSource(Variant.class)
    void inspectAgreesWithTheSdk(Variant variant) {
        JsonNode sdk = sdkInspections.get(2 + variant.ordinal());
        JsonNode ours = OurCli.run("inspect", datasets.get(variant).uri());
        assertThat(ours.path("version").asLong()).isEqualTo(sdk.path("version").asLong());
        assertThat(ours.path("data_format").path("version").asText())
                .isEqualTo(sdk.path("data_storage_version").asText());
        assertThat(ours.path("stable_row_ids").asBoolean())
                .isEqualTo(sdk.path("stable_row_ids").asBoolean());
        assertThat(ours.path("num_rows").asLong())
                .isEqualTo(sdk.path("num_rows").asLong());
        assertThat(ours.path("schema").toString()).isEqualTo(fieldsInOurOrder(sdk.path("fields")));

        List<String> sdkFragments = new ArrayList<>();
        sdk.path("fragments").forEach(f -> sdkFragments.add(sdkFragment(f)));
        List<String> ourFragments = new ArrayList<>();
        ours.path("fragments").forEach(f -> ourFragments.add(ourFragment(f)));
        assertThat(ourFragments).isEqualTo(sdkFragments);
    }

    /** The SDK's field list re-keyed in the order our inspect prints. */
    private static String fieldsInOurOrder(JsonNode fields) {
        com.fasterxml.jackson.databind.node.ArrayNode out = DumpComparator.MAPPER.createArrayNode();
        fields.forEach(f -> out.addObject()
                .put("name", f.path("name").asText())
                .put("id", f.path("id").asInt())
                .put("parent_id", f.path("parent_id").asInt())
                .put("logical_type", f.path("logical_type").asText())
                .put("nullable", f.path("nullable").asBoolean()));
        return out.toString();
    }

    private static String sdkFragment(JsonNode f) {
        StringBuilder out = new StringBuilder()
                .append("fragment ")
                .append(f.path("id").asLong())
                .append(" rows ")
                .append(f.path("physical_rows").asLong())
                .append('/')
                .append(f.path("num_rows").asLong())
                .append(" row ids ")
                .append(f.path("has_row_id_meta").asBoolean());
        f.path("files")
                .forEach(d -> out.append(" file ")
                        .append(d.path("path").asText())
                        .append(" fields ")
                        .append(d.path("fields"))
                        .append(" columns ")
                        .append(d.path("column_indices"))
                        .append(" v")
                        .append(d.path("file_version").asText())
                        .append(" bytes ")
                        .append(d.path("file_size_bytes").asLong()));
        JsonNode del = f.path("deletion_file");
        out.append(
                del.isObject()
                        ? " deletion " + del.path("type").asText() + " id "
                                + del.path("id").asLong() + " read "
                                + del.path("read_version").asLong() + " rows "
                                + del.path("num_deleted_rows").asLong()
                        : " no deletion");
        return out.toString();
    }

    private static String ourFragment(JsonNode f) {
        StringBuilder out = new StringBuilder()
                .append("fragment ")
                .append(f.path("id").asLong())
                .append(" rows ")
                .append(f.path("physical_rows").asLong())
                .append('/')
                .append(f.path("num_rows").asLong())
                .append(" row ids ")
                .append(f.path("has_row_ids").asBoolean());
        f.path("files")
                .forEach(d -> out.append(" file ")
                        .append(d.path("path").asText())
                        .append(" fields ")
                        .append(d.path("fields"))
                        .append(" columns ")
                        .append(d.path("column_indices"))
                        .append(" v")
                        .append(d.path("file_major_version").asInt())
                        .append('.')
                        .append(d.path("file_minor_version").asInt())
                        .append(" bytes ")
                        .append(d.path("file_size_bytes").asLong()));
        JsonNode del = f.path("deletion");
        out.append(
                del.isObject()
                        ? " deletion " + del.path("type").asText() + " id "
                                + del.path("id").asLong() + " read "
                                + del.path("read_version").asLong() + " rows "
                                + del.path("num_deleted_rows").asLong()
                        : " no deletion");
        return out.toString();
    }

    /**
     * {@code dump --order-by} sorts like the oracle (nulls first, numbers by value, then strings
     * by UTF-16 units, NaN/Infinity as strings, ties in scan order), so sorted dumps of the two
     * tools compare row by row.
     */
    @Test
    void orderBySortsLikeTheOracle() {
        List<String> failures = new ArrayList<>();
        String uri = datasets.get(Variant.MULTI_FRAGMENT).uri();
        for (int i = 0; i < ORDER_BY.size(); i++) {
            JsonNode sdk = sdkInspections.get(2 + Variant.values().length + i);
            try {
                DumpComparator.exact()
                        .assertSame(
                                "--order-by " + ORDER_BY.get(i),
                                sdk,
                                OurCli.run("dump", uri, "--order-by", ORDER_BY.get(i)));
            } catch (AssertionError e) {
                failures.add(e.getMessage());
            }
        }
        assertThat(failures).isEmpty();
    }

    /**
     * {@code dump --filter} on an SDK-written table with deletions returns exactly the live rows
     * the predicate selects under SQL three-valued logic (a NULL comparison is not true).
     */
    @Test
    void filtersSelectExactlyTheMatchingLiveRows() {
        OracleDataset dataset = datasets.get(Variant.MULTI_VERSION);
        Map<String, java.util.function.Predicate<JsonNode>> filters = new java.util.LinkedHashMap<>();
        filters.put("id >= 100 AND id < 110 OR name IS NULL", row -> {
            long id = row.path("id").asLong();
            return id >= 100 && id < 110 || row.get("name").isNull();
        });
        filters.put(
                "flag = true AND i8 < 0",
                row -> !row.get("flag").isNull()
                        && row.get("flag").asBoolean()
                        && !row.get("i8").isNull()
                        && row.get("i8").asInt() < 0);
        filters.put(
                "NOT (i32 > 0)",
                row -> !row.get("i32").isNull() && row.get("i32").asLong() <= 0);
        List<String> failures = new ArrayList<>();
        filters.forEach((filter, predicate) -> {
            com.fasterxml.jackson.databind.node.ObjectNode expected =
                    dataset.expectedDump().deepCopy();
            com.fasterxml.jackson.databind.node.ArrayNode rows = expected.putArray("rows");
            dataset.expectedDump().path("rows").forEach(row -> {
                if (predicate.test(row)) {
                    rows.add(row);
                }
            });
            expected.put("num_rows", rows.size());
            assertThat(rows.size()).as(filter).isBetween(1, 279);
            try {
                DumpComparator.exact()
                        .assertSame(
                                "--filter " + filter, expected, OurCli.run("dump", dataset.uri(), "--filter", filter));
            } catch (AssertionError e) {
                failures.add(e.getMessage());
            }
        });
        assertThat(failures).isEmpty();
    }

    @Test
    void stableRowIdDatasetKeepsItsFlagAndRowIds() {
        JsonNode inspect =
                OurCli.run("inspect", datasets.get(Variant.STABLE_ROW_IDS).uri());
        assertThat(inspect.path("stable_row_ids").asBoolean()).isTrue();
        assertThat(inspect.path("reader_feature_flags").asLong() & 2).isEqualTo(2);
        inspect.path("fragments")
                .forEach(f -> assertThat(f.path("has_row_ids").asBoolean()).isTrue());
    }
}
