package dev.lanceflink.it.s3;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.it.interop.DumpComparator;
import dev.lanceflink.it.interop.InteropData;
import dev.lanceflink.it.interop.OracleProcess;
import dev.lanceflink.it.interop.OurCli;
import dev.lanceflink.s3.S3ProxyExtension;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Interoperability with the official Lance SDK (the oracle) through the same S3 server: the SDK
 * reads a table we wrote on S3, and we read an all-types table the SDK wrote and then changed on
 * S3, at several versions; the two readers' dumps must agree cell by cell
 * ({@link DumpComparator}). The SDK reaches S3Proxy with Lance's own storage option names
 * ({@code aws_endpoint}, {@code allow_http}, {@code aws_virtual_hosted_style_request}, keys,
 * region), the same map our store takes. All SDK work runs in one oracle JVM.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class S3InteropWithSdkTest {
    @RegisterExtension
    static final S3ProxyExtension S3 = new S3ProxyExtension();

    private TableLocation ours;
    private TableLocation theirs;
    private final List<JsonNode> oracleResults = new ArrayList<>();
    private int oursDumpV1;
    private int oursDumpV3;
    private int theirsDelete;
    private int theirsDumpV1;
    private int theirsDumpV3;

    @BeforeAll
    void writeBothTablesAndLetTheSdkWork(@TempDir Path dir) throws Exception {
        ours = TableLocation.fresh(StoreKind.S3, S3.server(), dir, "ours-on-s3");
        theirs = TableLocation.fresh(StoreKind.S3, S3.server(), dir, "sdk-on-s3");
        try (BufferAllocator allocator = new RootAllocator();
                VectorSchemaRoot rows = TestRows.batch(allocator, TestRows.range(0, 300));
                Dataset v1 = Dataset.write(
                        ours.uri(),
                        ours.storageOptions(),
                        List.of(rows),
                        TestRows.SCHEMA,
                        WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(120))) {
            try (VectorSchemaRoot more = TestRows.batch(allocator, TestRows.range(300, 350))) {
                v1.append(List.of(more), WriteParams.of(WriteMode.APPEND)).delete("id % 4 = 1");
            }
        }

        Path schemaFile = dir.resolve("schema.json");
        Files.writeString(
                schemaFile,
                DumpComparator.MAPPER.writeValueAsString(InteropData.allTypesSchema()),
                StandardCharsets.UTF_8);
        Path rowsFile = dir.resolve("rows.json");
        ArrayNode rows = InteropData.allTypesRows(0, 400);
        Files.writeString(rowsFile, DumpComparator.MAPPER.writeValueAsString(rows), StandardCharsets.UTF_8);

        // The oracle's "write" takes --storage-option as a flag (LanceOracle: STORAGE is in both
        // its flag and its valued option sets), so the SDK cannot write to S3 directly: it writes
        // versions 1 and 2 locally, we upload them byte for byte, and the SDK commits version 3
        // (a delete: deletion file, transaction, manifest) on S3 itself.
        Path sdkLocal = dir.resolve("sdk-local.lance");
        OracleProcess oracle = OracleProcess.fromBuild();
        List<List<String>> local = List.of(
                List.of(
                        "write",
                        sdkLocal.toString(),
                        "--schema",
                        schemaFile.toString(),
                        "--rows",
                        rowsFile.toString(),
                        "--mode",
                        "create",
                        "--max-rows-per-file",
                        "150"),
                List.of(
                        "write",
                        sdkLocal.toString(),
                        "--schema",
                        schemaFile.toString(),
                        "--rows",
                        rowsFile.toString(),
                        "--mode",
                        "overwrite"));
        for (JsonNode result : oracle.batch(dir, local)) {
            OracleProcess.requireOk(List.of("SDK write to " + sdkLocal), result);
        }
        upload(sdkLocal, theirs);

        List<List<String>> commands = new ArrayList<>();
        oursDumpV1 = add(commands, ours, "dump", ours.uri(), "--version", "1");
        oursDumpV3 = add(commands, ours, "dump", ours.uri(), "--version", "3");
        theirsDelete = add(commands, theirs, "delete", theirs.uri(), "--filter", "id % 3 = 0");
        theirsDumpV1 = add(commands, theirs, "dump", theirs.uri(), "--version", "1");
        theirsDumpV3 = add(commands, theirs, "dump", theirs.uri(), "--version", "3");
        oracleResults.addAll(oracle.batch(dir, commands));
    }

    /** Copies a local table directory to the S3 location, keeping relative paths. */
    private static void upload(Path localTable, TableLocation target) throws Exception {
        String prefix = target.uri().substring(("s3://" + TableLocation.BUCKET + "/").length());
        try (var files = Files.walk(localTable)) {
            for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
                String key = prefix + "/" + localTable.relativize(f).toString().replace('\\', '/');
                S3.server()
                        .client()
                        .putObject(
                                b -> b.bucket(TableLocation.BUCKET).key(key),
                                software.amazon.awssdk.core.sync.RequestBody.fromFile(f));
            }
        }
    }

    private static int add(List<List<String>> commands, TableLocation table, String... args) {
        List<String> command = new ArrayList<>(List.of(args));
        command.addAll(table.storageOptionArgs());
        commands.add(command);
        return commands.size() - 1;
    }

    private JsonNode oracle(int index) {
        return OracleProcess.requireOk(List.of("oracle command " + index), oracleResults.get(index));
    }

    private static JsonNode ourDump(TableLocation table, long version) {
        List<String> args = new ArrayList<>(List.of("dump", table.uri(), "--version", Long.toString(version)));
        args.addAll(table.storageOptionArgs());
        return OurCli.run(args.toArray(String[]::new));
    }

    @Test
    void sdkReadsOurS3TableAtEveryVersionExactly() {
        JsonNode v1 = oracle(oursDumpV1);
        JsonNode v3 = oracle(oursDumpV3);
        assertThat(v1.path("rows")).hasSize(300);
        assertThat(v3.path("rows")).hasSize(350 - 88); // ids 1, 5, ..., 349 deleted
        DumpComparator.exact().sortedBy("id").assertSame("SDK vs our reader, our S3 table v1", ourDump(ours, 1), v1);
        DumpComparator.exact().sortedBy("id").assertSame("SDK vs our reader, our S3 table v3", ourDump(ours, 3), v3);
        for (JsonNode row : v3.path("rows")) {
            long id = row.path("id").asLong();
            assertThat(id % 4).as("deleted rows stay deleted for the SDK").isNotEqualTo(1);
            assertThat(row.path("val").asLong()).isEqualTo(TestRows.initialVal(id));
            assertThat(row.path("name").asText()).isEqualTo(TestRows.name(id));
        }
    }

    @Test
    void weReadTheSdksS3TableAtEveryVersionExactly() throws Exception {
        oracle(theirsDelete);
        JsonNode v1 = oracle(theirsDumpV1);
        JsonNode v3 = oracle(theirsDumpV3);
        assertThat(v1.path("rows")).hasSize(400);
        assertThat(v3.path("rows")).hasSize(400 - 134); // ids 0, 3, ..., 399 deleted
        DumpComparator.exact()
                .sortedBy("id")
                .assertSame("our reader vs SDK, SDK's S3 table v1", v1, ourDump(theirs, 1));
        DumpComparator.exact()
                .sortedBy("id")
                .assertSame("our reader vs SDK, SDK's S3 table v3", v3, ourDump(theirs, 3));
        try (Dataset latest = Dataset.open(theirs.uri(), theirs.storageOptions())) {
            assertThat(latest.version()).isEqualTo(3);
            assertThat(latest.countRows()).isEqualTo(266);
            assertThat(latest.fragments()).hasSize(1);
        }
    }
}
