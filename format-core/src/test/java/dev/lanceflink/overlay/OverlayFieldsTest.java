package dev.lanceflink.overlay;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Comparator;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class OverlayFieldsTest {
    @Test
    void orderByIsAStableUnsignedSort() {
        Random r = new Random(7);
        for (int n : new int[] {0, 1, 2, 3, 17, 1000}) {
            long[] keys = new long[n];
            for (int i = 0; i < n; i++) {
                keys[i] = r.nextInt(4) == 0 ? -1L - r.nextInt(3) : r.nextInt(50); // negatives sort last (unsigned)
            }
            int[] expected = IntStream.range(0, n)
                    .boxed()
                    .sorted(Comparator.comparing((Integer i) -> keys[i], Long::compareUnsigned))
                    .mapToInt(Integer::intValue)
                    .toArray();
            assertThat(OverlayFields.orderBy(keys)).as("n=%d", n).containsExactly(expected);
        }
    }
}
