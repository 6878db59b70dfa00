package dev.lanceflink.compactor;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lanceflink.compactor.core.OverlayTables;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.io.ObjectStore;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The CLI end to end; the Flink engine runs on an in-process MiniCluster. */
class CompactorMainTest {
    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return CompactorMain.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private JsonNode summary() throws Exception {
        return new ObjectMapper().readTree(out.toString(StandardCharsets.UTF_8));
    }

    @Test
    void flinkJobMergesInParallelAndCommitsOnceThenReRunIsANoOp() throws Exception {
        try (BufferAllocator allocator = new RootAllocator(); ObjectStore store = new LocalObjectStore(dir)) {
            Dataset ds = OverlayTables.create(store, allocator, 3, 20);
            for (int v = 1; v <= 3; v++) {
                ds = OverlayTables.update(ds, new long[] {0, 1, 2}, new int[] {v, 10 + v}, 1000L * v);
            }
            try (Dataset before = ds) {
                List<String> rows = OverlayTables.scan(before);

                int code = run("compact", dir.toString(), "--mode", "overlay-merge", "--min-overlays", "3",
                        "--parallelism", "2");
                assertThat(code).as(err.toString(StandardCharsets.UTF_8)).isZero();
                JsonNode s = summary();
                assertThat(s.get("status").asText()).isEqualTo("committed");
                assertThat(s.get("planVersion").asLong()).isEqualTo(4);
                assertThat(s.get("fragmentsCompacted").asInt()).isEqualTo(3);
                assertThat(s.get("overlaysBefore").asInt()).isEqualTo(9);
                assertThat(s.get("overlaysAfter").asInt()).isEqualTo(3);
                assertThat(s.get("committedVersions").toString()).isEqualTo("[5]");
                assertThat(err.toString(StandardCharsets.UTF_8)).contains("(3/3 tasks)");
                try (Dataset after = before.checkoutLatest()) {
                    assertThat(OverlayTables.scan(after)).isEqualTo(rows);
                    assertThat(OverlayTables.overlayCounts(after)).containsExactly(1, 1, 1);
                }

                out.reset();
                assertThat(run(dir.toString(), "--mode", "overlay-merge", "--min-overlays", "3")).isZero();
                assertThat(summary().get("status").asText()).isEqualTo("nothing-to-do");
                try (Dataset after = before.checkoutLatest()) {
                    assertThat(after.version()).isEqualTo(5);
                }
            }
        }
    }

    @Test
    void threadsEngineFoldsWithoutFlink() throws Exception {
        try (BufferAllocator allocator = new RootAllocator(); ObjectStore store = new LocalObjectStore(dir)) {
            Dataset ds = OverlayTables.create(store, allocator, 2, 20);
            ds = OverlayTables.update(ds, new long[] {0, 1}, new int[] {0, 5}, 7000);
            try (Dataset before = ds) {
                List<String> rows = OverlayTables.scan(before);
                assertThat(run(dir.toString(), "--mode", "overlay-fold", "--min-overlays", "1", "--engine",
                        "threads")).isZero();
                assertThat(summary().get("committedVersions").toString()).isEqualTo("[3]");
                try (Dataset after = before.checkoutLatest()) {
                    assertThat(OverlayTables.scan(after)).isEqualTo(rows);
                    assertThat(OverlayTables.overlayCounts(after)).containsExactly(0, 0);
                }
            }
        }
    }

    @Test
    void dryRunPrintsThePlanJson() throws Exception {
        try (BufferAllocator allocator = new RootAllocator(); ObjectStore store = new LocalObjectStore(dir)) {
            Dataset ds = OverlayTables.create(store, allocator, 1, 10);
            ds = OverlayTables.update(ds, new long[] {0}, new int[] {1}, 1);
            ds = OverlayTables.update(ds, new long[] {0}, new int[] {2}, 2);
            ds.close();
            assertThat(run(dir.toString(), "--mode", "overlay-merge", "--min-overlays", "2", "--dry-run")).isZero();
            JsonNode s = summary();
            assertThat(s.get("status").asText()).isEqualTo("dry-run");
            assertThat(s.at("/plan/tasks/0/fragmentId").asLong()).isZero();
            assertThat(s.at("/plan/tasks/0/positions").toString()).isEqualTo("[0,1]");
            assertThat(s.at("/plan/overlaysAfter").asInt()).isEqualTo(1);
        }
    }

    @Test
    void usageErrorsExitWithTwoAndSayWhatIsWrong() {
        assertThat(run(dir.toString())).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("Missing --mode (overlay-merge or overlay-fold)");
        err.reset();
        assertThat(run(dir.toString(), "--mode", "fragments")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("Unknown compaction mode 'fragments'");
        err.reset();
        assertThat(run(dir.toString(), "--mode", "overlay-fold", "--max-fragments", "x")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("Option --max-fragments expects a whole number, got 'x'");
        err.reset();
        assertThat(run(dir.toString(), "--mode", "overlay-fold", "--min-overlays", "0", "--min-overlay-bytes-ratio",
                "0")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("At least one trigger");
    }

    @Test
    void aMissingTableFailsWithJson() throws Exception {
        assertThat(run(dir.resolve("nope").toString(), "--mode", "overlay-merge", "--engine", "threads"))
                .isEqualTo(1);
        assertThat(summary().get("status").asText()).isEqualTo("failed");
    }
}
