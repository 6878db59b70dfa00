package dev.lanceflink.txn;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class BackoffTest {
    private static final Duration INITIAL = Duration.ofMillis(10);
    private static final Duration MAX = Duration.ofMillis(100);

    @Test
    void waitsAreRandomUpToABoundThatDoublesUntilTheMaximum() {
        long most1 = 0;
        long most3 = 0;
        long most10 = 0;
        boolean spread = false;
        for (int i = 0; i < 2000; i++) {
            long w1 = Backoff.pick(1, INITIAL, MAX);
            most1 = Math.max(most1, w1);
            most3 = Math.max(most3, Backoff.pick(3, INITIAL, MAX));
            most10 = Math.max(most10, Backoff.pick(10, INITIAL, MAX));
            spread |= w1 < INITIAL.toNanos() / 2;
        }
        assertThat(most1).isLessThanOrEqualTo(INITIAL.toNanos()).isGreaterThan(INITIAL.toNanos() / 2);
        assertThat(most3).isLessThanOrEqualTo(4 * INITIAL.toNanos()).isGreaterThan(2 * INITIAL.toNanos());
        assertThat(most10).isLessThanOrEqualTo(MAX.toNanos()).isGreaterThan(MAX.toNanos() / 2);
        assertThat(spread).as("jitter: some waits well below the bound").isTrue();
    }

    @Test
    void zeroAndHugeBoundsNeitherWaitNorOverflow() {
        assertThat(Backoff.pick(5, Duration.ZERO, MAX)).isZero();
        assertThat(Backoff.pick(40, Duration.ofDays(365), Duration.ofSeconds(2)))
                .isBetween(0L, Duration.ofSeconds(2).toNanos());
    }
}
