package dev.lanceflink.overlay;

import dev.lanceflink.file.writer.FileWriterOptions;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.schema.LanceField;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.TableFiles;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.roaringbitmap.IntIterator;
import org.roaringbitmap.PeekableIntIterator;
import org.roaringbitmap.RoaringBitmap;

/**
 * Moves overlays' cells to the rows' new addresses after a compaction moved the rows they were
 * written for. Values are addressed by rank in the coverage, so a relabelled coverage cannot
 * simply reuse the value file when some rows were dropped or the rows went to several fragments:
 * the values are read back (through {@link OverlayResolver}, which checks the file) and streamed
 * through {@link OverlayStager#open} again, each field with its own coverage.
 *
 * <p>Every destination fragment gets <b>one</b> new overlay, whatever the number of overlays whose
 * cells land in it: a compaction merges many fragments into one, and each of them may carry
 * overlays of several writers, so one overlay per moved overlay would add dozens of overlays to
 * the new fragment in a single commit (the bound maintenance keeps per fragment would be exceeded
 * by one commit, and every reader would resolve them all). Where several sources set the same
 * cell, the newest (the later one in the given list) wins, as it would have in the old fragment.
 */
public final class OverlayRelocator {
    /** The relocated overlays by destination fragment, and every file written (to discard on failure). */
    public record Relocated(Map<Long, DataOverlayFile> overlays, List<String> writtenPaths) {}

    /**
     * One overlay to move.
     *
     * @param fragmentId the fragment the overlay was written for
     * @param overlay the overlay (staged, or committed: its values are read where the manifest says)
     * @param from per destination fragment: the old offsets whose rows are there
     * @param to per destination fragment: those rows' offsets there, in the same (ascending) order
     */
    public record Source(
            long fragmentId, DataOverlayFile overlay, Map<Long, RoaringBitmap> from, Map<Long, RoaringBitmap> to) {}

    /** Cells resolved and written per step, bounding memory to a batch of values. */
    static final int CHUNK_CELLS = 65_536;

    private OverlayRelocator() {}

    /**
     * One overlay's cells to their new addresses: {@link #relocate(ObjectStore, Manifest, List,
     * BufferAllocator)} of that one source.
     */
    public static Relocated relocate(
            ObjectStore store,
            Manifest latest,
            long oldFragmentId,
            DataOverlayFile overlay,
            Map<Long, RoaringBitmap> from,
            Map<Long, RoaringBitmap> to,
            BufferAllocator allocator)
            throws IOException {
        return relocate(store, latest, List.of(new Source(oldFragmentId, overlay, from, to)), allocator);
    }

    /**
     * The cells of every source at their rows' new addresses, as one overlay per destination
     * fragment: per field, the cells some source sets there (its coverage), the value of the
     * newest source that sets the cell. A destination that is a fragment of {@code latest} is
     * written for it; any other (the new fragments of a compaction being committed) as the overlay
     * of an uncommitted fragment, whose coverage the commit checks.
     *
     * @param sources oldest first
     */
    public static Relocated relocate(
            ObjectStore store, Manifest latest, List<Source> sources, BufferAllocator allocator) throws IOException {
        Set<Long> destinations = new LinkedHashSet<>();
        for (Source s : sources) {
            for (Map.Entry<Long, RoaringBitmap> dest : s.from().entrySet()) {
                RoaringBitmap origins = dest.getValue();
                RoaringBitmap targets = s.to().get(dest.getKey());
                if (targets == null || targets.getLongCardinality() != origins.getLongCardinality()) {
                    throw new IllegalArgumentException("Relocating overlay "
                            + s.overlay().dataFile().path() + " of fragment "
                            + s.fragmentId() + " to fragment " + dest.getKey() + ": " + origins.getLongCardinality()
                            + " old offsets but " + (targets == null ? "no" : targets.getLongCardinality())
                            + " new ones; give one new offset per old offset");
                }
                if (!origins.isEmpty()) {
                    destinations.add(dest.getKey());
                }
            }
        }
        Map<Long, DataOverlayFile> out = new LinkedHashMap<>();
        List<String> written = new ArrayList<>();
        List<OverlayResolver> resolvers = new ArrayList<>();
        try (TableFiles files = TableFiles.of(store, latest)) {
            for (Source s : sources) {
                Fragment old = Fragment.of(s.fragmentId(), List.of(), Integer.MAX_VALUE);
                resolvers.add(new OverlayResolver(files, old, List.of(s.overlay()), allocator));
            }
            for (long dest : destinations) {
                Optional<OverlayStager.StagedOverlay> staged =
                        relocateTo(store, latest, dest, sources, resolvers, allocator);
                if (staged.isPresent()) {
                    written.add(staged.get().writtenPath());
                    out.put(dest, staged.get().overlay());
                }
            }
        } catch (IOException | RuntimeException e) {
            StagedWrite.discard(store, written);
            throw e;
        } finally {
            for (OverlayResolver r : resolvers) {
                r.close();
            }
        }
        return new Relocated(out, written);
    }

