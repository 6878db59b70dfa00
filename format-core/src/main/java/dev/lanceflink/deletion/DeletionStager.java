package dev.lanceflink.deletion;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.table.DeletionFile;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.TableFiles;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.roaringbitmap.RoaringBitmap;

/**
 * Stages row deletions without committing them: per fragment, the offsets to delete are merged
 * with the fragment's current deletion vector into a new deletion file (same file type as
 * before), and a fragment whose rows would all be deleted is removed instead (except a new
 * fragment of a rewrite, {@link #stageRewritten}). Offsets that are already deleted change
 * nothing (no file is written for such a fragment). The caller commits the result (e.g.
 * {@code Operation.Delete}) or, giving up, deletes {@link Staged#writtenPaths()}.
 *
 * <p>Every writer of deletion files goes through here (deletes, updates, the checkpoint
 * committer, the rebase of a Delete/Update over concurrent deletions, deletions of fragments
 * appended in the same commit, deletions a compaction carries onto its new fragments), so the
 * merge rule, the file type choice and the removal of emptied fragments are decided once.
 */
public final class DeletionStager {
    private DeletionStager() {}

    /**
     * What the deletions change.
     *
     * @param updated the fragments that get a new deletion file, by id, in the order given
     * @param removed ids of the fragments whose rows are all deleted
     * @param writtenPaths the new deletion files, relative to the store root
     */
    public record Staged(Map<Long, Fragment> updated, List<Long> removed, List<String> writtenPaths) {
        /** No row deleted that was not already. */
        public static final Staged NOTHING = new Staged(Map.of(), List.of(), List.of());

        public Staged {
            updated = Collections.unmodifiableMap(new LinkedHashMap<>(updated));
            removed = List.copyOf(removed);
            writtenPaths = List.copyOf(writtenPaths);
        }

        /** True if any row is deleted that was not already. */
        public boolean deletesRows() {
            return !updated.isEmpty() || !removed.isEmpty();
        }
    }

    /**
     * @param store where new deletion files are written (the table root)
     * @param files where current deletion files are read (they may live under another base path)
     * @param fragments the table's fragments by id; every key of {@code offsets} must be one
     * @param readVersion the version the deletions are made against (new files are named after it)
     * @param offsets per fragment id, the physical offsets to delete (not modified)
     * @throws IllegalArgumentException naming a fragment that {@code fragments} lacks
     */
    public static Staged stage(
            ObjectStore store,
            TableFiles files,
            Map<Long, Fragment> fragments,
            long readVersion,
            Map<Long, ? extends RoaringBitmap> offsets)
            throws IOException {
        requireNonNull(store, "store is null");
        requireNonNull(files, "files is null");
        requireNonNull(fragments, "fragments is null");
        requireNonNull(offsets, "offsets is null");
        Map<Long, Fragment> updated = new LinkedHashMap<>();
        List<Long> removed = new ArrayList<>();
        List<String> written = new ArrayList<>();
        try {
            for (Map.Entry<Long, ? extends RoaringBitmap> e : offsets.entrySet()) {
                Fragment f = fragments.get(e.getKey());
                if (f == null) {
                    throw new IllegalArgumentException("Deletions name fragment " + e.getKey() + ", which version "
                            + readVersion + " of " + store.rootUri() + " does not have");
                }
                DeletionFile current = f.deletionFile();
                DeletionVector old =
                        current == null ? DeletionVector.EMPTY : DeletionFiles.read(files, f.id(), current);
                Staged one = stageFragment(store, f, old, DeletionVector.of(e.getValue()), readVersion);
                updated.putAll(one.updated());
                removed.addAll(one.removed());
                written.addAll(one.writtenPaths());
            }
        } catch (IOException | RuntimeException ex) {
            discard(store, written);
            throw ex;
        }
        return new Staged(updated, removed, written);
    }

