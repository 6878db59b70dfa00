package dev.lanceflink.txn;

import dev.lanceflink.table.Fragment;

/**
 * Delete: fragments that lost every row are removed; updated fragments get their new deletion
 * file. Only the deletion file is taken from the transaction: data files and overlays come from
 * the current manifest, so concurrently committed overlays survive.
 */
final class DeleteApplier implements OperationApplier<Operation.Delete> {
    @Override
    public void apply(ManifestDraft d, Operation.Delete op) {
        for (Fragment updated : op.updatedFragments()) {
            Fragment cur = d.requireFragment(updated.id(), "Delete");
            d.replaceFragment(cur.withDeletionFile(updated.deletionFile()));
        }
        for (long id : op.deletedFragmentIds()) {
            d.requireFragment(id, "Delete");
            d.removeFragment(id);
        }
    }
}
