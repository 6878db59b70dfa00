package dev.lanceflink.overlay;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.file.LanceFileReader;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.schema.LanceField;
import dev.lanceflink.table.CorruptTableException;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.UnsupportedTableFeatureException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.StructVector;
import org.roaringbitmap.PeekableIntIterator;
import org.roaringbitmap.RoaringBitmap;

/**
 * Applies a fragment's data overlay files to base values (overlays.md §3.4): for every requested
 * offset and field, the newest overlay whose coverage holds the offset supplies the value (NULL
 * included); uncovered cells keep the base value. Overlays are resolved newest first; every
 * offset is claimed by at most one overlay, so each overlay file is read once per call, only for
 * the rows it wins, and overlays whose coverage misses the requested range are never opened.
 *
 * <p>Work is done on primitive arrays and Arrow vectors: per call one source map
 * ({@code int[]} overlay, {@code int[]} index) and one gathered value vector per winning overlay;
 * nothing is allocated per cell. Fixed-width values are overwritten in place; other types are
 * rebuilt once. Bitmaps are decoded once per overlay slot and cached.
 */
public final class OverlayResolver implements AutoCloseable {
    /** When the requested span is this many times larger than the row count, look offsets up one by one. */
    private static final int SPARSE_LOOKUP_FACTOR = 4;

    private final ObjectStore store;
    private final Fragment fragment;
    private final List<DataOverlayFile> overlays; // oldest first
    private final BufferAllocator allocator;
    private final RoaringBitmap[][] bitmaps;
    private final Map<String, LanceFileReader> readers = new HashMap<>();

    /**
     * @param overlays the overlays to apply, oldest first (use {@link OverlayOrder#sorted})
     */
    public OverlayResolver(ObjectStore store, Fragment fragment, List<DataOverlayFile> overlays,
            BufferAllocator allocator) {
        this.store = requireNonNull(store, "store is null");
        this.fragment = requireNonNull(fragment, "fragment is null");
        this.overlays = List.copyOf(overlays);
        this.allocator = requireNonNull(allocator, "allocator is null");
        this.bitmaps = new RoaringBitmap[this.overlays.size()][];
    }

    /** A resolver for all overlays of the fragment, in resolution order. */
    public static OverlayResolver of(ObjectStore store, Fragment fragment, BufferAllocator allocator) {
        return new OverlayResolver(store, fragment, OverlayOrder.sorted(fragment.overlays()), allocator);
    }

    public boolean isEmpty() {
        return overlays.isEmpty();
    }

    /** Whether some overlay carries the field or one of its descendants. */
    public boolean touches(LanceField field) {
        for (DataOverlayFile o : overlays) {
            if (OverlayFields.positionOf(o.dataFile(), field) >= 0) {
                return true;
            }
        }
        return false;
    }

    /**
     * The current values of a top-level field at ascending physical offsets. Takes ownership of
     * {@code base} (the base values at the same offsets) and returns the resolved vector: the
     * same object when no overlay covers any of the offsets, when the values are fixed-width (set
     * in place) or when the field is a struct; otherwise a new vector ({@code base} is closed).
     *
     * <p>A struct is not a unit (Lance's atomic-field rule): every atomic field under it is
     * resolved independently and spliced back, keeping the base struct's own validity.
     *
     * @throws UnsupportedTableFeatureException for an overlay file whose leaves of one struct
     *     have different coverages (their shared top-level column cannot be read row-aligned)
     */
    public FieldVector resolve(LanceField field, long[] offsets, FieldVector base) throws IOException {
        if (overlays.isEmpty() || offsets.length == 0) {
            return base;
        }
        try {
            if (field.isStruct()) {
                resolveStruct(field, field, new ArrayList<>(), offsets, (StructVector) base);
                return base;
            }
            return resolveAtomic(field, field, List.of(), offsets, base);
        } catch (IOException | RuntimeException e) {
            base.close();
            throw e;
        }
    }

