package dev.lanceflink.it.interop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The oracle's error contract: exit codes, error documents, and SDK refusals. */
class OracleProcessTest {

    @TempDir
    Path dir;

    private final OracleProcess oracle = OracleProcess.fromBuild();

    @Test
    void missingDatasetIsAnErrorDocumentWithExitCode1() {
        Path missing = dir.resolve("missing.lance");
        OracleProcess.Result result = oracle.execute(List.of("dump", missing.toString()));
        assertThat(result.exitCode()).isEqualTo(1);
        assertThat(result.error()).contains("was not found").contains("missing.lance");
        assertThat(result.json().path("exception").asText()).isEqualTo("java.lang.IllegalArgumentException");
        assertThatThrownBy(() -> oracle.run("dump", missing.toString()))
                .isInstanceOf(OracleProcess.OracleException.class)
                .hasMessageContaining("exited with 1")
                .hasMessageContaining("was not found");
    }

    @Test
    void wrongCommandLineIsExitCode2() {
        OracleProcess.Result result = oracle.execute(List.of("dump", "x.lance", "--bogus"));
        assertThat(result.exitCode()).isEqualTo(2);
        assertThat(result.error())
                .isEqualTo("dump: unknown option --bogus (accepted: "
                        + "--order-by <value>, --storage-option <value>, --version <value>, --with-row-id)");
    }

    /**
     * Lance 7.0.0 does not know reader flag 64 (data overlay files) and must refuse such a
     * dataset: this is the refusal text interop tests can expect for datasets our writer marks
     * with overlays.
     */
    @Test
    void sdkRefusesUnknownReaderFeatureFlag() throws Exception {
        Path schema = dir.resolve("schema.json");
        Path rows = dir.resolve("rows.json");
        Files.writeString(schema, "[{\"name\":\"id\",\"type\":\"int32\",\"nullable\":false}]");
        Files.writeString(rows, "[{\"id\":1},{\"id\":2}]");
        Path readable = dir.resolve("readable.lance");
        Path flagged = dir.resolve("flagged.lance");
        List<JsonNode> written = oracle.batch(
                dir,
                List.of(
                        List.of("write", readable.toString(), "--schema", schema.toString(), "--rows", rows.toString()),
                        List.of(
                                "write",
                                flagged.toString(),
                                "--schema",
                                schema.toString(),
                                "--rows",
                                rows.toString())));
        assertThat(written)
                .allSatisfy(w -> assertThat(w.path("num_rows").asInt()).isEqualTo(2));

        ManifestFlagPatcher.addFlags(flagged, ManifestFlagPatcher.READER_FLAGS, 64);
        List<JsonNode> read =
                oracle.batch(dir, List.of(List.of("dump", readable.toString()), List.of("dump", flagged.toString())));
        assertThat(read.get(0).path("num_rows").asInt()).isEqualTo(2);
        assertThat(read.get(1).path("error").asText())
                .startsWith("Not supported: This dataset cannot be read by this version of Lance. "
                        + "Please upgrade Lance to read this dataset.\n Flags: 64");
        assertThat(read.get(1).path("exception").asText()).isEqualTo("java.lang.UnsupportedOperationException");
    }
}
