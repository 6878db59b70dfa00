package dev.lanceflink.committer.core;

import dev.lanceflink.compact.OverlayCompactor;
import dev.lanceflink.deletion.DeletionStager;
import dev.lanceflink.file.writer.FileWriterOptions;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.overlay.OverlayRelocator;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.TableFiles;
import dev.lanceflink.txn.Operation;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.roaringbitmap.RoaringBitmap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds the one operation that commits a checkpoint's changes (those of the given
 * {@link CommitStep}s) as one Lance version, against the version it will commit on. Built anew for
 * every attempt, because targets are resolved and deletion vectors merged against that version: a
 * retry after a conflict sees the other writer's changes.
 *
 * <p>The operation is the plainest Lance operation that holds the changes, so that Lance readers
 * and writers see what they would write themselves: new fragments alone are an {@code Append},
 * deletions alone a {@code Delete}, overlays alone a {@code DataOverlay}, and anything mixed one
 * {@code Update} (REWRITE_ROWS) whose updated fragments carry their merged deletion vectors and
 * their new, staged overlays, and whose new fragments are the checkpoint's new rows, as Lance's
 * merge-insert commits an upsert. A reader therefore never sees a checkpoint's new rows without
 * the updates and deletions that came with them.
 *
 * <p>Targets in the checkpoint's own new fragments (when the aggregator merged a late checkpoint's
 * results into this one) are applied to those fragments directly: their overlays are staged on
 * them, and their deletions need a deletion file, which is named after the fragment id, so then
 * the new fragments get their ids here (the commit fails with a retryable conflict rather than
 * renumber them if another writer takes those ids first).
 */
final class CheckpointOperation {
    private static final Logger LOG = LoggerFactory.getLogger(CheckpointOperation.class);

    /** The operation and the files written to build it (deleted again if it is certainly not committed). */
    record Built(
            Optional<Operation> operation,
            List<String> writtenFiles,
            long droppedTargets,
            List<OverlayCompactor.BoundMerge> boundMerges,
            long boundMergeMillis) {
        Built(Optional<Operation> operation, List<String> writtenFiles, long droppedTargets) {
            this(operation, writtenFiles, droppedTargets, List.of(), 0);
        }
    }

    private CheckpointOperation() {}

    /** The changes of {@code steps} of {@code commit} as one operation on top of {@code latest}. */
    static Built build(
            CheckpointCommit commit,
            Set<CommitStep> steps,
            Manifest latest,
            ObjectStore store,
            ReplacedContentCheck replacedContent,
            MovedRows movedRows,
            int maxOverlaysPerFragment)
            throws IOException {
        List<Fragment> fresh = steps.contains(CommitStep.APPEND) ? commit.fragments() : List.of();
        if (steps.contains(CommitStep.APPEND) && commit.overwrite()) {
            // The checkpoint's fragments replace every fragment: the schema is the latest version's
            // (field ids, primary key and metadata stay); config and table metadata are kept by the
            // Overwrite itself. Lance drops every index on an Overwrite, and feature flags follow
            // the new fragments. An overwrite carries no deletions or overlays (CheckpointCommit).
            return new Built(Optional.of(new Operation.Overwrite(fresh, latest.schema())), List.of(), 0);
        }
        List<TargetedDeletion> deletions = new ArrayList<>();
        for (CommitStep s : steps) {
            deletions.addAll(commit.deletionsOf(s));
        }
        List<TargetedOverlay> overlays = steps.contains(CommitStep.OVERLAY) ? commit.overlays() : List.of();
        if (deletions.stream().anyMatch(d -> !d.target().isPending())) {
            replacedContent.check(commit, latest, "The deletions of " + commit.describe());
        } else if (overlays.stream().anyMatch(o -> !o.target().isPending())) {
            replacedContent.check(commit, latest, "The overlays of " + commit.describe());
        }
        Changes changes = new Changes(commit, latest, store, fresh, movedRows);
        try {
            for (TargetedDeletion d : deletions) {
                changes.delete(d);
            }
            for (TargetedOverlay o : overlays) {
                changes.overlay(o);
            }
        } catch (IOException | RuntimeException e) {
            StagedFiles.deleteQuietly(store, changes.relocatedFiles);
            throw e;
        }
        Built built = changes.build(steps);
        return maxOverlaysPerFragment > 0 && built.operation().isPresent()
                ? bounded(commit, latest, store, built, maxOverlaysPerFragment)
                : built;
    }

