package dev.lanceflink.committer.core;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.table.DataOverlayFile;

/** A written, uncommitted data overlay file and the fragment it belongs to. */
public record TargetedOverlay(RowTarget target, DataOverlayFile overlay) {
    public TargetedOverlay {
        requireNonNull(target, "target is null");
        requireNonNull(overlay, "overlay is null");
    }
}
