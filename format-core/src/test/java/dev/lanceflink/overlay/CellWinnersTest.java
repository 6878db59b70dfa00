package dev.lanceflink.overlay;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.roaringbitmap.RoaringBitmap;

/**
 * Won sets (newest overlay first) and the hits of one request: offsets to batch indices and
 * covered offsets to value rows by rank in the full coverage, for contiguous, gapped and thinly
 * spread requests.
 */
class CellWinnersTest {
    /** Newest first: {5,6,7}, then {1,5,9}, then {1,2,3,5,6}. */
    private static CellWinners threeOverlays() {
        return CellWinners.of(new int[] {2, 1, 0}, new int[] {0, 1, 0}, new RoaringBitmap[] {
            RoaringBitmap.bitmapOf(5, 6, 7), RoaringBitmap.bitmapOf(1, 5, 9), RoaringBitmap.bitmapOf(1, 2, 3, 5, 6)
        });
    }

    /** {@code [at..., rows...]} of the hits of entry {@code e}. */
    private static long[][] hits(CellWinners w, int e, long... offsets) {
        int[] at = new int[offsets.length];
        long[] rows = new long[offsets.length];
        int n = w.hits(e, offsets, at, rows);
        return new long[][] {Arrays.stream(Arrays.copyOf(at, n)).asLongStream().toArray(), Arrays.copyOf(rows, n)};
    }

    private static long[] range(long from, long to) {
        long[] out = new long[(int) (to - from)];
        for (int i = 0; i < out.length; i++) {
            out[i] = from + i;
        }
        return out;
    }

    @Test
    void newerCoverageShadowsOlderCells() {
        CellWinners w = threeOverlays();

        assertThat(w.size()).isEqualTo(3);
        assertThat(w.won(0).toArray()).containsExactly(5, 6, 7);
        assertThat(w.won(1).toArray()).containsExactly(1, 9);
        assertThat(w.won(2).toArray()).containsExactly(2, 3);
        assertThat(new int[] {w.overlay(0), w.overlay(1), w.overlay(2)}).containsExactly(2, 1, 0);
        assertThat(new int[] {w.position(0), w.position(1), w.position(2)}).containsExactly(0, 1, 0);
        assertThat(w.coverage(2).toArray()).containsExactly(1, 2, 3, 5, 6);
    }

    @Test
    void contiguousRequestMapsCellsByRankInTheWholeCoverage() {
        CellWinners w = threeOverlays();
        long[] all = range(0, 10);

        assertThat(hits(w, 0, all)).isDeepEqualTo(new long[][] {{5, 6, 7}, {0, 1, 2}});
        // Offset 5 of the middle overlay is shadowed, yet it keeps its value row: 9 is row 2.
        assertThat(hits(w, 1, all)).isDeepEqualTo(new long[][] {{1, 9}, {0, 2}});
        assertThat(hits(w, 2, all)).isDeepEqualTo(new long[][] {{2, 3}, {1, 2}});
    }

    @Test
    void requestStartingInsideTheCoverageCountsRanksFromItsStart() {
        CellWinners w = threeOverlays();

        assertThat(hits(w, 0, range(6, 9))).isDeepEqualTo(new long[][] {{0, 1}, {1, 2}});
        assertThat(hits(w, 1, range(6, 10))).isDeepEqualTo(new long[][] {{3}, {2}});
        assertThat(hits(w, 2, range(3, 5))).isDeepEqualTo(new long[][] {{0}, {2}});
        assertThat(hits(w, 0, range(8, 9))).isDeepEqualTo(new long[][] {{}, {}});
    }

    @Test
    void gappedRequestSkipsCellsThatWereNotAskedFor() {
        CellWinners w = threeOverlays();
        long[] gapped = {1, 3, 6, 9, 12};

        assertThat(hits(w, 0, gapped)).isDeepEqualTo(new long[][] {{2}, {1}});
        assertThat(hits(w, 1, gapped)).isDeepEqualTo(new long[][] {{0, 3}, {0, 2}});
        assertThat(hits(w, 2, gapped)).isDeepEqualTo(new long[][] {{1}, {2}});
    }

    @Test
    void thinRequestOverAWideCoverageProbesEachOffset() {
        RoaringBitmap wide = new RoaringBitmap();
        wide.add(0L, 100_000L);
        RoaringBitmap newer = RoaringBitmap.bitmapOf(50, 70_000);
        CellWinners w = CellWinners.of(new int[] {1, 0}, new int[] {0, 0}, new RoaringBitmap[] {newer, wide});

        long[] take = {3, 50, 65_536, 70_000, 99_999};
        assertThat(hits(w, 0, take)).isDeepEqualTo(new long[][] {{1, 3}, {0, 1}});
        assertThat(hits(w, 1, take)).isDeepEqualTo(new long[][] {{0, 2, 4}, {3, 65_536, 99_999}});
    }

    @Test
    void fullyShadowedOverlayWinsNothing() {
        CellWinners w = CellWinners.of(new int[] {1, 0}, new int[] {0, 0}, new RoaringBitmap[] {
            RoaringBitmap.bitmapOf(1, 2, 3, 4), RoaringBitmap.bitmapOf(2, 4)
        });

        assertThat(w.won(1).isEmpty()).isTrue();
        assertThat(hits(w, 1, range(0, 5))).isDeepEqualTo(new long[][] {{}, {}});
        assertThat(hits(w, 0, range(0, 5))).isDeepEqualTo(new long[][] {{1, 2, 3, 4}, {0, 1, 2, 3}});
    }

    @Test
    void gallopFindsTheFirstOffsetNotBelowTheTarget() {
        long[] a = {1, 3, 6, 9, 12, 20, 31, 40};

        assertThat(CellWinners.gallop(a, 0, 0)).isEqualTo(0);
        assertThat(CellWinners.gallop(a, 0, 6)).isEqualTo(2);
        assertThat(CellWinners.gallop(a, 0, 7)).isEqualTo(3);
        assertThat(CellWinners.gallop(a, 3, 31)).isEqualTo(6);
        assertThat(CellWinners.gallop(a, 5, 3)).isEqualTo(5);
        assertThat(CellWinners.gallop(a, 0, 40)).isEqualTo(7);
        assertThat(CellWinners.gallop(a, 0, 41)).isEqualTo(8);
        assertThat(CellWinners.gallop(a, 8, 1)).isEqualTo(8);
    }

    @Test
    void mismatchedEntryArraysAreRejected() {
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> CellWinners.of(new int[] {0}, new int[0], new RoaringBitmap[] {new RoaringBitmap()}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("overlays, positions and coverage must have one entry each, got 1, 0 and 1");
    }
}
