package dev.lanceflink.s3;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RangeCoalescerTest {

    @Test
    void mergesRangesWithinTheGapInOffsetOrder() {
        long[] offsets = {1000, 0, 150, 5000};
        int[] lengths = {10, 100, 50, 1};
        RangeCoalescer.Plan p = RangeCoalescer.plan(offsets, lengths, 100, 1 << 20);

        assertThat(p.offsets()).containsExactly(0L, 1000L, 5000L);
        assertThat(p.lengths()).containsExactly(200, 10, 1);
        assertThat(p.requestOf()).containsExactly(1, 0, 0, 2);
        assertThat(p.offsetInRequest()).containsExactly(0, 0, 150, 0);
    }

    @Test
    void gapOneByteOverTheLimitSplits() {
        RangeCoalescer.Plan p = RangeCoalescer.plan(new long[] {0, 110}, new int[] {10, 10}, 99, 1 << 20);
        assertThat(p.offsets()).containsExactly(0L, 110L);

        RangeCoalescer.Plan q = RangeCoalescer.plan(new long[] {0, 110}, new int[] {10, 10}, 100, 1 << 20);
        assertThat(q.offsets()).containsExactly(0L);
        assertThat(q.lengths()).containsExactly(120);
    }

    @Test
    void overlappingAndDuplicateRangesShareOneRequest() {
        RangeCoalescer.Plan p = RangeCoalescer.plan(new long[] {10, 0, 10, 5}, new int[] {20, 100, 20, 1}, 0, 1 << 20);

        assertThat(p.offsets()).containsExactly(0L);
        assertThat(p.lengths()).containsExactly(100);
        assertThat(p.offsetInRequest()).containsExactly(10, 0, 10, 5);
    }

    @Test
    void mergedRequestsStayWithinTheMaximumSize() {
        RangeCoalescer.Plan p =
                RangeCoalescer.plan(new long[] {0, 100, 200, 300}, new int[] {100, 100, 100, 100}, 0, 250);

        assertThat(p.offsets()).containsExactly(0L, 200L);
        assertThat(p.lengths()).containsExactly(200, 200);
        assertThat(p.requestOf()).containsExactly(0, 0, 1, 1);
    }

    @Test
    void aSingleRangeLargerThanTheMaximumIsStillOneRequest() {
        RangeCoalescer.Plan p = RangeCoalescer.plan(new long[] {7}, new int[] {1000}, 0, 100);

        assertThat(p.offsets()).containsExactly(7L);
        assertThat(p.lengths()).containsExactly(1000);
    }

    @Test
    void sortIsStableAndHandlesManyRanges() {
        int n = 1000;
        long[] offsets = new long[n];
        int[] lengths = new int[n];
        for (int i = 0; i < n; i++) {
            offsets[i] = (long) ((i * 7919) % n) * 1000; // a permutation of 0, 1000, ..., 999000
            lengths[i] = 10;
        }
        RangeCoalescer.Plan p = RangeCoalescer.plan(offsets, lengths, 0, 1 << 20);

        assertThat(p.requestCount()).isEqualTo(n);
        for (int i = 0; i < n; i++) {
            assertThat(p.offsets()[p.requestOf()[i]]).isEqualTo(offsets[i]);
            assertThat(p.offsetInRequest()[i]).isZero();
        }
    }
}
