package dev.lanceflink.it.interop;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The reading story of the README, as a Python user runs it: {@code examples/read_with_pylance.py}
 * on a table with a live overlay (the quickstart's users table after its UPDATE) says how to read
 * it without the variable, reads the updated values with it, and after {@code overlay-fold} reads
 * them without it.
 */
class ReadWithPylanceExampleTest {

    private static final Path EXAMPLE =
            Path.of("../examples/read_with_pylance.py").toAbsolutePath().normalize();

    @Test
    void theExampleReadsOverlaysWithTheVariableAndFoldedTablesWithout(@TempDir Path dir) throws Exception {
        String uri = dir.resolve("users.lance").toString();
        ArrayNode schema = DumpComparator.MAPPER.createArrayNode();
        schema.addObject().put("name", "id").put("type", "int64").put("nullable", false);
        schema.addObject().put("name", "name").put("type", "utf8").put("nullable", true);
        schema.addObject().put("name", "age").put("type", "int32").put("nullable", true);
        ArrayNode rows = DumpComparator.MAPPER.createArrayNode();
        String[] names = {"Alice", "Bob", "Carol", "Dan"};
        int[] ages = {30, 25, 40, 22};
        for (int i = 0; i < 4; i++) {
            rows.addObject().put("id", i + 1).put("name", names[i]).put("age", ages[i]);
        }
        ArrayNode ageSchema = DumpComparator.MAPPER.createArrayNode().add(schema.get(2));
        ArrayNode newAges = DumpComparator.MAPPER.createArrayNode();
        newAges.addObject().put("age", 26);
        newAges.addObject().put("age", 23);
        try (BufferAllocator allocator = new RootAllocator();
                VectorSchemaRoot batch = JsonToArrow.batch(schema, rows, allocator);
                Dataset ds = Dataset.write(
                        uri,
                        Map.of(),
                        List.of(batch),
                        DumpTypeParser.schema(schema),
                        WriteParams.of(WriteMode.CREATE));
                VectorSchemaRoot values = JsonToArrow.batch(ageSchema, newAges, allocator)) {
            ds.update(new long[] {1, 3}, values).close();
        }

        PylanceOracle.Output refused = PylanceOracle.fromBuild().runPython(EXAMPLE, List.of(uri));
        assertThat(refused.exitCode()).isEqualTo(1);
        assertThat(refused.stdout())
                .contains("has live data overlay files; set " + PylanceOracle.OVERLAYS_VARIABLE)
                .contains("--mode overlay-fold");

        PylanceOracle.Output read = PylanceOracle.fromBuild().withOverlays().runPython(EXAMPLE, List.of(uri));
        assertThat(read.exitCode()).as(read.stderr()).isZero();
        assertThat(read.stdout())
                .contains("version 2, 4 rows")
                .contains("id=2, name=Bob, age=26")
                .contains("id=4, name=Dan, age=23");

        OurCli.run("compact", uri, "--mode", "overlay-fold", "--min-overlays", "1");
        PylanceOracle.Output folded = PylanceOracle.fromBuild().runPython(EXAMPLE, List.of(uri));
        assertThat(folded.exitCode()).as(folded.stdout() + folded.stderr()).isZero();
        assertThat(folded.stdout()).contains("version 3, 4 rows").contains("id=2, name=Bob, age=26");
    }
}
