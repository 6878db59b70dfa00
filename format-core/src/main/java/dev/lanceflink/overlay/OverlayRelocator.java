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
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.roaringbitmap.IntIterator;
import org.roaringbitmap.PeekableIntIterator;
import org.roaringbitmap.RoaringBitmap;

/**
 * Moves a staged overlay's cells to the rows' new addresses after a compaction moved the rows it
 * was written for. Values are addressed by rank in the coverage, so a relabelled coverage cannot
 * simply reuse the value file when some rows were dropped or the rows went to several fragments:
 * the values are read back (through {@link OverlayResolver}, which checks the file) and streamed
 * through {@link OverlayStager#open} again, one new overlay per destination fragment, each field
 * with its own coverage.
 */
public final class OverlayRelocator {
    /** The relocated overlays by destination fragment, and every file written (to discard on failure). */
    public record Relocated(Map<Long, DataOverlayFile> overlays, List<String> writtenPaths) {}

    /** Cells resolved and written per step, bounding memory to a batch of values. */
    static final int CHUNK_CELLS = 65_536;

    private OverlayRelocator() {}

    /**
     * @param overlay the overlay as written for fragment {@code oldFragmentId} (its value file at
     *     the table root, as staged files are)
     * @param from per destination fragment of {@code latest}: the old offsets whose rows are there
     * @param to per destination fragment: those rows' offsets there, in the same (ascending) order
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
        List<LanceField> carried = new ArrayList<>();
        List<RoaringBitmap> coverage = new ArrayList<>();
        for (LanceField f : latest.schema().fields()) {
            int pos = OverlayFields.positionOf(overlay.dataFile(), f);
            if (pos >= 0) {
                carried.add(f);
                coverage.add(overlay.coverage().bitmap(pos));
            }
        }
        int[] ids = carried.stream().mapToInt(LanceField::id).toArray();
        Map<Long, DataOverlayFile> out = new LinkedHashMap<>();
        List<String> written = new ArrayList<>();
        Fragment old = Fragment.of(oldFragmentId, List.of(), Integer.MAX_VALUE);
        try (TableFiles files = TableFiles.of(store, latest);
                OverlayResolver values = new OverlayResolver(files, old, List.of(overlay), allocator)) {
            for (Map.Entry<Long, RoaringBitmap> dest : from.entrySet()) {
                RoaringBitmap origins = dest.getValue();
                RoaringBitmap targets = to.get(dest.getKey());
                if (targets == null || targets.getLongCardinality() != origins.getLongCardinality()) {
                    throw new IllegalArgumentException("Relocating overlay "
                            + overlay.dataFile().path() + " of fragment "
                            + oldFragmentId + " to fragment " + dest.getKey() + ": " + origins.getLongCardinality()
                            + " old offsets but " + (targets == null ? "no" : targets.getLongCardinality())
                            + " new ones; give one new offset per old offset");
                }
                try (OverlayStager.FieldStream stream = OverlayStager.open(
                        store,
                        latest,
                        OverlayStager.Target.fragment(dest.getKey()),
                        ids,
                        allocator,
                        FileWriterOptions.defaults())) {
                    for (int i = 0; i < carried.size(); i++) {
                        RoaringBitmap mine = RoaringBitmap.and(origins, coverage.get(i));
                        if (!mine.isEmpty()) {
                            relocateField(stream, values, carried.get(i), mine, origins, targets, allocator);
                        }
                    }
                    Optional<OverlayStager.StagedOverlay> staged = stream.finish();
                    if (staged.isPresent()) {
                        written.add(staged.get().writtenPath());
                        out.put(dest.getKey(), staged.get().overlay());
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            StagedWrite.discard(store, written);
            throw e;
        }
        return new Relocated(out, written);
    }

    /**
     * Streams the values of {@code field} at the old offsets {@code mine} (a subset of
     * {@code origins}) to the same rows' new offsets, {@link #CHUNK_CELLS} cells at a time. The
     * i-th old offset of {@code origins} moved to the i-th offset of {@code targets}, so one pass
     * over both in step maps every cell (no per-cell lookups or objects).
     */
    private static void relocateField(
            OverlayStager.FieldStream stream,
            OverlayResolver values,
            LanceField field,
            RoaringBitmap mine,
            RoaringBitmap origins,
            RoaringBitmap targets,
            BufferAllocator allocator)
            throws IOException {
        IntIterator cells = mine.getIntIterator();
        PeekableIntIterator originIt = origins.getIntIterator();
        PeekableIntIterator targetIt = targets.getIntIterator();
        int size = (int) Math.min(CHUNK_CELLS, mine.getLongCardinality());
        long[] oldOffsets = new long[size];
        long[] newOffsets = new long[size];
        while (cells.hasNext()) {
            int n = 0;
            while (n < size && cells.hasNext()) {
                int o = cells.next();
                int origin;
                int target;
                do { // mine is a subset of origins: this stops at o
                    origin = originIt.next();
                    target = targetIt.next();
                } while (origin != o);
                oldOffsets[n] = Integer.toUnsignedLong(o);
                newOffsets[n] = Integer.toUnsignedLong(target);
                n++;
            }
            long[] read = n == size ? oldOffsets : Arrays.copyOf(oldOffsets, n); // the resolver reads them all
            FieldVector base = field.toArrow().createVector(allocator);
            base.allocateNew();
            base.setValueCount(n); // all NULL: every offset is covered
            try (FieldVector v = values.resolve(field, read, base)) {
                stream.add(field.id(), newOffsets, n, v);
            }
        }
    }
}
