package dev.lanceflink.txn;

/** ReserveFragments: raises the fragment-id high-water mark so a later rewrite can use the ids. */
final class ReserveFragmentsApplier implements OperationApplier<Operation.ReserveFragments> {
    @Override
    public void apply(ManifestDraft d, Operation.ReserveFragments op) {
        if (op.numFragments() <= 0) {
            throw new IllegalArgumentException("ReserveFragments needs a positive count, got " + op.numFragments());
        }
        // Lance: max_fragment_id = (max_fragment_id or 0) + n
        long base = Math.max(Math.max(d.reservedMaxFragmentId, 0), d.nextFragmentId - 1);
        d.reservedMaxFragmentId = base + op.numFragments();
        d.nextFragmentId = d.reservedMaxFragmentId + 1;
    }
}
