package dev.lanceflink.compact;

import dev.lanceflink.deletion.DeletionFiles;
import dev.lanceflink.deletion.DeletionVector;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.overlay.OverlayRelocator;
import dev.lanceflink.overlay.StagedWrite;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.DeletionFile;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
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
 * files or row ids, overlays merged or folded away, deletions undone, the fragment gone) cannot be
 * carried: the rewrite is then stale. With stable row ids, an update also changes the rows'
 * last-updated-at versions, which the new fragments' row id metadata would have to follow; that is
 * not carried yet, so there only deletions are (an overlay commit makes the rewrite stale).
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
                Carried c = carry(files, latest, g, fresh);
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
                    RoaringBitmap deleted = c.deleted.get(f.id());
                    if (deleted != null && !deleted.isEmpty()) {
                        // Written even when every row is deleted: the group's new fragments must
                        // hold all the rows it moved (the moves are derived from that).
                        DeletionFile file =
                                DeletionFiles.write(store, f.id(), latest.version(), DeletionVector.of(deleted), null);
                        written.add(file.rootRelativePath(f.id()));
                        next = next.withDeletionFile(file);
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
                || !now.rowIdMeta().equals(read.rowIdMeta())
                || now.overlays().size() < read.overlays().size()
                || !now.overlays().subList(0, read.overlays().size()).equals(read.overlays())) {
            return false;
        }
        return read.deletionFile() == null || now.deletionFile() != null;
    }

    /** What one group carries: deletions per new fragment id and the overlays to relocate. */
    private static final class Carried {
        final Map<Long, RoaringBitmap> deleted = new HashMap<>();
        final List<OverlayRelocator.Source> sources = new ArrayList<>();
        long deletedRows;
        long newestVersion;
    }

    private static Carried carry(TableFiles files, Manifest latest, Operation.RewriteGroup g, List<Fragment> fresh)
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
            if (!java.util.Objects.equals(now.deletionFile(), read.deletionFile())) {
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
     * The moves of one old fragment (see {@link RewriteMoves}): its live rows,
     * in offset order, are the group's live rows from {@code firstLive} on, which the new
     * fragments hold one after the other.
     */
    private record Moves(long firstLive, RoaringBitmap wasDeleted, long[] firstIndex, List<Fragment> fresh) {
        /** Per new fragment id: the old offsets of {@code offsets} there and their new offsets. */
        void map(RoaringBitmap offsets, Map<Long, RoaringBitmap> from, Map<Long, RoaringBitmap> to) {
            IntIterator it = offsets.getIntIterator();
            while (it.hasNext()) {
                int o = it.next();
                if (wasDeleted.contains(o)) {
                    continue; // not moved: the compaction left it out
                }
                long index = firstLive + Integer.toUnsignedLong(o) - wasDeleted.rankLong(o);
                int i = RewriteMoves.newFragmentAt(firstIndex, index);
                long id = fresh.get(i).id();
                from.computeIfAbsent(id, k -> new RoaringBitmap()).add(o);
                to.computeIfAbsent(id, k -> new RoaringBitmap()).add((int) (index - firstIndex[i]));
            }
        }
    }
}
