package dev.lanceflink.txn;

import dev.lanceflink.deletion.DeletionFiles;
import dev.lanceflink.deletion.DeletionStager;
import dev.lanceflink.deletion.DeletionVector;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.DeletionFile;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.TableFiles;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.roaringbitmap.RoaringBitmap;

/**
 * Rebases the deletion vectors of a Delete or row-rewriting Update onto a newer version in which
 * another writer deleted rows of the same fragments (transactions.md §5.3).
 *
 * <p>Lance's own writer keeps the rows it deleted in memory; here they are recovered from the
 * files: rows this transaction deleted = its new deletion vector minus the vector of the version
 * it read. If another writer deleted any of the same rows, the commit is a retryable conflict
 * (both claim the same row, e.g. an update would duplicate it). Otherwise a new deletion file is
 * written holding the union, or the fragment is removed when every row is gone.
 */
final class DeletionRebaser {
    private DeletionRebaser() {}

    /**
     * @param base the manifest at {@code mine.readVersion()}
     * @param latest the manifest being committed on top of
     * @param written collects the deletion files written here (the committer deletes them if the
     *     commit fails)
     */
    static Transaction rebase(
            ObjectStore store,
            Transaction mine,
            Manifest base,
            Manifest latest,
            Set<Long> fragmentIds,
            List<String> written)
            throws IOException {
        List<Fragment> myUpdated = mine.operation() instanceof Operation.Delete d
                ? d.updatedFragments()
                : ((Operation.Update) mine.operation()).updatedFragments();
        List<Fragment> newUpdated = new ArrayList<>(myUpdated.size());
        List<Long> newlyRemoved = new ArrayList<>();
        // Each version's deletion files are found through its own base paths (a clone's source
        // keeps them, with a base_id); new deletion files are written to the table root.
        try (TableFiles baseFiles = TableFiles.of(store, base);
                TableFiles latestFiles = TableFiles.of(store, latest)) {
            for (Fragment my : myUpdated) {
                if (!fragmentIds.contains(my.id())) {
                    newUpdated.add(my);
                    continue;
                }
                Fragment cur = latest.fragment(my.id())
                        .orElseThrow(() -> new CommitConflictException(
                                "Fragment " + my.id() + " was removed concurrently (version " + latest.version() + ")",
                                true,
                                latest.version()));
                Fragment old = base.fragment(my.id())
                        .orElseThrow(() -> new IllegalStateException("Fragment "
                                + my.id() + " of transaction " + mine.uuid() + " does not exist in its read version "
                                + base.version()));
                DeletionVector myDv = load(latestFiles, my);
                DeletionVector baseDv = load(baseFiles, old);
                DeletionVector curDv = load(latestFiles, cur);
                RoaringBitmap affectedBits = myDv.toBitmap();
                affectedBits.andNot(baseDv.toBitmap());
                DeletionVector affected = DeletionVector.of(affectedBits);
                if (affected.intersects(curDv)) {
                    DeletionVector both = affected.intersection(curDv);
                    throw new CommitConflictException(
                            mine.operation().name() + " (transaction " + mine.uuid()
                                    + ") and a concurrent commit (version " + latest.version()
                                    + ") both deleted or moved "
                                    + both.cardinality() + " row(s) of fragment " + my.id() + ", first at offset "
                                    + Integer.toUnsignedString(both.toArray()[0]) + "; re-read the table and retry",
                            true,
                            latest.version());
                }
                // The union is merged and written (or the fragment removed) by the one stager of
                // deletion files, named after the version committed on.
                DeletionStager.Staged merged =
                        DeletionStager.stageFragment(store, cur, curDv, affected, latest.version());
                written.addAll(merged.writtenPaths());
                if (!merged.removed().isEmpty()) {
                    newlyRemoved.add(my.id());
                    continue;
                }
                // Nothing new deleted here (the transaction only attaches overlays to the fragment):
                // the latest deletion file stays.
                Fragment rebased = merged.updated().getOrDefault(my.id(), cur);
                // The overlays this transaction attaches (staged) go with the rebased fragment.
                List<DataOverlayFile> staged =
                        my.overlays().stream().filter(DataOverlayFile::isStaged).toList();
                newUpdated.add(rebased.withOverlaysAppended(staged));
            }
        }
        Operation op;
        if (mine.operation() instanceof Operation.Delete d) {
            List<Long> removed = new ArrayList<>(d.deletedFragmentIds());
            removed.addAll(newlyRemoved);
            op = new Operation.Delete(newUpdated, removed, d.predicate());
        } else {
            Operation.Update u = (Operation.Update) mine.operation();
            List<Long> removed = new ArrayList<>(u.removedFragmentIds());
            removed.addAll(newlyRemoved);
            op = new Operation.Update(
                    removed,
                    newUpdated,
                    u.newFragments(),
                    u.fieldsModified(),
                    u.fieldsForPreservingFragBitmap(),
                    u.mode(),
                    u.hasInsertedRowsFilter(),
                    u.hasCompactedSsTables(),
                    u.extras(),
                    u.newRowsOnly());
        }
        return mine.withOperation(op);
    }

    private static DeletionVector load(TableFiles files, Fragment f) throws IOException {
        DeletionFile file = f.deletionFile();
        return file == null ? DeletionVector.EMPTY : DeletionFiles.read(files, f.id(), file);
    }
}
