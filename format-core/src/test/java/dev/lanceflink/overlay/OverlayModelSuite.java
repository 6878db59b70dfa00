package dev.lanceflink.overlay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanceflink.compact.OverlayCompactor;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.file.writer.FileWriterOptions;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.io.StoreBackedSuite;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.FeatureFlags;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.txn.CommitOptions;
import dev.lanceflink.update.OverlayUpdate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;

/**
 * Seeded random operations (append, delete, dense updates, sparse overlays, several overlays of
 * one fragment in one commit, row-rewriting updates, overlay merges, folds) against an in-memory
 * reference table. After every commit the latest version must read exactly as the model (scan
 * and take); at the end every version is read again and compared with its snapshot. One long
 * sequence builds up deep overlay stacks; thousands of short ones on tiny tables reach the edge
 * cases ({@link OverlayModelTest}, in memory only: they test the table logic, not the store).
 *
 * <p>The long sequence runs locally as {@link OverlayModelTest} and on S3 as s3-store's
 * {@code S3OverlayModelTest}.
 */
public abstract class OverlayModelSuite extends StoreBackedSuite {
    /** Operations per run; raise with -Dlf.overlayModelOps=3000 for a longer soak (about 0.2 s each on 2 cores). */
    private static final int OPERATIONS = Integer.getInteger("lf.overlayModelOps", 400);

    private static final FileWriterOptions FILE_OPTIONS = FileWriterOptions.defaults();

    /** One fragment of the model: the physical rows (deleted ones stay, marked). */
    private static final class ModelFragment {
        final List<Integer> k = new ArrayList<>();
        final List<Long> a = new ArrayList<>();
        final List<String> s = new ArrayList<>();
        final List<Boolean> deleted = new ArrayList<>();

        int size() {
            return k.size();
        }
    }

    private Random random;
    private final Map<Long, ModelFragment> model = new LinkedHashMap<>();
    /** Version → expected rows, of the sequence run last. */
    protected final Map<Long, Map<Long, List<Object>>> snapshots = new HashMap<>();

    private int nextKey;
    private int maxAppendRows;

    /**
     * Operations of the long sequence. A remote backend may run fewer: the sequence checks the
     * latest version after every commit and re-reads every version at the end, so its cost grows
     * much faster than its length, and its purpose there is to exercise every kind of commit
     * against that store, not depth (which the local run covers).
     */
    protected int longSequenceOperations() {
        return OPERATIONS;
    }

    /** Seed of the long sequence; a shorter sequence needs one that still reaches every kind of commit. */
    protected long longSequenceSeed() {
        return 20261129L;
    }

    @Test
    void randomOperationsMatchTheModelAtEveryVersion() throws Exception {
        int operations = longSequenceOperations();
        try (BufferAllocator allocator = new RootAllocator()) {
            Map<String, Integer> counts =
                    runSequence(newStore(), allocator, longSequenceSeed(), 12, 12, operations, 30);
            assertThat(counts).containsKeys("append", "delete", "dense", "sparse", "rewriteRows", "merge", "fold");
            assertThat(counts.get("merge")).isGreaterThan(operations / 40);
            assertThat(counts.get("fold")).isGreaterThan(operations / 40);
        }
    }

