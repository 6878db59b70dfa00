package dev.lanceflink.txn;

import dev.lanceflink.table.CorruptTableException;
import dev.lanceflink.table.Fragment;
import java.util.ArrayList;
import java.util.List;

/**
 * Overwrite (also table creation): only the new fragments, the new schema, config upserted, every
 * index dropped. New fragment ids continue after the stored {@code max_fragment_id}, as Lance
 * does: an id once used never names other rows, so a row address read before the overwrite can
 * never resolve to an unrelated row after it. Every fragment of an overwrite is new, so each gets
 * a fresh id whatever id it arrives with (Lance 14 does the same). Stable row ids continue from
 * {@code next_row_id}.
 */
final class OverwriteApplier implements OperationApplier<Operation.Overwrite> {
    @Override
    public void apply(ManifestDraft d, Operation.Overwrite op) throws CorruptTableException {
        d.fragments = new ArrayList<>();
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
        List<Fragment> fresh = new ArrayList<>(op.fragments().size());
        for (Fragment f : op.fragments()) {
            fresh.add(f.withId(0)); // id 0 = "assign the next id" for admitNewFragments
        }
        d.fragments.addAll(d.admitNewFragments(fresh));
    }
}
