package dev.lanceflink.it.interop;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.LongPredicate;

/**
 * Datasets written by the official SDK (through the oracle) together with the dump they must
 * produce, for interop tests of our reader:
 *
 * <pre>
 * OracleDataset ds = OracleDatasets.create(OracleProcess.fromBuild(), tempDir, Variant.V2_1);
 * DumpComparator.exact().assertSame(ds.expectedDump(), ourDump(ds.uri()));
 * </pre>
 *
 * <p>The expected dump is computed here from {@link InteropData} (rows by key, deletions mirrored
 * by key predicates), independently of the SDK; {@code OracleDatasetsTest} proves that the SDK's
 * own dump equals it. All variants requested in one call are written in a single oracle JVM.
 */
public final class OracleDatasets {

    private OracleDatasets() {}

    /** One write or delete applied to a dataset; each creates one version. */
    private sealed interface Step permits Write, Delete {}

    /** Writes keys [from, to) with the given oracle options. */
    private record Write(long from, long to, String mode, List<String> options) implements Step {}

    /** Deletes with a SQL predicate; {@code mirror} selects the same keys on our side. */
    private record Delete(String filter, LongPredicate mirror) implements Step {}

    /** The datasets on offer; every one uses the all-types schema of {@link InteropData}. */
    public enum Variant {
        /**
         * 300 rows, one fragment, file version 2.0 (which keeps no struct validity, see
         * {@link #storesStructNulls()}).
         */
        V2_0(new Write(0, 300, "create", List.of("--data-storage-version", "2.0"))),
        /** 300 rows, one fragment, file version 2.1. */
        V2_1(new Write(0, 300, "create", List.of("--data-storage-version", "2.1"))),
        /** 300 rows, one fragment, file version 2.2. */
        V2_2(new Write(0, 300, "create", List.of("--data-storage-version", "2.2"))),
        /** 1000 rows in four fragments (max 300 rows per file), file version 2.1. */
        MULTI_FRAGMENT(
                new Write(0, 1000, "create", List.of("--data-storage-version", "2.1", "--max-rows-per-file", "300"))),
        /**
         * Stable row ids, file version 2.2: v1 keys 0–149 in fragments of 64, v2 appends 150–249,
         * v3 deletes {@code id % 7 = 1}.
         */
        STABLE_ROW_IDS(
                new Write(
                        0,
                        150,
                        "create",
                        List.of("--data-storage-version", "2.2", "--max-rows-per-file", "64", "--stable-row-ids")),
                new Write(150, 250, "append", List.of()),
                new Delete("id % 7 = 1", k -> k % 7 == 1)),
        /**
         * Five versions, file version 2.1, no stable row ids: v1 keys 0–199, v2 appends 200–299,
         * v3 deletes {@code id % 5 = 0}, v4 appends 300–349, v5 deletes
         * {@code id >= 320 AND id < 330}.
         */
        MULTI_VERSION(
                new Write(0, 200, "create", List.of("--data-storage-version", "2.1")),
                new Write(200, 300, "append", List.of()),
                new Delete("id % 5 = 0", k -> k % 5 == 0),
                new Write(300, 350, "append", List.of()),
                new Delete("id >= 320 AND id < 330", k -> k >= 320 && k < 330)),
        /**
         * Both deletion file types, file version 2.1, one fragment: v1 keys 0–6999, v2 deletes one
         * row ({@code id = 17}: Lance writes an Arrow {@code array} file), v3 deletes
         * {@code id % 7 <> 3} (6000 rows in the fragment: above Lance's 5000-row threshold, so the
         * merged deletion vector is written as a Roaring {@code bitmap} file).
         */
        DELETION_FILE_TYPES(
                new Write(0, 7000, "create", List.of("--data-storage-version", "2.1")),
                new Delete("id = 17", k -> k == 17),
                new Delete("id % 7 <> 3", k -> k % 7 != 3));

        private final List<Step> steps;

        Variant(Step... steps) {
            this.steps = List.of(steps);
        }

        /** The number of versions the variant creates (one per step). */
        public int versions() {
            return steps.size();
        }

        /**
         * False for file version 2.0, which stores no validity for struct columns: the SDK reads
         * a null struct back as a struct whose children are all null, and so must our reader.
         */
        public boolean storesStructNulls() {
            return !(steps.get(0) instanceof Write w && w.options().contains("2.0"));
        }
    }

    /**
     * A dataset written by the SDK. {@code expectedDump} is the dump of the latest version;
     * {@code expectedByVersion} has one per version (1-based); {@code oracleDumps} are the SDK's
     * own dumps of every version, taken right after writing.
     */
    public record OracleDataset(
            Variant variant,
            Path path,
            String uri,
            JsonNode expectedDump,
            Map<Long, JsonNode> expectedByVersion,
            Map<Long, JsonNode> oracleDumps) {}

    private static Map<Variant, OracleDataset> shared;

