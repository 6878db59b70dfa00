package dev.lanceflink.txn;

import dev.lanceflink.deletion.DeletionFiles;
import dev.lanceflink.deletion.DeletionVector;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.RowAddress;
import dev.lanceflink.table.TableFiles;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.roaringbitmap.RoaringBitmap;

/**
 * Where a {@code Rewrite} (fragment compaction) moved each row: (old fragment, offset) → (new
 * fragment, offset).
 *
 * <p>A compaction group's new fragments hold the live rows of its old fragments, in order: the old
 * fragments in the group's order, each one's rows by ascending offset, deleted rows left out; the
 * new fragments take them one after the other. Lance's {@code compact_files} (checked against
 * pylance 14) and this library's compactor both write them so. The old fragments' metadata in the
 * transaction records their deletion files as the compaction read them, so the moves follow from
 * the transaction and those files alone, with no per-row table: a lookup is a rank in the old
 * fragment's deletion vector and a search over the new fragments' row counts.
 */
public final class RewriteMoves {
    /** One old fragment's place in its group. */
    private record Source(Group group, long firstLiveIndex, RoaringBitmap deleted, long physicalRows) {}

    /** A group's new fragments, with the index of each one's first row among the group's live rows. */
    private record Group(long[] newIds, long[] firstIndex, long rows) {}

    private final Map<Long, Source> sources;

    private RewriteMoves(Map<Long, Source> sources) {
        this.sources = sources;
    }

    /**
     * The moves of {@code rewrite}, as committed in {@code committed} (the manifest of the version
     * it produced). The transaction may carry its new fragments with id 0 (assigned at commit), so
     * each new fragment's id is taken from the committed manifest, found by its first data file.
     *
     * @throws IllegalStateException if a new fragment is not in {@code committed}, or a group's new
     *     fragments do not hold exactly the live rows of its old ones (then no address can be
     *     translated)
     */
    public static RewriteMoves of(ObjectStore store, Manifest committed, Operation.Rewrite rewrite)
            throws IOException {
        Map<String, Long> idByFile = new HashMap<>();
        for (Fragment f : committed.fragments()) {
            if (!f.files().isEmpty()) {
                idByFile.put(f.files().get(0).path(), f.id());
            }
        }
        Map<Long, Source> sources = new HashMap<>();
        try (TableFiles files = TableFiles.of(store, committed)) {
            for (Operation.RewriteGroup g : rewrite.groups()) {
                List<Fragment> news = g.newFragments();
                long[] ids = new long[news.size()];
                long[] first = new long[news.size()];
                long rows = 0;
                for (int i = 0; i < news.size(); i++) {
                    Fragment f = news.get(i);
                    Long id = f.files().isEmpty() ? null : idByFile.get(f.files().get(0).path());
                    if (id == null) {
                        throw new IllegalStateException("Version " + committed.version() + " of " + store.rootUri()
                                + " has no fragment with the rewrite's new data file "
                                + (f.files().isEmpty() ? "(none)" : f.files().get(0).path()));
                    }
                    ids[i] = id;
                    first[i] = rows;
                    rows += f.physicalRows();
                }
                Group group = new Group(ids, first, rows);
                long live = 0;
                for (Fragment old : g.oldFragments()) {
                    RoaringBitmap deleted = old.deletionFile() == null ? new RoaringBitmap()
                            : DeletionFiles.read(files, old.id(), old.deletionFile()).toBitmap();
                    sources.put(old.id(), new Source(group, live, deleted, old.physicalRows()));
                    live += old.physicalRows() - deleted.rangeCardinality(0, old.physicalRows());
                }
                if (live != rows) {
                    throw new IllegalStateException("Rewrite group of fragments " + idsOf(g.oldFragments()) + " -> "
                            + idsOf(news) + " holds " + rows + " rows, but the old fragments have " + live
                            + " live rows; the rows' new addresses cannot be derived from it");
                }
            }
        }
        return new RewriteMoves(sources);
    }

    private static List<Long> idsOf(List<Fragment> fragments) {
        return fragments.stream().map(Fragment::id).toList();
    }

    /** True if the rewrite moved the rows of fragment {@code fragmentId}. */
    public boolean moves(long fragmentId) {
        return sources.containsKey(fragmentId);
    }

    /**
     * The new row address ({@code fragment << 32 | offset}) of the row at {@code offset} of
     * {@code fragmentId}, or empty if that row was deleted when the rewrite read it (so it was not
     * carried over).
     *
     * @throws IllegalArgumentException if the rewrite did not move that fragment, or the offset is
     *     beyond its rows
     */
    public OptionalLong newAddress(long fragmentId, int offset) {
        Source s = sources.get(fragmentId);
        if (s == null) {
            throw new IllegalArgumentException("The rewrite did not move fragment " + fragmentId);
        }
        long o = Integer.toUnsignedLong(offset);
        if (o >= s.physicalRows()) {
            throw new IllegalArgumentException("Offset " + o + " is beyond fragment " + fragmentId + "'s "
                    + s.physicalRows() + " rows");
        }
        if (s.deleted().contains(offset)) {
            return OptionalLong.empty();
        }
        // Live rows before this one in its fragment: offset minus the deleted offsets below it.
        long index = s.firstLiveIndex() + o - (o == 0 ? 0 : s.deleted().rankLong(offset - 1));
        Group g = s.group();
        int i = upperBound(g.firstIndex(), index) - 1;
        return OptionalLong.of(RowAddress.of(g.newIds()[i], index - g.firstIndex()[i]));
    }

    /** The first position whose value is greater than {@code key} (values ascending). */
    private static int upperBound(long[] values, long key) {
        int lo = 0;
        int hi = values.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (values[mid] <= key) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
}
