package dev.lanceflink.flink.sink.maintenance;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.committer.core.CheckpointCommit;
import dev.lanceflink.committer.core.TableLocation;
import dev.lanceflink.io.ObjectStore;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.CommittableWithLineage;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sink's post-commit maintenance (parallelism 1, after the committer): counts the committed
 * checkpoints and, every {@link MaintenanceSettings#checkEveryCommits} of them and every
 * {@link MaintenanceSettings#checkInterval}, runs a {@link TableMaintainer} check on its own
 * thread. The writers and the committer never wait for it: a check that is still running when the
 * next is due is followed by one more check, never by a queue. A failing check is logged,
 * counted, and retried at the next one; it never fails the job.
 *
 * <p>Metrics (group {@code lance}, subgroup {@code maintenance}): gauges {@code fragments},
 * {@code fragmentsWithOverlays}, {@code maxOverlaysPerFragment}, {@code overlays},
 * {@code overlayBytes}, {@code liveRows}, {@code deletedRows}, {@code dataBytes},
 * {@code manifestBytes} (-1 if the store did not say), {@code versionsRetained} (as of the last
 * check), {@code leaseHeld},
 * {@code lastRunTimestamp} (epoch ms), {@code lastRunDurationMs}, {@code lastRunFragmentsFolded},
 * {@code lastRunFragmentsMerged}, {@code lastRunFragmentsCompacted}, {@code lastRunOverlaysRemoved},
 * {@code lastRunVersionsRemoved}, {@code lastRunFilesRemoved}; counters {@code checks}, {@code runs}, {@code skippedForLease},
 * {@code failures}.
 */
public final class LanceMaintenanceOperator extends AbstractStreamOperator<Void>
        implements OneInputStreamOperator<CommittableMessage<CheckpointCommit>, Void> {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(LanceMaintenanceOperator.class);

    private final TableLocation table;
    private final MaintenanceSettings settings;
    private final String uidSuffix;

    private transient ObjectStore store;
    private transient BufferAllocator allocator;
    private transient TableMaintainer maintainer;
    private transient ExecutorService thread;
    private transient AtomicBoolean queued;
    private transient int commitsSinceCheck;
    private transient volatile String commitUser;
    private transient volatile long lastCommitNanos;
    private transient volatile String lastSkipHolder;
    private transient Metrics metrics;

    public LanceMaintenanceOperator(TableLocation table, MaintenanceSettings settings, String uidSuffix) {
        this.table = requireNonNull(table, "table is null");
        this.settings = requireNonNull(settings, "settings is null");
        this.uidSuffix = requireNonNull(uidSuffix, "uidSuffix is null");
    }

    @Override
    public void open() throws Exception {
        super.open();
        store = table.open();
        allocator = new RootAllocator();
        String owner = "flink sink " + uidSuffix + " of job "
                + getRuntimeContext().getJobInfo().getJobId();
        maintainer = new TableMaintainer(store, settings, owner, Clock.systemUTC(), allocator);
        queued = new AtomicBoolean();
        lastCommitNanos = System.nanoTime();
        metrics = new Metrics(getMetricGroup().addGroup("lance").addGroup("maintenance"));
        thread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "lance-maintenance-" + uidSuffix);
            t.setDaemon(true);
            return t;
        });
        long interval = settings.checkInterval().toMillis();
        if (interval > 0) {
            getProcessingTimeService().scheduleWithFixedDelay(time -> requestCheck(), interval, interval);
        }
        LOG.info("Maintenance of {} by {}: {}", table, owner, settings);
    }

    @Override
    public void processElement(StreamRecord<CommittableMessage<CheckpointCommit>> element) {
        if (!(element.getValue() instanceof CommittableWithLineage<CheckpointCommit> c)) {
            return; // a summary: the committables themselves follow
        }
        CheckpointCommit commit = c.getCommittable();
        if (commit.isEmpty()) {
            return; // no version: neither activity nor a reason to check
        }
        commitUser = commit.commitUser();
        lastCommitNanos = System.nanoTime();
        commitsSinceCheck++;
        if (settings.checkEveryCommits() > 0 && commitsSinceCheck >= settings.checkEveryCommits()) {
            requestCheck();
        }
    }

    /** Starts a check on the maintenance thread unless one is already waiting to start. */
    private void requestCheck() {
        commitsSinceCheck = 0;
        if (queued.compareAndSet(false, true)) {
            try {
                thread.execute(() -> {
                    queued.set(false);
                    runCheck();
                });
            } catch (RejectedExecutionException e) {
                queued.set(false); // finishing: no new checks
            }
        }
    }

    /**
     * End of input (a bounded job): checks once more for the last commits and lets the check in
     * flight complete, at most a lease timeout, instead of interrupting it at close.
     */
    @Override
    public void finish() throws Exception {
        if (commitsSinceCheck > 0) {
            requestCheck();
        }
        thread.shutdown();
        if (!thread.awaitTermination(settings.leaseTimeout().toMillis(), TimeUnit.MILLISECONDS)) {
            LOG.warn(
                    "Maintenance of {} still runs {} after the end of input; it is interrupted",
                    table,
                    settings.leaseTimeout());
        }
        super.finish();
    }

    private void runCheck() {
        metrics.checks.inc();
        try {
            TableMaintainer.Report r =
                    maintainer.check(commitUser, Duration.ofNanos(System.nanoTime() - lastCommitNanos));
            metrics.update(r);
            switch (r.outcome()) {
                case NOTHING_DUE -> LOG.debug("Maintenance of {}: {}", table, r.describe());
                case SKIPPED_FOR_LEASE -> {
                    metrics.skippedForLease.inc();
                    if (!r.leaseHolder().equals(lastSkipHolder)) {
                        LOG.info("Maintenance of {} {}", table, r.describe());
                    } else {
                        LOG.debug("Maintenance of {} {}", table, r.describe());
                    }
                    lastSkipHolder = r.leaseHolder();
                }
                case RAN -> {
                    metrics.runs.inc();
                    lastSkipHolder = null;
                    if (r.failures().isEmpty()) {
                        LOG.info("Maintenance of {} {}", table, r.describe());
                    } else if (Thread.currentThread().isInterrupted()) {
                        // The sink is stopping (close interrupts the check): the steps it cut short
                        // are not failures, and nothing was half-committed.
                        LOG.info("Maintenance of {} stopped with the sink: {}", table, r.describe());
                    } else {
                        metrics.failures.inc(r.failures().size());
                        LOG.warn("Maintenance of {} {}; the next check retries", table, r.describe());
                    }
                }
            }
        } catch (Exception | LinkageError e) {
            if (Thread.currentThread().isInterrupted()) {
                return; // the sink is stopping
            }
            metrics.failures.inc();
            LOG.warn("Maintenance check of {} failed; the next check retries: {}", table, e.toString(), e);
        }
    }

    @Override
    public void close() throws Exception {
        try {
            if (thread != null) {
                thread.shutdownNow();
                if (!thread.awaitTermination(30, TimeUnit.SECONDS)) {
                    LOG.warn("Maintenance of {} did not stop within 30 s of the sink's close", table);
                }
            }
            if (maintainer != null) {
                try {
                    maintainer.releaseLease();
                } catch (Exception e) {
                    LOG.info(
                            "Could not release the maintenance lease of {} (it expires by itself): {}",
                            table,
                            e.toString());
                }
            }
        } finally {
            if (store != null) {
                store.close();
            }
            if (allocator != null) {
                try {
                    allocator.close();
                } catch (IllegalStateException e) {
                    LOG.debug("Maintenance allocator of {} closed with memory of an interrupted task", table, e);
                }
            }
            super.close();
        }
    }

    /** The maintenance metrics, written by the maintenance thread and read by reporters. */
    private static final class Metrics {
        final Counter checks;
        final Counter runs;
        final Counter skippedForLease;
        final Counter failures;
        volatile TableMaintainer.Report last;
        volatile TableMaintainer.Report lastRun;
        volatile long lastRunTimestamp;
        volatile boolean leaseHeld;

        Metrics(MetricGroup g) {
            checks = g.counter("checks");
            runs = g.counter("runs");
            skippedForLease = g.counter("skippedForLease");
            failures = g.counter("failures");
            g.gauge("fragments", () -> last == null ? 0 : last.health().fragments());
            g.gauge(
                    "fragmentsWithOverlays",
                    () -> last == null ? 0 : last.health().fragmentsWithOverlays());
            g.gauge(
                    "maxOverlaysPerFragment",
                    () -> last == null ? 0 : last.health().maxOverlaysPerFragment());
            g.gauge("overlays", () -> last == null ? 0L : last.health().overlays());
            g.gauge("overlayBytes", () -> last == null ? 0L : last.health().overlayBytes());
            g.gauge("liveRows", () -> last == null ? 0L : last.health().liveRows());
            g.gauge("deletedRows", () -> last == null ? 0L : last.health().deletedRows());
            g.gauge("dataBytes", () -> last == null ? 0L : last.health().dataBytes());
            g.gauge("manifestBytes", () -> last == null ? -1L : last.health().manifestBytes());
            g.gauge("versionsRetained", () -> last == null ? 0 : last.versions());
            g.gauge("leaseHeld", () -> leaseHeld ? 1 : 0);
            g.gauge("lastRunTimestamp", () -> lastRunTimestamp);
            g.gauge("lastRunDurationMs", () -> lastRun == null ? 0L : lastRun.durationMillis());
            g.gauge("lastRunFragmentsFolded", () -> lastRun == null ? 0 : lastRun.fragmentsFolded());
            g.gauge("lastRunFragmentsMerged", () -> lastRun == null ? 0 : lastRun.fragmentsMerged());
            g.gauge("lastRunFragmentsCompacted", () -> lastRun == null ? 0 : lastRun.fragmentsCompacted());
            g.gauge("lastRunOverlaysRemoved", () -> lastRun == null ? 0L : lastRun.overlaysRemoved());
            g.gauge("lastRunVersionsRemoved", () -> lastRun == null ? 0 : lastRun.versionsRemoved());
            g.gauge("lastRunFilesRemoved", () -> lastRun == null ? 0 : lastRun.filesRemoved());
        }

        void update(TableMaintainer.Report r) {
            last = r;
            leaseHeld = r.outcome() == TableMaintainer.Outcome.RAN;
            if (r.outcome() == TableMaintainer.Outcome.RAN) {
                lastRun = r;
                lastRunTimestamp = System.currentTimeMillis();
            }
        }
    }
}
