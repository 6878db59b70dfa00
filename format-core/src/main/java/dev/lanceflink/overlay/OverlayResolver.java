package dev.lanceflink.overlay;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.file.FileField;
import dev.lanceflink.file.LanceFileReader;
import dev.lanceflink.io.InMemoryRangeReader;
import dev.lanceflink.io.RangeReader;
import dev.lanceflink.schema.LanceField;
import dev.lanceflink.table.CorruptTableException;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.OverlayCoverage;
import dev.lanceflink.table.TableFiles;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.roaringbitmap.RoaringBitmap;

/**
 * Applies a fragment's data overlay files to base values (overlays.md §3.4): for every requested
 * offset and field, the newest overlay whose coverage holds the offset supplies the value (NULL
 * included); uncovered cells keep the base value.
 *
 * <p>Per atomic field, which overlay wins which cell is decided once per resolver (that is, once
 * per fragment read), as disjoint won sets ({@link CellWinners}); a batch then asks each overlay
 * only for the cells it wins in the batch's range. The cost of a batch is therefore bounded by
 * the overlaid cells it returns, not by rows times overlays: overlays shadowed in the range,
 * overlays whose coverage misses it and overlays that do not carry the field are never read, and
 * a projection that excludes every overlaid field never opens an overlay file or decodes a
 * coverage bitmap. Only the coverage bitmaps of the requested fields' slots are decoded (a dense
 * overlay's shared bitmap once).
 *
 * <p>Work is done on primitive arrays and Arrow vectors: hit positions and value rows go to
 * scratch arrays reused across calls; nothing is allocated per cell. An overlay's value column
 * that is small next to the request (at most {@value #WHOLE_COLUMN_FACTOR} times the requested
 * rows: the typical hot-row overlay seen by a scan) is read whole on first use and kept for the
 * fragment, within {@value #COLUMN_CACHE_BYTES} bytes per resolver, so a scan reads it once
 * rather than once per batch; other values are read per batch and winning overlay with one range
 * read (or one take if the overlay is partly shadowed there).
 * Fixed-width values and fixed-size lists of them (embeddings) are overwritten in place;
 * strings and binaries are rebuilt once per batch, copying runs of kept base cells in bulk
 * ({@link VariableWidthSplice}); other types are rebuilt cell by cell.
 * Instances are not thread-safe.
 */
public final class OverlayResolver implements AutoCloseable {
    /** A value column at most this many times the requested rows is read whole and kept. */
    static final int WHOLE_COLUMN_FACTOR = 4;
    /** Memory for kept value columns per resolver; once used up, values are read per batch. */
    static final long COLUMN_CACHE_BYTES = 64L << 20;
    /** Overlay files up to this size are read whole on open (one request instead of one per range). */
    static final long WHOLE_FILE_BYTES = 1L << 20;
    /** Bytes {@link #prefetch} holds at most; the files beyond are read when used, as without it. */
    static final long PREFETCH_BYTES = 64L << 20;

    private final TableFiles files;
    private final Fragment fragment;
    private final List<DataOverlayFile> overlays; // oldest first
    private final BufferAllocator allocator;
    private final RoaringBitmap[][] bitmaps;
    /** Per overlay (high half) and atomic field id: its value columns in the overlay file, checked. */
    private final Map<Long, Source> sources = new HashMap<>();

    private final Map<Integer, CellWinners> winners = new HashMap<>();
    private final Map<String, LanceFileReader> readers = new HashMap<>();
    /** Whole value columns kept for the fragment, by overlay index (high half) and atomic field id. */
    private final Map<Long, FieldVector> columns = new HashMap<>();
    /** Small overlay files read ahead by {@link #prefetch}, by path, until {@link #source} opens them. */
    private final Map<String, RangeReader> prefetched = new HashMap<>();

    private long columnBytes;
    private int[] at = new int[0];
    private long[] rows = new long[0];
    private int[] source = new int[0];
    private int[] sourceIndex = new int[0];

    /**
     * @param overlays the overlays to apply, oldest first (use {@link OverlayOrder#sorted})
     */
    public OverlayResolver(
            TableFiles files, Fragment fragment, List<DataOverlayFile> overlays, BufferAllocator allocator) {
        this.files = requireNonNull(files, "files is null");
        this.fragment = requireNonNull(fragment, "fragment is null");
        this.overlays = List.copyOf(overlays);
        this.allocator = requireNonNull(allocator, "allocator is null");
        this.bitmaps = new RoaringBitmap[this.overlays.size()][];
    }

