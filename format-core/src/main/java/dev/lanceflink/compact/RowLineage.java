package dev.lanceflink.compact;

import dev.lanceflink.deletion.DeletionVector;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.io.RangeReader;
import dev.lanceflink.rowid.RowIdSequenceCodec;
import dev.lanceflink.rowid.RowVersionSequenceCodec;
import dev.lanceflink.table.CorruptTableException;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.RowIdMeta;
import dev.lanceflink.table.SequenceSource;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The per-row lineage of the surviving rows of a rewrite group, in table order: stable row ids and
 * the created-at / last-updated-at versions. A rewrite moves rows to new fragments, so their
 * addresses change; what must not change is each row's stable id and its version history
 * (transactions.md §3 Rewrite; Lance re-chunks both sequences the same way in its compaction).
 *
 * <p>Rules, as in Lance ({@code rechunk_stable_row_ids},
 * {@code recalc_versions_for_rewritten_fragments}): deleted offsets are masked out; a fragment without a created-at sequence counts as created at
 * version 1; one without a last-updated-at sequence takes its created-at versions. Only tables with
 * stable row ids carry lineage; the new fragments always get all three sequences, inline.
 */
final class RowLineage {
    private final long[] ids;
    private final long[] created;
    private final long[] updated;
    private int size;

    private RowLineage(int survivingRows) {
        this.ids = new long[survivingRows];
        this.created = new long[survivingRows];
        this.updated = new long[survivingRows];
    }

    /**
     * Lineage collector for a group of a table with stable row ids, or null without them: then
     * rows have no identity beyond their address, and Lance's compaction writes no version
     * sequences either.
     */
    static RowLineage forGroup(boolean stableRowIds, long survivingRows) {
        if (!stableRowIds) {
            return null;
        }
        if (survivingRows > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("A rewrite group of " + survivingRows + " surviving rows is too large"
                    + " to carry its row lineage; use a smaller --target-rows-per-fragment");
        }
        return new RowLineage((int) survivingRows);
    }

    /** Appends the surviving rows of {@code f} (offsets not in {@code deleted}), in offset order. */
    void add(ObjectStore store, Fragment f, DeletionVector deleted) throws IOException {
        int rows = Math.toIntExact(f.physicalRows());
        String context = "Fragment " + f.id() + " of " + store.rootUri();
        RowIdMeta meta = f.rowIdMeta();
        if (meta.rowIds() == null) {
            throw new CorruptTableException(context + " carries no row id sequence, but the table uses stable row"
                    + " ids (feature flag 2); every fragment must carry one");
        }
        long[] fIds = RowIdSequenceCodec.decode(bytes(store, meta.rowIds(), context), context + " row id sequence");
        if (fIds.length != rows) {
            throw new CorruptTableException(context + ": its row id sequence has " + fIds.length
                    + " ids but the fragment has " + rows + " physical rows");
        }
        long[] fCreated = meta.createdAtVersions() == null
                ? filled(rows, 1)
                : RowVersionSequenceCodec.decode(
                        bytes(store, meta.createdAtVersions(), context),
                        rows,
                        context + " created_at version sequence");
        long[] fUpdated = meta.lastUpdatedAtVersions() == null
                ? fCreated
                : RowVersionSequenceCodec.decode(
                        bytes(store, meta.lastUpdatedAtVersions(), context),
                        rows,
                        context + " last_updated_at version sequence");
        boolean none = deleted.isEmpty();
        for (int o = 0; o < rows; o++) {
            if (none || !deleted.contains(o)) {
                if (size == ids.length) {
                    throw new IllegalStateException(context + " has more surviving rows than the group was sized for;"
                            + " its deletion file changed while it was being rewritten");
                }
                ids[size] = fIds[o];
                created[size] = fCreated[o];
                updated[size] = fUpdated[o];
                size++;
            }
        }
    }

    /** The lineage of the surviving rows {@code [from, from + count)}, for one new fragment. */
    RowIdMeta slice(int from, int count) {
        if (from + count > size) {
            throw new IllegalStateException("New fragment rows [" + from + ", " + (from + count) + ") exceed the "
                    + size + " surviving rows collected");
        }
        SequenceSource idSeq =
                new SequenceSource.Inline(RowIdSequenceCodec.encode(Arrays.copyOfRange(ids, from, from + count)));
        SequenceSource createdSeq = new SequenceSource.Inline(
                RowVersionSequenceCodec.encode(Arrays.copyOfRange(created, from, from + count)));
        SequenceSource updatedSeq = new SequenceSource.Inline(
                RowVersionSequenceCodec.encode(Arrays.copyOfRange(updated, from, from + count)));
        return new RowIdMeta(idSeq, updatedSeq, createdSeq);
    }

    int size() {
        return size;
    }

    private static long[] filled(int n, long v) {
        long[] a = new long[n];
        Arrays.fill(a, v);
        return a;
    }

    /** The serialized sequence, inline or from a range of another file ({@code ExternalFile}). */
    static byte[] bytes(ObjectStore store, SequenceSource source, String context) throws IOException {
        if (source instanceof SequenceSource.Inline inline) {
            return inline.bytes();
        }
        SequenceSource.External ext = (SequenceSource.External) source;
        if (ext.size() < 0 || ext.size() > Integer.MAX_VALUE - 8 || ext.offset() < 0) {
            throw new CorruptTableException(context + ": external sequence " + ext.path() + " has offset "
                    + ext.offset() + " and size " + ext.size() + ", which is not a readable range");
        }
        try (RangeReader r = store.openReader(ext.path())) {
            ByteBuffer b = r.read(ext.offset(), (int) ext.size());
            byte[] out = new byte[b.remaining()];
            b.get(out);
            if (out.length != ext.size()) {
                throw new CorruptTableException(context + ": external sequence " + ext.path() + " ends before byte "
                        + (ext.offset() + ext.size()));
            }
            return out;
        }
    }
}
