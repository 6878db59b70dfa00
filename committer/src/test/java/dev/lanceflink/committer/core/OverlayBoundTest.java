package dev.lanceflink.committer.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.compact.OverlayCompactor;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.file.FileVersion;
import dev.lanceflink.file.writer.FileWriterOptions;
import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.io.PublicationFaultStore;
import dev.lanceflink.overlay.OverlayWriter;
import dev.lanceflink.overlay.StagedWrite;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.ManifestIO;
import dev.lanceflink.table.RowAddress;
import dev.lanceflink.table.VersionResolver;
import dev.lanceflink.testkit.users.UsersTable;
import dev.lanceflink.testkit.users.UsersTable.Row;
import dev.lanceflink.txn.CommitConflictException;
import dev.lanceflink.txn.CommitOptions;
import dev.lanceflink.txn.Operation;
import dev.lanceflink.txn.TransactionStore;
import dev.lanceflink.write.FragmentWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.IntStream;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.roaringbitmap.RoaringBitmap;

/**
 * The hard bound on overlays per fragment, enforced by the checkpoint commit itself (issue #15:
 * "overlays per fragment under the configured bounds at every moment"): with no maintenance at
 * all, checkpoints that each overlay the same fragments never leave a version with more overlays
 * on a fragment than the bound, and every version reads cell for cell as the reference model of
 * the checkpoints committed up to it; exactly once across lost responses and replays; and correct
 * when an overlay merge of the compactor races the commit that merges the same fragment.
 */
class OverlayBoundTest {
    private static final String USER = "user-bound";
    private static final int BOUND = 4;

    @TempDir
    Path dir;

    private RootAllocator allocator;
    private LocalObjectStore local;
    private PublicationFaultStore store;
    /** The model: live rows by key, as the committed checkpoints leave them. */
    private final TreeMap<Long, Row> model = new TreeMap<>();
    /** Key → row address, of the rows the test overlays and deletes. */
    private TreeMap<Long, Long> addresses;

    @BeforeEach
    void createTable() throws IOException {
        allocator = new RootAllocator();
        for (long id = 0; id < 20; id++) {
            model.put(id, new Row("name-" + id, (int) id, id * 1.5));
        }
        UsersTable.create(dir.toString(), model, 10); // fragments 0 (keys 0..9) and 1 (keys 10..19)
        local = new LocalObjectStore(dir);
        store = new PublicationFaultStore(local);
        addresses = UsersTable.rowAddresses(dir.toString());
        assertThat(addresses.get(3L)).isEqualTo(RowAddress.of(0, 3));
        assertThat(addresses.get(13L)).isEqualTo(RowAddress.of(1, 3));
    }

    @AfterEach
    void close() {
        allocator.close();
    }

    private CheckpointCommitter committer() {
        return new CheckpointCommitter(store, CommitOptions.defaults(), 5, Duration.ZERO)
                .withMaxOverlaysPerFragment(BOUND);
    }

    /**
     * No maintenance: 30 checkpoints overlay fragment 0 (one or two writers each), some also
     * fragment 1, some delete a row and append new rows, some lose their publication's response.
     * Without the bound, fragment 0 would end with about 45 overlays.
     */
    @Test
    void everyVersionStaysWithinTheBoundAndReadsAsTheModel() throws IOException {
        CheckpointCommitter committer = committer();
        TreeMap<Long, TreeMap<Long, Row>> expectedByVersion = new TreeMap<>();
        long nextKey = 100;
        CheckpointCommit last = null;
        for (int cp = 1; cp <= 30; cp++) {
            List<TargetedOverlay> overlays = new ArrayList<>();
            overlays.add(ageOverlay(0, cp, new long[] {cp % 10, (cp + 3) % 10}));
            if (cp % 2 == 0) {
                overlays.add(nameOverlay(0, cp, (cp + 5) % 10)); // a second writer, same fragment
            }
            if (cp % 3 == 0) {
                overlays.add(ageOverlay(1, cp, new long[] {(cp + 1) % 10}));
            }
            List<TargetedDeletion> deletions = new ArrayList<>();
            List<Fragment> appended = List.of();
            if (cp % 5 == 0) {
                long key = 10 + cp / 5; // keys 11..16, never overlaid by the same checkpoint
                deletions.add(new TargetedDeletion(
                        RowTarget.committed(1), RoaringBitmap.bitmapOf((int) RowAddress.offset(addresses.get(key)))));
                model.remove(key);
                appended = append(nextKey, nextKey + 1);
                nextKey += 2;
            }
            last = new CheckpointCommit(USER, "job", cp, 1, appended, overlays, deletions, appended.size(), 0, 0);
            if (cp % 7 == 0) {
                store.loseNextResponses(1); // the commit must resolve it, not commit twice
            }
            CommitOutcome outcome = committer.commit(last);
            assertThat(outcome.kind()).isEqualTo(CommitOutcome.Kind.COMMITTED);
            expectedByVersion.put(outcome.version(), new TreeMap<>(model));
            assertVersion(outcome.version(), model);
        }
        assertThat(committer.overlayBoundMerges())
                .as("fragment 0 gets 1.5 overlays a checkpoint: the bound must have merged it several times")
                .isGreaterThanOrEqualTo(8);
        // Every version, not only each one as it was committed: none above the bound, each as the model.
        for (Map.Entry<Long, TreeMap<Long, Row>> e : expectedByVersion.entrySet()) {
            assertVersion(e.getKey(), e.getValue());
        }
        long latest = latestManifest().version();
        assertThat(latest).isEqualTo(1 + 30); // one version per checkpoint, none twice
        // A replay (restored job) of the last checkpoint finds it committed.
        CommitOutcome replay = committer().commit(last);
        assertThat(replay.kind()).isEqualTo(CommitOutcome.Kind.ALREADY_COMMITTED);
        assertThat(latestManifest().version()).isEqualTo(latest);
    }

