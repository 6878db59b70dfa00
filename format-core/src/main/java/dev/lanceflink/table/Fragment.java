package dev.lanceflink.table;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A horizontal slice of the table ({@code DataFragment} in table.proto). Rows are addressed by
 * physical offset {@code 0 .. physicalRows-1}, deleted rows included.
 *
 * @param id fragment id, unique and never reused; 0 inside a transaction's new fragments means
 *     "not assigned yet"
 * @param deletionFile null when no row is deleted
 * @param physicalRows row count including deleted rows (0 would mean "unknown" to Lance)
 * @param overlays oldest first (non-decreasing {@code committedVersion})
 */
public record Fragment(
        long id,
        List<DataFile> files,
        DeletionFile deletionFile,
        long physicalRows,
        RowIdMeta rowIdMeta,
        List<DataOverlayFile> overlays) {

    public Fragment {
        files = List.copyOf(files);
        rowIdMeta = rowIdMeta == null ? RowIdMeta.NONE : rowIdMeta;
        overlays = List.copyOf(overlays);
    }

    /** A new fragment without deletions, row ids or overlays. */
    public static Fragment of(long id, List<DataFile> files, long physicalRows) {
        return new Fragment(id, files, null, physicalRows, RowIdMeta.NONE, List.of());
    }

    public Optional<DeletionFile> deletion() {
        return Optional.ofNullable(deletionFile);
    }

    public long numDeletedRows() {
        return deletionFile == null ? 0 : deletionFile.numDeletedRows();
    }

    /** Rows visible to a reader. */
    public long liveRows() {
        return physicalRows - numDeletedRows();
    }

    public Fragment withId(long newId) {
        return new Fragment(newId, files, deletionFile, physicalRows, rowIdMeta, overlays);
    }

    public Fragment withFiles(List<DataFile> newFiles) {
        return new Fragment(id, newFiles, deletionFile, physicalRows, rowIdMeta, overlays);
    }

    public Fragment withDeletionFile(DeletionFile newDeletionFile) {
        return new Fragment(id, files, newDeletionFile, physicalRows, rowIdMeta, overlays);
    }

    public Fragment withRowIdMeta(RowIdMeta meta) {
        return new Fragment(id, files, deletionFile, physicalRows, meta, overlays);
    }

    public Fragment withOverlays(List<DataOverlayFile> newOverlays) {
        return new Fragment(id, files, deletionFile, physicalRows, rowIdMeta, newOverlays);
    }

    /** This fragment with {@code added} appended after its existing overlays. */
    public Fragment withOverlaysAppended(List<DataOverlayFile> added) {
        List<DataOverlayFile> all = new ArrayList<>(overlays.size() + added.size());
        all.addAll(overlays);
        all.addAll(added);
        return withOverlays(all);
    }

    /**
     * Checks that overlays are stored oldest first, the invariant Lance enforces on every manifest
     * build.
     *
     * @throws IllegalStateException naming the fragment and the two offending overlays
     */
    public void checkOverlayOrder() {
        for (int i = 1; i < overlays.size(); i++) {
            long prev = overlays.get(i - 1).committedVersion();
            long cur = overlays.get(i).committedVersion();
            if (Long.compareUnsigned(cur, prev) < 0) {
                // The first clause is Lance's own wording, so errors read the same in both.
                throw new IllegalStateException("overlay files must be stored newest-last, but committed_version "
                        + prev + " precedes " + cur + " (fragment " + id + ", overlay " + i + ": "
                        + overlays.get(i).dataFile().path() + ")");
            }
        }
    }

    /** Fragment id as an unsigned 32-bit value (row addresses are {@code id << 32 | offset}). */
    public static void checkFitsU32(long id) {
        if ((id >>> 32) != 0) {
            throw new IllegalArgumentException("Fragment id " + Long.toUnsignedString(id)
                    + " does not fit in 32 bits; row addresses are (fragment_id << 32 | offset)");
        }
    }
}
