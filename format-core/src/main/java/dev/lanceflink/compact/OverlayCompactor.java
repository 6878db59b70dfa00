package dev.lanceflink.compact;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.file.FileVersion;
import dev.lanceflink.file.writer.FileWriteSummary;
import dev.lanceflink.file.writer.FileWriterOptions;
import dev.lanceflink.file.writer.LanceFileWriter;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.overlay.OverlayFields;
import dev.lanceflink.overlay.OverlayOrder;
import dev.lanceflink.overlay.OverlayResolver;
import dev.lanceflink.overlay.OverlayStager;
import dev.lanceflink.overlay.StagedWrite;
import dev.lanceflink.read.FragmentReader;
import dev.lanceflink.schema.LanceField;
import dev.lanceflink.schema.LanceSchema;
import dev.lanceflink.table.DataFile;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.TableFiles;
import dev.lanceflink.txn.CommitConflictException;
import dev.lanceflink.txn.CommitOptions;
import dev.lanceflink.txn.CommitPlan;
import dev.lanceflink.txn.ManifestBuilder;
import dev.lanceflink.txn.Operation;
import dev.lanceflink.txn.TableCommitter;
import dev.lanceflink.txn.TableHistory;
import dev.lanceflink.txn.Transaction;
import dev.lanceflink.write.DataFileNames;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.IntStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.roaringbitmap.PeekableIntIterator;
import org.roaringbitmap.RoaringBitmap;

/**
 * Compaction primitives for data overlay files (overlays.md §7). Both stage files and return the
 * operation to commit; commit it with {@link #commit}, which carries a compaction over concurrent
 * deletions and newer overlays of the compacted fragment ({@link #rebase}) and over nothing else.
 *
 * <ul>
 *   <li>{@link #mergeOverlays}: a run of overlays of one fragment, contiguous in
 *       {@code committed_version}, becomes one overlay holding every covered cell's post-image,
 *       stamped with the run's largest version. Base files are untouched. Committed as a
 *       {@code Merge} (complete fragment list, same schema), because no other operation can
 *       replace a fragment's overlay list.
 *   <li>{@link #fold}: the post-images of every overlaid column go into a new base file; the old
 *       columns are tombstoned and the overlays dropped. Committed as an {@code Update} in
 *       REWRITE_COLUMNS mode whose {@code fields_modified} are the folded fields, so every index
 *       on them stops covering the fragment in the same commit (its exclusion set disappears
 *       with the overlays).
 * </ul>
 */
public final class OverlayCompactor {
    /** Rows read and written per step, bounding memory. */
    static final int CHUNK_ROWS = 65_536;
    /**
     * Overlay files read at once before a merge or fold: a fragment a streaming sink updates every
     * checkpoint carries hundreds of small overlays, and read one after another each costs a round
     * trip to the store (tens of ms on an object store).
     */
    static final int PREFETCH_PARALLELISM = 8;

    private OverlayCompactor() {}