    /**
     * The built operation, or, if it would leave a fragment with more than {@code maxOverlays}
     * overlays, one {@code Merge} in which every such fragment's overlays (its own included) are
     * merged into one: the same changes in the same single version (OverlayCompactor#boundOverlays).
     * Built on {@code latest} like everything else here, so a lost race (maintenance or the
     * standalone job merged the fragment meanwhile) builds it again on what they committed.
     */
    private static Built bounded(
            CheckpointCommit commit, Manifest latest, ObjectStore store, Built built, int maxOverlays)
            throws IOException {
        long start = System.nanoTime();
        OverlayCompactor.Bounded b;
        try (BufferAllocator allocator = new RootAllocator()) {
            b = OverlayCompactor.boundOverlays(
                    store, latest, built.operation().get(), maxOverlays, allocator, FileWriterOptions.defaults());
        } catch (IOException | RuntimeException e) {
            StagedFiles.deleteQuietly(store, built.writtenFiles());
            throw e;
        }
        b.skipped()
                .forEach((id, why) -> LOG.warn(
                        "{}: fragment {} of {} carries more than {} overlays after version {}, but they cannot be"
                                + " merged in the checkpoint's commit ({}); maintenance or a fold must reduce them",
                        commit.describe(),
                        id,
                        store.rootUri(),
                        maxOverlays,
                        latest.version() + 1,
                        why));
        if (b.operation().isEmpty()) {
            return built;
        }
        List<String> written = new ArrayList<>(built.writtenFiles());
        written.addAll(b.writtenPaths());
        return new Built(
                Optional.of(b.operation().get()),
                written,
                built.droppedTargets(),
                b.merged(),
                (System.nanoTime() - start) / 1_000_000L);
    }

    /**
     * An overlay aimed at a committed fragment: at the fragment it was written for, or
     * ({@code moved}) following rows a compaction moved.
     */
    private record PendingOverlay(OverlayRelocator.Source source, boolean moved) {}

    /** The changes gathered per fragment, then turned into one operation. */
    private static final class Changes {
        private final CheckpointCommit commit;
        private final Manifest latest;
        private final ObjectStore store;
        private final List<Fragment> fresh;
        private final Map<Long, Fragment> fragments = new HashMap<>();
        private final Map<Long, Fragment> pending;
        /** File id of the first data file → index in {@link #fresh}. */
        private final Map<Long, Integer> ownFiles = new HashMap<>();

        private final Map<Long, RoaringBitmap> deleted = new LinkedHashMap<>();
        private final Map<Long, List<DataOverlayFile>> overlaid = new LinkedHashMap<>();
        private final Map<Integer, RoaringBitmap> deletedFresh = new LinkedHashMap<>();
        private final Map<Integer, List<DataOverlayFile>> overlaidFresh = new LinkedHashMap<>();
        private final MovedRows movedRows;
        /** The overlays on committed fragments, in the commit's order, until {@link #attachOverlays}. */
        private final List<PendingOverlay> overlays = new ArrayList<>();
        /** Overlay files written to follow rows a compaction moved. */
        final List<String> relocatedFiles = new ArrayList<>();

        private long dropped;
        private long followed;

        Changes(
                CheckpointCommit commit,
                Manifest latest,
                ObjectStore store,
                List<Fragment> fresh,
                MovedRows movedRows) {
            this.commit = commit;
            this.latest = latest;
            this.store = store;
            this.fresh = fresh;
            this.movedRows = movedRows;
            for (Fragment f : latest.fragments()) {
                fragments.put(f.id(), f);
            }
            this.pending = PendingFiles.index(latest);
            for (int i = 0; i < fresh.size(); i++) {
                if (!fresh.get(i).files().isEmpty()) {
                    ownFiles.put(
                            PendingFiles.fileIdOf(fresh.get(i).files().get(0).path()), i);
                }
            }
        }

