package dev.lanceflink.compactor;

import dev.lanceflink.compactor.core.MaintenanceLease;
import dev.lanceflink.io.ObjectStore;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.time.Clock;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The table's {@link MaintenanceLease}, held by one run of the compaction job: taken before the
 * run, renewed in the background while it lasts (a Flink job may run for longer than the
 * timeout), released at the end. A run that crashes leaves a lease that expires after
 * {@link #TIMEOUT}.
 */
final class RunLease implements AutoCloseable {
    /** Lease time without renewal; renewals come every third of it. */
    static final Duration TIMEOUT = Duration.ofMinutes(2);

    private final MaintenanceLease lease;
    private final ScheduledExecutorService renewer;

    private RunLease(MaintenanceLease lease, PrintStream err) {
        this.lease = lease;
        this.renewer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "lance-compaction-lease");
            t.setDaemon(true);
            return t;
        });
        long period = TIMEOUT.toMillis() / 3;
        renewer.scheduleWithFixedDelay(
                () -> {
                    try {
                        MaintenanceLease.Outcome o = lease.acquire();
                        if (!o.acquired()) {
                            err.println(
                                    "compact: lost the maintenance lease (" + o.lease() + "); the run continues, and"
                                            + " its commits are checked against the other maintainer's like any writer's");
                        }
                    } catch (IOException | RuntimeException e) {
                        err.println("compact: could not renew the maintenance lease: " + e);
                    }
                },
                period,
                period,
                TimeUnit.MILLISECONDS);
    }

    /**
     * Takes the lease of the table in {@code store} for a run of {@code mode}.
     *
     * @throws HeldException if another maintainer holds it
     */
    static RunLease take(ObjectStore store, String mode, PrintStream err) throws IOException {
        String owner = "lance-flink compact --mode " + mode + " ("
                + ManagementFactory.getRuntimeMXBean().getName() + ", run "
                + UUID.randomUUID().toString().substring(0, 8) + ")";
        MaintenanceLease lease = new MaintenanceLease(store, owner, TIMEOUT, Clock.systemUTC());
        MaintenanceLease.Outcome o = lease.acquire();
        if (!o.acquired()) {
            throw new HeldException("The maintenance lease of " + store.rootUri() + " is " + o.lease()
                    + ": another maintainer (a sink with 'sink.maintenance.enabled' or another compaction run) is"
                    + " working on the table. Nothing was changed; run again when it is done or after the lease"
                    + " expires");
        }
        return new RunLease(lease, err);
    }

    @Override
    public void close() throws IOException {
        renewer.shutdownNow();
        try {
            renewer.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        lease.release();
    }

    /** The lease is held by another maintainer. */
    static final class HeldException extends IOException {
        private static final long serialVersionUID = 1L;

        HeldException(String message) {
            super(message);
        }
    }
}