    /**
     * Merges the overlays at {@code positions} (indices into the fragment's overlay list, which is
     * ordered oldest first) into one.
     *
     * @throws IllegalArgumentException if fewer than two positions are given, a position does not
     *     exist, or the positions are not one contiguous run (merging v10 and v50 over v30 would
     *     promote v10's values above v30's)
     */
    public static StagedWrite mergeOverlays(
            ObjectStore store,
            Manifest manifest,
            long fragmentId,
            int[] positions,
            BufferAllocator allocator,
            FileWriterOptions fileOptions)
            throws IOException {
        requireNonNull(positions, "positions is null");
        Fragment fragment = requireFragment(manifest, fragmentId);
        OverlayOrder.check(fragment);
        List<DataOverlayFile> all = fragment.overlays();
        int[] p = positions.clone();
        Arrays.sort(p);
        if (p.length < 2) {
            throw new IllegalArgumentException("Merging overlays of fragment " + fragmentId + " needs at least two"
                    + " overlays, got positions " + Arrays.toString(positions));
        }
        for (int i = 0; i < p.length; i++) {
            if (p[i] < 0 || p[i] >= all.size()) {
                throw new IllegalArgumentException("Fragment " + fragmentId + " has " + all.size()
                        + " overlays; position " + p[i] + " does not exist");
            }
            if (i > 0 && p[i] != p[i - 1] + 1) {
                throw new IllegalArgumentException("Overlays " + Arrays.toString(p) + " of fragment " + fragmentId
                        + " are not contiguous in committed_version: overlay " + (p[i - 1] + 1) + " (committed_version "
                        + all.get(p[i - 1] + 1).committedVersion() + ") lies between committed_version "
                        + all.get(p[i - 1]).committedVersion() + " and "
                        + all.get(p[i]).committedVersion()
                        + "; merging around it would promote older values above it. Merge a contiguous run");
            }
        }
        List<DataOverlayFile> run = all.subList(p[0], p[p.length - 1] + 1);
        LanceSchema schema = manifest.schema();
        List<LanceField> fields = overlaidFields(schema, fragment, run, false);
        int[] ids = fields.stream().mapToInt(LanceField::id).toArray();
        OverlayStager.StagedOverlay merged;
        try (TableFiles files = TableFiles.of(store, manifest);
                OverlayStager.FieldStream out = OverlayStager.open(
                        store, manifest, OverlayStager.Target.fragment(fragmentId), ids, allocator, fileOptions);
                OverlayResolver resolver = new OverlayResolver(files, fragment, run, allocator)) {
            resolver.prefetch(fields, PREFETCH_PARALLELISM);
            for (LanceField f : fields) {
                RoaringBitmap union = new RoaringBitmap();
                for (DataOverlayFile o : run) {
                    int pos = OverlayFields.positionOf(o.dataFile(), f);
                    if (pos >= 0) {
                        union.or(o.coverage().bitmap(pos));
                    }
                }
                writeCovered(out, resolver, f, union, allocator);
            }
            merged = out.finish()
                    .orElseThrow(() -> new IllegalStateException("Overlays " + Arrays.toString(p) + " of fragment "
                            + fragmentId + " cover no cell; nothing to merge"));
        }
        String path = merged.writtenPath();
        DataOverlayFile stamped =
                merged.overlay().withCommittedVersion(run.get(run.size() - 1).committedVersion());
        List<DataOverlayFile> next = new ArrayList<>(all.subList(0, p[0]));
        next.add(stamped);
        next.addAll(all.subList(p[p.length - 1] + 1, all.size()));
        List<Fragment> fragments = new ArrayList<>();
        for (Fragment f : manifest.fragments()) {
            fragments.add(f.id() == fragmentId ? f.withOverlays(next) : f);
        }
        return new StagedWrite(new Operation.Merge(fragments, schema), List.of(path));
    }

    /**
     * A fragment whose overlays {@link #boundOverlays} merged into one.
     *
     * @param overlaysBefore the overlays the fragment would have carried after the commit
     * @param mergedBytes the size of the merged overlay's file
     */
    public record BoundMerge(long fragmentId, int overlaysBefore, long mergedBytes) {}

    /**
     * What {@link #boundOverlays} did.
     *
     * @param operation the {@code Merge} to commit instead of the given operation, or empty if no
     *     fragment had to be merged (then nothing was written)
     * @param merged the fragments merged
     * @param skipped fragments over the bound that could not be merged, with why (e.g. overlays
     *     of struct fields, which {@link #mergeOverlays} refuses)
     * @param writtenPaths the merged overlays' files (to discard if the Merge is certainly not
     *     committed)
     */
    public record Bounded(
            Optional<Operation.Merge> operation,
            List<BoundMerge> merged,
            Map<Long, String> skipped,
            List<String> writtenPaths) {}