    /** The one overlay of destination {@code dest}, from every source with rows there. */
    private static Optional<OverlayStager.StagedOverlay> relocateTo(
            ObjectStore store,
            Manifest latest,
            long dest,
            List<Source> sources,
            List<OverlayResolver> resolvers,
            BufferAllocator allocator)
            throws IOException {
        List<LanceField> carried = new ArrayList<>();
        for (LanceField f : latest.schema().fields()) {
            for (Source s : sources) {
                if (s.from().containsKey(dest)
                        && OverlayFields.positionOf(s.overlay().dataFile(), f) >= 0) {
                    carried.add(f);
                    break;
                }
            }
        }
        int[] ids = carried.stream().mapToInt(LanceField::id).toArray();
        OverlayStager.Target target = latest.fragment(dest).isPresent()
                ? OverlayStager.Target.fragment(dest)
                : OverlayStager.Target.uncommitted();
        try (OverlayStager.FieldStream stream =
                OverlayStager.open(store, latest, target, ids, allocator, FileWriterOptions.defaults())) {
            for (LanceField field : carried) {
                Cursor[] cursors = new Cursor[sources.size()];
                RoaringBitmap claimed = new RoaringBitmap();
                // Newest first: a cell belongs to the newest source that sets it.
                for (int i = sources.size() - 1; i >= 0; i--) {
                    Source s = sources.get(i);
                    RoaringBitmap origins = s.from().get(dest);
                    int pos = OverlayFields.positionOf(s.overlay().dataFile(), field);
                    if (origins == null || pos < 0) {
                        continue;
                    }
                    RoaringBitmap mine =
                            RoaringBitmap.and(origins, s.overlay().coverage().bitmap(pos));
                    if (mine.isEmpty()) {
                        continue;
                    }
                    RoaringBitmap targets = s.to().get(dest);
                    RoaringBitmap won = RoaringBitmap.andNot(mapped(mine, origins, targets), claimed);
                    if (won.isEmpty()) {
                        continue;
                    }
                    claimed.or(won);
                    cursors[i] = new Cursor(mine, origins, targets, won);
                }
                relocateField(stream, resolvers, field, cursors, claimed.getLongCardinality(), allocator);
            }
            return stream.finish();
        }
    }

    /** The new offsets of the old offsets {@code mine} (a subset of {@code origins}). */
    private static RoaringBitmap mapped(RoaringBitmap mine, RoaringBitmap origins, RoaringBitmap targets) {
        RoaringBitmap out = new RoaringBitmap();
        IntIterator cells = mine.getIntIterator();
        PeekableIntIterator originIt = origins.getIntIterator();
        PeekableIntIterator targetIt = targets.getIntIterator();
        while (cells.hasNext()) {
            int o = cells.next();
            int origin;
            int target;
            do { // mine is a subset of origins: this stops at o
                origin = originIt.next();
                target = targetIt.next();
            } while (origin != o);
            out.add(target);
        }
        return out;
    }

    /**
     * One source's cells of one field that it wins, in ascending new offset order (which is also
     * ascending old offset order: the i-th old offset of {@code origins} moved to the i-th offset
     * of {@code targets}, so one pass over both in step maps every cell, with no per-cell lookups
     * or objects).
     */
    private static final class Cursor {
        private final IntIterator cells;
        private final PeekableIntIterator originIt;
        private final PeekableIntIterator targetIt;
        private final RoaringBitmap won;
        int oldOffset;
        int newOffset;
        boolean has;
        /** The cells taken for the current chunk. */
        long[] chunk = new long[0];

        int taken;

