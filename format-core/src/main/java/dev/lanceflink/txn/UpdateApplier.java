package dev.lanceflink.txn;

import dev.lanceflink.table.CorruptTableException;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.IndexEntry;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Update. REWRITE_ROWS: matched rows were deleted from their fragments (new deletion file) and
 * re-written into new fragments. REWRITE_COLUMNS: the modified columns of a fragment were
 * rewritten into new data files in place; overlay slots of those fields are tombstoned so older
 * overlay values cannot shadow the new base values. Either way overlays of updated fragments are
 * carried over from the current manifest, and indices on modified fields stop covering the
 * updated fragments.
 *
 * <p>A REWRITE_ROWS update may also attach overlays: staged overlays ({@link
 * DataOverlayFile#isStaged()}) of its updated and new fragments are appended and stamped with the
 * new version, as a {@code DataOverlay} would. That is how one version carries a sink checkpoint's
 * new rows, deletions and cell updates together; Lance has no operation that does all three, and
 * its conflict rules for an Update that touches those fragments protect the overlays (a concurrent
 * Delete, Update or Rewrite of the fragment conflicts; a concurrent DataOverlay stacks on top).
 */
final class UpdateApplier implements OperationApplier<Operation.Update> {
    @Override
    public void apply(ManifestDraft d, Operation.Update op) throws CorruptTableException {
        Set<Integer> modified = new HashSet<>();
        for (int f : op.fieldsModified()) {
            modified.add(f);
        }
        Set<Long> touched = new HashSet<>(op.removedFragmentIds());
        for (Fragment updated : op.updatedFragments()) {
            Fragment cur = d.requireFragment(updated.id(), "Update");
            touched.add(updated.id());
            if (op.mode() == Operation.UpdateMode.REWRITE_ROWS) {
                List<DataOverlayFile> added = stamped(updated.overlays(), d.newVersion);
                Fragment next = cur.withDeletionFile(updated.deletionFile());
                if (!added.isEmpty()) {
                    next = DataOverlayApplier.refreshLastUpdated(next, added, d.newVersion)
                            .withOverlaysAppended(added);
                }
                d.replaceFragment(next);
            } else {
                List<DataOverlayFile> overlays = new ArrayList<>(cur.overlays().size());
                for (DataOverlayFile o : cur.overlays()) {
                    DataOverlayFile tombstoned = new DataOverlayFile(
                            o.dataFile().withTombstoned(modified::contains), o.coverage(), o.committedVersion());
                    // overlays.md §7.4: an overlay left with only tombstoned slots is removed.
                    if (!tombstoned.dataFile().isFullyTombstoned()) {
                        overlays.add(tombstoned);
                    }
                }
                d.replaceFragment(cur.withFiles(updated.files()).withOverlays(overlays));
            }
        }
        for (long id : op.removedFragmentIds()) {
            d.requireFragment(id, "Update");
            d.removeFragment(id);
        }
        List<Fragment> incoming = new ArrayList<>(op.newFragments().size());
        for (Fragment f : op.newFragments()) {
            // A new fragment's overlays can only be this commit's own (staged) ones.
            incoming.add(f.overlays().isEmpty() ? f : f.withOverlays(stamped(f.overlays(), d.newVersion)));
        }
        d.fragments.addAll(d.admitNewFragments(incoming));
        if (!modified.isEmpty()) {
            List<IndexEntry> out = new ArrayList<>(d.indices.size());
            for (IndexEntry e : d.indices) {
                boolean onModified = false;
                for (int f : e.fields()) {
                    onModified |= modified.contains(f);
                }
                out.add(onModified ? e.withoutFragments(touched) : e);
            }
            d.indices = out;
        }
    }

    /** The staged overlays of {@code overlays}, in order, stamped with {@code version}. */
    private static List<DataOverlayFile> stamped(List<DataOverlayFile> overlays, long version) {
        List<DataOverlayFile> out = new ArrayList<>();
        for (DataOverlayFile o : overlays) {
            if (o.isStaged()) {
                out.add(o.withCommittedVersion(version));
            }
        }
        return out;
    }
}