    /**
     * Creates a table of {@code initialRows} rows ({@code rowsPerFile} per fragment), runs
     * {@code operations} random operations checking the latest version after each commit, then
     * reads every version again. Returns how many commits of each kind happened.
     */
    protected final Map<String, Integer> runSequence(
            ObjectStore store,
            BufferAllocator allocator,
            long seed,
            int initialRows,
            int rowsPerFile,
            int operations,
            int maxAppend)
            throws Exception {
        random = new Random(seed);
        model.clear();
        snapshots.clear();
        maxAppendRows = maxAppend;
        try (VectorSchemaRoot first = SmallTable.rows(allocator, 0, initialRows)) {
            Dataset.write(
                    store,
                    allocator,
                    List.of(first),
                    SmallTable.SCHEMA,
                    WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(rowsPerFile));
        }
        nextKey = initialRows;
        Dataset ds = Dataset.open(store, allocator);
        try {
            int k = 0;
            for (Fragment f : ds.manifest().fragments()) {
                ModelFragment mf = new ModelFragment();
                for (int i = 0; i < f.physicalRows(); i++, k++) {
                    addRow(mf, k, 10L * k, "s" + k);
                }
                model.put(f.id(), mf);
            }
            assertThat(k).isEqualTo(initialRows);
            check(ds);
            Map<String, Integer> counts = new TreeMap<>();
            for (int op = 0; op < operations; op++) {
                int dice = random.nextInt(100);
                String kind;
                Dataset next;
                if (dice < 10 || model.isEmpty()) {
                    kind = "append";
                    next = append(ds, allocator);
                } else if (dice < 22) {
                    kind = "delete";
                    next = delete(ds);
                } else if (dice < 50) {
                    kind = "dense";
                    next = denseUpdate(ds, allocator);
                } else if (dice < 70) {
                    kind = "sparse";
                    next = sparseOverlays(ds, store, allocator);
                } else if (dice < 75) {
                    kind = "rewriteRows";
                    next = rewriteRows(ds, allocator);
                } else if (dice < 90) {
                    kind = "merge";
                    next = merge(ds, store, allocator);
                } else {
                    kind = "fold";
                    next = fold(ds, store, allocator);
                }
                if (next != ds) {
                    counts.merge(kind, 1, Integer::sum);
                    ds.close();
                    ds = next;
                    check(ds);
                }
            }
            // Every version still reads as it did.
            for (Map.Entry<Long, Map<Long, List<Object>>> e : snapshots.entrySet()) {
                try (Dataset old = ds.checkoutVersion(e.getKey())) {
                    assertThat(OverlayTestSupport.rows(old, List.of("k", "a", "s")))
                            .as("version %d", e.getKey())
                            .isEqualTo(e.getValue());
                }
            }
            return counts;
        } finally {
            ds.close();
        }
    }

    private void addRow(ModelFragment f, int k, Long a, String s) {
        f.k.add(k);
        f.a.add(a);
        f.s.add(s);
        f.deleted.add(false);
    }

    private Map<Long, List<Object>> expected() {
        Map<Long, List<Object>> out = new TreeMap<>();
        for (Map.Entry<Long, ModelFragment> e : model.entrySet()) {
            ModelFragment f = e.getValue();
            for (int i = 0; i < f.size(); i++) {
                if (!f.deleted.get(i)) {
                    out.put(e.getKey() << 32 | i, Arrays.asList(f.k.get(i), f.a.get(i), f.s.get(i)));
                }
            }
        }
        return out;
    }

    private void check(Dataset ds) throws Exception {
        Manifest m = ds.manifest();
        Map<Long, List<Object>> want = expected();
        assertThat(OverlayTestSupport.rows(ds, List.of("k", "a", "s")))
                .as("version %d", m.version())
                .isEqualTo(want);
        OverlayOrder.check(m);
        boolean any = m.fragments().stream().anyMatch(f -> !f.overlays().isEmpty());
        assertThat((m.readerFeatureFlags() & FeatureFlags.UNSTABLE_DATA_OVERLAY_FILES) != 0)
                .isEqualTo(any);
        assertThat((m.writerFeatureFlags() & FeatureFlags.UNSTABLE_DATA_OVERLAY_FILES) != 0)
                .isEqualTo(any);
        assertThat(m.fragments().stream().map(Fragment::id).toList())
                .containsExactlyInAnyOrderElementsOf(model.keySet());
        // take() of a few random live rows, in random order.
        List<Long> live = new ArrayList<>(want.keySet());
        if (!live.isEmpty()) {
            long[] pick = new long[Math.min(5, live.size())];
            java.util.Collections.shuffle(live, random);
            for (int i = 0; i < pick.length; i++) {
                pick[i] = live.get(i);
            }
            try (VectorSchemaRoot t = ds.take(pick, List.of("a", "s"))) {
                for (int i = 0; i < pick.length; i++) {
                    assertThat(Arrays.asList(
                                    OverlayTestSupport.plain(t.getVector("a"), i),
                                    OverlayTestSupport.plain(t.getVector("s"), i)))
                            .isEqualTo(want.get(pick[i]).subList(1, 3));
                }
            }
        }
        snapshots.put(m.version(), want);
    }

    private Long randomLong() {
        return random.nextInt(10) == 0 ? null : (long) random.nextInt(1_000_000);
    }

    private String randomString() {
        return random.nextInt(10) == 0 ? null : "v" + random.nextInt(100_000);
    }

    private Dataset append(Dataset ds, BufferAllocator allocator) throws Exception {
        int n = 1 + random.nextInt(maxAppendRows);
        Dataset next;
        try (VectorSchemaRoot r = SmallTable.rows(allocator, nextKey, n)) {
            next = ds.append(List.of(r), WriteParams.of(WriteMode.APPEND));
        }
        ModelFragment f = new ModelFragment();
        for (int i = 0; i < n; i++) {
            addRow(f, nextKey + i, 10L * (nextKey + i), "s" + (nextKey + i));
        }
        nextKey += n;
        model.put(newFragmentIds(next).get(0), f);
        return next;
    }