        Cursor(RoaringBitmap mine, RoaringBitmap origins, RoaringBitmap targets, RoaringBitmap won) {
            this.cells = mine.getIntIterator();
            this.originIt = origins.getIntIterator();
            this.targetIt = targets.getIntIterator();
            this.won = won;
            advance();
        }

        void advance() {
            has = false;
            while (cells.hasNext()) {
                int o = cells.next();
                int origin;
                int target;
                do {
                    origin = originIt.next();
                    target = targetIt.next();
                } while (origin != o);
                if (won.contains(target)) {
                    oldOffset = o;
                    newOffset = target;
                    has = true;
                    return;
                }
            }
        }

        void take() {
            if (taken == chunk.length) {
                chunk = Arrays.copyOf(chunk, Math.max(16, chunk.length * 2));
            }
            chunk[taken++] = Integer.toUnsignedLong(oldOffset);
            advance();
        }
    }

    /**
     * Streams the values of {@code field} from the sources' {@code cursors} to their new offsets,
     * {@link #CHUNK_CELLS} cells at a time, in ascending new offset order.
     */
    private static void relocateField(
            OverlayStager.FieldStream stream,
            List<OverlayResolver> resolvers,
            LanceField field,
            Cursor[] cursors,
            long cells,
            BufferAllocator allocator)
            throws IOException {
        if (cells == 0) {
            return;
        }
        int size = (int) Math.min(CHUNK_CELLS, cells);
        long[] newOffsets = new long[size];
        int[] sourceOf = new int[size];
        FieldVector[] resolved = new FieldVector[cursors.length];
        while (true) {
            int n = 0;
            for (Cursor c : cursors) {
                if (c != null) {
                    c.taken = 0;
                }
            }
            while (n < size) {
                int next = -1;
                for (int i = 0; i < cursors.length; i++) {
                    Cursor c = cursors[i];
                    if (c != null
                            && c.has
                            && (next < 0 || Integer.compareUnsigned(c.newOffset, cursors[next].newOffset) < 0)) {
                        next = i;
                    }
                }
                if (next < 0) {
                    break;
                }
                newOffsets[n] = Integer.toUnsignedLong(cursors[next].newOffset);
                sourceOf[n] = next;
                cursors[next].take();
                n++;
            }
            if (n == 0) {
                return;
            }
            try {
                int only = -1;
                int contributing = 0;
                for (int i = 0; i < cursors.length; i++) {
                    Cursor c = cursors[i];
                    if (c == null || c.taken == 0) {
                        continue;
                    }
                    contributing++;
                    only = i;
                    // the resolver reads every offset it is given
                    long[] read = c.taken == c.chunk.length ? c.chunk : Arrays.copyOf(c.chunk, c.taken);
                    FieldVector base = field.toArrow().createVector(allocator);
                    base.allocateNew();
                    base.setValueCount(c.taken); // all NULL: every offset is covered
                    resolved[i] = resolvers.get(i).resolve(field, read, base);
                }
                if (contributing == 1) {
                    stream.add(field.id(), newOffsets, n, resolved[only]);
                } else {
                    try (FieldVector merged = interleave(resolved, sourceOf, n, allocator)) {
                        stream.add(field.id(), newOffsets, n, merged);
                    }
                }
            } finally {
                for (int i = 0; i < resolved.length; i++) {
                    if (resolved[i] != null) {
                        resolved[i].close();
                        resolved[i] = null;
                    }
                }
            }
            if (n < size) {
                return;
            }
        }
    }

    /** Cell {@code j} is the next unused value of {@code resolved[sourceOf[j]]}. */
    private static FieldVector interleave(FieldVector[] resolved, int[] sourceOf, int n, BufferAllocator allocator) {
        FieldVector first = null;
        for (FieldVector v : resolved) {
            if (v != null) {
                first = v;
                break;
            }
        }
        FieldVector out = first.getField().createVector(allocator);
        try {
            out.setInitialCapacity(n);
            out.allocateNew();
            int[] next = new int[resolved.length];
            for (int j = 0; j < n; j++) {
                int s = sourceOf[j];
                out.copyFromSafe(next[s]++, j, resolved[s]);
            }
            out.setValueCount(n);
            return out;
        } catch (RuntimeException e) {
            out.close();
            throw e;
        }
    }
}