    /**
     * The compactor merges fragment 0's overlays right before the sink publishes a commit that
     * merges them too: the sink loses the race and builds its commit again on the compactor's
     * version (its first merged file is discarded).
     */
    @Test
    void aCompactorMergeLandingFirstIsBuiltUpon() throws IOException {
        CheckpointCommitter committer = committer();
        for (int cp = 1; cp <= BOUND; cp++) {
            committer.commit(checkpoint(cp));
        }
        assertThat(latestManifest().fragment(0).orElseThrow().overlays()).hasSize(BOUND);
        store.beforeNextPublication(() -> {
            Manifest planned = ManifestIO.read(local, VersionResolver.latest(local));
            StagedWrite merge = OverlayCompactor.mergeOverlays(
                    local, planned, 0, IntStream.range(0, BOUND).toArray(), allocator, FileWriterOptions.defaults());
            OverlayCompactor.commit(local, planned, 0, merge, Map.of(), CommitOptions.defaults());
        });
        CommitOutcome outcome = committer.commit(checkpoint(BOUND + 1));

        assertThat(outcome.conflicts()).isEqualTo(1);
        Manifest m = latestManifest();
        assertThat(m.version()).isEqualTo(outcome.version());
        // The compactor's one overlay plus the checkpoint's: within the bound, no merge needed any more.
        assertThat(m.fragment(0).orElseThrow().overlays()).hasSize(2);
        assertThat(TransactionStore.readForVersion(store, m.version()).operation())
                .isInstanceOf(Operation.DataOverlay.class);
        assertVersion(m.version(), model);
        assertNoUnreferencedOverlayFiles();
    }

    /**
     * The compactor planned a merge of fragment 0's overlays; the sink's commit merges them first:
     * the compactor's commit is refused as a retryable conflict (the overlays it read were
     * replaced), and the table keeps the sink's values.
     */
    @Test
    void aCompactorMergeLandingSecondIsRefused() throws IOException {
        CheckpointCommitter committer = committer();
        for (int cp = 1; cp <= BOUND; cp++) {
            committer.commit(checkpoint(cp));
        }
        Manifest planned = latestManifest();
        StagedWrite merge = OverlayCompactor.mergeOverlays(
                local, planned, 0, IntStream.range(0, BOUND).toArray(), allocator, FileWriterOptions.defaults());
        CommitOutcome outcome = committer.commit(checkpoint(BOUND + 1));
        assertThat(latestManifest().fragment(0).orElseThrow().overlays()).hasSize(1);
        assertThat(TransactionStore.readForVersion(store, outcome.version()).operation())
                .isInstanceOf(Operation.Merge.class);

        assertThatThrownBy(() -> OverlayCompactor.commit(local, planned, 0, merge, Map.of(), CommitOptions.defaults()))
                .isInstanceOf(CommitConflictException.class)
                .satisfies(e ->
                        assertThat(((CommitConflictException) e).isRetryable()).isTrue());
        assertThat(latestManifest().version()).isEqualTo(outcome.version());
        assertVersion(outcome.version(), model);
    }

    /** Checkpoint {@code cp}: {@code age := cp * 100 + offset} at offsets cp % 10 and (cp + 3) % 10 of fragment 0. */
    private CheckpointCommit checkpoint(int cp) throws IOException {
        return new CheckpointCommit(
                USER,
                "job",
                cp,
                1,
                List.of(),
                List.of(ageOverlay(0, cp, new long[] {cp % 10, (cp + 3) % 10})),
                List.of(),
                0,
                2,
                0);
    }

