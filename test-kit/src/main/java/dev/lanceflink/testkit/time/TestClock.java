package dev.lanceflink.testkit.time;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock the test moves (for leases, retention ages): it stands still until {@link #advance}. Thread-safe. */
public final class TestClock extends Clock {
    private volatile Instant now = Instant.parse("2026-12-01T10:00:00Z");

    /** Moves the clock forward by {@code d}. */
    public synchronized void advance(Duration d) {
        now = now.plus(d);
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }

    @Override
    public Instant instant() {
        return now;
    }
}