    private void resolveStruct(LanceField top, LanceField struct, List<String> path, long[] offsets, StructVector sv)
            throws IOException {
        for (LanceField child : struct.children()) {
            FieldVector cv = sv.getChild(child.name());
            if (cv == null) {
                throw new IllegalStateException("base vector of struct '" + struct.pathString() + "' has no child '"
                        + child.name() + "'");
            }
            path.add(child.name());
            if (child.isStruct()) {
                resolveStruct(top, child, path, offsets, (StructVector) cv);
            } else {
                FieldVector resolved = resolveAtomic(top, child, path, offsets, cv);
                if (resolved != cv) {
                    throw new IllegalStateException("struct leaf '" + child.pathString() + "' was not resolved in place");
                }
            }
            path.remove(path.size() - 1);
        }
    }

    /**
     * Resolves one atomic field (top-level, or under structs at {@code path} below {@code top}).
     * Nested targets are always updated in place (fixed-width: per hit; otherwise the rebuilt
     * vector's buffers are transferred into the target) so the enclosing struct stays intact.
     */
    private FieldVector resolveAtomic(LanceField top, LanceField atomic, List<String> path, long[] offsets,
            FieldVector target) throws IOException {
        int n = offsets.length;
        int[] source = null;
        int[] sourceIndex = null;
        List<FieldVector> owned = new ArrayList<>();
        List<FieldVector> values = new ArrayList<>();
        long[] rows = null;
        int[] at = null;
        try {
            for (int k = overlays.size() - 1; k >= 0; k--) {
                DataOverlayFile ov = overlays.get(k);
                int pos = OverlayFields.positionOf(ov.dataFile(), atomic);
                if (pos < 0) {
                    continue;
                }
                RoaringBitmap bm = bitmap(k, pos);
                long lo = offsets[0];
                long hi = offsets[n - 1];
                if (!bm.intersects(lo, hi + 1)) {
                    continue;
                }
                if (source == null) {
                    source = new int[n];
                    Arrays.fill(source, -1);
                    sourceIndex = new int[n];
                    rows = new long[n];
                    at = new int[n];
                }
                int hits = (hi - lo + 1) > (long) SPARSE_LOOKUP_FACTOR * n
                        ? lookUpEach(bm, offsets, source, rows, at)
                        : walk(bm, offsets, source, rows, at);
                if (hits == 0) {
                    continue;
                }
                FieldVector topValues = readValues(ov, k, pos, top, atomic, Arrays.copyOf(rows, hits));
                owned.add(topValues);
                int vi = values.size();
                values.add(descend(topValues, path, ov));
                for (int j = 0; j < hits; j++) {
                    source[at[j]] = vi;
                    sourceIndex[at[j]] = j;
                }
            }
            if (values.isEmpty()) {
                return target;
            }
            if (target instanceof BaseFixedWidthVector) {
                for (int i = 0; i < n; i++) {
                    if (source[i] >= 0) {
                        target.copyFromSafe(sourceIndex[i], i, values.get(source[i]));
                    }
                }
                return target;
            }
            FieldVector out = target.getField().createVector(allocator);
            try {
                out.allocateNew();
                for (int i = 0; i < n; i++) {
                    if (source[i] < 0) {
                        out.copyFromSafe(i, i, target);
                    } else {
                        out.copyFromSafe(sourceIndex[i], i, values.get(source[i]));
                    }
                }
                out.setValueCount(n);
                if (path.isEmpty()) {
                    target.close();
                    return out;
                }
                out.makeTransferPair(target).transfer();
                out.close();
                return target;
            } catch (RuntimeException e) {
                out.close();
                throw e;
            }
        } finally {
            for (FieldVector v : owned) {
                v.close();
            }
        }
    }

    /** The vector at {@code path} (child names) below a top-level struct vector read from an overlay file. */
    private FieldVector descend(FieldVector topValues, List<String> path, DataOverlayFile ov)
            throws CorruptTableException {
        FieldVector v = topValues;
        for (String name : path) {
            FieldVector c = v instanceof StructVector sv ? sv.getChild(name) : null;
            if (c == null) {
                throw new CorruptTableException("Fragment " + fragment.id() + ": overlay file " + ov.dataFile().path()
                        + " lists a field under '" + String.join(".", path) + "' but its schema has no child '" + name
                        + "' there");
            }
            v = c;
        }
        return v;
    }