    /**
     * The hard bound on overlays per fragment, applied where overlays are committed: {@code op}
     * committed on {@code latest} as one version, except that every fragment to which {@code op}
     * adds overlays and which would then carry more than {@code maxOverlays} gets all its overlays
     * (the existing ones and {@code op}'s) merged into one in the same version.
     *
     * <p>How: the manifest {@code op} would make ({@link ManifestBuilder}, version {@code
     * latest + 1}, with every overlay of {@code op} stamped with that version) is previewed; each
     * such fragment's overlays, a contiguous run that ends with the commit's own, are merged by
     * {@link #mergeOverlays}, which stamps the merged overlay with the run's largest
     * {@code committed_version}: the version being committed (overlays.md §7.1). The result is a
     * {@code Merge} holding that preview's complete fragment list with the merged fragments
     * swapped in, because no other operation can replace a fragment's overlay list; it carries all
     * of {@code op}'s changes (new fragments with their ids and row ids, deletion files, overlays),
     * so readers still see them in one version. Indices stay as they are (a Merge keeps them):
     * the merged overlay's version is above every index's, so its cells are excluded as {@code
     * op}'s own would have been.
     *
     * <p>The Merge is only valid as exactly version {@code latest + 1}: commit it through a
     * {@link CommitPlan}, building it again on a newer latest version.
     *
     * @param op an {@code Append}, {@code Delete}, {@code Update} or {@code DataOverlay}; any other
     *     operation is left alone (empty result)
     * @param maxOverlays overlays a fragment may carry after the commit, at least 1
     */
    public static Bounded boundOverlays(
            ObjectStore store,
            Manifest latest,
            Operation op,
            int maxOverlays,
            BufferAllocator allocator,
            FileWriterOptions fileOptions)
            throws IOException {
        if (maxOverlays < 1) {
            throw new IllegalArgumentException("maxOverlays must be at least 1, got " + maxOverlays);
        }
        Bounded none = new Bounded(Optional.empty(), List.of(), Map.of(), List.of());
        if (!mayExceed(latest, op, maxOverlays)) {
            return none;
        }
        Manifest next = ManifestBuilder.build(
                latest,
                Transaction.of(latest.version(), op),
                new ManifestBuilder.Options(
                        Instant.EPOCH, "bound-preview.txn", false, latest.dataFormat(), latest.usesStableRowIds()));
        Map<Long, Fragment> replaced = new HashMap<>();
        List<BoundMerge> merged = new ArrayList<>();
        Map<Long, String> skipped = new LinkedHashMap<>();
        List<String> written = new ArrayList<>();
        try {
            for (Fragment f : next.fragments()) {
                List<DataOverlayFile> overlays = f.overlays();
                if (overlays.size() <= maxOverlays
                        || overlays.get(overlays.size() - 1).committedVersion() != next.version()) {
                    continue; // within the bound, or not given an overlay by this commit
                }
                StagedWrite staged;
                try {
                    staged = mergeOverlays(
                            store,
                            next,
                            f.id(),
                            IntStream.range(0, overlays.size()).toArray(),
                            allocator,
                            fileOptions);
                } catch (IllegalArgumentException | IllegalStateException e) {
                    skipped.put(f.id(), e.getMessage());
                    continue;
                }
                written.addAll(staged.writtenPaths());
                Fragment after = stagedFragment(staged.operation(), f.id());
                replaced.put(f.id(), after);
                merged.add(new BoundMerge(
                        f.id(),
                        overlays.size(),
                        after.overlays().get(0).dataFile().fileSizeBytes()));
            }
        } catch (IOException | RuntimeException e) {
            StagedWrite.discard(store, written);
            throw e;
        }
        if (replaced.isEmpty()) {
            return new Bounded(Optional.empty(), List.of(), skipped, List.of());
        }
        List<Fragment> fragments = new ArrayList<>(next.fragments().size());
        for (Fragment f : next.fragments()) {
            fragments.add(replaced.getOrDefault(f.id(), f));
        }
        return new Bounded(Optional.of(new Operation.Merge(fragments, next.schema())), merged, skipped, written);
    }

    /**
     * Whether some fragment could carry more than {@code maxOverlays} overlays after {@code op}
     * (counted without building the next manifest, which most commits then need not).
     */
    private static boolean mayExceed(Manifest latest, Operation op, int maxOverlays) {
        Map<Long, Integer> added = new HashMap<>();
        List<Fragment> fresh = List.of();
        if (op instanceof Operation.DataOverlay o) {
            for (Operation.OverlayGroup g : o.groups()) {
                added.merge(g.fragmentId(), g.overlays().size(), Integer::sum);
            }
        } else if (op instanceof Operation.Update u) {
            for (Fragment f : u.updatedFragments()) {
                int staged = (int)
                        f.overlays().stream().filter(DataOverlayFile::isStaged).count();
                if (staged > 0) {
                    added.merge(f.id(), staged, Integer::sum);
                }
            }
            fresh = u.newFragments();
        } else if (op instanceof Operation.Append a) {
            fresh = a.fragments();
        } else if (!(op instanceof Operation.Delete)) {
            return false;
        }
        for (Fragment f : fresh) {
            if (f.overlays().size() > maxOverlays) {
                return true;
            }
        }
        for (Map.Entry<Long, Integer> e : added.entrySet()) {
            int existing =
                    latest.fragment(e.getKey()).map(f -> f.overlays().size()).orElse(0);
            if (existing + e.getValue() > maxOverlays) {
                return true;
            }
        }
        return false;
    }

