package dev.lanceflink.txn;

import dev.lanceflink.table.IndexEntry;
import java.util.ArrayList;

/** Merge (add columns): exactly the given fragments and the new schema; indices on dropped fields go. */
final class MergeApplier implements OperationApplier<Operation.Merge> {
    @Override
    public void apply(ManifestDraft d, Operation.Merge op) {
        d.schema = op.schema();
        d.fragments = new ArrayList<>(d.assignIds(op.fragments()));
        d.indices = new ArrayList<>(d.indices.stream().filter(e -> fieldsExist(d, e)).toList());
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