    /**
     * Every variant, written once per test JVM into a temporary directory that is removed when
     * the JVM exits, so test classes that only read them share one oracle run. Callers must not
     * change these datasets.
     */
    public static synchronized Map<Variant, OracleDataset> shared(OracleProcess oracle) {
        if (shared == null) {
            try {
                Path dir = Files.createTempDirectory("lance-flink-oracle-datasets-");
                Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteTree(dir)));
                shared = create(oracle, dir, List.of(Variant.values()));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot create a temporary directory", e);
            }
        }
        return shared;
    }

    private static void deleteTree(Path dir) {
        try (java.util.stream.Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(java.util.Comparator.reverseOrder())
                    .forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // best effort at JVM exit: the directory is under java.io.tmpdir
        }
    }

    /** Writes one variant under {@code dir} (a fresh directory, e.g. a JUnit temp dir). */
    public static OracleDataset create(OracleProcess oracle, Path dir, Variant variant) {
        return create(oracle, dir, List.of(variant)).get(variant);
    }

    /** Writes several variants under {@code dir} in one oracle JVM. */
    public static Map<Variant, OracleDataset> create(OracleProcess oracle, Path dir, List<Variant> variants) {
        try {
            Path inputs = Files.createDirectories(dir.resolve("oracle-inputs"));
            Path schemaFile = inputs.resolve("all-types.schema.json");
            ArrayNode schema = InteropData.allTypesSchema();
            Files.writeString(schemaFile, DumpComparator.MAPPER.writeValueAsString(schema), StandardCharsets.UTF_8);

            List<List<String>> commands = new ArrayList<>();
            Map<Variant, Map<Long, JsonNode>> expected = new EnumMap<>(Variant.class);
            Map<Variant, Map<Long, Integer>> dumpIndex = new EnumMap<>(Variant.class);
            for (Variant variant : variants) {
                Path path = dir.resolve(variant.name().toLowerCase(Locale.ROOT) + ".lance");
                String uri = path.toString();
                List<Long> keys = new ArrayList<>();
                Map<Long, JsonNode> byVersion = new LinkedHashMap<>();
                long version = 0;
                for (Step step : variant.steps) {
                    if (step instanceof Write w) {
                        Path rowsFile = inputs.resolve(
                                variant.name().toLowerCase(Locale.ROOT) + "-" + w.from() + "-" + w.to() + ".rows.json");
                        Files.writeString(
                                rowsFile,
                                DumpComparator.MAPPER.writeValueAsString(InteropData.allTypesRows(w.from(), w.to())),
                                StandardCharsets.UTF_8);
                        List<String> command = new ArrayList<>(List.of(
                                "write",
                                uri,
                                "--schema",
                                schemaFile.toString(),
                                "--rows",
                                rowsFile.toString(),
                                "--mode",
                                w.mode()));
                        command.addAll(w.options());
                        commands.add(command);
                        if (w.mode().equals("overwrite")) {
                            keys.clear();
                        }
                        for (long k = w.from(); k < w.to(); k++) {
                            keys.add(k);
                        }
                    } else if (step instanceof Delete d) {
                        commands.add(List.of("delete", uri, "--filter", d.filter()));
                        keys.removeIf(k -> d.mirror().test(k));
                    }
                    version++;
                    byVersion.put(version, dump(version, schema, keys, variant.storesStructNulls()));
                }
                Map<Long, Integer> index = new LinkedHashMap<>();
                for (long v = 1; v <= version; v++) {
                    index.put(v, commands.size());
                    commands.add(List.of("dump", uri, "--version", Long.toString(v)));
                }
                expected.put(variant, byVersion);
                dumpIndex.put(variant, index);
            }

            List<JsonNode> results = oracle.batch(inputs, commands);
            for (int i = 0; i < commands.size(); i++) {
                OracleProcess.requireOk(commands.get(i), results.get(i));
            }
            Map<Variant, OracleDataset> out = new EnumMap<>(Variant.class);
            for (Variant variant : variants) {
                Path path = dir.resolve(variant.name().toLowerCase(Locale.ROOT) + ".lance");
                Map<Long, JsonNode> byVersion = expected.get(variant);
                Map<Long, JsonNode> oracleDumps = new LinkedHashMap<>();
                dumpIndex.get(variant).forEach((v, i) -> oracleDumps.put(v, results.get(i)));
                out.put(
                        variant,
                        new OracleDataset(
                                variant,
                                path,
                                path.toString(),
                                byVersion.get((long) byVersion.size()),
                                byVersion,
                                oracleDumps));
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write oracle inputs under " + dir, e);
        }
    }

    /** The expected dump document of {@code version} holding rows {@code keys} in order. */
    static ObjectNode dump(long version, ArrayNode schema, List<Long> keys, boolean structNulls) {
        ObjectNode dump = DumpComparator.MAPPER.createObjectNode();
        dump.put("version", version);
        dump.set("schema", schema);
        dump.put("num_rows", keys.size());
        ArrayNode rows = dump.putArray("rows");
        for (long k : keys) {
            ObjectNode row = InteropData.row(k);
            if (!structNulls) {
                for (JsonNode column : schema) {
                    String name = column.path("name").asText();
                    String type = column.path("type").asText();
                    if (type.startsWith("struct<") && row.get(name).isNull()) {
                        ObjectNode empty = row.putObject(name);
                        DumpComparator.structChildren(type).keySet().forEach(empty::putNull);
                    }
                }
            }
            rows.add(row);
        }
        return dump;
    }
}