    /**
     * Streams the run's post-image of {@code f} at every offset of {@code covered} into the
     * merged overlay, {@link #CHUNK_ROWS} cells at a time (offsets ascend, one value per cell).
     */
    private static void writeCovered(
            OverlayStager.FieldStream out,
            OverlayResolver resolver,
            LanceField f,
            RoaringBitmap covered,
            BufferAllocator allocator)
            throws IOException {
        PeekableIntIterator it = covered.getIntIterator();
        long[] offsets = new long[(int) Math.min(CHUNK_ROWS, covered.getLongCardinality())];
        while (it.hasNext()) {
            int n = 0;
            while (n < offsets.length && it.hasNext()) {
                offsets[n++] = Integer.toUnsignedLong(it.next());
            }
            long[] o = n == offsets.length ? offsets : Arrays.copyOf(offsets, n); // the resolver reads them all
            FieldVector nulls = f.toArrow().createVector(allocator);
            nulls.allocateNew();
            nulls.setValueCount(n); // every offset is covered by the run, so these are never used
            try (FieldVector values = resolver.resolve(f, o, nulls)) {
                out.add(f.id(), o, n, values);
            }
        }
    }

    /**
     * Folds every overlay of the fragment into a new base file (column rewrite; row addresses,
     * deletion vector and row ids unchanged).
     *
     * @throws IllegalArgumentException if the fragment has no overlays
     */
    public static StagedWrite fold(
            ObjectStore store,
            Manifest manifest,
            long fragmentId,
            BufferAllocator allocator,
            FileWriterOptions fileOptions)
            throws IOException {
        Fragment fragment = requireFragment(manifest, fragmentId);
        if (fragment.overlays().isEmpty()) {
            throw new IllegalArgumentException("Fragment " + fragmentId + " has no overlays to fold");
        }
        String format = manifest.dataFormat().version();
        LanceSchema schema = manifest.schema();
        List<LanceField> fields = overlaidFields(schema, fragment, fragment.overlays(), true);
        int[] modified = fields.stream()
                .flatMapToInt(f -> Arrays.stream(OverlayFields.subtreeIds(f)))
                .toArray();
        LanceSchema fileSchema = schema.projectIds(modified);
        String name = DataFileNames.newName();
        String path = "data/" + name;
        FileWriteSummary summary;
        try (TableFiles files = TableFiles.of(store, manifest);
                LanceFileWriter writer = LanceFileWriter.create(
                        store, path, fileSchema, FileVersion.parse(format), allocator, fileOptions);
                FragmentReader reader = new FragmentReader(files, fragment, allocator)) {
            reader.prefetchOverlays(fields, PREFETCH_PARALLELISM);
            long rows = fragment.physicalRows();
            for (long start = 0; start < rows; start += CHUNK_ROWS) {
                int n = (int) Math.min(CHUNK_ROWS, rows - start);
                long[] offsets = new long[n];
                for (int i = 0; i < n; i++) {
                    offsets[i] = start + i;
                }
                List<FieldVector> vectors = new ArrayList<>(fields.size());
                try {
                    for (LanceField f : fields) {
                        vectors.add(reader.read(f, offsets));
                    }
                    try (VectorSchemaRoot root = new VectorSchemaRoot(vectors)) {
                        vectors = List.of();
                        root.setRowCount(n);
                        writer.write(root);
                    }
                } finally {
                    vectors.forEach(FieldVector::close);
                }
            }
            summary = writer.finish();
        }
        try {
            List<DataFile> files = new ArrayList<>();
            for (DataFile old : fragment.files()) {
                files.add(old.withTombstoned(id -> Arrays.stream(modified).anyMatch(m -> m == id)));
            }
            files.add(new DataFile(
                    name,
                    summary.fieldIds(),
                    summary.columnIndices(),
                    summary.fileMajorVersion(),
                    summary.fileMinorVersion(),
                    summary.sizeBytes()));
            Fragment updated = fragment.withFiles(files).withOverlays(List.of());
            Operation.Update op = new Operation.Update(
                    List.of(),
                    List.of(updated),
                    List.of(),
                    modified,
                    new int[0],
                    Operation.UpdateMode.REWRITE_COLUMNS,
                    false,
                    false,
                    new byte[0]);
            return new StagedWrite(op, List.of(path));
        } catch (RuntimeException e) {
            StagedWrite.discard(store, List.of(path));
            throw e;
        }
    }

