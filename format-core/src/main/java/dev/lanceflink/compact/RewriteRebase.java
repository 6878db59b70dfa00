package dev.lanceflink.compact;

import dev.lanceflink.deletion.DeletionFiles;
import dev.lanceflink.deletion.DeletionStager;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.overlay.OverlayRelocator;
import dev.lanceflink.overlay.StagedWrite;
import dev.lanceflink.rowid.RowVersionSequenceCodec;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.RowIdMeta;
import dev.lanceflink.table.SequenceSource;
import dev.lanceflink.table.TableFiles;
import dev.lanceflink.txn.Operation;
import dev.lanceflink.txn.RewriteMoves;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.roaringbitmap.IntIterator;
import org.roaringbitmap.RoaringBitmap;

/**
 * Carries what other writers committed on a compaction's old fragments after the compaction read
 * them over to its new fragments, so that the compaction can commit instead of losing to a writer
 * that changes those fragments every checkpoint (a streaming upsert sink overlays and deletes rows
 * of every fragment all the time: a compaction that must find its fragments unchanged never lands).
 *
 * <p>What can be carried: deletions (the old fragment's deletion vector grew) and overlays
 * appended after the ones the compaction read (the rewrite materialized those). Both are moved
 * through the rewrite's row mapping ({@link RewriteMoves}: a group's live rows
 * in order, as read): new deletions become the new fragment's deletion file, new overlays become
 * one overlay per new fragment ({@link OverlayRelocator}, the newest value winning per cell,
 * stamped with the newest carried overlay's version). Any other change of an old fragment (its
 * files, row ids or created-at versions, overlays merged or folded away, deletions undone, the
 * fragment gone) cannot be carried: the rewrite is then stale.
 *
 * <p>Stable row ids (feature flag 2): the rewrite already gave each new fragment the row ids and
 * created-at / last-updated-at versions of the rows it holds, in the same order the moves use
 * ({@link RowLineage}: the group's live rows as read), so a moved row keeps its id and a relocated
 * overlay cell and a carried deletion address the same row as its id does. A concurrent overlay
 * commit also set the covered rows' last-updated-at versions ({@code DataOverlayApplier}); those
 * versions are carried with the rows, through the same moves, so the new fragments hold the
 * lineage a rewrite planned on the latest version would have written. A concurrent deletion
 * changes no lineage (the sequences cover deleted rows too; the deletion file masks them).
 *
 * <p>The rewrite's old fragments stay as the compaction read them (their deletion files say which
 * rows it moved, from which the moves are derived). New fragments that receive a deletion file get
 * their ids here (the file is named after the id), the next free ones of the version the rebase is
 * for; so the result must be committed exactly on top of that version (a commit plan does).
 */
public final class RewriteRebase {
    /**
     * The rewrite to commit and the files written for it.
     *
     * @param carriedDeletions rows deleted after the compaction read them, deleted in the new fragments
     * @param carriedOverlays overlays committed after the compaction read them, relocated
     */
    public record Rebased(
            Operation.Rewrite operation, List<String> writtenPaths, long carriedDeletions, int carriedOverlays) {
        public StagedWrite staged() {
            return new StagedWrite(operation, writtenPaths);
        }
    }

    private RewriteRebase() {}

