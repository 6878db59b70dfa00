package dev.lanceflink.overlay;

import dev.lanceflink.schema.LanceSchema;
import dev.lanceflink.table.CorruptTableException;
import dev.lanceflink.table.DataFile;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.IndexEntry;
import dev.lanceflink.table.Manifest;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import org.roaringbitmap.RoaringBitmap;

/**
 * Which rows an index may no longer answer for because overlays changed their values after the
 * index was built (overlays.md §6). A query removes index candidates in the exclusion set and
 * re-evaluates every excluded row on the flat path against its current value; dropping them
 * without re-evaluation would lose rows.
 *
 * <p>Only overlays with {@code committed_version > index.dataset_version} count, and only their
 * slots for an indexed field, a descendant of one (overlay on a child of an indexed struct) or
 * an ancestor of one (overlay on a struct containing the indexed leaf). Tombstones never match.
 */
public final class OverlayExclusions {
    private OverlayExclusions() {}

    /** Excluded physical offsets of one fragment for an index on {@code indexFields} built at {@code indexVersion}. */
    public static RoaringBitmap excludedOffsets(
            Fragment fragment, LanceSchema schema, int[] indexFields, long indexVersion) throws IOException {
        RoaringBitmap excluded = new RoaringBitmap();
        for (DataOverlayFile ov : fragment.overlays()) {
            if (Long.compareUnsigned(ov.committedVersion(), indexVersion) <= 0) {
                continue;
            }
            DataFile file = ov.dataFile();
            for (int pos = 0; pos < file.fieldCount(); pos++) {
                int fid = file.fieldId(pos);
                if (fid != DataFile.TOMBSTONE && affects(schema, indexFields, fid)) {
                    try {
                        excluded.or(ov.coverage().bitmap(pos));
                    } catch (CorruptTableException e) {
                        throw new CorruptTableException(
                                "Fragment " + fragment.id() + ", overlay " + file.path() + ", field slot " + pos + ": "
                                        + e.getMessage(),
                                e);
                    }
                }
            }
        }
        return excluded;
    }

    /**
     * Row-level exclusion: for every fragment the index covers (all of them when it has no
     * fragment bitmap), the non-empty set of excluded offsets.
     */
    public static Map<Long, RoaringBitmap> excludedRows(Manifest manifest, IndexEntry index) throws IOException {
        Map<Long, RoaringBitmap> out = new LinkedHashMap<>();
        for (Fragment f : manifest.fragments()) {
            if (f.overlays().isEmpty() || !index.coversFragment(f.id())) {
                continue;
            }
            RoaringBitmap b = excludedOffsets(f, manifest.schema(), index.fields(), index.datasetVersion());
            if (!b.isEmpty()) {
                out.put(f.id(), b);
            }
        }
        return out;
    }

    /** Fragment-level exclusion (simpler, more re-evaluation): fragments with any excluded row. */
    public static Set<Long> excludedFragments(Manifest manifest, IndexEntry index) throws IOException {
        return new LinkedHashSet<>(excludedRows(manifest, index).keySet());
    }

    private static boolean affects(LanceSchema schema, int[] indexFields, int fid) {
        for (int idx : indexFields) {
            if (idx == fid
                    || OverlayFields.isAncestor(schema, idx, fid)
                    || OverlayFields.isAncestor(schema, fid, idx)) {
                return true;
            }
        }
        return false;
    }
}
