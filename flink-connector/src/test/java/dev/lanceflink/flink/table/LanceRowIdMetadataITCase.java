package dev.lanceflink.flink.table;

import static dev.lanceflink.flink.table.SqlTestSupport.rows;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lanceflink.compact.FragmentRewriter;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.file.writer.FileWriterOptions;
import dev.lanceflink.overlay.OverlayCommits;
import dev.lanceflink.overlay.StagedWrite;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.testkit.flink.MiniClusters;
import dev.lanceflink.txn.CommitOptions;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code _rowid} metadata column through SQL on a MiniCluster. The table: ids 0..5 written
 * two rows per fragment (fragments 0, 1, 2), then id 2 deleted (fragment 1, offset 0), then all
 * fragments compacted into fragment 3, which moves every surviving row.
 *
 * <p>With stable row ids the rows got ids 0..5 on write and keep them through the compaction;
 * without, Lance's {@code _rowid} is the row address and moves with the row.
 */
class LanceRowIdMetadataITCase {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = MiniClusters.oneTaskManager(2);

    private static final Schema SCHEMA =
            new Schema(List.of(new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null)));

    @TempDir
    Path dir;

    private static long addr(long fragment, long offset) {
        return fragment << 32 | offset;
    }

    private String writeDeleteOne(boolean stableRowIds) throws Exception {
        String uri = dir.resolve(stableRowIds ? "stable.lance" : "plain.lance").toString();
        try (BufferAllocator alloc = new RootAllocator();
                VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, alloc)) {
            BigIntVector id = (BigIntVector) root.getVector("id");
            for (int i = 0; i < 6; i++) {
                id.setSafe(i, i);
            }
            root.setRowCount(6);
            try (Dataset d = Dataset.write(
                    uri,
                    Map.of(),
                    List.of(root),
                    SCHEMA,
                    WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(2).withStableRowIds(stableRowIds))) {
                d.delete("id = 2").close();
            }
        }
        return uri;
    }

    private static void compactAll(String uri) throws Exception {
        try (Dataset d = Dataset.open(uri, Map.of())) {
            List<Long> ids = d.fragments().stream().map(Fragment::id).toList();
            StagedWrite rewrite = FragmentRewriter.rewrite(
                    d.store(), d.manifest(), ids, 1000, d.allocator(), FileWriterOptions.defaults());
            OverlayCommits.commit(d.store(), d.version(), rewrite, Map.of(), CommitOptions.defaults());
        }
        try (Dataset d = Dataset.open(uri, Map.of())) {
            assertThat(d.fragments()).extracting(Fragment::id).containsExactly(3L);
        }
    }

    /** {@code rid} is declared before {@code addr}: the metadata columns arrive in declaration order. */
    private static TableEnvironment table(String uri) {
        TableEnvironment t = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        t.getConfig().set("parallelism.default", "1");
        t.executeSql("CREATE TABLE t (id BIGINT NOT NULL, rid BIGINT METADATA FROM '_rowid' VIRTUAL, "
                + "addr BIGINT METADATA FROM '_rowaddr' VIRTUAL) WITH ('connector' = 'lance', 'path' = '" + uri + "')");
        return t;
    }

    private static String row(long id, long rowId, long rowAddr) {
        return "+I[" + id + ", " + rowId + ", " + rowAddr + "]";
    }

    @Test
    void stableRowIdsSurviveACompactionThatMovesTheRows() throws Exception {
        String uri = writeDeleteOne(true);

        // Before: ids 0..5 in write order; the deleted row 2 is skipped by the ids as by the data.
        assertThat(rows(table(uri), "SELECT id, rid, addr FROM t ORDER BY id"))
                .containsExactly(
                        row(0, 0, addr(0, 0)),
                        row(1, 1, addr(0, 1)),
                        row(3, 3, addr(1, 1)),
                        row(4, 4, addr(2, 0)),
                        row(5, 5, addr(2, 1)));

        compactAll(uri);

        // After: the same ids, new addresses in fragment 3.
        TableEnvironment t = table(uri);
        assertThat(rows(t, "SELECT id, rid, addr FROM t ORDER BY id"))
                .containsExactly(
                        row(0, 0, addr(3, 0)),
                        row(1, 1, addr(3, 1)),
                        row(3, 3, addr(3, 2)),
                        row(4, 4, addr(3, 3)),
                        row(5, 5, addr(3, 4)));
        // Alone, with a pushed-down filter, and in the other order.
        assertThat(rows(t, "SELECT rid FROM t WHERE id >= 3 ORDER BY rid")).containsExactly("+I[3]", "+I[4]", "+I[5]");
        assertThat(rows(t, "SELECT addr, rid FROM t WHERE id = 4")).containsExactly("+I[" + addr(3, 3) + ", 4]");
    }

    @Test
    void withoutStableRowIdsTheRowIdIsTheRowAddress() throws Exception {
        String uri = writeDeleteOne(false);

        assertThat(rows(table(uri), "SELECT id, rid, addr FROM t ORDER BY id"))
                .containsExactly(
                        row(0, addr(0, 0), addr(0, 0)),
                        row(1, addr(0, 1), addr(0, 1)),
                        row(3, addr(1, 1), addr(1, 1)),
                        row(4, addr(2, 0), addr(2, 0)),
                        row(5, addr(2, 1), addr(2, 1)));

        compactAll(uri);

        assertThat(rows(table(uri), "SELECT id, rid, addr FROM t ORDER BY id"))
                .containsExactly(
                        row(0, addr(3, 0), addr(3, 0)),
                        row(1, addr(3, 1), addr(3, 1)),
                        row(3, addr(3, 2), addr(3, 2)),
                        row(4, addr(3, 3), addr(3, 3)),
                        row(5, addr(3, 4), addr(3, 4)));
    }
}
