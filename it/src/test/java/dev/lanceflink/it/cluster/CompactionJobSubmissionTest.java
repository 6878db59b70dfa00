package dev.lanceflink.it.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.read.ScanOptions;
import dev.lanceflink.read.Scanner;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #7's acceptance test: the compaction job jar, submitted with Flink's command-line
 * frontend ({@code flink run -m localhost:<port> lance-flink-compactor-job.jar <table> --mode
 * overlay-merge ...}) to a real session cluster (separate JobManager and TaskManager processes),
 * runs its tasks on the TaskManager, finishes, and leaves the table compacted with the same
 * values.
 *
 * <p>The jar is the compactor module's shaded artifact (classifier {@code job}), found through
 * the system property {@value #JOB_JAR_PROPERTY} (set by this module's pom); the reactor builds
 * it in the compactor's package phase, so run this test with {@code mvn verify} (or at least
 * {@code package}).
 */
class CompactionJobSubmissionTest {

    static final String JOB_JAR_PROPERTY = "lf.compactorJobJar";

    private static final Schema SCHEMA = new Schema(List.of(
            Field.notNullable("k", new ArrowType.Int(32, true)),
            Field.nullable("a", new ArrowType.Int(64, true)),
            Field.nullable("s", ArrowType.Utf8.INSTANCE)));
    private static final int FRAGMENTS = 4;
    private static final int ROWS_PER_FRAGMENT = 40;
    private static final int UPDATES = 3;

    @RegisterExtension
    static final FlinkSessionClusterExtension FLINK = FlinkSessionClusterExtension.shared();

    @TempDir
    Path work;