    /**
     * The rewrite for {@code latest}: unchanged when no old fragment changed since the compaction
     * read it, with the changes carried over when they can be, empty when they cannot.
     */
    public static Optional<Rebased> rebase(
            ObjectStore store, Manifest latest, Operation.Rewrite rewrite, BufferAllocator allocator)
            throws IOException {
        if (!rewrite.rewrittenIndices().isEmpty()) {
            throw new IllegalArgumentException("A rewrite with rewritten indices cannot be rebased");
        }
        boolean changed = false;
        for (Operation.RewriteGroup g : rewrite.groups()) {
            for (Fragment read : g.oldFragments()) {
                Optional<Fragment> now = latest.fragment(read.id());
                if (now.isEmpty() || !carriable(read, now.get())) {
                    return Optional.empty();
                }
                changed |= !now.get().equals(read);
            }
        }
        if (!changed) {
            return Optional.of(new Rebased(rewrite, List.of(), 0, 0));
        }
        List<String> written = new ArrayList<>();
        try (TableFiles files = TableFiles.of(store, latest)) {
            long nextId = latest.nextFragmentId();
            long deletions = 0;
            int overlays = 0;
            List<Operation.RewriteGroup> groups = new ArrayList<>();
            for (Operation.RewriteGroup g : rewrite.groups()) {
                List<Fragment> fresh = new ArrayList<>();
                for (Fragment f : g.newFragments()) {
                    fresh.add(f.withId(nextId++));
                }
                Carried c = carry(store, files, latest, g, fresh);
                deletions += c.deletedRows;
                overlays += c.sources.size();
                List<Fragment> out = new ArrayList<>();
                Map<Long, DataOverlayFile> relocated = Map.of();
                if (!c.sources.isEmpty()) {
                    OverlayRelocator.Relocated r = OverlayRelocator.relocate(store, latest, c.sources, allocator);
                    written.addAll(r.writtenPaths());
                    relocated = r.overlays();
                }
                for (Fragment f : fresh) {
                    Fragment next = f;
                    long[] updated = c.lastUpdated.get(f.id());
                    if (updated != null) {
                        RowIdMeta meta = f.rowIdMeta();
                        next = next.withRowIdMeta(new RowIdMeta(
                                meta.rowIds(),
                                new SequenceSource.Inline(RowVersionSequenceCodec.encode(updated)),
                                meta.createdAtVersions()));
                    }
                    RoaringBitmap deleted = c.deleted.get(f.id());
                    if (deleted != null) {
                        // Kept even when every row is deleted: the group's new fragments must
                        // hold all the rows it moved (the moves are derived from that).
                        DeletionStager.Staged staged =
                                DeletionStager.stageRewritten(store, next, deleted, latest.version());
                        written.addAll(staged.writtenPaths());
                        next = staged.updated().getOrDefault(f.id(), next);
                    }
                    DataOverlayFile ov = relocated.get(f.id());
                    if (ov != null) {
                        next = next.withOverlays(List.of(ov.withCommittedVersion(c.newestVersion)));
                    }
                    out.add(next);
                }
                groups.add(new Operation.RewriteGroup(g.oldFragments(), out));
            }
            return Optional.of(new Rebased(new Operation.Rewrite(groups), written, deletions, overlays));
        } catch (IOException | RuntimeException e) {
            StagedWrite.discard(store, written);
            throw e;
        }
    }

    /**
     * Whether every old fragment of {@code rewrite} is in {@code latest}, unchanged or changed only
     * in ways {@link #rebase} carries over (cheap: no file is read).
     */
    public static boolean carriable(Manifest latest, Operation.Rewrite rewrite) {
        for (Operation.RewriteGroup g : rewrite.groups()) {
            for (Fragment read : g.oldFragments()) {
                Optional<Fragment> now = latest.fragment(read.id());
                if (now.isEmpty() || !carriable(read, now.get())) {
                    return false;
                }
            }
        }
        return true;
    }

    /**
     * Whether {@code now} is {@code read} with, at most, more deleted rows and overlays appended.
     * (The deletion vectors themselves are compared in {@link #carry}.)
     */
    private static boolean carriable(Fragment read, Fragment now) {
        if (now.equals(read)) {
            return true;
        }
        if (!now.files().equals(read.files())
                || now.physicalRows() != read.physicalRows()
                || !lineageCarriable(read.rowIdMeta(), now.rowIdMeta())
                || now.overlays().size() < read.overlays().size()
                || !now.overlays().subList(0, read.overlays().size()).equals(read.overlays())) {
            return false;
        }
        return read.deletionFile() == null || now.deletionFile() != null;
    }

