package dev.lanceflink.overlay;

import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.schema.LanceField;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.RowAddress;
import dev.lanceflink.table.TableFiles;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.roaringbitmap.RoaringBitmap;

/**
 * Moves a staged overlay's cells to the rows' new addresses after a compaction moved the rows it
 * was written for. Values are addressed by rank in the coverage, so a relabelled coverage cannot
 * simply reuse the value file when some rows were dropped or the rows went to several fragments:
 * the values are read back (through {@link OverlayResolver}, which checks the file) and written
 * again, one new overlay per destination fragment, each field with its own coverage.
 */
public final class OverlayRelocator {
    /** The relocated overlays by destination fragment, and every file written (to discard on failure). */
    public record Relocated(Map<Long, DataOverlayFile> overlays, List<String> writtenPaths) {}

    private OverlayRelocator() {}

    /**
     * @param overlay the overlay as written for fragment {@code oldFragmentId} (its value file at
     *     the table root, as staged files are)
     * @param from per destination fragment of {@code latest}: the old offsets whose rows are there
     * @param to per destination fragment: those rows' offsets there, in the same (ascending) order
     */
    public static Relocated relocate(ObjectStore store, Manifest latest, long oldFragmentId, DataOverlayFile overlay,
            Map<Long, RoaringBitmap> from, Map<Long, RoaringBitmap> to, BufferAllocator allocator) throws IOException {
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
                try (OverlayWriter writer = OverlayWriter.create(store, latest, dest.getKey(), ids, allocator)) {
                    for (int i = 0; i < carried.size(); i++) {
                        RoaringBitmap mine = RoaringBitmap.and(origins, coverage.get(i));
                        if (mine.isEmpty()) {
                            continue;
                        }
                        long[] oldOffsets = new long[mine.getCardinality()];
                        long[] newAddresses = new long[oldOffsets.length];
                        int k = 0;
                        for (int o : mine) {
                            oldOffsets[k] = Integer.toUnsignedLong(o);
                            int rank = (int) origins.rankLong(o) - 1; // same rank among the targets
                            newAddresses[k] = RowAddress.of(dest.getKey(),
                                    Integer.toUnsignedLong(targets.select(rank)));
                            k++;
                        }
                        FieldVector base = carried.get(i).toArrow().createVector(allocator);
                        base.allocateNew();
                        base.setValueCount(oldOffsets.length); // all NULL: every offset is covered
                        try (FieldVector v = values.resolve(carried.get(i), oldOffsets, base)) {
                            writer.writeField(carried.get(i).id(), newAddresses, v);
                        }
                    }
                    writer.writtenPath().ifPresent(written::add);
                    writer.finish().ifPresent(o -> out.put(dest.getKey(), o));
                }
            }
        } catch (IOException | RuntimeException e) {
            for (String p : written) {
                try {
                    store.delete(p);
                } catch (IOException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            throw e;
        }
        return new Relocated(out, written);
    }
}