    /**
     * Merges {@code deleted} into the deletion vector of one fragment whose current vector the
     * caller has already read (e.g. to check it for conflicts): writes the union as a new deletion
     * file of the same type as the fragment's current one, or removes the fragment when the union
     * covers all its rows, or changes nothing when every offset is already deleted.
     *
     * @param fragment the fragment as it is in the version the result is committed on
     * @param current its deletion vector as stored in {@code fragment.deletionFile()} (EMPTY if none)
     * @param readVersion the version new deletion files are named after
     */
    public static Staged stageFragment(
            ObjectStore store, Fragment fragment, DeletionVector current, DeletionVector deleted, long readVersion)
            throws IOException {
        return merge(store, fragment, current, deleted, readVersion, true);
    }

    /**
     * The one merge rule; {@code removeEmptied} says whether a fragment whose rows would all be
     * deleted is removed (every caller but a rewrite's new fragments) or kept with a deletion file
     * covering all its rows.
     */
    private static Staged merge(
            ObjectStore store,
            Fragment fragment,
            DeletionVector current,
            DeletionVector deleted,
            long readVersion,
            boolean removeEmptied)
            throws IOException {
        requireNonNull(store, "store is null");
        requireNonNull(fragment, "fragment is null");
        requireNonNull(current, "current is null");
        requireNonNull(deleted, "deleted is null");
        DeletionVector merged = current.union(deleted);
        if (merged.equals(current)) {
            return Staged.NOTHING;
        }
        if (removeEmptied && merged.coversAll(fragment.physicalRows())) {
            return new Staged(Map.of(), List.of(fragment.id()), List.of());
        }
        DeletionFile previous = fragment.deletionFile();
        DeletionFile file = DeletionFiles.write(
                store, fragment.id(), readVersion, merged, previous == null ? null : previous.type());
        return new Staged(
                Map.of(fragment.id(), fragment.withDeletionFile(file)),
                List.of(),
                List.of(file.rootRelativePath(fragment.id())));
    }

    /**
     * Deletions of rows of a fragment written for the same commit (not in any manifest yet, its id
     * already fixed because the deletion file is named after it): the same rules as for a
     * committed fragment, starting from no deletions.
     *
     * @throws IllegalArgumentException if {@code fresh} already has a deletion file
     */
    public static Staged stageFresh(ObjectStore store, Fragment fresh, RoaringBitmap deleted, long readVersion)
            throws IOException {
        requireFresh(fresh, deleted);
        return merge(store, fresh, DeletionVector.EMPTY, DeletionVector.of(deleted), readVersion, true);
    }

    /**
     * Deletions carried onto a new fragment of a rewrite group (a compaction rebased over
     * concurrent deletions): the rules of {@link #stageFresh}, except that a fragment whose rows
     * are all deleted is kept, with a deletion file covering every row, instead of removed. A
     * rewrite group's new fragments must hold every row the group moved, because the row moves
     * (and so the relocation of overlays and deletions) are derived from them.
     *
     * @throws IllegalArgumentException if {@code fresh} already has a deletion file
     */
    public static Staged stageRewritten(ObjectStore store, Fragment fresh, RoaringBitmap deleted, long readVersion)
            throws IOException {
        requireFresh(fresh, deleted);
        return merge(store, fresh, DeletionVector.EMPTY, DeletionVector.of(deleted), readVersion, false);
    }

    private static void requireFresh(Fragment fresh, RoaringBitmap deleted) {
        requireNonNull(fresh, "fresh is null");
        requireNonNull(deleted, "deleted is null");
        if (fresh.deletionFile() != null) {
            throw new IllegalArgumentException("Fragment " + fresh.id() + " is not fresh: it already has deletion file "
                    + fresh.deletionFile().fileName(fresh.id()) + "; stage its deletions with stage() or"
                    + " stageFragment(), which merge with the current vector");
        }
    }

    /** Deletes staged deletion files, best effort: unreferenced files are garbage either way. */
    public static void discard(ObjectStore store, List<String> writtenPaths) {
        for (String p : writtenPaths) {
            try {
                store.delete(p);
            } catch (IOException | RuntimeException ignored) {
                // unreferenced; table cleanup removes it later
            }
        }
    }
}