        void delete(TargetedDeletion d) throws IOException {
            Integer own = ownFragment(d.target());
            if (own != null) {
                requireWithin(
                        d.offsets(),
                        fresh.get(own).physicalRows(),
                        "The deletions of " + commit.describe(),
                        d.target() + ", one of the checkpoint's new fragments");
                deletedFresh.computeIfAbsent(own, k -> new RoaringBitmap()).or(d.offsets());
                return;
            }
            Optional<Fragment> f = d.target().resolve(fragments, pending);
            if (f.isEmpty()) {
                Optional<MovedRows.Destination> moved =
                        follow(d.target(), d.offsets(), "deletion", "A deletion of " + commit.describe());
                moved.ifPresent(m -> m.offsets()
                        .forEach((id, offsets) -> deleted.computeIfAbsent(id, k -> new RoaringBitmap())
                                .or(offsets)));
                return;
            }
            requireWithin(
                    d.offsets(),
                    f.get().physicalRows(),
                    "The deletions of " + commit.describe(),
                    "fragment " + f.get().id() + " (" + d.target() + ")");
            deleted.computeIfAbsent(f.get().id(), k -> new RoaringBitmap()).or(d.offsets());
        }

        void overlay(TargetedOverlay o) throws IOException {
            String what = "Overlay " + o.overlay().dataFile().path() + " of " + commit.describe();
            RoaringBitmap covered = o.overlay().coverage().union();
            DataOverlayFile staged = o.overlay().withCommittedVersion(0);
            Integer own = ownFragment(o.target());
            if (own != null) {
                requireWithin(
                        covered,
                        fresh.get(own).physicalRows(),
                        what,
                        o.target() + ", one of the checkpoint's new fragments");
                overlaidFresh.computeIfAbsent(own, k -> new ArrayList<>()).add(staged);
                return;
            }
            Optional<Fragment> f = o.target().resolve(fragments, pending);
            if (f.isEmpty()) {
                Optional<MovedRows.Destination> moved = follow(o.target(), covered, "overlay", what);
                if (moved.isPresent() && !moved.get().offsets().isEmpty()) {
                    overlays.add(new PendingOverlay(
                            new OverlayRelocator.Source(
                                    movedFrom(o.target()),
                                    staged,
                                    moved.get().from(),
                                    moved.get().offsets()),
                            true));
                }
                return;
            }
            requireWithin(
                    covered, f.get().physicalRows(), what, "fragment " + f.get().id() + " (" + o.target() + ")");
            long id = f.get().id();
            overlays.add(new PendingOverlay(
                    new OverlayRelocator.Source(id, staged, Map.of(id, covered), Map.of(id, covered)), false));
        }

        /**
         * Attaches the gathered overlays to their fragments. A fragment that receives cells of
         * rows a compaction moved gets one overlay for everything this commit sets in it: the
         * relocated cells of every moved overlay and the overlays aimed at it directly, merged
         * (the newer overlay winning per cell, as in the fragment). One relocated overlay per
         * moved overlay would add one overlay per compacted fragment and writer to the new
         * fragment in a single commit, far past the bound maintenance keeps. Fragments without
         * moved cells keep the writers' overlays as they are (no rewrite).
         */
        private void attachOverlays() throws IOException {
            Set<Long> merged = new HashSet<>();
            for (PendingOverlay p : overlays) {
                if (p.moved()) {
                    p.source().from().forEach((id, rows) -> {
                        if (!rows.isEmpty()) {
                            merged.add(id);
                        }
                    });
                }
            }
            List<OverlayRelocator.Source> sources = new ArrayList<>();
            for (PendingOverlay p : overlays) {
                long id = p.source().fragmentId();
                if (!p.moved() && !merged.contains(id)) {
                    overlaid.computeIfAbsent(id, k -> new ArrayList<>())
                            .add(p.source().overlay());
                } else {
                    sources.add(p.source());
                }
            }
            if (sources.isEmpty()) {
                return;
            }
            try (BufferAllocator allocator = new RootAllocator()) {
                OverlayRelocator.Relocated r = OverlayRelocator.relocate(store, latest, sources, allocator);
                relocatedFiles.addAll(r.writtenPaths());
                r.overlays()
                        .forEach((id, ov) -> overlaid.computeIfAbsent(id, k -> new ArrayList<>())
                                .add(ov));
            }
        }

