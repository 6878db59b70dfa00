package dev.lanceflink.txn;

import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.Fragment;
import java.util.ArrayList;
import java.util.List;

/**
 * DataOverlay: each group's overlays are appended to its fragment's list, stamped with the version
 * being committed (overlays.md §5). Groups targeting the same fragment are appended in order.
 */
final class DataOverlayApplier implements OperationApplier<Operation.DataOverlay> {
    @Override
    public void apply(ManifestDraft d, Operation.DataOverlay op) {
        if (d.current != null && d.current.dataFormat() != null && d.current.dataFormat().version().startsWith("0.")) {
            throw new IllegalArgumentException("Table version " + d.current.version() + " uses the legacy data format "
                    + d.current.dataFormat().version() + "; data overlay files need format 2.0 or later");
        }
        for (Operation.OverlayGroup g : op.groups()) {
            Fragment cur = d.requireFragment(g.fragmentId(), "DataOverlay");
            List<DataOverlayFile> stamped = new ArrayList<>(g.overlays().size());
            for (DataOverlayFile o : g.overlays()) {
                stamped.add(o.withCommittedVersion(d.newVersion));
            }
            d.replaceFragment(cur.withOverlaysAppended(stamped));
        }
    }
}
