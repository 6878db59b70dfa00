package dev.lanceflink.overlay;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.txn.CommitOptions;
import dev.lanceflink.txn.Operation;
import dev.lanceflink.txn.TableCommitter;
import dev.lanceflink.txn.Transaction;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns finished overlays into a {@code DataOverlay} operation and commits it. Writers (one per
 * fragment, possibly on different machines) produce {@link DataOverlayFile}s with
 * {@code committed_version} 0; a single committer groups them per fragment, in the order given,
 * and commits them as one version. The committer stamps the new version into the manifest copy
 * and re-stamps it on every retry (overlays.md §5).
 */
public final class OverlayCommits {
    private OverlayCommits() {}

    /**
     * One {@code DataOverlay} operation: a group per fragment (first-seen order), overlays in the
     * order given (later = newer for cells several of them cover).
     *
     * @throws IllegalArgumentException if an overlay already carries a committed version
     */
    public static Operation.DataOverlay operation(Map<Long, List<DataOverlayFile>> overlaysByFragment) {
        requireNonNull(overlaysByFragment, "overlaysByFragment is null");
        List<Operation.OverlayGroup> groups = new ArrayList<>();
        for (Map.Entry<Long, List<DataOverlayFile>> e : overlaysByFragment.entrySet()) {
            for (DataOverlayFile o : e.getValue()) {
                if (o.committedVersion() != 0) {
                    throw new IllegalArgumentException("Overlay " + o.dataFile().path() + " for fragment " + e.getKey()
                            + " already carries committed_version " + o.committedVersion() + "; a transaction must"
                            + " carry 0, the committer stamps the version it commits");
                }
            }
            if (!e.getValue().isEmpty()) {
                groups.add(new Operation.OverlayGroup(e.getKey(), e.getValue()));
            }
        }
        return new Operation.DataOverlay(groups);
    }

    /** Groups (fragment id, overlay) pairs in arrival order. */
    public static Map<Long, List<DataOverlayFile>> group(List<Map.Entry<Long, DataOverlayFile>> pairs) {
        Map<Long, List<DataOverlayFile>> out = new LinkedHashMap<>();
        for (Map.Entry<Long, DataOverlayFile> p : pairs) {
            out.computeIfAbsent(p.getKey(), k -> new ArrayList<>()).add(p.getValue());
        }
        return out;
    }

    /**
     * Commits a staged write on top of {@code readVersion} and checks the result: every fragment's
     * overlays stored newest-last. The staged files are kept when the commit fails, so a caller
     * (for instance a Flink committer recovering from a checkpoint) can commit them again; call
     * {@link StagedWrite#discard} when giving up.
     */
    public static Manifest commit(
            ObjectStore store,
            long readVersion,
            StagedWrite staged,
            Map<String, String> properties,
            CommitOptions options)
            throws IOException {
        Manifest m = TableCommitter.commit(store, Transaction.of(readVersion, staged.operation(), properties), options);
        OverlayOrder.check(m);
        return m;
    }
}