    private List<Long> newFragmentIds(Dataset next) {
        List<Long> out = new ArrayList<>();
        for (Fragment f : next.manifest().fragments()) {
            if (!model.containsKey(f.id())) {
                out.add(f.id());
            }
        }
        return out;
    }

    /** Random live row addresses, ascending, at most {@code max}, from {@code fragmentId} or all fragments if -1. */
    private long[] liveRows(long fragmentId, int max) {
        List<Long> live = new ArrayList<>();
        for (Map.Entry<Long, ModelFragment> e : model.entrySet()) {
            if (fragmentId >= 0 && e.getKey() != fragmentId) {
                continue;
            }
            for (int i = 0; i < e.getValue().size(); i++) {
                if (!e.getValue().deleted.get(i)) {
                    live.add(e.getKey() << 32 | i);
                }
            }
        }
        java.util.Collections.shuffle(live, random);
        int n = Math.min(live.size(), 1 + random.nextInt(max));
        return live.subList(0, n).stream().mapToLong(Long::longValue).toArray();
    }

    private long randomFragment() {
        List<Long> ids = new ArrayList<>(model.keySet());
        return ids.get(random.nextInt(ids.size()));
    }

    private Dataset delete(Dataset ds) throws Exception {
        long[] rows = liveRows(randomFragment(), 6);
        if (rows.length == 0) {
            return ds;
        }
        Dataset next = ds.deleteRows(rows);
        for (long a : rows) {
            model.get(a >>> 32).deleted.set((int) (a & 0xFFFFFFFFL), true);
        }
        model.entrySet().removeIf(e -> e.getValue().deleted.stream().allMatch(d -> d));
        return next;
    }

    private Dataset denseUpdate(Dataset ds, BufferAllocator allocator) throws Exception {
        long[] rows = liveRows(-1, 25);
        if (rows.length == 0) {
            return ds;
        }
        int which = 1 + random.nextInt(3); // 1 = a, 2 = s, 3 = both
        List<FieldVector> vectors = new ArrayList<>();
        Long[] as = new Long[rows.length];
        String[] ss = new String[rows.length];
        for (int i = 0; i < rows.length; i++) {
            as[i] = randomLong();
            ss[i] = randomString();
        }
        if ((which & 1) != 0) {
            vectors.add(SmallTable.longs(allocator, "a", as));
        }
        if ((which & 2) != 0) {
            vectors.add(SmallTable.strings(allocator, "s", ss));
        }
        Dataset next;
        try (VectorSchemaRoot r = SmallTable.root(vectors.toArray(new FieldVector[0]))) {
            next = ds.update(rows, r);
        }
        for (int i = 0; i < rows.length; i++) {
            ModelFragment f = model.get(rows[i] >>> 32);
            int o = (int) (rows[i] & 0xFFFFFFFFL);
            if ((which & 1) != 0) {
                f.a.set(o, as[i]);
            }
            if ((which & 2) != 0) {
                f.s.set(o, ss[i]);
            }
        }
        return next;
    }

    /** One or two sparse overlays of one fragment in one commit; offsets may be deleted rows (inert). */
    private Dataset sparseOverlays(Dataset ds, ObjectStore store, BufferAllocator allocator) throws Exception {
        long fragmentId = randomFragment();
        ModelFragment mf = model.get(fragmentId);
        int overlays = 1 + random.nextInt(2);
        List<DataOverlayFile> written = new ArrayList<>();
        List<String> paths = new ArrayList<>();
        List<Runnable> apply = new ArrayList<>();
        for (int n = 0; n < overlays; n++) {
            try (OverlayWriter w =
                    OverlayWriter.create(store, ds.manifest(), fragmentId, new int[] {1, 2}, allocator, FILE_OPTIONS)) {
                for (int field = 1; field <= 2; field++) {
                    List<Integer> offsets = new ArrayList<>();
                    for (int i = 0; i < mf.size(); i++) {
                        if (random.nextInt(4) == 0) {
                            offsets.add(i);
                        }
                    }
                    long[] addresses = offsets.stream()
                            .mapToLong(o -> fragmentId << 32 | o)
                            .toArray();
                    if (field == 1) {
                        Long[] vals = new Long[offsets.size()];
                        for (int i = 0; i < vals.length; i++) {
                            vals[i] = randomLong();
                        }
                        try (BigIntVector v = SmallTable.longs(allocator, "a", vals)) {
                            w.writeField(1, addresses, v);
                        }
                        apply.add(() -> {
                            for (int i = 0; i < vals.length; i++) {
                                mf.a.set(offsets.get(i), vals[i]);
                            }
                        });
                    } else {
                        String[] vals = new String[offsets.size()];
                        for (int i = 0; i < vals.length; i++) {
                            vals[i] = randomString();
                        }
                        try (VarCharVector v = SmallTable.strings(allocator, "s", vals)) {
                            w.writeField(2, addresses, v);
                        }
                        apply.add(() -> {
                            for (int i = 0; i < vals.length; i++) {
                                mf.s.set(offsets.get(i), vals[i]);
                            }
                        });
                    }
                }
                w.finish().ifPresent(written::add);
                w.writtenPath().ifPresent(paths::add);
            }
        }
        if (written.isEmpty()) {
            return ds;
        }
        StagedWrite staged = new StagedWrite(OverlayCommits.operation(Map.of(fragmentId, written)), paths);
        Manifest m = OverlayCommits.commit(store, ds.version(), staged, Map.of(), CommitOptions.defaults());
        apply.forEach(Runnable::run); // in write order: the later overlay of the commit wins
        return ds.checkoutVersion(m.version());
    }

