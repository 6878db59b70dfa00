package dev.lanceflink.committer.core;

import dev.lanceflink.deletion.DeletionFiles;
import dev.lanceflink.deletion.DeletionVector;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.DeletionFile;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.TableFiles;
import dev.lanceflink.txn.Operation;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.roaringbitmap.RoaringBitmap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds the operation of one {@link CommitStep} against the table version it will commit on.
 * Built anew for every attempt, because targets are resolved and deletion vectors merged against
 * that version: a retry after a conflict sees the other writer's changes.
 */
final class StepOperations {
    private static final Logger LOG = LoggerFactory.getLogger(StepOperations.class);

    /** The operation and the files written to build it (deleted again if it is certainly not committed). */
    record Built(Optional<Operation> operation, List<String> writtenFiles, long droppedTargets) {}

    private StepOperations() {}

    static Built build(CommitStep step, CheckpointCommit commit, Manifest latest, ObjectStore store,
            ReplacedContentCheck replacedContent)
            throws IOException {
        return switch (step) {
            case APPEND -> commit.rewriteRows() ? movedRows(commit, latest, store, replacedContent)
                    : new Built(Optional.of(commit.overwrite() ? overwrite(commit, latest)
                            : new Operation.Append(commit.fragments())), List.of(), 0);
            case DELETE -> deletions(commit, commit.deletionsOf(step), latest, store, replacedContent);
            case OVERLAY -> overlays(commit, latest, store, replacedContent);
        };
    }

    /**
     * The checkpoint's fragments replace every fragment of the table. What a Lance user expects
     * to survive does: the schema is the latest version's, so field ids, the primary-key and other
     * field metadata and the schema metadata stay; the table config and table metadata are kept
     * by the Overwrite itself (no config upserts). Lance drops every index on an Overwrite (they
     * cover the old rows only), and the new manifest's feature flags are computed from the new
     * fragments, so deletion files and overlays of the old content no longer count.
     */
    private static Operation.Overwrite overwrite(CheckpointCommit commit, Manifest latest) {
        return new Operation.Overwrite(commit.fragments(), latest.schema());
    }

    /**
     * The append step of a rewrite-rows checkpoint: the old versions of the rows are deleted and
     * their new versions appended in one version, a row-moving {@code Update} as Lance's own
     * upsert commits it. Without deletions that is a plain {@code Append}, without new rows a plain
     * {@code Delete}.
     */
    private static Built movedRows(CheckpointCommit commit, Manifest latest, ObjectStore store,
            ReplacedContentCheck replacedContent) throws IOException {
        Built deleted = deletions(commit, commit.deletionsOf(CommitStep.APPEND), latest, store, replacedContent);
        if (commit.fragments().isEmpty()) {
            return deleted;
        }
        if (deleted.operation().isEmpty()) {
            return new Built(Optional.of(new Operation.Append(commit.fragments())), deleted.writtenFiles(),
                    deleted.droppedTargets());
        }
        Operation.Delete d = (Operation.Delete) deleted.operation().get();
        int[] fields = latest.schema().fields().stream().mapToInt(f -> f.id()).toArray();
        return new Built(Optional.of(Operation.Update.movedRows(d.deletedFragmentIds(), d.updatedFragments(),
                commit.fragments(), fields)), deleted.writtenFiles(), deleted.droppedTargets());
    }

    private static Map<Long, Fragment> byId(Manifest m) {
        Map<Long, Fragment> out = new HashMap<>();
        for (Fragment f : m.fragments()) {
            out.put(f.id(), f);
        }
        return out;
    }