    /** An overlay of {@code age} on {@code fragment} at {@code offsets} (ascending after sorting), applied to the model. */
    private TargetedOverlay ageOverlay(long fragment, int cp, long[] offsets) throws IOException {
        long[] sorted = offsets.clone();
        java.util.Arrays.sort(sorted);
        Manifest m = latestManifest();
        int field = m.schema().fieldByPath("age").orElseThrow().id();
        Schema schema = new Schema(List.of(UsersTable.SCHEMA.findField("age")));
        long[] rowAddresses = new long[sorted.length];
        try (OverlayWriter w = OverlayWriter.create(store, m, fragment, new int[] {field}, allocator);
                VectorSchemaRoot values = VectorSchemaRoot.create(schema, allocator)) {
            IntVector age = (IntVector) values.getVector(0);
            age.allocateNew(sorted.length);
            for (int i = 0; i < sorted.length; i++) {
                rowAddresses[i] = RowAddress.of(fragment, sorted[i]);
                int value = cp * 100 + (int) sorted[i];
                age.set(i, value);
                long key = keyAt(rowAddresses[i]);
                model.computeIfPresent(key, (k, r) -> new Row(r.name(), value, r.score()));
            }
            values.setRowCount(sorted.length);
            w.write(rowAddresses, values);
            return new TargetedOverlay(RowTarget.committed(fragment), w.finish().orElseThrow());
        }
    }

    /** An overlay of {@code name} on {@code fragment} at {@code offset}, applied to the model. */
    private TargetedOverlay nameOverlay(long fragment, int cp, long offset) throws IOException {
        Manifest m = latestManifest();
        int field = m.schema().fieldByPath("name").orElseThrow().id();
        Schema schema = new Schema(List.of(UsersTable.SCHEMA.findField("name")));
        String value = "cp-" + cp;
        try (OverlayWriter w = OverlayWriter.create(store, m, fragment, new int[] {field}, allocator);
                VectorSchemaRoot values = VectorSchemaRoot.create(schema, allocator)) {
            VarCharVector name = (VarCharVector) values.getVector(0);
            name.allocateNew();
            name.setSafe(0, value.getBytes(StandardCharsets.UTF_8));
            values.setRowCount(1);
            long address = RowAddress.of(fragment, offset);
            w.write(new long[] {address}, values);
            model.computeIfPresent(keyAt(address), (k, r) -> new Row(value, r.age(), r.score()));
            return new TargetedOverlay(RowTarget.committed(fragment), w.finish().orElseThrow());
        }
    }

    /** New rows with keys {@code from..to} (NULL cells), written as a sink writer does, added to the model. */
    private List<Fragment> append(long from, long to) throws IOException {
        try (Dataset ds = Dataset.open(store, allocator);
                FragmentWriter w = new FragmentWriter(
                        store,
                        ds.schema(),
                        FileVersion.parse(ds.manifest().dataFormat().version()),
                        1000,
                        allocator,
                        FileWriterOptions.defaults());
                VectorSchemaRoot batch = VectorSchemaRoot.create(UsersTable.SCHEMA, allocator)) {
            batch.allocateNew();
            BigIntVector id = (BigIntVector) batch.getVector("id");
            int n = 0;
            for (long k = from; k <= to; k++) {
                id.setSafe(n, k);
                batch.getVector("name").setNull(n);
                batch.getVector("age").setNull(n);
                batch.getVector("score").setNull(n);
                model.put(k, new Row(null, null, null));
                n++;
            }
            batch.setRowCount(n);
            w.write(batch);
            return w.finish();
        }
    }

    private long keyAt(long rowAddress) {
        return addresses.entrySet().stream()
                .filter(e -> e.getValue() == rowAddress)
                .findFirst()
                .orElseThrow()
                .getKey();
    }

    private Manifest latestManifest() throws IOException {
        return ManifestIO.read(store, VersionResolver.latest(store));
    }

    /** Version {@code version}: no fragment above the bound, and every row as {@code expected}. */
    private void assertVersion(long version, TreeMap<Long, Row> expected) throws IOException {
        try (Dataset latest = Dataset.open(store, allocator);
                Dataset ds = latest.checkoutVersion(version)) {
            for (Fragment f : ds.manifest().fragments()) {
                assertThat(f.overlays())
                        .as("overlays of fragment %s in version %s", f.id(), version)
                        .hasSizeLessThanOrEqualTo(BOUND);
                long previous = 0;
                for (DataOverlayFile o : f.overlays()) {
                    assertThat(o.committedVersion()).isBetween(previous, version);
                    previous = o.committedVersion();
                }
            }
            assertThat(UsersTable.read(ds)).as("version %s", version).isEqualTo(expected);
        }
    }

    /** Every overlay file in data/ belongs to the latest version (lost attempts' merged files were discarded). */
    private void assertNoUnreferencedOverlayFiles() throws IOException {
        Manifest m = latestManifest();
        List<String> referenced = new ArrayList<>();
        for (long v = 1; v <= m.version(); v++) {
            Manifest at = ManifestIO.read(store, VersionResolver.version(store, v));
            for (Fragment f : at.fragments()) {
                f.files().forEach(d -> referenced.add(d.path()));
                f.overlays().forEach(o -> referenced.add(o.dataFile().path()));
            }
        }
        try (var files = java.nio.file.Files.list(dir.resolve("data"))) {
            assertThat(files.map(p -> p.getFileName().toString()).toList()).allMatch(referenced::contains);
        }
    }
}
