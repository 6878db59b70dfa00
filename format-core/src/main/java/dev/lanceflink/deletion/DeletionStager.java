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
 * before), and a fragment whose rows would all be deleted is removed instead. Offsets that are
 * already deleted change nothing (no file is written for such a fragment). The caller commits the
 * result (e.g. {@code Operation.Delete}) or, giving up, deletes {@link Staged#writtenPaths()}.
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
    public static Staged stage(ObjectStore store, TableFiles files, Map<Long, Fragment> fragments, long readVersion,
            Map<Long, ? extends RoaringBitmap> offsets) throws IOException {
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
                DeletionVector old = current == null ? DeletionVector.EMPTY : DeletionFiles.read(files, f.id(), current);
                DeletionVector merged = old.union(DeletionVector.of(e.getValue()));
                if (merged.equals(old)) {
                    continue;
                }
                if (merged.coversAll(f.physicalRows())) {
                    removed.add(f.id());
                    continue;
                }
                DeletionFile file = DeletionFiles.write(store, f.id(), readVersion, merged,
                        current == null ? null : current.type());
                written.add(file.rootRelativePath(f.id()));
                updated.put(f.id(), f.withDeletionFile(file));
            }
        } catch (IOException | RuntimeException ex) {
            for (String p : written) {
                try {
                    store.delete(p);
                } catch (IOException | RuntimeException ignored) {
                    // unreferenced; table cleanup removes it later
                }
            }
            throw ex;
        }
        return new Staged(updated, removed, written);
    }
}
