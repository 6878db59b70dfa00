package dev.lanceflink.txn;

import dev.lanceflink.rowid.RowVersionSequenceCodec;
import dev.lanceflink.table.CorruptTableException;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.RowIdMeta;
import dev.lanceflink.table.SequenceSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.roaringbitmap.IntIterator;
import org.roaringbitmap.RoaringBitmap;

/**
 * DataOverlay: each group's overlays are appended to its fragment's list, stamped with the version
 * being committed (overlays.md §5). Groups targeting the same fragment are appended in order.
 *
 * <p>Row lineage: when the fragment tracks a {@code last_updated_at_version} sequence (tables with
 * stable row ids), every physical offset an overlay of the commit covers, for any of its fields,
 * gets the new version; the other rows keep theirs. An overlay changes those rows' values just as a
 * row-rewriting update would, and the upstream overlay spec asks for this, although Lance's own
 * writer at the digest's snapshot leaves the sequence alone. Offsets of deleted rows are refreshed
 * too; they are never read. A sequence stored in an external file is left unchanged, because the
 * committer does not read files while building a manifest.
 */
final class DataOverlayApplier implements OperationApplier<Operation.DataOverlay> {
    @Override
    public void apply(ManifestDraft d, Operation.DataOverlay op) {
        if (d.current != null
                && d.current.dataFormat() != null
                && d.current.dataFormat().version().startsWith("0.")) {
            throw new IllegalArgumentException("Table version " + d.current.version() + " uses the legacy data format "
                    + d.current.dataFormat().version() + "; data overlay files need format 2.0 or later");
        }
        for (Operation.OverlayGroup g : op.groups()) {
            Fragment cur = d.requireFragment(g.fragmentId(), "DataOverlay");
            List<DataOverlayFile> stamped = new ArrayList<>(g.overlays().size());
            for (DataOverlayFile o : g.overlays()) {
                stamped.add(o.withCommittedVersion(d.newVersion));
            }
            d.replaceFragment(
                    refreshLastUpdated(cur, g.overlays(), d.newVersion).withOverlaysAppended(stamped));
        }
    }

    /** The fragment with its inline last-updated-at versions set to {@code version} at every covered offset. */
    static Fragment refreshLastUpdated(Fragment f, List<DataOverlayFile> overlays, long version) {
        RowIdMeta meta = f.rowIdMeta();
        if (!(meta.lastUpdatedAtVersions() instanceof SequenceSource.Inline inline) || overlays.isEmpty()) {
            return f;
        }
        String context = "Fragment " + f.id() + " last_updated_at_version sequence";
        if (f.physicalRows() <= 0 || f.physicalRows() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(context + ": physical_rows = " + f.physicalRows()
                    + " is not a usable row count; the sequence cannot be refreshed for a DataOverlay commit");
        }
        long[] versions;
        try {
            versions = RowVersionSequenceCodec.decode(inline.bytes(), f.physicalRows(), context);
        } catch (CorruptTableException e) {
            throw new IllegalArgumentException(
                    e.getMessage() + "; the DataOverlay commit cannot refresh row lineage", e);
        }
        for (DataOverlayFile o : overlays) {
            RoaringBitmap covered;
            try {
                covered = o.coverage().union();
            } catch (IOException e) {
                throw new UncheckedIOException(
                        "Overlay " + o.dataFile().path() + " of fragment " + f.id()
                                + ": coverage bitmap is not valid Roaring data",
                        e);
            }
            IntIterator it = covered.getIntIterator();
            while (it.hasNext()) {
                int offset = it.next();
                if (offset < 0 || offset >= versions.length) {
                    throw new IllegalArgumentException("Overlay " + o.dataFile().path() + " covers physical offset "
                            + Integer.toUnsignedString(offset) + " but fragment " + f.id() + " has "
                            + f.physicalRows() + " physical rows");
                }
                versions[offset] = version;
            }
        }
        return f.withRowIdMeta(new RowIdMeta(
                meta.rowIds(),
                new SequenceSource.Inline(RowVersionSequenceCodec.encode(versions)),
                meta.createdAtVersions()));
    }
}
