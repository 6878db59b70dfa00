package dev.lanceflink.compactor;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lanceflink.compactor.core.OverlayTables;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.io.ObjectStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The CLI end to end; the Flink engine runs on an in-process MiniCluster. */
class CompactorMainITCase extends CompactorRuns {
    @TempDir
    Path dir;

    @Test
    void flinkJobMergesInParallelAndCommitsOnceThenReRunIsANoOp() throws Exception {
        try (BufferAllocator allocator = new RootAllocator();
                ObjectStore store = new LocalObjectStore(dir)) {
            Dataset ds = OverlayTables.create(store, allocator, 3, 20);
            for (int v = 1; v <= 3; v++) {
                ds = OverlayTables.update(ds, new long[] {0, 1, 2}, new int[] {v, 10 + v}, 1000L * v);
            }
            try (Dataset before = ds) {
                List<String> rows = OverlayTables.scan(before);

                int code = run(
                        "compact",
                        dir.toString(),
                        "--mode",
                        "overlay-merge",
                        "--min-overlays",
                        "3",
                        "--parallelism",
                        "2");
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
                assertThat(run(dir.toString(), "--mode", "overlay-merge", "--min-overlays", "3"))
                        .isZero();
                assertThat(summary().get("status").asText()).isEqualTo("nothing-to-do");
                try (Dataset after = before.checkoutLatest()) {
                    assertThat(after.version()).isEqualTo(5);
                }
            }
        }
    }

    @Test
    void flinkJobRewritesSmallFragmentsAndSummarizesTheRewrite() throws Exception {
        try (BufferAllocator allocator = new RootAllocator();
                ObjectStore store = new LocalObjectStore(dir)) {
            Dataset ds = OverlayTables.create(store, allocator, 6, 10);
            ds = OverlayTables.update(ds, new long[] {1, 4}, new int[] {3}, 500);
            try (Dataset before = ds) {
                List<String> rows = OverlayTables.scan(before);
                assertThat(run(
                                dir.toString(),
                                "--mode",
                                "fragments",
                                "--target-rows-per-fragment",
                                "25",
                                "--parallelism",
                                "2"))
                        .as(err.toString(StandardCharsets.UTF_8))
                        .isZero();
                JsonNode s = summary();
                assertThat(s.get("status").asText()).isEqualTo("committed");
                assertThat(s.get("mode").asText()).isEqualTo("fragments");
                assertThat(s.get("fragmentsPlanned").asInt()).isEqualTo(2); // tasks: [0, 1, 2] and [3, 4, 5]
                assertThat(s.get("fragmentsCompacted").asInt()).isEqualTo(6);
                assertThat(s.get("fragmentsAdded").asInt()).isEqualTo(2);
                assertThat(s.get("rowsWritten").asLong()).isEqualTo(60);
                assertThat(s.get("bytesWritten").asLong()).isPositive();
                assertThat(s.get("committedVersions").toString()).isEqualTo("[3]");
                assertThat(err.toString(StandardCharsets.UTF_8))
                        .contains("compact: 3 fragments rewritten")
                        .contains("(2/2 tasks)");
                try (Dataset after = before.checkoutLatest()) {
                    assertThat(after.fragments())
                            .extracting(f -> f.physicalRows())
                            .containsExactly(30L, 30L);
                    assertThat(OverlayTables.scan(after)).isEqualTo(rows);
                }
            }
        }
    }
}
