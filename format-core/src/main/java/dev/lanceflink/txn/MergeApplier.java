package dev.lanceflink.txn;

import dev.lanceflink.table.CorruptTableException;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.IndexEntry;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Merge (add columns; also an overlay merge, and a sink checkpoint whose commit merges a
 * fragment's overlays): exactly the given fragments and the new schema; indices on dropped fields
 * go. Fragments new to the table get ids (those with id 0) and, on a table with stable row ids,
 * row ids if they carry none; {@code next_row_id} moves past the row ids they carry, so that no id
 * is handed out twice.
 */
final class MergeApplier implements OperationApplier<Operation.Merge> {
    @Override
    public void apply(ManifestDraft d, Operation.Merge op) throws CorruptTableException {
        d.schema = op.schema();
        // A Merge carries the complete fragment list: fragments of the current version keep
        // their ids (fragment 0 included, whose id would otherwise read as "unassigned"); only
        // fragments new to the table get ids.
        Set<Long> existing = new HashSet<>();
        if (d.current != null) {
            d.current.fragments().forEach(f -> existing.add(f.id()));
        }
        List<Fragment> out = new ArrayList<>();
        List<Fragment> fresh = new ArrayList<>();
        for (Fragment f : op.fragments()) {
            if (existing.contains(f.id())) {
                out.add(f);
            } else {
                fresh.add(f);
            }
        }
        out.addAll(d.admitNewFragments(fresh));
        out.sort(Comparator.comparingLong(Fragment::id));
        d.fragments = out;
        d.indices = new ArrayList<>(
                d.indices.stream().filter(e -> fieldsExist(d, e)).toList());
    }

    static boolean fieldsExist(ManifestDraft d, IndexEntry e) {
        for (int f : e.fields()) {
            if (d.schema.fieldById(f).isEmpty()) {
                return false;
            }
        }
        return true;
    }
}
