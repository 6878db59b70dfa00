package dev.lanceflink.it.interop;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lanceflink.compact.OverlayCompactor;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.file.writer.FileWriterOptions;
import dev.lanceflink.overlay.StagedWrite;
import dev.lanceflink.table.FeatureFlags;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.txn.CommitOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #3's interop acceptance: released Lance (SDK 7.0.0) refuses a table while it holds live
 * overlays (feature flag 64) with its feature-flag error — the correct behaviour — and once the
 * overlays are folded into the base files it reads exactly the values our reader resolves, with no
 * overlay left and the flag cleared.
 */
class OverlayInteropTest {
    private static final Schema SCHEMA = new Schema(List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Int(32, true)), null),
            new Field("name", FieldType.nullable(new ArrowType.Utf8()), null),
            new Field("age", FieldType.nullable(new ArrowType.Int(32, true)), null)));

    @TempDir
    Path dir;

    @Test
    void sdkRefusesLiveOverlaysAndReadsTheFoldedTableExactly() throws Exception {
        String uri = dir.resolve("users.lance").toString();
        try (BufferAllocator allocator = new RootAllocator()) {
            Dataset owner;
            try (VectorSchemaRoot rows = rows(allocator, 300)) {
                owner = Dataset.write(
                        uri,
                        Map.of(),
                        List.of(rows),
                        SCHEMA,
                        WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(100));
            }
            Dataset ds = owner;
            // Two overlay commits (a dense one over two columns and a later one over one of them,
            // partly covering the same cells) and a delete that removes an overlaid row.
            ds = update(
                    ds,
                    allocator,
                    new long[] {1, 5, (1L << 32) | 7, (2L << 32) | 99},
                    new Integer[] {1001, null, 1007, 1299},
                    new String[] {"one", "five", null, "x"});
            ds = update(ds, allocator, new long[] {5, (2L << 32) | 10}, new Integer[] {2005, 2210}, null);
            ds = ds.delete("id = 7");
            assertThat(ds.manifest().readerFeatureFlags() & FeatureFlags.UNSTABLE_DATA_OVERLAY_FILES)
                    .isNotZero();
            JsonNode ours = OurCli.run("dump", uri);
            assertThat(cell(ours, 5, "age")).isEqualTo("2005");
            assertThat(cell(ours, 5, "name")).isEqualTo("five");
            assertThat(cell(ours, 1, "age")).isEqualTo("1001");

            OracleProcess oracle = OracleProcess.fromBuild();
            OracleProcess.Result refused = oracle.execute(List.of("dump", uri));
            assertThat(refused.exitCode()).isEqualTo(1);
            assertThat(refused.error())
                    .contains("cannot be read by this version of Lance")
                    .contains("64");

            for (Fragment f : ds.manifest().fragments()) {
                if (!f.overlays().isEmpty()) {
                    Manifest planned = ds.checkoutLatest().manifest();
                    StagedWrite fold =
                            OverlayCompactor.fold(ds.store(), planned, f.id(), allocator, FileWriterOptions.defaults());
                    OverlayCompactor.commit(ds.store(), planned, f.id(), fold, Map.of(), CommitOptions.defaults());
                }
            }
            Dataset folded = ds.checkoutLatest();
            assertThat(folded.manifest().fragments())
                    .allSatisfy(f -> assertThat(f.overlays()).isEmpty());
            assertThat(folded.manifest().readerFeatureFlags() & FeatureFlags.UNSTABLE_DATA_OVERLAY_FILES)
                    .isZero();
            assertThat(folded.manifest().writerFeatureFlags() & FeatureFlags.UNSTABLE_DATA_OVERLAY_FILES)
                    .isZero();

            JsonNode sdk = oracle.run("dump", uri);
            DumpComparator.exact().assertSame("SDK read of the folded table vs our read before the fold", ours, sdk);
            DumpComparator.exact().assertSame("our read after the fold", ours, OurCli.run("dump", uri));
            owner.close();
        }
    }

    private static String cell(JsonNode dump, int id, String column) {
        for (JsonNode row : dump.get("rows")) {
            if (row.get("id").asInt() == id) {
                return row.get(column).asText();
            }
        }
        throw new AssertionError("no row with id " + id);
    }

    private static Dataset update(
            Dataset ds, BufferAllocator allocator, long[] addresses, Integer[] ages, String[] names) throws Exception {
        List<Field> fields = names == null
                ? List.of(SCHEMA.findField("age"))
                : List.of(SCHEMA.findField("age"), SCHEMA.findField("name"));
        try (VectorSchemaRoot values = VectorSchemaRoot.create(new Schema(fields), allocator)) {
            IntVector age = (IntVector) values.getVector("age");
            for (int i = 0; i < ages.length; i++) {
                if (ages[i] == null) {
                    age.setNull(i);
                } else {
                    age.setSafe(i, ages[i]);
                }
                if (names != null) {
                    VarCharVector name = (VarCharVector) values.getVector("name");
                    if (names[i] == null) {
                        name.setNull(i);
                    } else {
                        name.setSafe(i, names[i].getBytes(StandardCharsets.UTF_8));
                    }
                }
            }
            values.setRowCount(ages.length);
            return ds.update(addresses, values);
        }
    }

    private static VectorSchemaRoot rows(BufferAllocator allocator, int n) {
        VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
        IntVector id = (IntVector) root.getVector("id");
        VarCharVector name = (VarCharVector) root.getVector("name");
        IntVector age = (IntVector) root.getVector("age");
        for (int i = 0; i < n; i++) {
            id.setSafe(i, i);
            name.setSafe(i, ("user-" + i).getBytes(StandardCharsets.UTF_8));
            age.setSafe(i, 20 + i % 50);
        }
        root.setRowCount(n);
        return root;
    }
}