    @Test
    void flinkRunSubmitsTheJobJarToTheSessionClusterAndTheTableIsCompacted() throws Exception {
        Path jobJar = compactorJobJar();
        Path table = work.resolve("table");
        List<String> rowsBefore;
        try (BufferAllocator allocator = new RootAllocator();
                ObjectStore store = new LocalObjectStore(table)) {
            writeTableWithOverlays(store, allocator);
            try (Dataset ds = Dataset.open(store, allocator)) {
                assertThat(ds.version()).isEqualTo(1 + UPDATES);
                assertThat(overlayCounts(ds)).containsExactly(3, 3, 3, 3);
                rowsBefore = scan(ds);
            }
        }
        // Values as the overlays left them: base row, odd offset (a updated, s null), even offset.
        assertThat(rowsBefore)
                .hasSize(FRAGMENTS * ROWS_PER_FRAGMENT)
                .startsWith("0|0|s0", "1|1001|null", "2|2002|u2000", "3|3003|null", "4|40|s4")
                .contains("41|1001|null", "53|3013|null", "159|1590|s159");

        FlinkSessionCluster cluster = FLINK.cluster();
        CliResult run = cluster.runFlinkCli(
                "run",
                "-m",
                cluster.restAddress(),
                jobJar.toString(),
                table.toString(),
                "--mode",
                "overlay-merge",
                "--min-overlays",
                "2",
                "--parallelism",
                "2");
        assertThat(run.exitCode()).as(run.describe()).isZero();
        JsonNode summary = jsonSummary(run);
        String jobId = run.submittedJobId()
                .orElseThrow(() -> new AssertionError(
                        "flink run printed no 'Job has been submitted with JobID': " + run.describe()));

        JsonNode job = findJob(cluster.rest("/jobs/overview"), jobId);
        assertThat(job.path("state").asText()).as(job.toString()).isEqualTo("FINISHED");
        assertThat(job.path("name").asText())
                .isEqualTo("lance-compaction overlay-merge " + table + "@v" + (1 + UPDATES));
        assertThat(job.path("tasks").path("finished").asInt())
                .isPositive()
                .isEqualTo(job.path("tasks").path("total").asInt());
        // The job's operators ran on the cluster with the parallelism the job asked for.
        List<Integer> parallelism = new ArrayList<>();
        cluster.rest("/jobs/" + jobId)
                .path("vertices")
                .forEach(v -> parallelism.add(v.path("parallelism").asInt()));
        assertThat(parallelism).contains(2);
        JsonNode overview = cluster.rest("/overview");
        assertThat(overview.path("taskmanagers").asInt()).isEqualTo(1);
        assertThat(overview.path("jobs-failed").asInt()).isZero();
        // The cluster's classpath is Flink's lib/ only: every class of ours came in the job jar.
        List<String> clusterClasspath = new ArrayList<>();
        cluster.rest("/jobmanager/environment")
                .path("classpath")
                .forEach(entry -> clusterClasspath.add(entry.asText()));
        assertThat(clusterClasspath)
                .anyMatch(e -> e.matches(".*/flink-runtime-[^/]*\\.jar"))
                .noneMatch(e -> e.contains("lance-flink"));

        assertThat(summary.path("status").asText()).isEqualTo("committed");
        assertThat(summary.path("planVersion").asLong()).isEqualTo(1 + UPDATES);
        assertThat(summary.path("fragmentsCompacted").asInt()).isEqualTo(FRAGMENTS);
        assertThat(summary.path("overlaysBefore").asInt()).isEqualTo(FRAGMENTS * UPDATES);
        assertThat(summary.path("overlaysAfter").asInt()).isEqualTo(FRAGMENTS);
        assertThat(summary.path("committedVersions").toString()).isEqualTo("[" + (2 + UPDATES) + "]");
        try (BufferAllocator allocator = new RootAllocator();
                ObjectStore store = new LocalObjectStore(table);
                Dataset after = Dataset.open(store, allocator)) {
            assertThat(after.version()).isEqualTo(2 + UPDATES);
            assertThat(overlayCounts(after)).containsExactly(1, 1, 1, 1);
            assertThat(scan(after)).isEqualTo(rowsBefore);
        }

        // Submitted again, the job finds nothing to compact: no Flink job, no new version.
        CliResult again = cluster.runFlinkCli(
                "run",
                "-m",
                cluster.restAddress(),
                jobJar.toString(),
                table.toString(),
                "--mode",
                "overlay-merge",
                "--min-overlays",
                "2");
        assertThat(again.exitCode()).as(again.describe()).isZero();
        assertThat(jsonSummary(again).path("status").asText()).isEqualTo("nothing-to-do");
        assertThat(again.submittedJobId()).isEmpty();
    }

    @Test
    void aUsageErrorOfTheJobReachesTheCallerOfFlinkRun() throws Exception {
        FlinkSessionCluster cluster = FLINK.cluster();
        CliResult run = cluster.runFlinkCli(
                "run",
                "-m",
                cluster.restAddress(),
                compactorJobJar().toString(),
                work.resolve("no-table").toString(),
                "--mode",
                "no-such-mode");
        assertThat(run.exitCode()).as(run.describe()).isEqualTo(2);
        assertThat(run.stderr()).contains("compact: Unknown compaction mode 'no-such-mode'");
        assertThat(run.submittedJobId()).isEmpty();
    }

