package dev.lanceflink.s3;

import java.util.Arrays;

/**
 * Plans the GETs for a batch of byte ranges: ranges are sorted by offset and merged when the gap
 * between them is at most {@code maxGap} bytes and the merged request stays within
 * {@code maxMerged} bytes (a single range larger than that is still one request). On object
 * stores a request costs far more than the bytes of a small gap, so fetching the gap is cheaper.
 * Overlapping and duplicate ranges are served from one request.
 */
final class RangeCoalescer {
    private RangeCoalescer() {}

    /**
     * The merged requests and where each input range lies in them.
     *
     * @param offsets start of each merged request
     * @param lengths length of each merged request
     * @param requestOf for input range {@code i}, the index of the merged request holding it
     * @param offsetInRequest for input range {@code i}, its start within that request
     */
    record Plan(long[] offsets, int[] lengths, int[] requestOf, int[] offsetInRequest) {
        int requestCount() {
            return offsets.length;
        }
    }

    static Plan plan(long[] offsets, int[] lengths, int maxGap, int maxMerged) {
        int n = offsets.length;
        int[] order = sortedByOffset(offsets);
        long[] outOffsets = new long[n];
        int[] outLengths = new int[n];
        int[] requestOf = new int[n];
        int[] offsetInRequest = new int[n];
        int requests = 0;
        long curStart = 0;
        long curEnd = 0; // exclusive
        for (int k = 0; k < n; k++) {
            int i = order[k];
            long start = offsets[i];
            long end = start + lengths[i];
            boolean merge = requests > 0 && start - curEnd <= maxGap && Math.max(curEnd, end) - curStart <= maxMerged;
            if (merge) {
                curEnd = Math.max(curEnd, end);
            } else {
                if (requests > 0) {
                    outLengths[requests - 1] = (int) (curEnd - curStart);
                }
                outOffsets[requests++] = start;
                curStart = start;
                curEnd = end;
            }
            requestOf[i] = requests - 1;
            offsetInRequest[i] = (int) (start - curStart);
        }
        if (requests > 0) {
            outLengths[requests - 1] = (int) (curEnd - curStart);
        }
        return new Plan(
                Arrays.copyOf(outOffsets, requests), Arrays.copyOf(outLengths, requests), requestOf, offsetInRequest);
    }

    /** Indexes of {@code offsets} in ascending offset order (stable), without boxing. */
    private static int[] sortedByOffset(long[] offsets) {
        int n = offsets.length;
        int[] order = new int[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        boolean sorted = true;
        for (int i = 1; i < n && sorted; i++) {
            sorted = offsets[i - 1] <= offsets[i];
        }
        if (sorted) {
            return order; // the common case: a reader asks for columns' pages in file order
        }
        int[] tmp = new int[n];
        mergeSort(order, tmp, 0, n, offsets);
        return order;
    }

    private static void mergeSort(int[] a, int[] tmp, int from, int to, long[] keys) {
        if (to - from < 2) {
            return;
        }
        int mid = (from + to) >>> 1;
        mergeSort(a, tmp, from, mid, keys);
        mergeSort(a, tmp, mid, to, keys);
        int i = from;
        int j = mid;
        int k = from;
        while (i < mid && j < to) {
            tmp[k++] = keys[a[j]] < keys[a[i]] ? a[j++] : a[i++];
        }
        while (i < mid) {
            tmp[k++] = a[i++];
        }
        while (j < to) {
            tmp[k++] = a[j++];
        }
        System.arraycopy(tmp, from, a, from, to - from);
    }
}
