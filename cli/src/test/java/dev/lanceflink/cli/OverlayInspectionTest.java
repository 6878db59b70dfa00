package dev.lanceflink.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.file.FileVersion;
import dev.lanceflink.file.writer.FileWriterOptions;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.io.ObjectStores;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.OverlayCoverage;
import dev.lanceflink.txn.CommitOptions;
import dev.lanceflink.txn.Operation;
import dev.lanceflink.txn.TableCommitter;
import dev.lanceflink.txn.Transaction;
import dev.lanceflink.write.FragmentWriter;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.roaringbitmap.RoaringBitmap;

/**
 * A dense data overlay on one column: {@code dump} shows the overlaid values (rank addressing:
 * the overlay's i-th value belongs to its i-th covered offset) and {@code inspect} lists the
 * overlay with its coverage.
 */
class OverlayInspectionTest {
    private static final Schema SCHEMA = new Schema(List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
            new Field("name", FieldType.nullable(new ArrowType.Utf8()), null)));

    @TempDir
    Path dir;

    @Test
    void overlaidValuesAreDumpedAndTheOverlayIsInspected() throws Exception {
        String uri = dir.resolve("overlay.lance").toString();
        try (BufferAllocator allocator = new RootAllocator()) {
            try (VectorSchemaRoot base = VectorSchemaRoot.create(SCHEMA, allocator)) {
                base.allocateNew();
                for (int k = 0; k < 6; k++) {
                    ((BigIntVector) base.getVector("id")).setSafe(k, k);
                    ((VarCharVector) base.getVector("name")).setSafe(k, ("n" + k).getBytes(StandardCharsets.UTF_8));
                }
                base.setRowCount(6);
                Dataset.write(uri, Map.of(), List.of(base), SCHEMA, WriteParams.of(WriteMode.CREATE))
                        .close();
            }
            try (ObjectStore store = ObjectStores.open(uri, Map.of());
                    Dataset v1 = Dataset.open(store, allocator)) {
                var nameOnly = v1.schema().projectIds(1);
                Fragment written;
                try (FragmentWriter writer = new FragmentWriter(
                                store,
                                nameOnly,
                                FileVersion.DEFAULT_FOR_NEW_TABLES,
                                1024,
                                allocator,
                                FileWriterOptions.defaults());
                        VectorSchemaRoot values = VectorSchemaRoot.create(nameOnly.toArrow(), allocator)) {
                    values.allocateNew();
                    VarCharVector name = (VarCharVector) values.getVector("name");
                    name.setSafe(0, "x3".getBytes(StandardCharsets.UTF_8));
                    name.setNull(1);
                    values.setRowCount(2);
                    writer.write(values);
                    written = writer.finish().get(0);
                }
                DataOverlayFile overlay = new DataOverlayFile(
                        written.files().get(0), OverlayCoverage.Dense.of(RoaringBitmap.bitmapOf(3, 5)), 0);
                TableCommitter.commit(
                        store,
                        Transaction.of(
                                1, new Operation.DataOverlay(List.of(new Operation.OverlayGroup(0, List.of(overlay))))),
                        CommitOptions.defaults());
            }
        }

        JsonNode dump = run("dump", uri, "--columns", "name");
        assertThat(dump.path("version").asLong()).isEqualTo(2);
        assertThat(dump.path("rows").toString())
                .isEqualTo("[{\"name\":\"n0\"},{\"name\":\"n1\"},{\"name\":\"n2\"},"
                        + "{\"name\":\"x3\"},{\"name\":\"n4\"},{\"name\":null}]");
        assertThat(run("dump", uri, "--version", "1", "--columns", "name")
                        .path("rows")
                        .get(3)
                        .path("name")
                        .asText())
                .isEqualTo("n3");

        JsonNode inspect = run("inspect", uri);
        assertThat(inspect.path("reader_feature_flags").asLong() & 64).isEqualTo(64);
        JsonNode overlays = inspect.path("fragments").get(0).path("overlays");
        assertThat(overlays.size()).isEqualTo(1);
        JsonNode o = overlays.get(0);
        assertThat(o.path("fields").toString()).isEqualTo("[1]");
        assertThat(o.path("committed_version").asLong()).isEqualTo(2);
        assertThat(o.path("coverage").asText()).isEqualTo("dense");
        assertThat(o.path("offsets").toString()).isEqualTo("[[3,5]]");
        assertThat(inspect.path("transaction").path("operation").asText()).isEqualTo("DataOverlay");
    }

    private static JsonNode run(String... args) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int code = LanceFlinkCli.run(
                args, out, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        JsonNode json = new ObjectMapper().readTree(out.toString(StandardCharsets.UTF_8));
        assertThat(code).as(json.toString()).isZero();
        return json;
    }
}