    private static Path compactorJobJar() {
        String property = System.getProperty(JOB_JAR_PROPERTY);
        if (property == null || property.isBlank()) {
            throw new IllegalStateException("system property " + JOB_JAR_PROPERTY + " is not set: run"
                    + " this test through Maven (module it), or pass -D" + JOB_JAR_PROPERTY
                    + "=<path to lance-flink-compactor-<version>-job.jar>");
        }
        Path jar = Path.of(property).toAbsolutePath().normalize();
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("the compaction job jar " + jar + " does not exist: it is"
                    + " built by the compactor module's package phase, so run the it tests with mvn verify"
                    + " (or mvn package), not mvn test");
        }
        return jar;
    }

    /**
     * {@value #FRAGMENTS} fragments of {@value #ROWS_PER_FRAGMENT} rows (k = row number, a = 10k,
     * s = "s<k>"), then {@value #UPDATES} UPDATE commits, each writing one overlay per fragment:
     * update v sets a = 1000v + offset at offsets v and 10 + v, and s = "u<1000v>" at even offsets
     * (null at odd ones).
     */
    private static void writeTableWithOverlays(ObjectStore store, BufferAllocator allocator) throws Exception {
        int n = FRAGMENTS * ROWS_PER_FRAGMENT;
        try (VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator)) {
            root.allocateNew();
            IntVector k = (IntVector) root.getVector("k");
            BigIntVector a = (BigIntVector) root.getVector("a");
            VarCharVector s = (VarCharVector) root.getVector("s");
            for (int i = 0; i < n; i++) {
                k.setSafe(i, i);
                a.setSafe(i, 10L * i);
                s.setSafe(i, ("s" + i).getBytes(StandardCharsets.UTF_8));
            }
            root.setRowCount(n);
            Dataset.write(
                    store,
                    allocator,
                    List.of(root),
                    SCHEMA,
                    WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(ROWS_PER_FRAGMENT));
        }
        for (int v = 1; v <= UPDATES; v++) {
            int[] offsets = {v, 10 + v};
            long value = 1000L * v;
            int rows = FRAGMENTS * offsets.length;
            long[] addresses = new long[rows];
            try (Dataset ds = Dataset.open(store, allocator);
                    BigIntVector a = new BigIntVector("a", allocator);
                    VarCharVector s = new VarCharVector("s", allocator)) {
                a.allocateNew(rows);
                s.allocateNew();
                int i = 0;
                for (long fragment = 0; fragment < FRAGMENTS; fragment++) {
                    for (int off : offsets) {
                        addresses[i] = fragment << 32 | off;
                        a.set(i, value + off);
                        if (off % 2 == 0) {
                            s.setSafe(i, ("u" + value).getBytes(StandardCharsets.UTF_8));
                        } else {
                            s.setNull(i);
                        }
                        i++;
                    }
                }
                a.setValueCount(rows);
                s.setValueCount(rows);
                VectorSchemaRoot values = new VectorSchemaRoot(new ArrayList<>(List.of(a, s)));
                values.setRowCount(rows);
                ds.update(addresses, values).close();
            }
        }
    }

    /** Every row as "k|a|s", in scan order (fragment, offset). */
    private static List<String> scan(Dataset ds) throws Exception {
        List<String> rows = new ArrayList<>();
        try (Scanner scanner = ds.scan(ScanOptions.all())) {
            while (scanner.hasNext()) {
                try (VectorSchemaRoot batch = scanner.next()) {
                    IntVector k = (IntVector) batch.getVector("k");
                    BigIntVector a = (BigIntVector) batch.getVector("a");
                    VarCharVector s = (VarCharVector) batch.getVector("s");
                    for (int r = 0; r < batch.getRowCount(); r++) {
                        rows.add(k.get(r) + "|" + (a.isNull(r) ? "null" : a.get(r)) + "|"
                                + (s.isNull(r) ? "null" : new String(s.get(r), StandardCharsets.UTF_8)));
                    }
                }
            }
        }
        return rows;
    }

    private static List<Integer> overlayCounts(Dataset ds) {
        return ds.fragments().stream().map(f -> f.overlays().size()).toList();
    }

    /** The compactor prints its JSON summary as the one stdout line starting with '{'. */
    private static JsonNode jsonSummary(CliResult run) throws Exception {
        List<String> json = run.stdout().lines().filter(l -> l.startsWith("{")).toList();
        assertThat(json).as(run.describe()).hasSize(1);
        return new ObjectMapper().readTree(json.get(0));
    }

    private static JsonNode findJob(JsonNode jobsOverview, String jobId) {
        for (JsonNode job : jobsOverview.path("jobs")) {
            if (job.path("jid").asText().equals(jobId)) {
                return job;
            }
        }
        throw new AssertionError("job " + jobId + " is not in /jobs/overview: " + jobsOverview);
    }
}
