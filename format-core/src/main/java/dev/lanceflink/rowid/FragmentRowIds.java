package dev.lanceflink.rowid;

import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.io.RangeReader;
import dev.lanceflink.table.CorruptTableException;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.SequenceSource;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The stable row id of every physical row of a fragment, as a reader needs it for Lance's
 * {@code _rowid} column in a table with stable row ids (feature flag 2). The sequence covers all
 * physical rows, deleted ones included (a deletion file masks them, it does not shorten the
 * sequence), so the id of the row at offset {@code o} is element {@code o}.
 *
 * <p>Without stable row ids Lance has no separate id: its {@code _rowid} is the row address
 * ({@code fragment_id << 32 | offset}), which readers compute without this class.
 */
public final class FragmentRowIds {
    private FragmentRowIds() {}

    /**
     * Decodes the row id sequence of {@code fragment}, inline or from a range of another file.
     *
     * @throws CorruptTableException if the fragment carries no sequence, or one whose length is not
     *     the fragment's physical row count
     */
    public static long[] load(ObjectStore store, Fragment fragment) throws IOException {
        String context = "Fragment " + fragment.id() + " of " + store.rootUri();
        SequenceSource source = fragment.rowIdMeta().rowIds();
        if (source == null) {
            throw new CorruptTableException(context + " carries no row id sequence, but the table uses stable row ids"
                    + " (feature flag 2), which requires one in every fragment");
        }
        long[] ids = RowIdSequenceCodec.decode(bytes(store, source, context), context + " row id sequence");
        if (ids.length != fragment.physicalRows()) {
            throw new CorruptTableException(context + ": its row id sequence has " + ids.length
                    + " ids but the fragment has " + fragment.physicalRows() + " physical rows");
        }
        return ids;
    }

    private static byte[] bytes(ObjectStore store, SequenceSource source, String context) throws IOException {
        if (source instanceof SequenceSource.Inline inline) {
            return inline.bytes();
        }
        SequenceSource.External ext = (SequenceSource.External) source;
        if (ext.offset() < 0 || ext.size() < 0 || ext.size() > Integer.MAX_VALUE - 8) {
            throw new CorruptTableException(context + ": its row id sequence lies at offset " + ext.offset() + ", size "
                    + ext.size() + " of " + ext.path() + ", which is not a readable range");
        }
        try (RangeReader r = store.openReader(ext.path())) {
            ByteBuffer b = r.read(ext.offset(), (int) ext.size());
            byte[] out = new byte[b.remaining()];
            b.get(out);
            return out;
        }
    }
}
