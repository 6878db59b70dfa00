package dev.lanceflink.table;

import static java.util.Objects.requireNonNull;

import java.io.IOException;

/**
 * A data overlay file of a fragment ({@code DataOverlayFile} in table.proto): new values for some
 * cells {@code (physical offset, field id)}, addressed by rank within the coverage bitmap.
 *
 * @param committedVersion the table version whose commit introduced the overlay; 0 inside a
 *     transaction, stamped with the new version when the manifest is built. Higher wins; equal
 *     versions are ordered by list position (later wins).
 */
public record DataOverlayFile(DataFile dataFile, OverlayCoverage coverage, long committedVersion) {
    public DataOverlayFile {
        requireNonNull(dataFile, "dataFile is null");
        requireNonNull(coverage, "coverage is null");
        if (coverage instanceof OverlayCoverage.PerField p && p.size() != dataFile.fieldCount()) {
            throw new IllegalArgumentException("Overlay " + dataFile.path() + " lists " + dataFile.fieldCount()
                    + " fields but its field coverage has " + p.size() + " bitmaps; they must match one to one");
        }
    }

    /**
     * True for an overlay that a transaction adds (committed_version 0): the commit that lands it
     * stamps it with the version it produces. Overlays already in a manifest always carry the
     * version that added them, which is at least 1.
     */
    public boolean isStaged() {
        return committedVersion == 0;
    }

    public DataOverlayFile withCommittedVersion(long version) {
        return new DataOverlayFile(dataFile, coverage, version);
    }

    /**
     * The cells {@code (offset, field)} this overlay sets: for each of its fields, the offsets its
     * coverage holds for it (a dense coverage holds the same offsets for every field).
     */
    public long cellCount() throws IOException {
        if (coverage instanceof OverlayCoverage.Dense dense) {
            return dense.union().getLongCardinality() * dataFile.fieldCount();
        }
        long n = 0;
        for (int i = 0; i < dataFile.fieldCount(); i++) {
            n += coverage.bitmap(i).getLongCardinality();
        }
        return n;
    }
}
