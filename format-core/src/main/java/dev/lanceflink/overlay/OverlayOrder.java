package dev.lanceflink.overlay;

import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The order of a fragment's overlays (overlays.md §3.4, §5): oldest first by
 * {@code committed_version}, list position breaking ties (a later entry is newer).
 */
public final class OverlayOrder {
    private static final Comparator<DataOverlayFile> BY_VERSION =
            (a, b) -> Long.compareUnsigned(a.committedVersion(), b.committedVersion());

    private OverlayOrder() {}

    /** A stable sort by {@code committed_version}, as Lance does on load. */
    public static List<DataOverlayFile> sorted(List<DataOverlayFile> overlays) {
        List<DataOverlayFile> out = new ArrayList<>(overlays);
        out.sort(BY_VERSION); // List.sort is stable
        return out;
    }

    /**
     * Checks that the fragment's overlays are stored newest-last.
     *
     * @throws IllegalStateException "overlay files must be stored newest-last, but committed_version
     *     X precedes Y", followed by the fragment and the two files
     */
    public static void check(Fragment fragment) {
        List<DataOverlayFile> o = fragment.overlays();
        for (int i = 1; i < o.size(); i++) {
            long prev = o.get(i - 1).committedVersion();
            long cur = o.get(i).committedVersion();
            if (Long.compareUnsigned(prev, cur) > 0) {
                throw new IllegalStateException("overlay files must be stored newest-last, but committed_version "
                        + Long.toUnsignedString(prev) + " precedes " + Long.toUnsignedString(cur) + " (fragment "
                        + fragment.id() + ", overlay " + (i - 1) + " "
                        + o.get(i - 1).dataFile().path() + " before overlay "
                        + i + " " + o.get(i).dataFile().path() + ")");
            }
        }
    }

    /** {@link #check(Fragment)} for every fragment of a manifest. */
    public static void check(Manifest manifest) {
        for (Fragment f : manifest.fragments()) {
            check(f);
        }
    }
}