    private Dataset rewriteRows(Dataset ds, BufferAllocator allocator) throws Exception {
        long[] rows = liveRows(-1, 8);
        if (rows.length == 0) {
            return ds;
        }
        Long[] as = new Long[rows.length];
        for (int i = 0; i < rows.length; i++) {
            as[i] = randomLong();
        }
        Dataset next;
        try (VectorSchemaRoot r = SmallTable.root(SmallTable.longs(allocator, "a", as))) {
            next = ds.update(rows, r, OverlayUpdate.Mode.REWRITE_ROWS, Map.of(), CommitOptions.defaults());
        }
        Integer[] order = new Integer[rows.length];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (x, y) -> Long.compare(rows[x], rows[y]));
        ModelFragment moved = new ModelFragment();
        for (int i : order) {
            ModelFragment f = model.get(rows[i] >>> 32);
            int o = (int) (rows[i] & 0xFFFFFFFFL);
            addRow(moved, f.k.get(o), as[i], f.s.get(o));
            f.deleted.set(o, true);
        }
        model.entrySet().removeIf(e -> e.getValue().deleted.stream().allMatch(d -> d));
        model.put(newFragmentIds(next).get(0), moved);
        return next;
    }

    private Dataset merge(Dataset ds, ObjectStore store, BufferAllocator allocator) throws Exception {
        List<Fragment> candidates = ds.manifest().fragments().stream()
                .filter(f -> f.overlays().size() >= 2)
                .toList();
        if (candidates.isEmpty()) {
            return ds;
        }
        Fragment f = candidates.get(random.nextInt(candidates.size()));
        int from = random.nextInt(f.overlays().size() - 1);
        int to = from + 1 + random.nextInt(f.overlays().size() - from - 1);
        int[] run = new int[to - from + 1];
        for (int i = 0; i < run.length; i++) {
            run[i] = from + i;
        }
        long maxVersion = f.overlays().get(to).committedVersion();
        StagedWrite staged = OverlayCompactor.mergeOverlays(store, ds.manifest(), f.id(), run, allocator, FILE_OPTIONS);
        Manifest m = OverlayCompactor.commit(store, ds.manifest(), f.id(), staged, Map.of(), CommitOptions.defaults());
        Fragment after = m.fragment(f.id()).orElseThrow();
        assertThat(after.overlays()).hasSize(f.overlays().size() - run.length + 1);
        assertThat(after.overlays().get(from).committedVersion()).isEqualTo(maxVersion);
        assertThat(after.files()).isEqualTo(f.files());
        return ds.checkoutVersion(m.version());
    }

    private Dataset fold(Dataset ds, ObjectStore store, BufferAllocator allocator) throws Exception {
        List<Fragment> candidates = ds.manifest().fragments().stream()
                .filter(f -> !f.overlays().isEmpty())
                .toList();
        if (candidates.isEmpty()) {
            return ds;
        }
        Fragment f = candidates.get(random.nextInt(candidates.size()));
        StagedWrite staged = OverlayCompactor.fold(store, ds.manifest(), f.id(), allocator, FILE_OPTIONS);
        Manifest m = OverlayCompactor.commit(store, ds.manifest(), f.id(), staged, Map.of(), CommitOptions.defaults());
        Fragment after = m.fragment(f.id()).orElseThrow();
        assertThat(after.overlays()).isEmpty();
        assertThat(after.deletionFile()).isEqualTo(f.deletionFile());
        return ds.checkoutVersion(m.version());
    }
}
