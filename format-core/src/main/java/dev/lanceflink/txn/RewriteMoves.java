package dev.lanceflink.txn;

import dev.lanceflink.deletion.DeletionFiles;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.RowAddress;
import dev.lanceflink.table.TableFiles;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
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
    public static RewriteMoves of(ObjectStore store, Manifest committed, Operation.Rewrite rewrite) throws IOException {
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
                    Long id = f.files().isEmpty()
                            ? null
                            : idByFile.get(f.files().get(0).path());
                    if (id == null) {
                        throw new IllegalStateException("Version " + committed.version() + " of " + store.rootUri()
                                + " has no fragment with the rewrite's new data file "
                                + (f.files().isEmpty()
                                        ? "(none)"
                                        : f.files().get(0).path()));
                    }
                    ids[i] = id;
                    first[i] = rows;
                    rows += f.physicalRows();
                }
                Group group = new Group(ids, first, rows);
                long live = 0;
                for (Fragment old : g.oldFragments()) {
                    RoaringBitmap deleted = old.deletionFile() == null
                            ? new RoaringBitmap()
                            : DeletionFiles.read(files, old.id(), old.deletionFile())
                                    .toBitmap();
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

    /** The ids of the fragments whose rows the rewrite moved (its old fragments). */
    public Set<Long> movedFragmentIds() {
        return Collections.unmodifiableSet(sources.keySet());
    }

    /** Layout version of {@link #writeTo}: a reader refuses any other. */
    private static final int SERIAL_VERSION = 1;

    /**
     * Writes the moves in a compact form (per old fragment its deletion vector as the rewrite
     * read it and its place in the group; per group the new fragment ids and row counts), so a
     * holder of row addresses can keep translating them after the Rewrite's version is gone from
     * the table's history. {@link #readFrom} reads it back.
     */
    public void writeTo(DataOutput out) throws IOException {
        out.writeInt(SERIAL_VERSION);
        Map<Group, Integer> groupIndex = new IdentityHashMap<>();
        List<Group> groups = new ArrayList<>();
        for (Source s : sources.values()) {
            if (!groupIndex.containsKey(s.group())) {
                groupIndex.put(s.group(), groups.size());
                groups.add(s.group());
            }
        }
        out.writeInt(groups.size());
        for (Group g : groups) {
            out.writeInt(g.newIds().length);
            for (int i = 0; i < g.newIds().length; i++) {
                out.writeLong(g.newIds()[i]);
                out.writeLong(g.firstIndex()[i]);
            }
            out.writeLong(g.rows());
        }
        out.writeInt(sources.size());
        for (Map.Entry<Long, Source> e : sources.entrySet()) {
            Source s = e.getValue();
            out.writeLong(e.getKey());
            out.writeInt(groupIndex.get(s.group()));
            out.writeLong(s.firstLiveIndex());
            out.writeLong(s.physicalRows());
            s.deleted().runOptimize();
            s.deleted().serialize(out);
        }
    }

    /** The moves {@link #writeTo} wrote. */
    public static RewriteMoves readFrom(DataInput in) throws IOException {
        int version = in.readInt();
        if (version != SERIAL_VERSION) {
            throw new IOException("Serialized rewrite moves have layout version " + version + ", this library reads "
                    + SERIAL_VERSION + " only");
        }
        int groupCount = in.readInt();
        Group[] groups = new Group[groupCount];
        for (int g = 0; g < groupCount; g++) {
            int n = in.readInt();
            long[] ids = new long[n];
            long[] first = new long[n];
            for (int i = 0; i < n; i++) {
                ids[i] = in.readLong();
                first[i] = in.readLong();
            }
            groups[g] = new Group(ids, first, in.readLong());
        }
        int sourceCount = in.readInt();
        Map<Long, Source> sources = new HashMap<>();
        for (int i = 0; i < sourceCount; i++) {
            long id = in.readLong();
            int group = in.readInt();
            if (group < 0 || group >= groupCount) {
                throw new IOException(
                        "Serialized rewrite moves name group " + group + " of " + groupCount + " for fragment " + id);
            }
            long firstLive = in.readLong();
            long physical = in.readLong();
            RoaringBitmap deleted = new RoaringBitmap();
            deleted.deserialize(in);
            sources.put(id, new Source(groups[group], firstLive, deleted, physical));
        }
        return new RewriteMoves(sources);
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
            throw new IllegalArgumentException(
                    "Offset " + o + " is beyond fragment " + fragmentId + "'s " + s.physicalRows() + " rows");
        }
        if (s.deleted().contains(offset)) {
            return OptionalLong.empty();
        }
        // Live rows before this one in its fragment: offset minus the deleted offsets below it.
        long index = s.firstLiveIndex() + o - (o == 0 ? 0 : s.deleted().rankLong(offset - 1));
        Group g = s.group();
        int i = newFragmentAt(g.firstIndex(), index);
        return OptionalLong.of(RowAddress.of(g.newIds()[i], index - g.firstIndex()[i]));
    }

    /**
     * Which of a group's new fragments holds the group's {@code index}-th moved row, given the
     * index of each new fragment's first row (ascending, the first 0).
     */
    public static int newFragmentAt(long[] firstIndex, long index) {
        return upperBound(firstIndex, index) - 1;
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
