package dev.lanceflink.txn;

import dev.lanceflink.table.CorruptTableException;

/** Append: the current fragments plus the new ones, with fresh fragment (and row) ids. */
final class AppendApplier implements OperationApplier<Operation.Append> {
    @Override
    public void apply(ManifestDraft d, Operation.Append op) throws CorruptTableException {
        if (op.fragments().isEmpty()) {
            throw new IllegalArgumentException("Append has no fragments; there is nothing to commit");
        }
        d.fragments.addAll(d.admitNewFragments(op.fragments()));
    }
}