    /**
     * Merge-walks the covered offsets in {@code [offsets[0], offsets[n-1]]} with the requested
     * offsets; the rank of the first covered offset is computed once, later ones count up
     * (overlays.md §3.3 batch trick). Records unclaimed hits in {@code rows}/{@code at}.
     */
    private static int walk(RoaringBitmap bm, long[] offsets, int[] source, long[] rows, int[] at) {
        long lo = offsets[0];
        long hi = offsets[offsets.length - 1];
        long rank = lo == 0 ? 0 : bm.rankLong((int) (lo - 1));
        PeekableIntIterator it = bm.getIntIterator();
        it.advanceIfNeeded((int) lo);
        int i = 0;
        int hits = 0;
        while (it.hasNext() && i < offsets.length) {
            long v = Integer.toUnsignedLong(it.next());
            if (v > hi) {
                break;
            }
            while (offsets[i] < v) {
                i++;
            }
            if (offsets[i] == v) {
                if (source[i] < 0) {
                    rows[hits] = rank;
                    at[hits++] = i;
                }
                i++;
            }
            rank++;
        }
        return hits;
    }

    /** Per-offset membership and rank, for few offsets spread over a wide range. */
    private static int lookUpEach(RoaringBitmap bm, long[] offsets, int[] source, long[] rows, int[] at) {
        int hits = 0;
        for (int i = 0; i < offsets.length; i++) {
            int o = (int) offsets[i];
            if (source[i] < 0 && bm.contains(o)) {
                rows[hits] = bm.rankLong(o) - 1;
                at[hits++] = i;
            }
        }
        return hits;
    }

    private RoaringBitmap bitmap(int k, int pos) throws IOException {
        DataOverlayFile ov = overlays.get(k);
        if (bitmaps[k] == null) {
            bitmaps[k] = new RoaringBitmap[ov.dataFile().fieldCount()];
        }
        RoaringBitmap bm = bitmaps[k][pos];
        if (bm == null) {
            try {
                bm = ov.coverage().bitmap(pos);
            } catch (CorruptTableException e) {
                throw new CorruptTableException("Fragment " + fragment.id() + ", overlay " + ov.dataFile().path()
                        + " (committed_version " + ov.committedVersion() + "), field slot " + pos + ": "
                        + e.getMessage(), e);
            }
            bitmaps[k][pos] = bm;
        }
        return bm;
    }

    private FieldVector readValues(DataOverlayFile ov, int k, int pos, LanceField top, LanceField atomic,
            long[] valueRows) throws IOException {
        LanceFileReader r = readers.get(ov.dataFile().path());
        if (r == null) {
            r = LanceFileReader.open(store, ov.dataFile().rootRelativePath(), allocator);
            readers.put(ov.dataFile().path(), r);
        }
        long stored = r.numRows(top.id());
        long covered = bitmap(k, pos).getLongCardinality();
        if (stored != covered) {
            String what = "Fragment " + fragment.id() + ": overlay file " + ov.dataFile().path() + " (committed_version "
                    + ov.committedVersion() + ") stores " + stored + " rows for field '" + top.name() + "' (id "
                    + top.id() + ") but the coverage of '" + atomic.pathString() + "' has " + covered + " offsets";
            if (top != atomic) {
                throw new UnsupportedTableFeatureException(what + "; leaves of one struct with different coverages in"
                        + " one overlay file are not supported by this reader. Compact the fragment with Lance first");
            }
            throw new CorruptTableException(what + "; the value column must hold exactly one value per covered offset");
        }
        long first = valueRows[0];
        if (valueRows[valueRows.length - 1] - first == valueRows.length - 1) {
            return r.readRange(top.id(), first, first + valueRows.length);
        }
        return r.take(top.id(), valueRows);
    }

    @Override
    public void close() throws IOException {
        IOException first = null;
        for (LanceFileReader r : readers.values()) {
            try {
                r.close();
            } catch (IOException e) {
                first = first == null ? e : first;
            }
        }
        readers.clear();
        if (first != null) {
            throw first;
        }
    }
}
