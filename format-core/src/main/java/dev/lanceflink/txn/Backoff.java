package dev.lanceflink.txn;

import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The wait between two commit attempts: a random time up to a bound that doubles per attempt
 * from {@code initial} to {@code max} ("full jitter"), so writers that lost the same race do not
 * all come back at once.
 */
public final class Backoff {
    private Backoff() {}

    /**
     * Sleeps before attempt {@code attempt + 1}.
     *
     * @param attempt the attempt that just failed, from 1
     * @throws InterruptedIOException if interrupted (the interrupt flag is set again)
     */
    public static void sleep(int attempt, Duration initial, Duration max) throws InterruptedIOException {
        long nanos = pick(attempt, initial, max);
        try {
            Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("Interrupted while backing off between commit attempts");
        }
    }

    /** The wait before attempt {@code attempt + 1}, in nanoseconds: uniform in [0, bound]. */
    static long pick(int attempt, Duration initial, Duration max) {
        int shift = Math.min(Math.max(attempt - 1, 0), 20);
        long base = initial.toNanos();
        long doubled = base > (Long.MAX_VALUE >> shift) ? Long.MAX_VALUE : base << shift;
        long bound = Math.min(max.toNanos(), doubled);
        return bound <= 0 ? 0 : ThreadLocalRandom.current().nextLong(bound + 1);
    }
}
