package dev.lanceflink.it.interop;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lanceflink.compactor.CompactorMain;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.table.FeatureFlags;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.txn.Operation;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
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
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue #7's interop acceptance for {@code --mode fragments}: a table with overlays and deletions
 * (unreadable to released Lance while it holds overlays) is compacted by the compaction job into
 * fewer fragments, committed as a {@code Rewrite}; the official SDK 7.0.0 then reads exactly the
 * values our reader saw before, keeps the stable row ids, and can commit on top of the result.
 */
class FragmentsCompactionInteropTest {
    private static final Schema SCHEMA = new Schema(List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Int(32, true)), null),
            new Field("name", FieldType.nullable(new ArrowType.Utf8()), null),
            new Field("age", FieldType.nullable(new ArrowType.Int(32, true)), null)));

    @TempDir
    Path dir;

    @ParameterizedTest(name = "stable row ids: {0}")
    @ValueSource(booleans = {false, true})
    void sdkReadsTheRewrittenTableExactly(boolean stableRowIds) throws Exception {
        String uri = dir.resolve("users.lance").toString();
        try (BufferAllocator allocator = new RootAllocator()) {
            Dataset owner;
            try (VectorSchemaRoot rows = rows(allocator, 300)) {
                owner = Dataset.write(
                        uri,
                        Map.of(),
                        List.of(rows),
                        SCHEMA,
                        WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(50).withStableRowIds(stableRowIds));
            }
            Dataset ds = owner;
            ds = update(
                    ds,
                    allocator,
                    new long[] {1, 7, (2L << 32) | 7, (5L << 32) | 49},
                    new Integer[] {1001, null, 1107, 1299},
                    new String[] {"one", "seven", null, "last"});
            ds = update(ds, allocator, new long[] {7, (3L << 32) | 3}, new Integer[] {2007, 2153}, null);
            ds = ds.delete("id % 10 = 3"); // 5 of 50 rows per fragment, one of them overlaid
            assertThat(ds.manifest().readerFeatureFlags() & FeatureFlags.UNSTABLE_DATA_OVERLAY_FILES)
                    .isNotZero();
            JsonNode before = OurCli.run("dump", uri);
            assertThat(before.get("rows")).hasSize(270);

            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int code = CompactorMain.run(
                    new String[] {
                        "compact",
                        uri,
                        "--mode",
                        "fragments",
                        "--target-rows-per-fragment",
                        "120",
                        "--engine",
                        "threads"
                    },
                    new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8));
            assertThat(code).as(err.toString(StandardCharsets.UTF_8)).isZero();
            JsonNode summary = DumpComparator.MAPPER.readTree(out.toString(StandardCharsets.UTF_8));
            assertThat(summary.get("fragmentsCompacted").asInt()).isEqualTo(6);
            assertThat(summary.get("fragmentsAdded").asInt()).isEqualTo(2);

            try (Dataset compacted = ds.checkoutLatest()) {
                assertThat(compacted.transaction().orElseThrow().operation()).isInstanceOf(Operation.Rewrite.class);
                assertThat(compacted.fragments())
                        .extracting(Fragment::physicalRows)
                        .containsExactly(135L, 135L);
                assertThat(compacted.fragments()).allSatisfy(f -> {
                    assertThat(f.overlays()).isEmpty();
                    assertThat(f.deletionFile()).isNull();
                });
                assertThat(compacted.manifest().readerFeatureFlags() & FeatureFlags.UNSTABLE_DATA_OVERLAY_FILES)
                        .isZero();
                assertThat(compacted.manifest().usesStableRowIds()).isEqualTo(stableRowIds);
            }
            JsonNode oursAfter = OurCli.run("dump", uri);
            DumpComparator.exact().assertSame("our read after the rewrite vs before", before, oursAfter);

            List<JsonNode> sdk = OracleProcess.fromBuild()
                    .batch(
                            dir.resolve("oracle"),
                            List.of(
                                    List.of("dump", uri),
                                    List.of("dump", uri, "--with-row-id", "--order-by", "id"),
                                    List.of("inspect", uri),
                                    List.of("delete", uri, "--filter", "id = 10"),
                                    List.of("dump", uri)));
            for (int i = 0; i < sdk.size(); i++) {
                assertThat(sdk.get(i).has("error"))
                        .as("oracle command %d: %s", i, sdk.get(i))
                        .isFalse();
            }
            DumpComparator.exact()
                    .assertSame("SDK read of the rewritten table vs our read before it", before, sdk.get(0));

            JsonNode inspect = sdk.get(2);
            assertThat(inspect.get("num_rows").asLong()).isEqualTo(270);
            assertThat(inspect.get("stable_row_ids").asBoolean()).isEqualTo(stableRowIds);
            assertThat(inspect.get("fragments")).hasSize(2);
            if (stableRowIds) {
                // Rows were created in one commit with ids 0..299, so a row's stable id is its id column.
                List<String> mismatches = new ArrayList<>();
                sdk.get(1).get("rows").forEach(row -> {
                    if (row.get("_rowid").asLong() != row.get("id").asLong()) {
                        mismatches.add("id " + row.get("id") + " has _rowid " + row.get("_rowid"));
                    }
                });
                assertThat(mismatches).isEmpty();
            }

            // The SDK committed a Delete on top of our Rewrite; both readers agree on the result.
            JsonNode sdkAfterDelete = sdk.get(4);
            assertThat(sdkAfterDelete.get("rows")).hasSize(269);
            DumpComparator.exact()
                    .assertSame("our read after the SDK's delete", sdkAfterDelete, OurCli.run("dump", uri));
            owner.close();
        }
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
