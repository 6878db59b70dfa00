package dev.lanceflink.it.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanceflink.committer.core.CommitMarker;
import dev.lanceflink.compactor.core.CompactionCommitter;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.VersionInfo;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.txn.Operation;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The versions of a table split by who committed them: the upsert sink (transaction properties
 * carry its {@link CommitMarker}), the compactor ({@link CompactionCommitter#MODE_PROPERTY}) and
 * anything else (the initial write, another writer's commits). Public: the sink package's
 * concurrent-writer tests judge the sink's commits with the same rules.
 */
public record VersionsByWriter(
        List<VersionInfo> all, List<VersionInfo> sinkCommits, List<VersionInfo> compactions, List<VersionInfo> others) {

    public static VersionsByWriter read(String uri, Map<String, String> storage) throws IOException {
        try (Dataset ds = Dataset.open(uri, storage)) {
            List<VersionInfo> all = ds.versions();
            List<VersionInfo> sink = new ArrayList<>();
            List<VersionInfo> compactions = new ArrayList<>();
            List<VersionInfo> others = new ArrayList<>();
            for (VersionInfo v : all) {
                if (v.properties().containsKey(CommitMarker.COMMIT_USER_KEY)) {
                    sink.add(v);
                } else if (v.properties().containsKey(CompactionCommitter.MODE_PROPERTY)) {
                    compactions.add(v);
                } else {
                    others.add(v);
                }
            }
            return new VersionsByWriter(
                    List.copyOf(all), List.copyOf(sink), List.copyOf(compactions), List.copyOf(others));
        }
    }

    /**
     * How many of the sink's versions attach overlays: a {@code DataOverlay}, or an {@code Update}
     * whose fragments carry staged overlays (a checkpoint with overlays and other changes).
     */
    public static long sinkOverlayCommits(String uri, Map<String, String> storage) throws IOException {
        VersionsByWriter history = read(uri, storage);
        long n = 0;
        try (Dataset ds = Dataset.open(uri, storage)) {
            for (VersionInfo v : history.sinkCommits()) {
                Operation op;
                try (Dataset at = ds.checkoutVersion(v.version())) {
                    op = at.transaction().orElseThrow().operation();
                }
                if (op instanceof Operation.DataOverlay
                        || (op instanceof Operation.Update u
                                && Stream.concat(u.updatedFragments().stream(), u.newFragments().stream())
                                        .anyMatch(f -> f.overlays().stream().anyMatch(DataOverlayFile::isStaged)))) {
                    n++;
                }
            }
        }
        return n;
    }

    /** Compaction versions of one mode ({@code overlay-merge}, {@code overlay-fold}). */
    public List<VersionInfo> compactions(String mode) {
        return compactions.stream()
                .filter(v -> mode.equals(v.properties().get(CompactionCommitter.MODE_PROPERTY)))
                .toList();
    }

    /**
     * The sink's commits are exactly-once and well formed: one commit user; each checkpoint in one
     * version, marked {@link CommitMarker#ALL_STEPS}; checkpoints only move forward in version
     * order; each version has an operation that holds a checkpoint's changes (Append, Delete,
     * DataOverlay, or an Update holding several kinds; see {@code CheckpointOperation}).
     *
     * @return the sink's commit user
     */
    public String assertSinkCommitsExactlyOnce() {
        assertThat(sinkCommits).as("versions committed by the sink").isNotEmpty();
        Set<String> users = new HashSet<>();
        Set<String> seen = new HashSet<>();
        long lastCheckpoint = Long.MIN_VALUE;
        int lastStep = -1;
        for (VersionInfo v : sinkCommits) {
            CommitMarker m = CommitMarker.fromProperties(v.properties(), "version " + v.version())
                    .orElseThrow();
            users.add(m.commitUser());
            assertThat(seen.add(m.checkpointId() + "/" + m.step()))
                    .as(
                            "version %s repeats the sink's commit of checkpoint %s step %s",
                            v.version(), m.checkpointId(), m.step())
                    .isTrue();
            boolean forward =
                    m.checkpointId() > lastCheckpoint || (m.checkpointId() == lastCheckpoint && m.step() > lastStep);
            assertThat(forward)
                    .as(
                            "version %s (checkpoint %s step %s) follows checkpoint %s step %s",
                            v.version(), m.checkpointId(), m.step(), lastCheckpoint, lastStep)
                    .isTrue();
            lastCheckpoint = m.checkpointId();
            lastStep = m.step();
            assertThat(m.step())
                    .as("step marker of version %s (one version per checkpoint)", v.version())
                    .isEqualTo(CommitMarker.ALL_STEPS);
            assertThat(v.operation())
                    .as("operation of version %s (checkpoint %s)", v.version(), m.checkpointId())
                    .isIn("Append", "Delete", "DataOverlay", "Update");
        }
        assertThat(users).as("commit users of the sink").hasSize(1);
        return users.iterator().next();
    }

    /** Versions are numbered without gaps from the first listed to the latest. */
    public void assertContiguous() {
        for (int i = 1; i < all.size(); i++) {
            assertThat(all.get(i).version())
                    .as("version after %s", all.get(i - 1).version())
                    .isEqualTo(all.get(i - 1).version() + 1);
        }
    }
}
