package dev.lanceflink.txn;

import dev.lanceflink.schema.LanceField;
import dev.lanceflink.schema.LanceSchema;
import dev.lanceflink.table.CorruptTableException;
import dev.lanceflink.table.DataFile;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.IndexEntry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.roaringbitmap.RoaringBitmap;

/**
 * Rewrite (compaction): each group's old fragments are replaced by its new ones. Index coverage
 * follows Lance's manifest builder:
 *
 * <ul>
 *   <li><b>Stable row ids</b>: an index addresses rows by their stable id, which the rewrite keeps,
 *       so the index stays valid for the moved rows. In every index's fragment bitmap a group's
 *       old fragments are replaced by its new ones (a group must be either fully covered or not
 *       covered at all; a mixed group is refused, as Lance does).
 *   <li><b>Row addresses</b>: the moved rows have new addresses the index does not know. This
 *       library never remaps index files ({@code rewritten_indices} must be empty), so bitmaps are
 *       left as they are: they keep naming the old fragment ids, which no longer exist and which
 *       readers intersect away; the new fragments are not covered and are scanned until the index
 *       is rebuilt.
 * </ul>
 *
 * Then, in both cases, a new fragment leaves the bitmap of every index that its overlays made
 * stale: the rewrite materialized values of overlays committed after the index was built, so the
 * index holds older values for those rows and, the overlays being gone, nothing would exclude them
 * any more (overlays.md §6, §7.3). Lance matches overlay and index field ids exactly; here an
 * overlay on an ancestor or descendant of an indexed field counts too, the relation the exclusion
 * set itself uses (so an overlay on a list or struct never leaves a stale index on its leaves).
 */
final class RewriteApplier implements OperationApplier<Operation.Rewrite> {
    @Override
    public void apply(ManifestDraft d, Operation.Rewrite op) throws CorruptTableException {
        if (!op.rewrittenIndices().isEmpty()) {
            throw new IllegalArgumentException(
                    "Rewrite carries " + op.rewrittenIndices().size()
                            + " rewritten indices; remapping index files is not supported by this library's committer");
        }
        List<List<Fragment>> freshPerGroup = new ArrayList<>(op.groups().size());
        for (Operation.RewriteGroup g : op.groups()) {
            for (Fragment old : g.oldFragments()) {
                d.requireFragment(old.id(), "Rewrite");
                d.removeFragment(old.id());
            }
            List<Fragment> fresh = d.assignIds(g.newFragments());
            if (d.stableRowIds) {
                for (Fragment f : fresh) {
                    if (f.rowIdMeta().rowIds() == null) {
                        throw new IllegalArgumentException("Rewrite: new fragment " + f.id() + " carries no row ids;"
                                + " the table uses stable row ids, which a rewrite must preserve");
                    }
                }
            }
            d.fragments.addAll(fresh);
            freshPerGroup.add(fresh);
        }
        List<Map<Integer, Long>> overlaidPerGroup = new ArrayList<>(op.groups().size());
        for (Operation.RewriteGroup g : op.groups()) {
            overlaidPerGroup.add(newestOverlayByField(g));
        }
        List<IndexEntry> out = new ArrayList<>(d.indices.size());
        for (IndexEntry e : d.indices) {
            RoaringBitmap bitmap = IndexBitmaps.read(e);
            if (bitmap == null) {
                out.add(e); // no bitmap: the index claims every fragment and Lance leaves it alone
                continue;
            }
            RoaringBitmap next = bitmap.clone();
            for (int g = 0; g < op.groups().size(); g++) {
                Operation.RewriteGroup group = op.groups().get(g);
                List<Fragment> fresh = freshPerGroup.get(g);
                if (d.stableRowIds) {
                    carryCoverage(e, bitmap, next, group, fresh);
                }
                if (stale(e, overlaidPerGroup.get(g), d.schema)) {
                    fresh.forEach(f -> next.remove((int) f.id()));
                }
            }
            out.add(next.equals(bitmap) ? e : IndexBitmaps.write(e, next));
        }
        d.indices = out;
    }

    /** Stable row ids: the group's new fragments take the place of its old ones in the index's coverage. */
    private static void carryCoverage(
            IndexEntry e,
            RoaringBitmap before,
            RoaringBitmap next,
            Operation.RewriteGroup group,
            List<Fragment> fresh) {
        List<Long> covered = new ArrayList<>();
        List<Long> uncovered = new ArrayList<>();
        for (Fragment old : group.oldFragments()) {
            (before.contains((int) old.id()) ? covered : uncovered).add(old.id());
        }
        if (covered.isEmpty()) {
            return;
        }
        if (!uncovered.isEmpty()) {
            throw new IllegalArgumentException("Rewrite group of fragments " + ids(group.oldFragments())
                    + " mixes fragments index '" + e.name() + "' (" + e.uuid() + ") covers " + covered
                    + " with fragments it does not cover " + uncovered + "; with stable row ids the new fragments"
                    + " inherit their group's index coverage, so every group must be fully indexed or not indexed"
                    + " at all. Plan the compaction groups by index coverage");
        }
        covered.forEach(id -> next.remove((int) (long) id));
        fresh.forEach(f -> next.add((int) f.id()));
    }

    /** For every field an overlay of the group's old fragments supplies, the newest such overlay's version. */
    private static Map<Integer, Long> newestOverlayByField(Operation.RewriteGroup group) {
        Map<Integer, Long> newestByField = new HashMap<>();
        for (Fragment old : group.oldFragments()) {
            for (DataOverlayFile ov : old.overlays()) {
                DataFile file = ov.dataFile();
                for (int pos = 0; pos < file.fieldCount(); pos++) {
                    int fid = file.fieldId(pos);
                    if (fid != DataFile.TOMBSTONE) {
                        newestByField.merge(
                                fid, ov.committedVersion(), (a, b) -> Long.compareUnsigned(a, b) >= 0 ? a : b);
                    }
                }
            }
        }
        return newestByField;
    }

    /**
     * Whether an overlay of the group's old fragments, committed after the index was built,
     * supplied a value of a field the index covers.
     */
    private static boolean stale(IndexEntry e, Map<Integer, Long> newestByField, LanceSchema schema) {
        for (Map.Entry<Integer, Long> overlaid : newestByField.entrySet()) {
            if (Long.compareUnsigned(overlaid.getValue(), e.datasetVersion()) <= 0) {
                continue;
            }
            for (int indexed : e.fields()) {
                int fid = overlaid.getKey();
                if (indexed == fid || isAncestor(schema, indexed, fid) || isAncestor(schema, fid, indexed)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Whether {@code ancestor} is a strict ancestor of {@code id} in {@code schema}. */
    private static boolean isAncestor(LanceSchema schema, int ancestor, int id) {
        LanceField f = schema.fieldById(id).orElse(null);
        while (f != null && f.parentId() != LanceField.NO_PARENT) {
            if (f.parentId() == ancestor) {
                return true;
            }
            f = schema.fieldById(f.parentId()).orElse(null);
        }
        return false;
    }

    private static List<Long> ids(List<Fragment> fragments) {
        return fragments.stream().map(Fragment::id).toList();
    }
}
