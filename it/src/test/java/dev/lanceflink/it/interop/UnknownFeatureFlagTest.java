package dev.lanceflink.it.interop;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A manifest with a reader feature flag we do not know (bit 128, after data overlay files = 64)
 * must be refused with an error naming the flag, never read as if the flag were absent. The
 * dataset is written by the SDK and patched with {@link ManifestFlagPatcher}.
 */
class UnknownFeatureFlagTest {

    @TempDir
    Path dir;

    @Test
    void unknownReaderFlagIsRefusedWithTheFlagNamedWhileTheOverlayFlagIsAccepted() throws Exception {
        Path schema = dir.resolve("schema.json");
        Path rows = dir.resolve("rows.json");
        Files.writeString(schema, "[{\"name\":\"id\",\"type\":\"int32\",\"nullable\":false}]");
        Files.writeString(rows, "[{\"id\":1},{\"id\":2}]");
        Path unknown = dir.resolve("unknown-flag.lance");
        Path overlay = dir.resolve("overlay-flag.lance");
        List<List<String>> writes = List.of(
                List.of("write", unknown.toString(), "--schema", schema.toString(), "--rows", rows.toString()),
                List.of("write", overlay.toString(), "--schema", schema.toString(), "--rows", rows.toString()));
        List<JsonNode> written = OracleProcess.fromBuild().batch(dir, writes);
        for (int i = 0; i < writes.size(); i++) {
            OracleProcess.requireOk(writes.get(i), written.get(i));
        }
        assertThat(OurCli.run("dump", unknown.toString()).path("num_rows").asInt())
                .isEqualTo(2);

        ManifestFlagPatcher.addFlags(unknown, ManifestFlagPatcher.READER_FLAGS, 128);
        for (String command : List.of("dump", "inspect", "versions")) {
            OurCli.Result result = OurCli.execute(List.of(command, unknown.toString()));
            assertThat(result.exitCode()).as(command).isEqualTo(1);
            assertThat(result.error()).as(command).contains("reader").contains("128");
        }

        // 64 (data overlay files) is a flag this library implements: readable.
        ManifestFlagPatcher.addFlags(overlay, ManifestFlagPatcher.READER_FLAGS, 64);
        assertThat(OurCli.run("dump", overlay.toString()).path("num_rows").asInt())
                .isEqualTo(2);
    }
}