    /** A resolver for all overlays of the fragment, in resolution order. */
    public static OverlayResolver of(TableFiles files, Fragment fragment, BufferAllocator allocator) {
        return new OverlayResolver(files, fragment, OverlayOrder.sorted(fragment.overlays()), allocator);
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
     * Reads ahead, {@code parallelism} at a time, the whole files of the overlays that supply at
     * least one cell of {@code fields} (top-level, not structs; others are skipped) and that are
     * small enough to be read whole anyway ({@value #WHOLE_FILE_BYTES} bytes): {@link #resolve}
     * then opens them from memory. For a caller that will read every overlay of a long run (an
     * overlay merge or fold of a fragment with hundreds of small overlays): one after another,
     * each read waits a full round trip, which on an object store is tens of ms, i.e. seconds per
     * fragment. Overlays that win no cell of the fields (fully shadowed) are not read, and at most
     * {@value #PREFETCH_BYTES} bytes are read ahead (newest overlays first).
     *
     * @throws IOException if a read fails (files read so far are released)
     */
    public void prefetch(List<LanceField> fields, int parallelism) throws IOException {
        if (parallelism < 1) {
            throw new IllegalArgumentException("parallelism must be >= 1, got " + parallelism);
        }
        LinkedHashMap<String, TableFiles.StoredFile> wanted = new LinkedHashMap<>();
        Map<String, Long> sizes = new HashMap<>();
        long total = 0;
        for (LanceField f : fields) {
            if (f.isStruct()) {
                continue;
            }
            CellWinners w = winners(f);
            for (int e = 0; e < w.size(); e++) {
                DataOverlayFile ov = overlays.get(w.overlay(e));
                String path = ov.dataFile().path();
                long size = ov.dataFile().fileSizeBytes();
                if (w.won(e).isEmpty()
                        || size <= 0
                        || size > WHOLE_FILE_BYTES
                        || readers.containsKey(path)
                        || prefetched.containsKey(path)
                        || wanted.containsKey(path)
                        || total + size > PREFETCH_BYTES) {
                    continue;
                }
                wanted.put(path, files.overlayFile(fragment.id(), ov));
                sizes.put(path, size);
                total += size;
            }
        }
        if (wanted.size() < 2) {
            return; // nothing to overlap
        }
        ExecutorService pool = Executors.newFixedThreadPool(Math.min(parallelism, wanted.size()), r -> {
            Thread t = new Thread(r, "lance-overlay-prefetch");
            t.setDaemon(true);
            return t;
        });
        Map<String, Future<RangeReader>> reads = new LinkedHashMap<>();
        try {
            for (Map.Entry<String, TableFiles.StoredFile> e : wanted.entrySet()) {
                long size = sizes.get(e.getKey());
                TableFiles.StoredFile file = e.getValue();
                reads.put(
                        e.getKey(),
                        pool.submit(() -> InMemoryRangeReader.readWhole(file.openReader(size), (int) size)));
            }
            IOException failure = null;
            for (Map.Entry<String, Future<RangeReader>> e : reads.entrySet()) {
                try {
                    RangeReader r = e.getValue().get();
                    if (failure == null) {
                        prefetched.put(e.getKey(), r);
                    } else {
                        r.close();
                    }
                } catch (ExecutionException ex) {
                    Throwable cause = ex.getCause();
                    if (failure == null) {
                        failure = cause instanceof IOException io
                                ? io
                                : new IOException(
                                        "Reading overlay file " + e.getKey() + " of fragment " + fragment.id()
                                                + " failed",
                                        cause);
                    }
                }
            }
            if (failure != null) {
                closePrefetched();
                throw failure;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            pool.shutdownNow();
            for (Future<RangeReader> f : reads.values()) {
                closeQuietly(f);
            }
            closePrefetched();
            throw new InterruptedIOException(
                    "Interrupted while reading the overlay files of fragment " + fragment.id());
        } finally {
            pool.shutdownNow();
        }
    }

    private static void closeQuietly(Future<RangeReader> f) {
        if (f.isDone() && !f.isCancelled()) {
            try {
                f.get().close();
            } catch (Exception ignored) {
                // a failed read left nothing open
            }
        }
    }

    private void closePrefetched() {
        for (RangeReader r : prefetched.values()) {
            try {
                r.close();
            } catch (IOException ignored) {
                // in-memory readers hold no resources beyond their bytes
            }
        }
        prefetched.clear();
    }

    /**
     * The current values of a top-level field at ascending physical offsets. Takes ownership of
     * {@code base} (the base values at the same offsets) and returns the resolved vector: the
     * same object when no overlay covers any of the offsets, when the values are fixed-width or
     * fixed-size lists of fixed-width values (set in place) or when the field is a struct;
     * otherwise a new vector ({@code base} is closed).
     *
     * <p>A struct is not a unit (Lance's atomic-field rule): every atomic field under it is
     * resolved independently and spliced back, keeping the base struct's own validity, as Lance
     * does: an overlay cannot make a struct NULL, nor a NULL struct valid (a struct written NULL
     * in an overlay file only makes the covered leaves NULL).
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
                throw new IllegalStateException(
                        "base vector of struct '" + struct.pathString() + "' has no child '" + child.name() + "'");
            }
            path.add(child.name());
            if (child.isStruct()) {
                resolveStruct(top, child, path, offsets, (StructVector) cv);
            } else {
                FieldVector resolved = resolveAtomic(top, child, path, offsets, cv);
                if (resolved != cv) {
                    throw new IllegalStateException(
                            "struct leaf '" + child.pathString() + "' was not resolved in place");
                }
            }
            path.remove(path.size() - 1);
        }
    }

    /**
     * Resolves one atomic field (top-level, or under structs at {@code path} below {@code top}).
     * Nested targets are always updated in place (fixed-width values and fixed-size lists of
     * them: per hit; otherwise the rebuilt vector's buffers are transferred into the target) so the
     * enclosing struct stays intact.
     */
    private FieldVector resolveAtomic(
            LanceField top, LanceField atomic, List<String> path, long[] offsets, FieldVector target)
            throws IOException {
        CellWinners w = winners(atomic);
        if (w.size() == 0) {
            return target;
        }
        int n = offsets.length;
        ensureScratch(n);
        boolean inPlace = isOverwritable(target);
        boolean anyHit = false;
        List<FieldVector> owned = new ArrayList<>();
        List<FieldVector> values = new ArrayList<>();
        try {
            for (int e = 0; e < w.size(); e++) {
                int hits = w.hits(e, offsets, at, rows);
                if (hits == 0) {
                    continue;
                }
                int k = w.overlay(e);
                DataOverlayFile ov = overlays.get(k);
                Source src = source(ov, k, w.position(e), top, atomic);
                // From here on rows[j] is the index of hit j's value in topValues.
                FieldVector topValues =
                        wholeColumn(src, k, atomic, w.coverage(e).getLongCardinality(), n);
                boolean kept = topValues != null;
                if (!kept) {
                    topValues = readRows(src, rows, hits);
                    owned.add(topValues);
                    for (int j = 0; j < hits; j++) {
                        rows[j] = j;
                    }
                }
                FieldVector v = descend(topValues, path, ov);
                if (inPlace) {
                    // Won sets are disjoint: no cell is written twice, whatever the order.
                    overwrite(target, v, hits);
                    if (!kept) {
                        owned.remove(owned.size() - 1).close();
                    }
                    continue;
                }
                if (!anyHit) {
                    Arrays.fill(source, 0, n, -1);
                    anyHit = true;
                }
                int vi = values.size();
                values.add(v);
                for (int j = 0; j < hits; j++) {
                    source[at[j]] = vi;
                    sourceIndex[at[j]] = (int) rows[j];
                }
            }
            if (values.isEmpty()) {
                return target;
            }
            return rebuild(target, path.isEmpty(), values, n);
        } finally {
            for (FieldVector v : owned) {
                v.close();
            }
        }
    }

    /**
     * Whether cells of {@code v} can be replaced in place: fixed-width values, and fixed-size
     * lists of fixed-width values (vectors, embeddings), whose cells all have the same size.
     */
    private static boolean isOverwritable(FieldVector v) {
        return v instanceof BaseFixedWidthVector
                || v instanceof FixedSizeListVector l && l.getDataVector() instanceof BaseFixedWidthVector;
    }

    /**
     * Copies {@code values[rows[j]]} to {@code target[at[j]]} for the first {@code hits} hits
     * ({@link #isOverwritable} targets only).
     */
    private void overwrite(FieldVector target, FieldVector values, int hits) {
        if (target instanceof BaseFixedWidthVector t) {
            if (t.getTypeWidth() > 0
                    && values instanceof BaseFixedWidthVector v
                    && v.getTypeWidth() == t.getTypeWidth()) {
                overwriteBytes(t, v, hits);
                return;
            }
            for (int j = 0; j < hits; j++) { // booleans: values are bits, not bytes
                t.copyFrom((int) rows[j], at[j], values);
            }
            return;
        }
        FixedSizeListVector t = (FixedSizeListVector) target;
        FixedSizeListVector v = (FixedSizeListVector) values;
        int size = t.getListSize();
        if (v.getListSize() != size) {
            throw new IllegalStateException("overlay values of '" + t.getName() + "' have lists of " + v.getListSize()
                    + " items, the base has " + size);
        }
        BaseFixedWidthVector items = (BaseFixedWidthVector) t.getDataVector();
        BaseFixedWidthVector from = (BaseFixedWidthVector) v.getDataVector();
        int width = items.getTypeWidth();
        // Whole-byte items (float embeddings): one copy of the list's bytes, item validity bit by bit.
        boolean bytes = width > 0 && from.getTypeWidth() == width;
        boolean itemsNoNulls = bytes && from.getNullCount() == 0;
        for (int j = 0; j < hits; j++) {
            int row = at[j];
            int src = (int) rows[j];
            if (v.isNull(src)) {
                t.setNull(row);
            } else {
                t.setNotNull(row);
            }
            if (!bytes) {
                for (int x = 0; x < size; x++) {
                    items.copyFrom(src * size + x, row * size + x, from);
                }
                continue;
            }
            items.getDataBuffer()
                    .setBytes(
                            (long) row * size * width,
                            from.getDataBuffer(),
                            (long) src * size * width,
                            (long) size * width);
            ArrowBuf validity = items.getValidityBuffer();
            for (int x = 0; x < size; x++) {
                if (itemsNoNulls || from.isSet(src * size + x) == 1) {
                    BitVectorHelper.setBit(validity, (long) row * size + x);
                } else {
                    BitVectorHelper.unsetBit(validity, row * size + x);
                }
            }
        }
    }

    /**
     * {@link #overwrite} for values of whole bytes: reads and writes the buffers directly instead
     * of going through {@code copyFrom} per cell (a scan of a narrow, much-updated column spends
     * most of its overlay time here), with a shortcut for the common value column without NULLs.
     */
    private void overwriteBytes(BaseFixedWidthVector t, BaseFixedWidthVector v, int hits) {
        // at[] and rows[] ascend: checking the last hit bounds them all, so the loop may use raw addresses.
        if (at[hits - 1] >= t.getValueCount() || rows[hits - 1] >= v.getValueCount()) {
            throw new IllegalStateException("overlay hit outside the vectors of '" + t.getName() + "': cell "
                    + at[hits - 1] + " of " + t.getValueCount() + ", value " + rows[hits - 1] + " of "
                    + v.getValueCount());
        }
        int width = t.getTypeWidth();
        long to = t.getDataBuffer().memoryAddress();
        long toValidity = t.getValidityBuffer().memoryAddress();
        long from = v.getDataBuffer().memoryAddress();
        long fromValidity = v.getValidityBuffer().memoryAddress();
        boolean noNulls = v.getNullCount() == 0;
        for (int j = 0; j < hits; j++) {
            long row = rows[j];
            long index = at[j];
            long bitByte = toValidity + (index >>> 3);
            byte bit = (byte) (1 << (index & 7));
            if (!noNulls && (MemoryUtil.getByte(fromValidity + (row >>> 3)) & (1 << (row & 7))) == 0) {
                MemoryUtil.putByte(bitByte, (byte) (MemoryUtil.getByte(bitByte) & ~bit));
                continue; // the bytes under a NULL do not matter
            }
            MemoryUtil.putByte(bitByte, (byte) (MemoryUtil.getByte(bitByte) | bit));
            switch (width) {
                case 4 -> MemoryUtil.putInt(to + index * 4, MemoryUtil.getInt(from + row * 4));
                case 8 -> MemoryUtil.putLong(to + index * 8, MemoryUtil.getLong(from + row * 8));
                default -> MemoryUtil.copyMemory(from + row * width, to + index * width, width);
            }
        }
    }

    /**
     * A copy of {@code target} with the won cells taken from {@code values} ({@code source} and
     * {@code sourceIndex} say which). A top-level target is closed and the copy returned; a nested
     * one receives the copy's buffers, so its parent struct keeps pointing at it.
     */
    private FieldVector rebuild(FieldVector target, boolean topLevel, List<FieldVector> values, int n) {
        FieldVector out = target.getField().createVector(allocator);
        try {
            if (target instanceof BaseVariableWidthVector t && out instanceof BaseVariableWidthVector o) {
                VariableWidthSplice.splice(t, values, source, sourceIndex, n, o);
            } else {
                out.allocateNew();
                for (int i = 0; i < n; i++) {
                    if (source[i] < 0) {
                        out.copyFromSafe(i, i, target);
                    } else {
                        out.copyFromSafe(sourceIndex[i], i, values.get(source[i]));
                    }
                }
                out.setValueCount(n);
            }
            if (topLevel) {
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
    }

    private void ensureScratch(int n) {
        if (at.length < n) {
            at = new int[n];
            rows = new long[n];
            source = new int[n];
            sourceIndex = new int[n];
        }
    }

    /** The won sets of the overlays carrying {@code atomic}, computed on first use. */
    private CellWinners winners(LanceField atomic) throws IOException {
        CellWinners w = winners.get(atomic.id());
        if (w != null) {
            return w;
        }
        int count = 0;
        int[] ks = new int[overlays.size()];
        int[] positions = new int[overlays.size()];
        for (int k = overlays.size() - 1; k >= 0; k--) {
            int pos = OverlayFields.positionOf(overlays.get(k).dataFile(), atomic);
            if (pos >= 0) {
                ks[count] = k;
                positions[count++] = pos;
            }
        }
        RoaringBitmap[] coverage = new RoaringBitmap[count];
        for (int e = 0; e < count; e++) {
            coverage[e] = bitmap(ks[e], positions[e]);
        }
        w = CellWinners.of(Arrays.copyOf(ks, count), Arrays.copyOf(positions, count), coverage);
        winners.put(atomic.id(), w);
        return w;
    }

    /** The vector at {@code path} (child names) below a top-level struct vector read from an overlay file. */
    private FieldVector descend(FieldVector topValues, List<String> path, DataOverlayFile ov)
            throws CorruptTableException {
        FieldVector v = topValues;
        for (String name : path) {
            FieldVector c = v instanceof StructVector sv ? sv.getChild(name) : null;
            if (c == null) {
                throw new CorruptTableException("Fragment " + fragment.id() + ": overlay file "
                        + ov.dataFile().path()
                        + " lists a field under '" + String.join(".", path) + "' but its schema has no child '" + name
                        + "' there");
            }
            v = c;
        }
        return v;
    }

    /**
     * The coverage bitmap of slot {@code pos} of overlay {@code k}, decoded on first use. A dense
     * overlay's one shared bitmap is decoded once for all its slots.
     */
    private RoaringBitmap bitmap(int k, int pos) throws IOException {
        DataOverlayFile ov = overlays.get(k);
        if (bitmaps[k] == null) {
            bitmaps[k] = new RoaringBitmap[ov.dataFile().fieldCount()];
        }
        int slot = ov.coverage() instanceof OverlayCoverage.Dense ? 0 : pos;
        RoaringBitmap bm = bitmaps[k][slot];
        if (bm == null) {
            try {
                bm = ov.coverage().bitmap(pos);
            } catch (CorruptTableException e) {
                throw new CorruptTableException(
                        "Fragment " + fragment.id() + ", overlay "
                                + ov.dataFile().path()
                                + " (committed_version " + ov.committedVersion() + "), field slot " + pos + ": "
                                + e.getMessage(),
                        e);
            }
            bitmaps[k][slot] = bm;
        }
        return bm;
    }

    /**
     * The value columns of one atomic field in one overlay file: the top-level field narrowed to
     * the path down to the atomic field, found through the overlay's {@code fields} /
     * {@code column_indices} (the ids stored in the file are not the table's when Lance's file
     * writer wrote it). Reading just this path gives the atomic field's own rows, so leaves of one
     * struct may have different coverages. Opened and checked against the coverage once.
     */
    private record Source(LanceFileReader reader, FileField field) {}

    private Source source(DataOverlayFile ov, int k, int pos, LanceField top, LanceField atomic) throws IOException {
        long key = (long) k << 32 | (atomic.id() & 0xFFFFFFFFL);
        Source src = sources.get(key);
        if (src != null) {
            return src;
        }
        LanceFileReader r = readers.get(ov.dataFile().path());
        if (r == null) {
            TableFiles.StoredFile file = files.overlayFile(fragment.id(), ov);
            long size = ov.dataFile().fileSizeBytes();
            RangeReader ranges = prefetched.remove(ov.dataFile().path());
            if (ranges == null) {
                ranges = file.openReader(size);
                if (size > 0 && size <= WHOLE_FILE_BYTES) {
                    // Footer, metadata and the value pages of a small overlay in one read instead of several.
                    ranges = InMemoryRangeReader.readWhole(ranges, (int) size);
                }
            }
            r = LanceFileReader.openOwning(ranges, file.uri(), allocator);
            readers.put(ov.dataFile().path(), r);
        }
        FileField f = r.project(pathTo(top, atomic), ov.dataFile().columnMap(r));
        if (f == null || !sameIds(nodeAt(f.field(), atomic), atomic)) {
            throw new CorruptTableException("Fragment " + fragment.id() + ": overlay file "
                    + ov.dataFile().path()
                    + " (committed_version " + ov.committedVersion() + ") lists field '" + atomic.pathString()
                    + "' (id "
                    + atomic.id() + ") in its fields but its column_indices do not place all of that field's columns"
                    + " in the file");
        }
        src = new Source(r, f);
        checkRowCount(src, ov, k, pos, atomic);
        sources.put(key, src);
        return src;
    }

    /** {@code top} with, below it, only the chain of structs leading to {@code atomic} (whose subtree is whole). */
    private static LanceField pathTo(LanceField top, LanceField atomic) {
        if (top.id() == atomic.id()) {
            return top;
        }
        for (LanceField c : top.children()) {
            if (OverlayFields.inSubtree(c, atomic.id())) {
                return top.toBuilder()
                        .clearChildren()
                        .addChild(pathTo(c, atomic))
                        .build();
            }
        }
        throw new IllegalArgumentException(
                "field '" + atomic.pathString() + "' is not below '" + top.pathString() + "'");
    }

    /** The node of {@code projected} with {@code atomic}'s id, or null. */
    private static LanceField nodeAt(LanceField projected, LanceField atomic) {
        return projected
                .preOrder()
                .filter(f -> f.id() == atomic.id())
                .findFirst()
                .orElse(null);
    }

    private static boolean sameIds(LanceField a, LanceField b) {
        return a != null && Arrays.equals(OverlayFields.subtreeIds(a), OverlayFields.subtreeIds(b));
    }

    /**
     * The whole value column of {@code atomic} in overlay {@code k} ({@code rows} values), kept for
     * later calls, or null if it is large next to the {@code requested} rows or the memory for
     * kept columns is used up (then the caller reads just the rows it needs).
     */
    private FieldVector wholeColumn(Source src, int k, LanceField atomic, long rows, int requested) throws IOException {
        if (rows > (long) WHOLE_COLUMN_FACTOR * requested) {
            return null;
        }
        long key = (long) k << 32 | (atomic.id() & 0xFFFFFFFFL);
        FieldVector c = columns.get(key);
        if (c == null && columnBytes < COLUMN_CACHE_BYTES) {
            c = src.reader().readRange(src.field(), 0, rows);
            columns.put(key, c);
            columnBytes += c.getBufferSize();
        }
        return c;
    }

    /** Rows {@code valueRows[0..count)} (ascending) of the source's value column. */
    private static FieldVector readRows(Source src, long[] valueRows, int count) throws IOException {
        long first = valueRows[0];
        if (valueRows[count - 1] - first == count - 1) {
            return src.reader().readRange(src.field(), first, first + count);
        }
        return src.reader().take(src.field(), Arrays.copyOf(valueRows, count));
    }

    private void checkRowCount(Source src, DataOverlayFile ov, int k, int pos, LanceField atomic) throws IOException {
        long stored = src.reader().numRows(src.field());
        long covered = bitmap(k, pos).getLongCardinality();
        // More rows than offsets is fine: a sparse overlay written with a rectangular file writer
        // (pylance's LanceFileWriter) pads its shorter columns, and Lance reads only the covered ranks.
        if (stored < covered) {
            throw new CorruptTableException("Fragment " + fragment.id() + ": overlay file "
                    + ov.dataFile().path()
                    + " (committed_version " + ov.committedVersion() + ") stores " + stored + " rows for field '"
                    + atomic.pathString() + "' (id " + atomic.id() + ") but its coverage has " + covered + " offsets;"
                    + " the value column must hold a value for every covered offset");
        }
    }

    @Override
    public void close() throws IOException {
        columns.values().forEach(FieldVector::close);
        columns.clear();
        closePrefetched();
        sources.clear();
        columnBytes = 0;
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