    /**
     * One new deletion file per target fragment: its current deletion vector plus the rows to
     * delete. A target the table no longer has was removed entirely (every row deleted) by
     * someone else: its rows are gone already.
     */
    private static Built deletions(CheckpointCommit commit, List<TargetedDeletion> deletions, Manifest latest,
            ObjectStore store, ReplacedContentCheck replacedContent) throws IOException {
        if (deletions.stream().anyMatch(d -> !d.target().isPending())) {
            replacedContent.check(commit, latest, "The deletions of " + commit.describe());
        }
        Map<Long, Fragment> fragments = byId(latest);
        Map<Long, Fragment> pending = PendingFiles.index(latest);
        Map<Long, RoaringBitmap> byFragment = new LinkedHashMap<>();
        Map<Long, Fragment> targets = new HashMap<>();
        long dropped = 0;
        for (TargetedDeletion d : deletions) {
            Optional<Fragment> f = d.target().resolve(fragments, pending);
            if (f.isEmpty()) {
                requireCommittedIfPending(d.target(), commit, "deletion");
                FragmentRemoval.rowsWereDeleted(store, d.target().fragmentId(), latest,
                        "A deletion of " + commit.describe());
                dropped++;
                continue;
            }
            long last = d.offsets().isEmpty() ? -1 : Integer.toUnsignedLong(d.offsets().last());
            if (last >= f.get().physicalRows()) {
                throw new CheckpointCommitException("The deletions of " + commit.describe() + " name offset " + last
                        + " of fragment " + f.get().id() + " (" + d.target() + "), which has only "
                        + f.get().physicalRows() + " rows. The sink's key map does not match the table (was the table"
                        + " rewritten or overwritten by another writer?); restart the sink without state to rebuild it");
            }
            targets.put(f.get().id(), f.get());
            byFragment.computeIfAbsent(f.get().id(), k -> new RoaringBitmap()).or(d.offsets());
        }
        List<Fragment> updated = new ArrayList<>();
        List<Long> removed = new ArrayList<>();
        List<String> written = new ArrayList<>();
        // Current deletion files are read where the manifest says (a clone's source keeps some);
        // the new ones are written to the table root.
        try (TableFiles files = TableFiles.of(store, latest)) {
            for (Map.Entry<Long, RoaringBitmap> e : byFragment.entrySet()) {
                Fragment f = targets.get(e.getKey());
                DeletionFile current = f.deletionFile();
                DeletionVector old = current == null ? DeletionVector.EMPTY : DeletionFiles.read(files, f.id(), current);
                DeletionVector merged = old.union(DeletionVector.of(e.getValue()));
                if (merged.equals(old)) {
                    continue;
                }
                if (merged.coversAll(f.physicalRows())) {
                    removed.add(f.id());
                    continue;
                }
                DeletionFile file = DeletionFiles.write(store, f.id(), latest.version(), merged,
                        current == null ? null : current.type());
                written.add(file.rootRelativePath(f.id()));
                updated.add(f.withDeletionFile(file));
            }
        } catch (IOException | RuntimeException ex) {
            StagedFiles.deleteQuietly(store, written);
            throw ex;
        }
        if (dropped > 0) {
            LOG.info("{}: {} deletion targets are no longer in version {} of {} (removed by another writer); their"
                    + " rows are gone already", commit.describe(), dropped, latest.version(), store.rootUri());
        }
        if (updated.isEmpty() && removed.isEmpty()) {
            return new Built(Optional.empty(), written, dropped);
        }
        return new Built(Optional.of(new Operation.Delete(updated, removed, "")), written, dropped);
    }

    /**
     * Overlays grouped by resolved fragment, in the order the writers produced them. An overlay
     * whose fragment the table no longer has is dropped: every row it covers was deleted, and a
     * deletion wins over an overlay.
     */
    private static Built overlays(CheckpointCommit commit, Manifest latest, ObjectStore store,
            ReplacedContentCheck replacedContent) throws IOException {
        if (commit.overlays().stream().anyMatch(o -> !o.target().isPending())) {
            replacedContent.check(commit, latest, "The overlays of " + commit.describe());
        }
        Map<Long, Fragment> fragments = byId(latest);
        Map<Long, Fragment> pending = PendingFiles.index(latest);
        Map<Long, List<DataOverlayFile>> groups = new LinkedHashMap<>();
        long dropped = 0;
        for (TargetedOverlay o : commit.overlays()) {
            Optional<Fragment> f = o.target().resolve(fragments, pending);
            if (f.isEmpty()) {
                requireCommittedIfPending(o.target(), commit, "overlay");
                FragmentRemoval.rowsWereDeleted(store, o.target().fragmentId(), latest,
                        "Overlay " + o.overlay().dataFile().path() + " of " + commit.describe());
                dropped++;
                continue;
            }
            RoaringBitmap covered = o.overlay().coverage().union();
            long last = covered.isEmpty() ? -1 : Integer.toUnsignedLong(covered.last());
            if (last >= f.get().physicalRows()) {
                throw new CheckpointCommitException("Overlay " + o.overlay().dataFile().path() + " of " + commit.describe()
                        + " covers offset " + last + " of fragment " + f.get().id() + " (" + o.target() + "), which has"
                        + " only " + f.get().physicalRows() + " rows. The sink's key map does not match the table (was"
                        + " the table rewritten or overwritten by another writer?); restart the sink without state");
            }
            groups.computeIfAbsent(f.get().id(), k -> new ArrayList<>()).add(o.overlay());
        }
        if (dropped > 0) {
            LOG.info("{}: {} overlay files target fragments that version {} of {} no longer has (all their rows were"
                    + " deleted by another writer); deletions win, so they are not attached", commit.describe(), dropped,
                    latest.version(), store.rootUri());
        }
        if (groups.isEmpty()) {
            return new Built(Optional.empty(), List.of(), dropped);
        }
        List<Operation.OverlayGroup> list = new ArrayList<>();
        groups.forEach((id, files) -> list.add(new Operation.OverlayGroup(id, files)));
        return new Built(Optional.of(new Operation.DataOverlay(list)), List.of(), dropped);
    }

    /**
     * A pending target must be committed by now: its fragment was appended by an earlier
     * checkpoint of this sink (committed first, in checkpoint order) or by this one's append step.
     * If the table has no fragment with that file, it was rewritten (compaction) — or the table
     * was replaced — and the rows cannot be found by file any more.
     */
    private static void requireCommittedIfPending(RowTarget target, CheckpointCommit commit, String what)
            throws CheckpointCommitException {
        if (target.isPending()) {
            throw new CheckpointCommitException("A " + what + " of " + commit.describe() + " targets " + target
                    + ", which this sink appended earlier, but no fragment of the table holds that file any more (it"
                    + " was rewritten by compaction, or the table was overwritten). The sink's key map is stale: stop"
                    + " the job and start it without state so that the map is rebuilt from the table");
        }
    }
}