    /**
     * Commits a compaction planned on {@code planned} for {@code fragmentId}, carrying it over
     * concurrent changes of the fragment only where its result provably stays the same (see
     * {@link #rebase}), and never otherwise.
     *
     * <p>Why not a plain {@code TableCommitter.commit}: a fold is an {@code Update} in
     * REWRITE_COLUMNS mode, which Lance's conflict rules let pass a concurrent {@code DataOverlay}
     * and which then tombstones that overlay's slots, silently losing its values (the fold read the
     * fragment before the overlay existed). A merge carries the complete fragment list. So the
     * commit is a {@link CommitPlan}: each attempt of the commit loop requires the schema to be as
     * planned and the fragment to be rebasable on the latest version, re-targets the operation at
     * it and publishes exactly the next version (another writer getting there first makes the loop
     * check again).
     *
     * @throws CommitConflictException (retryable) if the fragment changed since {@code planned} in
     *     a way the compaction cannot be carried over: plan it again on the latest version; the
     *     staged files are then deleted (other failures keep them: the outcome of the publish may
     *     be unknown)
     */
    public static Manifest commit(
            ObjectStore store,
            Manifest planned,
            long fragmentId,
            StagedWrite staged,
            Map<String, String> properties,
            CommitOptions options)
            throws IOException {
        Fragment before = requireFragment(planned, fragmentId);
        CommitPlan plan = new CommitPlan() {
            @Override
            public long readVersion() {
                return planned.version();
            }

            @Override
            public Map<String, String> properties() {
                return withMode(properties, staged.operation());
            }

            @Override
            public Optional<Operation> build(Manifest latest) throws CommitConflictException {
                Fragment now = latest.fragment(fragmentId).orElse(null);
                Optional<Fragment> rebased = latest.schema().equals(planned.schema())
                        ? rebase(staged.operation(), before, now)
                        : Optional.empty();
                if (rebased.isEmpty()) {
                    throw new CommitConflictException(
                            "Fragment " + fragmentId + " (or the schema) changed between"
                                    + " version " + planned.version()
                                    + ", on which this overlay compaction was planned, and"
                                    + " version " + latest.version()
                                    + " in a way the compaction cannot be carried over ("
                                    + (now == null
                                            ? "the fragment is gone"
                                            : "its data files changed, overlays it compacted"
                                                    + " were replaced, or a newer overlay sets a folded field")
                                    + "); plan the compaction again on version " + latest.version(),
                            true,
                            latest.version());
                }
                return Optional.of(retarget(staged.operation(), latest, rebased.get()));
            }
        };
        try {
            return TableCommitter.commit(store, plan, new TableHistory(store), options)
                    .orElseThrow();
        } catch (CommitConflictException e) {
            staged.discard(store); // the plan is stale; its files will never be committed
            throw e;
        }
    }

    /**
     * The fragment a staged overlay compaction of {@code planned} must commit now that the
     * fragment is {@code latest}, or empty if the compaction has to be planned again.
     *
     * <p>The compaction read {@code planned}'s data files and overlays. It stays valid when those
     * are unchanged and everything else that happened since commutes with it:
     * <ul>
     *   <li>A concurrent {@code Delete} (or a row-moving {@code Update}) only replaced the
     *       deletion file: the merged or folded values are per physical offset and deletions win
     *       over them, so the newer deletion file (and the rest of {@code latest}: row ids, row
     *       version sequences) is kept. Writing back {@code planned} instead would revive the
     *       deleted rows.
     *   <li>A concurrent {@code DataOverlay} appended overlays after the ones compacted: their
     *       {@code committed_version} is above every compacted one, so they keep shadowing the
     *       compacted values. For a merge they stay after the merged overlay, in order; the merged
     *       run was contiguous and remains so (overlays.md §7.1). A fold carries them over only if
     *       none sets a folded field: the fold's {@code Update} tombstones the folded fields in every
     *       overlay of the fragment, which would drop those newer values (overlays.md §7.4).
     * </ul>
     * Anything else (fragment gone, data files changed, an overlay the compaction read removed or
     * rewritten) needs a new plan.
     *
     * @param staged the staged {@code Merge} (overlay merge) or REWRITE_COLUMNS {@code Update}
     *     (fold) of {@code planned}
     * @param latest the fragment in the version about to be committed on, or null if it is gone
     * @throws IllegalArgumentException if {@code staged} is not an overlay compaction of the fragment
     */
    public static Optional<Fragment> rebase(Operation staged, Fragment planned, Fragment latest) {
        Fragment result = stagedFragment(staged, planned.id());
        if (latest == null || !latest.files().equals(planned.files())) {
            return Optional.empty();
        }
        List<DataOverlayFile> read = planned.overlays();
        List<DataOverlayFile> now = latest.overlays();
        if (now.size() < read.size() || !now.subList(0, read.size()).equals(read)) {
            return Optional.empty();
        }
        List<DataOverlayFile> newer = now.subList(read.size(), now.size());
        if (staged instanceof Operation.Update fold) {
            int[] folded = fold.fieldsModified();
            for (DataOverlayFile o : newer) {
                for (int fid : o.dataFile().fields()) {
                    if (Arrays.stream(folded).anyMatch(m -> m == fid)) {
                        return Optional.empty();
                    }
                }
            }
            return Optional.of(latest.withFiles(result.files()).withOverlays(newer));
        }
        List<DataOverlayFile> overlays = new ArrayList<>(result.overlays());
        overlays.addAll(newer);
        return Optional.of(latest.withOverlays(overlays));
    }

