package dev.lanceflink.txn;

import dev.lanceflink.table.CorruptTableException;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.IndexEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Rewrite (compaction): each group's old fragments are replaced by its new ones. Indices stop
 * covering the rewritten fragments (row addresses changed; readers scan the new fragments until
 * the index is rebuilt), which is always correct. Remapping index row addresses in place
 * ({@code rewritten_indices}, fragment reuse index) is not done by this library.
 */
final class RewriteApplier implements OperationApplier<Operation.Rewrite> {
    @Override
    public void apply(ManifestDraft d, Operation.Rewrite op) throws CorruptTableException {
        if (!op.rewrittenIndices().isEmpty()) {
            throw new IllegalArgumentException("Rewrite carries " + op.rewrittenIndices().size()
                    + " rewritten indices; remapping index files is not supported by this library's committer");
        }
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
        }
        Set<Long> old = op.oldFragmentIds();
        List<IndexEntry> out = new ArrayList<>(d.indices.size());
        for (IndexEntry e : d.indices) {
            out.add(e.withoutFragments(old));
        }
        d.indices = out;
    }
}