    /**
     * Whether {@code now}'s row lineage is {@code read}'s with, at most, other last-updated-at
     * versions (what an overlay commit changes). The ids and created-at versions must be the same:
     * the moved rows keep those as the rewrite read them.
     */
    private static boolean lineageCarriable(RowIdMeta read, RowIdMeta now) {
        if (now.equals(read)) {
            return true;
        }
        return Objects.equals(now.rowIds(), read.rowIds())
                && Objects.equals(now.createdAtVersions(), read.createdAtVersions())
                && read.lastUpdatedAtVersions() != null
                && now.lastUpdatedAtVersions() != null;
    }

    /** What one group carries: deletions per new fragment id and the overlays to relocate. */
    private static final class Carried {
        /** Per new fragment id: its last-updated-at versions with the carried ones set (null: unchanged). */
        final Map<Long, long[]> lastUpdated = new HashMap<>();

        final Map<Long, RoaringBitmap> deleted = new HashMap<>();
        final List<OverlayRelocator.Source> sources = new ArrayList<>();
        long deletedRows;
        long newestVersion;
    }

    private static Carried carry(
            ObjectStore store, TableFiles files, Manifest latest, Operation.RewriteGroup g, List<Fragment> fresh)
            throws IOException {
        Carried c = new Carried();
        long[] firstIndex = new long[fresh.size()];
        long rows = 0;
        for (int i = 0; i < fresh.size(); i++) {
            firstIndex[i] = rows;
            rows += fresh.get(i).physicalRows();
        }
        List<DataOverlayFile> newer = new ArrayList<>();
        long live = 0;
        for (Fragment read : g.oldFragments()) {
            Fragment now = latest.fragment(read.id()).orElseThrow();
            RoaringBitmap wasDeleted = read.deletionFile() == null
                    ? new RoaringBitmap()
                    : DeletionFiles.read(files, read.id(), read.deletionFile()).toBitmap();
            Moves moves = new Moves(live, wasDeleted, firstIndex, fresh);
            live += read.physicalRows() - wasDeleted.rangeCardinality(0, read.physicalRows());
            if (now.equals(read)) {
                continue;
            }
            if (!Objects.equals(now.deletionFile(), read.deletionFile())) {
                RoaringBitmap isDeleted =
                        DeletionFiles.read(files, now.id(), now.deletionFile()).toBitmap();
                if (!RoaringBitmap.andNot(wasDeleted, isDeleted).isEmpty()) {
                    throw new IllegalStateException("Fragment " + read.id() + " has rows deleted when the compaction"
                            + " read it that are no longer deleted in version " + latest.version());
                }
                RoaringBitmap added = RoaringBitmap.andNot(isDeleted, wasDeleted);
                Map<Long, RoaringBitmap> from = new LinkedHashMap<>();
                Map<Long, RoaringBitmap> to = new LinkedHashMap<>();
                moves.map(added, from, to);
                to.forEach((id, offsets) ->
                        c.deleted.computeIfAbsent(id, k -> new RoaringBitmap()).or(offsets));
                c.deletedRows += added.getLongCardinality();
            }
            if (!Objects.equals(
                    now.rowIdMeta().lastUpdatedAtVersions(), read.rowIdMeta().lastUpdatedAtVersions())) {
                carryLastUpdated(store, read, now, moves, fresh, c);
            }
            for (DataOverlayFile o : now.overlays()
                    .subList(read.overlays().size(), now.overlays().size())) {
                Map<Long, RoaringBitmap> from = new LinkedHashMap<>();
                Map<Long, RoaringBitmap> to = new LinkedHashMap<>();
                moves.map(RoaringBitmap.andNot(o.coverage().union(), wasDeleted), from, to);
                if (!from.isEmpty()) {
                    c.sources.add(new OverlayRelocator.Source(read.id(), o, from, to));
                    newer.add(o);
                }
                c.newestVersion = Math.max(c.newestVersion, o.committedVersion());
            }
        }
        if (live != rows) {
            throw new IllegalStateException("Rewrite group of fragments "
                    + g.oldFragments().stream().map(Fragment::id).toList() + " holds " + rows
                    + " rows, but the old fragments had " + live + " live rows when it read them");
        }
        // Oldest first across fragments (a stable sort keeps each fragment's own order).
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < newer.size(); i++) {
            order.add(i);
        }
        order.sort(Comparator.comparingLong(i -> newer.get(i).committedVersion()));
        List<OverlayRelocator.Source> sorted = new ArrayList<>();
        for (int i : order) {
            sorted.add(c.sources.get(i));
        }
        c.sources.clear();
        c.sources.addAll(sorted);
        return c;
    }

    /**
     * Sets, in the new fragments' last-updated-at versions, the version {@code now} has for every
     * row the rewrite moved out of {@code read} where it differs from what the rewrite read (rows
     * a concurrent overlay commit updated). Rows deleted when the rewrite read them were not moved.
     */
    private static void carryLastUpdated(
            ObjectStore store, Fragment read, Fragment now, Moves moves, List<Fragment> fresh, Carried c)
            throws IOException {
        String context = "Fragment " + read.id() + " of " + store.rootUri();
        long[] was = RowVersionSequenceCodec.decode(
                RowLineage.bytes(store, read.rowIdMeta().lastUpdatedAtVersions(), context),
                read.physicalRows(),
                context + " last_updated_at version sequence as the compaction read it");
        long[] is = RowVersionSequenceCodec.decode(
                RowLineage.bytes(store, now.rowIdMeta().lastUpdatedAtVersions(), context),
                now.physicalRows(),
                context + " last_updated_at version sequence");
        RoaringBitmap changed = new RoaringBitmap();
        for (int o = 0; o < was.length; o++) {
            if (was[o] != is[o]) {
                changed.add(o);
            }
        }
        moves.forEach(changed, (o, i, newOffset) -> {
            Fragment f = fresh.get(i);
            long[] versions = c.lastUpdated.get(f.id());
            if (versions == null) {
                SequenceSource seq = f.rowIdMeta().lastUpdatedAtVersions();
                if (seq == null) {
                    throw new IllegalStateException("New fragment " + f.id() + " carries no last_updated_at"
                            + " versions, but rows it took from fragment " + read.id()
                            + " were updated since the compaction read them");
                }
                String ctx = "New fragment " + f.id() + " of " + store.rootUri();
                versions = RowVersionSequenceCodec.decode(
                        RowLineage.bytes(store, seq, ctx), f.physicalRows(), ctx + " last_updated_at version sequence");
                c.lastUpdated.put(f.id(), versions);
            }
            versions[(int) newOffset] = is[o];
        });
    }

    /** A moved row: its old offset, the index of its new fragment in the group and its offset there. */
    @FunctionalInterface
    private interface Move {
        void accept(int oldOffset, int freshIndex, long newOffset) throws IOException;
    }

    /**
     * The moves of one old fragment (see {@link RewriteMoves}): its live rows,
     * in offset order, are the group's live rows from {@code firstLive} on, which the new
     * fragments hold one after the other.
     */
    private record Moves(long firstLive, RoaringBitmap wasDeleted, long[] firstIndex, List<Fragment> fresh) {
        /** Per new fragment id: the old offsets of {@code offsets} there and their new offsets. */
        void map(RoaringBitmap offsets, Map<Long, RoaringBitmap> from, Map<Long, RoaringBitmap> to) throws IOException {
            forEach(offsets, (o, i, newOffset) -> {
                long id = fresh.get(i).id();
                from.computeIfAbsent(id, k -> new RoaringBitmap()).add(o);
                to.computeIfAbsent(id, k -> new RoaringBitmap()).add((int) newOffset);
            });
        }

        /** Every moved row of {@code offsets}, by ascending old offset. */
        void forEach(RoaringBitmap offsets, Move move) throws IOException {
            IntIterator it = offsets.getIntIterator();
            while (it.hasNext()) {
                int o = it.next();
                if (wasDeleted.contains(o)) {
                    continue; // not moved: the compaction left it out
                }
                long index = firstLive + Integer.toUnsignedLong(o) - wasDeleted.rankLong(o);
                int i = RewriteMoves.newFragmentAt(firstIndex, index);
                move.accept(o, i, index - firstIndex[i]);
            }
        }
    }
}
