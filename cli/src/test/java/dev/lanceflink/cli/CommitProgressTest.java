package dev.lanceflink.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanceflink.committer.core.CommitMarker;
import dev.lanceflink.committer.core.TableLocation;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.VersionInfo;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.txn.CommitOptions;
import dev.lanceflink.update.OverlayUpdate;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The per-commit progress lines of {@code sql}: what they count, and that they match the table's versions. */
class CommitProgressTest {
    private static final Pattern COMMIT = Pattern.compile("\\[INFO] commit (\\S+) version (\\d+) checkpoint (\\d+):"
            + " (\\d+) rows appended, (\\d+) cells in (\\d+) overlay files, (\\d+) rows deleted, lag (\\S+)");
    private static final Schema SCHEMA = new Schema(List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
            new Field("v", FieldType.nullable(new ArrowType.Int(32, true)), null)));

    @TempDir
    Path dir;

    @Test
    void countsTheJobsOwnCommitsOnly() throws Exception {
        String uri = dir.resolve("t.lance").toString();
        try (BufferAllocator allocator = new RootAllocator()) {
            try (VectorSchemaRoot rows = rows(allocator, 0, 10)) {
                Dataset.write(
                                uri,
                                Map.of(),
                                List.of(rows),
                                SCHEMA,
                                WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(5))
                        .close(); // version 1: fragments 0 and 1, 5 rows each
            }
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            CommitProgress progress = CommitProgress.before(
                    List.of(TableLocation.of(uri)), new PrintStream(err, true, StandardCharsets.UTF_8));
            progress.start("job-1");
            try (Dataset d = Dataset.open(uri, Map.of());
                    VectorSchemaRoot values =
                            VectorSchemaRoot.create(new Schema(List.of(SCHEMA.findField("v"))), allocator)) {
                values.allocateNew();
                for (int i = 0; i < 3; i++) {
                    ((IntVector) values.getVector("v")).setSafe(i, 100 + i);
                }
                values.setRowCount(3);
                // version 2: 3 cells of column v, one overlay file in each of the two fragments
                d.update(
                                new long[] {0, 1, (1L << 32) | 2},
                                values,
                                OverlayUpdate.Mode.OVERLAY,
                                marker("job-1", 7),
                                CommitOptions.defaults())
                        .close();
            }
            // The poller prints a commit while the job runs, not only at the end.
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (!err.toString(StandardCharsets.UTF_8).contains(" version 2 checkpoint 7:")
                    && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(err.toString(StandardCharsets.UTF_8)).contains(" version 2 checkpoint 7:");
            try (Dataset d = Dataset.open(uri, Map.of())) {
                d.deleteRows(new long[] {3, 4}, marker("job-1", 8), CommitOptions.defaults())
                        .close(); // version 3
            }
            try (Dataset d = Dataset.open(uri, Map.of())) {
                d.deleteRows(new long[] {(1L << 32) | 3}, Map.of(), CommitOptions.defaults())
                        .close(); // 4: unmarked
            }
            try (Dataset d = Dataset.open(uri, Map.of())) {
                // version 5: another job's
                d.deleteRows(new long[] {(1L << 32) | 4}, marker("job-2", 1), CommitOptions.defaults())
                        .close();
            }
            try (VectorSchemaRoot rows = rows(allocator, 10, 4)) {
                Dataset.write(
                                uri,
                                Map.of(),
                                List.of(rows),
                                SCHEMA,
                                WriteParams.of(WriteMode.APPEND).withTransactionProperties(marker("job-1", 9)))
                        .close(); // version 6
            }
            progress.finish("finished");

            List<String> lines = err.toString(StandardCharsets.UTF_8).lines().toList();
            assertThat(lines).hasSize(4);
            assertThat(lines.get(0))
                    .startsWith("[INFO] commit " + uri + " version 2 checkpoint 7: 0 rows appended,"
                            + " 3 cells in 2 overlay files, 0 rows deleted, lag ");
            assertThat(lines.get(1))
                    .startsWith("[INFO] commit " + uri + " version 3 checkpoint 8: 0 rows appended,"
                            + " 0 cells in 0 overlay files, 2 rows deleted, lag -");
            assertThat(lines.get(2))
                    .startsWith("[INFO] commit " + uri + " version 6 checkpoint 9: 4 rows appended,"
                            + " 0 cells in 0 overlay files, 0 rows deleted, lag ");
            assertThat(lines.get(3))
                    .startsWith(
                            "[INFO] job job-1 finished: 3 commits to " + uri + " (versions 2..6,"
                                    + " checkpoints 7..9): 4 rows appended, 3 cells in 2 overlay files, 2 rows deleted, last lag ");
            Matcher first = COMMIT.matcher(lines.get(0));
            assertThat(first.matches()).as(lines.get(0)).isTrue();
            assertThat(first.group(8)).as("a commit that added files has a lag").matches("\\d+\\.\\d{3}s");
        }
    }

    @Test
    void aStreamingInsertPrintsOneLinePerCommittedVersion() throws Exception {
        String uri = dir.resolve("s.lance").toString();
        Path script = dir.resolve("stream.sql");
        Files.writeString(
                script,
                "SET 'execution.runtime-mode' = 'streaming';\n"
                        + "SET 'execution.checkpointing.interval' = '300ms';\n"
                        + "SET 'parallelism.default' = '1';\n"
                        + "CREATE TABLE src (id BIGINT NOT NULL) WITH ('connector' = 'datagen', 'rows-per-second' = '400',"
                        + " 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '800');\n"
                        + "CREATE TABLE t (id BIGINT NOT NULL) WITH ('connector' = 'lance', 'path' = '" + uri + "');\n"
                        + "INSERT INTO t SELECT id FROM src;\n");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = LanceFlinkCli.run(
                new String[] {"sql", "-f", script.toString()}, out, new PrintStream(err, true, StandardCharsets.UTF_8));
        String stderr = err.toString(StandardCharsets.UTF_8);
        assertThat(code).as(stderr).isZero();

        List<Long> printed = new ArrayList<>();
        long rows = 0;
        Matcher m = COMMIT.matcher(stderr);
        while (m.find()) {
            assertThat(m.group(1)).isEqualTo(uri);
            printed.add(Long.parseLong(m.group(2)));
            rows += Long.parseLong(m.group(4));
        }
        List<Long> committed = new ArrayList<>();
        String job;
        try (Dataset d = Dataset.open(uri, Map.of())) {
            job = null;
            for (VersionInfo v : d.versions()) {
                if (v.properties().containsKey(CommitMarker.JOB_ID_KEY)) {
                    committed.add(v.version());
                    job = v.properties().get(CommitMarker.JOB_ID_KEY);
                }
            }
            assertThat(d.countRows()).isEqualTo(800);
        }
        assertThat(committed).as(stderr).hasSizeGreaterThan(1);
        assertThat(printed).as(stderr).isEqualTo(committed);
        assertThat(rows).isEqualTo(800);
        assertThat(stderr)
                .contains("[INFO] job " + job + " finished: " + committed.size() + " commits to " + uri + " (versions "
                        + committed.get(0) + ".." + committed.get(committed.size() - 1));
    }

    private static Map<String, String> marker(String job, long checkpoint) {
        return new CommitMarker("user-1", checkpoint, CommitMarker.ALL_STEPS, job).toProperties();
    }

    private static VectorSchemaRoot rows(BufferAllocator allocator, int from, int n) {
        VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
        root.allocateNew();
        for (int i = 0; i < n; i++) {
            ((BigIntVector) root.getVector("id")).setSafe(i, from + i);
            ((IntVector) root.getVector("v")).setSafe(i, from + i);
        }
        root.setRowCount(n);
        return root;
    }
}
