package dev.lanceflink.flink.sink.upsert;

import dev.lanceflink.committer.core.FragmentRemoval;
import dev.lanceflink.committer.core.MovedRows;
import dev.lanceflink.committer.core.PendingFiles;
import dev.lanceflink.deletion.DeletionFiles;
import dev.lanceflink.deletion.DeletionVector;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.ManifestIO;
import dev.lanceflink.table.RowAddress;
import dev.lanceflink.table.TableFiles;
import dev.lanceflink.table.VersionResolver;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.roaringbitmap.RoaringBitmap;

/**
 * Tells whether a row the key map points at was deleted by another writer, against the latest
 * table version (read once per checkpoint, deletion vectors read once per fragment). An update
 * of such a row must not be written: the row is gone, and an update never resurrects it.
 */
final class DeletedRowCheck implements UncommittedKeyChanges.RowDeletions {
    private final ObjectStore store;
    private final Manifest latest;
    private final Map<Long, Fragment> pending;
    private final Map<Long, DeletionVector> deletions = new HashMap<>();
    private final Map<Long, Boolean> removedByDelete = new HashMap<>();
    private final MovedRows movedRows;

    private DeletedRowCheck(ObjectStore store, Manifest latest, MovedRows movedRows) {
        this.store = store;
        this.latest = latest;
        this.pending = PendingFiles.index(latest);
        this.movedRows = movedRows;
    }

    /**
     * @param movedRows kept by the caller across checks: what it learned of the table's history
     *     stays true
     */
    static DeletedRowCheck latest(ObjectStore store, MovedRows movedRows) throws IOException {
        return of(store, ManifestIO.read(store, VersionResolver.latest(store)), movedRows);
    }

    /** The check against {@code latest}, a version the caller read. */
    static DeletedRowCheck of(ObjectStore store, Manifest latest, MovedRows movedRows) {
        return new DeletedRowCheck(store, latest, movedRows);
    }

    /** The version rows are checked against. */
    Manifest manifest() {
        return latest;
    }

    @Override
    public boolean isDeleted(long fileId, long position) throws IOException {
        return isDeleted(new long[] {fileId, position});
    }

    /** @param location {fileId, position} as the key map stores it */
    boolean isDeleted(long[] location) throws IOException {
        Fragment f;
        long offset;
        if (location[0] == 0) {
            long fragmentId = RowAddress.fragmentId(location[1]);
            offset = RowAddress.offset(location[1]);
            f = latest.fragment(fragmentId).orElse(null);
            if (f == null) {
                // Rows moved by a compaction: checked where they are now. All rows deleted by
                // another writer: deleted. Anything else: FragmentRemoval fails.
                Optional<MovedRows.Destination> moved =
                        movedRows.follow(fragmentId, RoaringBitmap.bitmapOf((int) offset), latest);
                if (moved.isEmpty()) {
                    Boolean deleted = removedByDelete.get(fragmentId);
                    if (deleted == null) {
                        deleted = FragmentRemoval.rowsWereDeleted(
                                movedRows.history(), fragmentId, latest, "An update of the upsert sink");
                        removedByDelete.put(fragmentId, deleted);
                    }
                    return deleted;
                }
                if (moved.get().offsets().isEmpty()) {
                    return true; // deleted before the compaction, or its new fragment lost every row
                }
                Map.Entry<Long, RoaringBitmap> now =
                        moved.get().offsets().entrySet().iterator().next();
                long address = RowAddress.of(
                        now.getKey(), Integer.toUnsignedLong(now.getValue().first()));
                return isDeleted(new long[] {0, address});
            }
        } else {
            f = pending.get(location[0]);
            offset = location[1];
            if (f == null) {
                return false; // appended by this sink, commit still pending: nobody else can have deleted it
            }
        }
        if (f.deletionFile() == null) {
            return false;
        }
        Fragment fragment = f;
        DeletionVector dv = deletions.get(f.id());
        if (dv == null) {
            try (TableFiles files = TableFiles.of(store, latest)) { // the file may be under a base path
                dv = DeletionFiles.read(files, fragment.id(), fragment.deletionFile());
            }
            deletions.put(f.id(), dv);
        }
        return dv.contains((int) offset);
    }
}