        /** The fragment id the target's rows were in when a compaction moved them. */
        private long movedFrom(RowTarget target) throws IOException {
            return target.isPending()
                    ? movedRows.fragmentThatHeld(target.pendingFileId(), latest).orElseThrow()
                    : target.fragmentId();
        }

        /**
         * Where the rows of a target that {@link #latest} no longer has went: moved by compactions
         * (then the changes follow them), or all deleted by someone else (then they are gone and a
         * deletion wins: empty destination, the change is dropped). Anything else fails the commit:
         * the rows cannot be found.
         */
        private Optional<MovedRows.Destination> follow(
                RowTarget target, RoaringBitmap offsets, String kind, String what) throws IOException {
            OptionalLong from = target.isPending()
                    ? movedRows.fragmentThatHeld(target.pendingFileId(), latest)
                    : OptionalLong.of(target.fragmentId());
            if (from.isEmpty()) {
                throw CheckpointCommitException.permanent("A " + kind + " of " + commit.describe() + " targets "
                        + target + ", which this sink appended earlier, but no fragment of the table holds that file"
                        + " any more and no readable version shows where it went (the table was overwritten, or its"
                        + " history was cleaned up). The sink's key map is stale: stop the job and start it without"
                        + " state so that the map is rebuilt from the table");
            }
            Optional<MovedRows.Destination> moved = movedRows.follow(from.getAsLong(), offsets, latest);
            if (moved.isEmpty()) {
                // throws unless deleted
                FragmentRemoval.rowsWereDeleted(movedRows.history(), from.getAsLong(), latest, what);
                dropped += offsets.getLongCardinality();
                return Optional.empty();
            }
            followed += offsets.getLongCardinality() - moved.get().gone();
            dropped += moved.get().gone();
            return moved;
        }

        /** The index in {@link #fresh} of a pending target that is one of this checkpoint's new fragments. */
        private Integer ownFragment(RowTarget target) {
            return target.isPending() && !pending.containsKey(target.pendingFileId())
                    ? ownFiles.get(target.pendingFileId())
                    : null;
        }

        private static void requireWithin(RoaringBitmap offsets, long physicalRows, String what, String where)
                throws CheckpointCommitException {
            long last = offsets.isEmpty() ? -1 : Integer.toUnsignedLong(offsets.last());
            if (last >= physicalRows) {
                throw CheckpointCommitException.permanent(
                        what + " names offset " + last + " of " + where + ", which has"
                                + " only " + physicalRows
                                + " rows. The sink's key map does not match the table (was the table"
                                + " rewritten or overwritten by another writer?); restart the sink without state to rebuild it");
            }
        }

