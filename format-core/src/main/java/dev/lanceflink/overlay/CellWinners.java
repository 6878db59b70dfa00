package dev.lanceflink.overlay;

import org.roaringbitmap.RoaringBitmap;

/**
 * Which overlay supplies each covered cell of one atomic field in one fragment, decided once for
 * the whole fragment (overlays.md §3.4: the newest overlay covering a cell wins, NULL values
 * included).
 *
 * <p>The overlays carrying the field are kept newest first, each with its coverage bitmap and the
 * part of that coverage it <em>wins</em>: its coverage minus the coverage of every newer overlay.
 * The won sets are disjoint, so a batch needs no per-row bookkeeping of which rows are already
 * claimed, and an overlay whose won set misses the batch (fully shadowed there, however many
 * cells its coverage has in range) costs one bitmap probe. Computing the won sets is a handful of
 * Roaring set operations, the same order of work as decoding the coverage bitmaps.
 *
 * <p>Values are addressed by rank in the coverage (§3.3), not in the won set: an overlay that wins
 * only some of its cells still stores a value for every covered offset.
 */
final class CellWinners {
    private final int[] overlays;
    private final int[] positions;
    private final RoaringBitmap[] coverage;
    private final RoaringBitmap[] won;
    /** Whether the entry wins its whole coverage: then ranks of consecutive won cells are consecutive. */
    private final boolean[] unshadowed;
    /** Per entry, its won cells ascending and their value rows, made on first use ({@link #wonCells}). */
    private final int[][] wonCells;

    private final int[][] wonRows;

    private CellWinners(int[] overlays, int[] positions, RoaringBitmap[] coverage) {
        int k = overlays.length;
        this.overlays = overlays;
        this.positions = positions;
        this.coverage = coverage;
        this.won = new RoaringBitmap[k];
        this.unshadowed = new boolean[k];
        this.wonCells = new int[k][];
        this.wonRows = new int[k][];
        RoaringBitmap claimed = new RoaringBitmap();
        for (int e = 0; e < k; e++) {
            if (!RoaringBitmap.intersects(coverage[e], claimed)) {
                won[e] = coverage[e]; // untouched by newer overlays (always the newest)
                unshadowed[e] = true;
            } else if (claimed.contains(coverage[e])) {
                // Fully shadowed (hot rows rewritten by later commits): wins nothing, claims nothing new.
                won[e] = new RoaringBitmap();
                continue;
            } else {
                won[e] = RoaringBitmap.andNot(coverage[e], claimed);
            }
            if (e < k - 1) {
                claimed.or(coverage[e]);
            }
        }
    }

    /**
     * @param overlays per entry, the index of the overlay in the resolver's list; entries newest first
     * @param positions per entry, the slot of the field in the overlay's {@code data_file.fields}
     * @param coverage per entry, the coverage bitmap of that slot (not modified)
     */
    static CellWinners of(int[] overlays, int[] positions, RoaringBitmap[] coverage) {
        if (overlays.length != positions.length || overlays.length != coverage.length) {
            throw new IllegalArgumentException("overlays, positions and coverage must have one entry each, got "
                    + overlays.length + ", " + positions.length + " and " + coverage.length);
        }
        return new CellWinners(overlays.clone(), positions.clone(), coverage.clone());
    }

    /** Number of overlays that carry the field (whether or not they win any cell). */
    int size() {
        return overlays.length;
    }

    /** Index of entry {@code e}'s overlay in the resolver's overlay list. */
    int overlay(int e) {
        return overlays[e];
    }

    /** Slot of the field in entry {@code e}'s {@code data_file.fields}. */
    int position(int e) {
        return positions[e];
    }

    /** Entry {@code e}'s coverage bitmap for the field. */
    RoaringBitmap coverage(int e) {
        return coverage[e];
    }

    /** The cells entry {@code e} supplies: its coverage minus that of every newer entry. */
    RoaringBitmap won(int e) {
        return won[e];
    }

