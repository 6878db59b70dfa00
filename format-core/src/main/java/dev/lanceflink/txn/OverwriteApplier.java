package dev.lanceflink.txn;

import java.util.ArrayList;

/**
 * Overwrite (also table creation): only the new fragments, ids restarting at 0 (as Lance does),
 * the new schema, config upserted, every index dropped. The stored {@code max_fragment_id}
 * high-water mark is kept (it never decreases); stable row ids continue from {@code next_row_id}.
 */
final class OverwriteApplier implements OperationApplier<Operation.Overwrite> {
    @Override
    public void apply(ManifestDraft d, Operation.Overwrite op) {
        d.fragments = new ArrayList<>();
        d.nextFragmentId = 0;
        d.schema = op.schema();
        d.config.putAll(op.configUpsertValues());
        d.indices = new ArrayList<>();
        d.writeIndexSection = false;
        if (d.current == null) {
            d.basePaths = new ArrayList<>(op.initialBases());
        } else if (!op.initialBases().isEmpty()) {
            throw new IllegalArgumentException("Overwrite may register initial base paths only when it creates the"
                    + " table; version " + d.current.version() + " already exists (use UpdateBases)");
        }
        d.fragments.addAll(d.admitNewFragments(op.fragments()));
    }
}