        Built build(Set<CommitStep> steps) throws IOException {
            List<Fragment> updated = new ArrayList<>();
            List<Long> removed = new ArrayList<>();
            List<String> written = new ArrayList<>();
            List<Fragment> added = new ArrayList<>();
            boolean deletesRows = false;
            try (TableFiles files = TableFiles.of(store, latest)) {
                attachOverlays();
                Map<Long, Fragment> changed = new LinkedHashMap<>();
                // Current deletion files are read where the manifest says (a clone's source keeps
                // some); the new ones are written to the table root.
                DeletionStager.Staged staged = DeletionStager.stage(store, files, fragments, latest.version(), deleted);
                written.addAll(staged.writtenPaths());
                removed.addAll(staged.removed());
                changed.putAll(staged.updated());
                deletesRows = staged.deletesRows();
                for (Map.Entry<Long, List<DataOverlayFile>> e : overlaid.entrySet()) {
                    if (removed.contains(e.getKey())) {
                        dropped += e.getValue().size(); // every row deleted: a deletion wins
                        continue;
                    }
                    Fragment f = changed.getOrDefault(e.getKey(), fragments.get(e.getKey()));
                    changed.put(e.getKey(), f.withOverlaysAppended(e.getValue()));
                }
                updated.addAll(changed.values());
                // The checkpoint's own new fragments, with their ids fixed here if one needs a
                // deletion file (named after the id).
                long nextId = latest.nextFragmentId();
                boolean pinIds = !deletedFresh.isEmpty();
                for (int i = 0; i < fresh.size(); i++) {
                    Fragment f = pinIds ? fresh.get(i).withId(nextId++) : fresh.get(i);
                    RoaringBitmap rows = deletedFresh.get(i);
                    if (rows != null) {
                        DeletionStager.Staged deletions = DeletionStager.stageFresh(store, f, rows, latest.version());
                        written.addAll(deletions.writtenPaths());
                        if (!deletions.removed().isEmpty()) {
                            dropped += overlaidFresh.getOrDefault(i, List.of()).size();
                            continue; // every new row deleted again: the fragment is never added
                        }
                        f = deletions.updated().getOrDefault(f.id(), f);
                    }
                    List<DataOverlayFile> own = overlaidFresh.get(i);
                    added.add(own == null ? f : f.withOverlaysAppended(own));
                }
            } catch (IOException | RuntimeException ex) {
                StagedFiles.deleteQuietly(store, written);
                StagedFiles.deleteQuietly(store, relocatedFiles);
                throw ex;
            }
            written.addAll(relocatedFiles);
            if (followed > 0) {
                LOG.info(
                        "{}: {} deletions or overlaid rows target rows that a compaction moved; they are applied at"
                                + " the rows' new addresses in version {} of {}",
                        commit.describe(),
                        followed,
                        latest.version(),
                        store.rootUri());
            }
            if (dropped > 0) {
                LOG.info(
                        "{}: {} deletions or overlays target rows that version {} of {} no longer has (removed by"
                                + " another writer, or deleted again in the same checkpoint); deletions win, so they are"
                                + " dropped",
                        commit.describe(),
                        dropped,
                        latest.version(),
                        store.rootUri());
            }
            return new Built(operation(updated, removed, added, deletesRows), written, dropped);
        }

        /** The plainest operation that holds the changes (see the class comment). */
        private Optional<Operation> operation(
                List<Fragment> updated, List<Long> removed, List<Fragment> added, boolean deletesRows) {
            boolean overlaysOnly = !deletesRows && removed.isEmpty() && !updated.isEmpty();
            boolean plainNew = added.stream()
                    .allMatch(f -> f.deletionFile() == null && f.overlays().isEmpty());
            if (updated.isEmpty() && removed.isEmpty()) {
                if (added.isEmpty()) {
                    return Optional.empty();
                }
                if (plainNew) {
                    return Optional.of(new Operation.Append(added));
                }
            } else if (added.isEmpty() && overlaysOnly) {
                List<Operation.OverlayGroup> groups = new ArrayList<>();
                for (Fragment f : updated) {
                    groups.add(new Operation.OverlayGroup(f.id(), overlaid.get(f.id())));
                }
                return Optional.of(new Operation.DataOverlay(groups));
            } else if (added.isEmpty()
                    && updated.stream().allMatch(f -> f.overlays().stream().noneMatch(DataOverlayFile::isStaged))) {
                return Optional.of(new Operation.Delete(updated, removed, ""));
            }
            if (commit.rewriteRows()) {
                int[] fields =
                        latest.schema().fields().stream().mapToInt(f -> f.id()).toArray();
                return Optional.of(Operation.Update.movedRows(removed, updated, added, fields));
            }
            return Optional.of(Operation.Update.rowsAndCells(removed, updated, added));
        }
    }
}