    /**
     * The requested offsets whose value entry {@code e} supplies. For each hit {@code h} (in
     * ascending offset order) writes the index into {@code offsets} to {@code at[h]} and the row
     * of the entry's value column to {@code rows[h]}; returns the number of hits.
     *
     * <p>Work is bounded by the smaller of the won cells within {@code [offsets[0],
     * offsets[n-1]]} and the number of requested offsets, plus two binary searches: a contiguous
     * request maps a cell to its index by subtraction, a gapped one (deleted or filtered rows) by
     * galloping search, and a request spread thinly over a wide span (a take) looks each offset up
     * instead (in the bitmap, when the entry has many more won cells than the request offsets).
     *
     * @param offsets ascending physical offsets, at least one
     * @param at and {@code rows}: at least {@code offsets.length} long
     */
    int hits(int e, long[] offsets, int[] at, long[] rows) {
        int n = offsets.length;
        long lo = offsets[0];
        long hi = offsets[n - 1];
        if (won[e].isEmpty()) {
            return 0; // fully shadowed
        }
        if (wonCells[e] == null && hi - lo != n - 1 && (long) n * 64 < won[e].getLongCardinality()) {
            // A few scattered offsets (a take) against many won cells: probing the bitmap is cheaper
            // than making the arrays.
            return probeOffsets(e, offsets, at, rows);
        }
        int[] cells = wonCells(e);
        int from = lowerBound(cells, lo);
        int to = lowerBound(cells, hi + 1);
        if (from == to) {
            return 0;
        }
        int[] valueRows = wonRows[e];
        int hits = 0;
        if (hi - lo == n - 1) {
            // Contiguous request: a cell's index is its distance from lo.
            for (int c = from; c < to; c++) {
                at[hits] = (int) (Integer.toUnsignedLong(cells[c]) - lo);
                rows[hits++] = valueRows[c];
            }
            return hits;
        }
        if (to - from <= n) {
            // Gapped request (deleted or filtered rows): walk the won cells, galloping through the offsets.
            int i = 0;
            for (int c = from; c < to; c++) {
                long v = Integer.toUnsignedLong(cells[c]);
                i = gallop(offsets, i, v);
                if (i == n) {
                    break;
                }
                if (offsets[i] == v) {
                    at[hits] = i;
                    rows[hits++] = valueRows[c];
                }
            }
            return hits;
        }
        // A request spread thinly over a wide span (a take): look each offset up among the won cells.
        int c = from;
        for (int i = 0; i < n; i++) {
            c = gallop(cells, c, to, offsets[i]);
            if (c == to) {
                break;
            }
            if (Integer.toUnsignedLong(cells[c]) == offsets[i]) {
                at[hits] = i;
                rows[hits++] = valueRows[c];
            }
        }
        return hits;
    }

    private int probeOffsets(int e, long[] offsets, int[] at, long[] rows) {
        RoaringBitmap w = won[e];
        RoaringBitmap cov = coverage[e];
        int hits = 0;
        for (int i = 0; i < offsets.length; i++) {
            int o = (int) offsets[i];
            if (w.contains(o)) {
                at[hits] = i;
                rows[hits++] = cov.rankLong(o) - 1;
            }
        }
        return hits;
    }

    /**
     * Entry {@code e}'s won cells as a sorted array, with the row of each in the entry's value
     * column ({@link #wonRows}), made on first use and kept for the fragment: a batch then finds
     * its cells by binary search and walks plain arrays, instead of iterating and ranking bitmap
     * containers batch after batch.
     */
    private int[] wonCells(int e) {
        int[] cells = wonCells[e];
        if (cells == null) {
            cells = won[e].toArray();
            int[] valueRows = new int[cells.length];
            if (unshadowed[e]) {
                // Won == coverage: the j-th won cell is the j-th covered offset (overlays.md §3.3).
                for (int j = 0; j < valueRows.length; j++) {
                    valueRows[j] = j;
                }
            } else {
                RoaringBitmap cov = coverage[e];
                for (int j = 0; j < valueRows.length; j++) {
                    valueRows[j] = (int) (cov.rankLong(cells[j]) - 1);
                }
            }
            wonCells[e] = cells;
            wonRows[e] = valueRows;
        }
        return cells;
    }

    /** The first index of {@code cells} (unsigned, ascending) whose value is {@code >= v}. */
    private static int lowerBound(int[] cells, long v) {
        int lo = 0;
        int hi = cells.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (Integer.toUnsignedLong(cells[mid]) < v) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** {@link #gallop(long[], int, long)} over unsigned int cells, up to {@code end}. */
    private static int gallop(int[] a, int from, int end, long v) {
        if (from >= end || Integer.toUnsignedLong(a[from]) >= v) {
            return from;
        }
        int step = 1;
        int lo = from;
        int hi = from + 1;
        while (hi < end && Integer.toUnsignedLong(a[hi]) < v) {
            lo = hi;
            step <<= 1;
            hi = lo + step;
        }
        hi = Math.min(hi, end);
        while (hi - lo > 1) {
            int mid = (lo + hi) >>> 1;
            if (Integer.toUnsignedLong(a[mid]) < v) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        return hi;
    }

    /**
     * The first index {@code >= from} whose offset is {@code >= v}, or {@code a.length}:
     * exponential then binary search, so short steps stay cheap.
     */
    static int gallop(long[] a, int from, long v) {
        int n = a.length;
        if (from >= n || a[from] >= v) {
            return from;
        }
        int step = 1;
        int lo = from; // a[lo] < v
        int hi = from + 1;
        while (hi < n && a[hi] < v) {
            lo = hi;
            step <<= 1;
            hi = lo + step;
        }
        hi = Math.min(hi, n);
        // a[lo] < v, and a[hi] >= v or hi == n
        while (hi - lo > 1) {
            int mid = (lo + hi) >>> 1;
            if (a[mid] < v) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        return hi;
    }
}