    /** The fragment {@code fragmentId} as the staged compaction leaves it. */
    private static Fragment stagedFragment(Operation staged, long fragmentId) {
        List<Fragment> fragments;
        if (staged instanceof Operation.Merge m) {
            fragments = m.fragments();
        } else if (staged instanceof Operation.Update u && u.mode() == Operation.UpdateMode.REWRITE_COLUMNS) {
            fragments = u.updatedFragments();
        } else {
            throw new IllegalArgumentException("A staged " + staged.name() + " is not an overlay compaction (expected"
                    + " a Merge from mergeOverlays or a REWRITE_COLUMNS Update from fold)");
        }
        return fragments.stream()
                .filter(f -> f.id() == fragmentId)
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException(
                        "The staged " + staged.name() + " does not contain fragment " + fragmentId));
    }

    /**
     * The operation re-aimed at {@code latest} with {@code rebased} (from {@link #rebase}) as the
     * compacted fragment: a Merge takes the latest fragment list with it swapped in, a fold
     * updates it.
     */
    private static Operation retarget(Operation op, Manifest latest, Fragment rebased) {
        if (op instanceof Operation.Update u) {
            return new Operation.Update(
                    List.of(),
                    List.of(rebased),
                    List.of(),
                    u.fieldsModified(),
                    new int[0],
                    Operation.UpdateMode.REWRITE_COLUMNS,
                    false,
                    false,
                    new byte[0]);
        }
        List<Fragment> fragments = new ArrayList<>();
        for (Fragment f : latest.fragments()) {
            fragments.add(f.id() == rebased.id() ? rebased : f);
        }
        return new Operation.Merge(fragments, latest.schema());
    }

    /** {@code properties} plus the compaction mode, so conflict messages of other writers can name it. */
    private static Map<String, String> withMode(Map<String, String> properties, Operation staged) {
        if (properties.containsKey(Transaction.COMPACTION_MODE_PROPERTY)) {
            return properties;
        }
        Map<String, String> out = new LinkedHashMap<>(properties);
        out.put(
                Transaction.COMPACTION_MODE_PROPERTY,
                staged instanceof Operation.Merge
                        ? Transaction.COMPACTION_OVERLAY_MERGE
                        : Transaction.COMPACTION_OVERLAY_FOLD);
        return out;
    }

    /**
     * Top-level fields (schema order) that some overlay of {@code overlays} carries. Structs are
     * refused unless {@code structsAllowed}: a fold rewrites whole struct columns from resolved
     * reads, but a merged overlay would need per-leaf columns the overlay writer does not stage.
     */
    private static List<LanceField> overlaidFields(
            LanceSchema schema, Fragment fragment, List<DataOverlayFile> overlays, boolean structsAllowed) {
        List<LanceField> out = new ArrayList<>();
        for (LanceField f : schema.fields()) {
            for (DataOverlayFile o : overlays) {
                if (OverlayFields.positionOf(o.dataFile(), f) >= 0) {
                    if (f.isStruct() && !structsAllowed) {
                        throw new IllegalArgumentException("Fragment " + fragment.id() + ": overlay "
                                + o.dataFile().path() + " replaces values inside struct field '" + f.name()
                                + "'; merging struct overlays is not supported by this library (fold them instead)");
                    }
                    out.add(f);
                    break;
                }
            }
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("The overlays of fragment " + fragment.id() + " carry no field of the"
                    + " current schema (all slots are tombstones or dropped columns)");
        }
        return out;
    }

    private static Fragment requireFragment(Manifest manifest, long fragmentId) {
        return manifest.fragment(fragmentId)
                .orElseThrow(() -> new IllegalArgumentException(
                        "Version " + manifest.version() + " of the table has no fragment " + fragmentId));
    }
}
