package dev.lanceflink.flink.sink.maintenance;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.committer.core.CommitMarker;
import dev.lanceflink.compactor.CleanupSettings;
import dev.lanceflink.compactor.core.CompactionMode;
import dev.lanceflink.compactor.core.CompactionPolicy;
import dev.lanceflink.compactor.core.CompactionRun;
import dev.lanceflink.compactor.core.CompactionSummary;
import dev.lanceflink.compactor.core.LocalTaskExecutor;
import dev.lanceflink.compactor.core.MaintenanceLease;
import dev.lanceflink.compactor.core.TaskExecutor;
import dev.lanceflink.file.writer.FileWriterOptions;
import dev.lanceflink.flink.sink.maintenance.MaintenanceTriggers.Due;
import dev.lanceflink.flink.sink.maintenance.MaintenanceTriggers.ListedVersion;
import dev.lanceflink.flink.sink.maintenance.MaintenanceTriggers.TableHealth;
import dev.lanceflink.io.ObjectInfo;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.io.RangeReader;
import dev.lanceflink.maintenance.CleanupPlan;
import dev.lanceflink.maintenance.CleanupResult;
import dev.lanceflink.maintenance.TableCleanup;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.ManifestIO;
import dev.lanceflink.table.ManifestLocation;
import dev.lanceflink.table.ManifestNamingScheme;
import dev.lanceflink.table.VersionResolver;
import dev.lanceflink.txn.CommitOptions;
import dev.lanceflink.txn.Operation;
import dev.lanceflink.txn.TableHistory;
import dev.lanceflink.txn.Transaction;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.apache.arrow.memory.BufferAllocator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One maintenance check of a table, engine-neutral: decide what is due ({@link MaintenanceTriggers}),
 * take the {@link MaintenanceLease}, then merge, fold, compact fragments and clean up with the standalone
 * job's own classes ({@link CompactionRun} with a {@link LocalTaskExecutor}, {@link TableCleanup}
 * with the rules of {@code compact --mode cleanup}). Each step that fails is reported and the next
 * step still runs; the next check retries what is still due. The lease is renewed between steps
 * and between the runs of a step; a check that lost it stops after its current run.
 *
 * <p>Cleanup never removes a version at or after the sink's own newest commit, nor a fragment
 * compaction the sink's key map may not have learned yet ({@link #keepFrom}).
 */
public final class TableMaintainer {
    private static final Logger LOG = LoggerFactory.getLogger(TableMaintainer.class);
    /** Transaction property of maintenance commits: which maintainer made them. */
    public static final String OWNER_PROPERTY = "lance-flink.maintenance.owner";

    private final ObjectStore store;
    private final MaintenanceSettings settings;
    private final MaintenanceLease lease;
    private final Clock clock;
    private final BufferAllocator allocator;
    /** The transactions {@link #keepFrom} walks, read once per maintainer (each check walks the same ones). */
    private final TableHistory history;
    /** The latest version the previous check read (0 before the first). */
    private long previousCheckVersion;
    /** Overlays that arrived at one fragment between consecutive checks, for the last few checks. */
    private final int[] recentArrivals = new int[5];

    private int checks;
    /** The current check found the lease lost (or could not renew it): it runs nothing more. */
    private boolean leaseLost;

    public TableMaintainer(
            ObjectStore store, MaintenanceSettings settings, String owner, Clock clock, BufferAllocator allocator) {
        this.store = requireNonNull(store, "store is null");
        this.settings = requireNonNull(settings, "settings is null");
        this.clock = requireNonNull(clock, "clock is null");
        this.allocator = requireNonNull(allocator, "allocator is null");
        this.lease = new MaintenanceLease(store, owner, settings.leaseTimeout(), clock);
        this.history = new TableHistory(store);
    }

    /** What a check found and did. */
    public enum Outcome {
        /** Nothing was due. */
        NOTHING_DUE,
        /** Something was due, but another maintainer holds the lease. */
        SKIPPED_FOR_LEASE,
        /** The due steps ran (some may have failed: see {@link Report#failures}). */
        RAN
    }

    /**
     * The report of one check.
     *
     * @param health the table as the check found it
     * @param versions versions in the table after the check
     * @param leaseHolder the other maintainer, when skipped for the lease
     * @param fragmentsFolded fragments whose overlays were folded
     * @param fragmentsMerged fragments whose overlays were merged
     * @param fragmentsCompacted fragments rewritten by fragment compaction
     * @param overlaysRemoved overlays the fold and merge removed
     * @param versionsRemoved versions the cleanup removed
     * @param filesRemoved other files the cleanup removed
     * @param failures one line per failed step
     */
    public record Report(
            Outcome outcome,
            TableHealth health,
            int versions,
            Due due,
            String leaseHolder,
            int fragmentsFolded,
            int fragmentsMerged,
            int fragmentsCompacted,
            long overlaysRemoved,
            int versionsRemoved,
            int filesRemoved,
            List<String> failures,
            long durationMillis) {
        public Report {
            failures = List.copyOf(failures);
        }

        /** One line for the log. */
        public String describe() {
            return switch (outcome) {
                case NOTHING_DUE ->
                    "nothing due (" + health.fragments() + " fragments, max " + health.maxOverlaysPerFragment()
                            + " overlays per fragment, " + versions + " versions)";
                case SKIPPED_FOR_LEASE ->
                    "skipped: " + due.reasons() + " is due, but the maintenance lease is " + leaseHolder;
                case RAN ->
                    "folded " + fragmentsFolded + " and merged " + fragmentsMerged + " fragments ("
                            + overlaysRemoved + " overlays removed), compacted " + fragmentsCompacted
                            + " fragments, removed " + versionsRemoved + " versions and "
                            + filesRemoved + " files in " + durationMillis + " ms; due: " + due.reasons()
                            + (failures.isEmpty() ? "" : "; FAILED: " + failures);
            };
        }
    }

    /**
     * Checks the table and runs what is due.
     *
     * @param commitUser the sink's commit user (whose newest commit cleanup keeps every version
     *     after), or null if the sink has committed nothing yet: then no cleanup runs
     * @param sinceLastCommit time since the sink's last commit
     * @throws IOException if the table cannot be read or the lease cannot be taken; failures of
     *     the steps themselves are in the report instead
     */
    public Report check(String commitUser, Duration sinceLastCommit) throws IOException {
        long start = System.nanoTime();
        ManifestLocation latestLocation = VersionResolver.latest(store);
        Manifest latest = ManifestIO.read(store, latestLocation);
        TableHealth health = TableHealth.of(latest, manifestBytes(latestLocation));
        List<ListedVersion> versions = listVersions();
        int removable = 0;
        if (settings.cleanupEnabled()
                && commitUser != null
                && MaintenanceTriggers.removableVersions(versions, settings, clock.instant(), Long.MAX_VALUE) > 0) {
            removable = MaintenanceTriggers.removableVersions(
                    versions, settings, clock.instant(), keepFrom(commitUser, latest));
        }
        MaintenanceSettings checkSettings = mergeEarlyEnough(latest);
        Due due = MaintenanceTriggers.decide(latest, checkSettings, sinceLastCommit, removable);
        if (due.isEmpty()) {
            if (lease.holdsLocally()) {
                lease.release(); // nothing to do: let another maintainer in
            }
            return new Report(
                    Outcome.NOTHING_DUE,
                    health,
                    versions.size(),
                    due,
                    null,
                    0,
                    0,
                    0,
                    0,
                    0,
                    0,
                    List.of(),
                    millisSince(start));
        }
        MaintenanceLease.Outcome taken = lease.acquire();
        if (!taken.acquired()) {
            return new Report(
                    Outcome.SKIPPED_FOR_LEASE,
                    health,
                    versions.size(),
                    due,
                    taken.lease().toString(),
                    0,
                    0,
                    0,
                    0,
                    0,
                    0,
                    List.of(),
                    millisSince(start));
        }
        leaseLost = false;
        List<String> failures = new ArrayList<>();
        Map<String, String> properties = Map.of(OWNER_PROPERTY, lease.owner());
        int folded = 0;
        int merged = 0;
        long overlaysRemoved = 0;
        // Merges first: they are cheap and keep the overlays per fragment bounded; a fold of a
        // fragment the sink keeps overlaying may need several rounds (or not land at all).
        // Each step takes what is due in runs of at most max-fragments-per-run fragments (a run's
        // commit stays small), one run after another until what the check found due is done or
        // the check has used its interval (the default one if it checks by commit count only):
        // with one run per check, a table whose fragments all
        // take overlays every checkpoint (upserts of keys spread over the table) gained overlays
        // faster than runs of 16 merged them once it had more than about 30 fragments.
        long budgetEnds = start + settings.checkBudget().toNanos();
        if (!due.merge().isEmpty()) {
            StepTotals t =
                    compactInRuns(CompactionMode.OVERLAY_MERGE, 2, due.merge(), properties, failures, budgetEnds, 1);
            merged = t.fragments;
            overlaysRemoved += t.overlaysRemoved;
        }
        if (!due.fold().isEmpty() && stillHeld(failures, "overlay-fold")) {
            StepTotals t =
                    compactInRuns(CompactionMode.OVERLAY_FOLD, 1, due.fold(), properties, failures, budgetEnds, 1);
            folded = t.fragments;
            overlaysRemoved += t.overlaysRemoved;
        }
        int compacted = 0;
        if (!due.compact().isEmpty() && stillHeld(failures, "fragments")) {
            StepTotals t = compactInRuns(
                    CompactionMode.FRAGMENTS,
                    1,
                    due.compact(),
                    properties,
                    failures,
                    budgetEnds,
                    settings.fragments().minFragments());
            compacted = t.fragments;
            overlaysRemoved += t.overlaysRemoved;
        }
        int versionsRemoved = 0;
        int filesRemoved = 0;
        if (due.cleanup() && stillHeld(failures, "cleanup")) {
            try {
                CleanupResult r = cleanup(commitUser);
                versionsRemoved = r.versionsRemoved();
                filesRemoved = r.totalFilesDeleted() - r.versionsRemoved();
                if (!r.failedDeletes().isEmpty()) {
                    failures.add("cleanup: " + r.failedDeletes().size() + " deletes failed, first "
                            + r.failedDeletes().get(0).path() + ": "
                            + r.failedDeletes().get(0).error());
                }
            } catch (IOException | RuntimeException e) {
                failures.add("cleanup: " + e);
                LOG.warn("Maintenance cleanup of {} failed; the next check retries it", store.rootUri(), e);
            }
        }
        // A long step (a cleanup deleting many files from an object store, a compaction) does not
        // hold the sink up, which keeps adding overlays meanwhile: merge the fragments that reached
        // the bound during it now rather than at the next check (S3 soak: 18 overlays arrived on
        // one fragment during a 9 s cleanup right after a restore).
        if (millisSince(start) >= LATE_MERGE_AFTER_MILLIS && failures.isEmpty()) {
            try {
                Manifest now = ManifestIO.read(store, VersionResolver.latest(store));
                Due late = MaintenanceTriggers.decide(now, checkSettings, sinceLastCommit, 0);
                if (!late.merge().isEmpty() && stillHeld(failures, "overlay-merge")) {
                    StepTotals t = compactInRuns(
                            CompactionMode.OVERLAY_MERGE, 2, late.merge(), properties, failures, budgetEnds, 1);
                    merged += t.fragments;
                    overlaysRemoved += t.overlaysRemoved;
                }
            } catch (IOException | RuntimeException e) {
                failures.add("overlay-merge after the check's steps: " + e);
            }
        }
        int versionsAfter = versionsRemoved > 0 ? listVersions().size() : versions.size();
        return new Report(
                Outcome.RAN,
                health,
                versionsAfter,
                due,
                null,
                folded,
                merged,
                compacted,
                overlaysRemoved,
                versionsRemoved,
                filesRemoved,
                failures,
                millisSince(start));
    }

    /**
     * The settings with the overlay-count trigger lowered by the overlays that reached one fragment
     * between consecutive checks recently: they arrive again while this check works, and the
     * configured count is a bound the overlays per fragment should stay under, not a level to
     * reach before the maintenance starts.
     */
    MaintenanceSettings mergeEarlyEnough(Manifest latest) {
        int arrived = 0;
        if (previousCheckVersion > 0) {
            for (var f : latest.fragments()) {
                int n = 0;
                for (var o : f.overlays()) {
                    n += o.committedVersion() > previousCheckVersion ? 1 : 0;
                }
                arrived = Math.max(arrived, n);
            }
        }
        previousCheckVersion = latest.version();
        recentArrivals[checks++ % recentArrivals.length] = arrived;
        int recent = 0;
        for (int a : recentArrivals) {
            recent = Math.max(recent, a);
        }
        if (settings.mergeMaxOverlays() == 0 || recent == 0) {
            return settings;
        }
        return settings.withOverlayMerge(
                Math.max(2, settings.mergeMaxOverlays() - recent), settings.mergeMaxOverlayBytes());
    }

    /** Gives the lease up if held (the sink stops). */
    public void releaseLease() throws IOException {
        lease.release();
    }

    /**
     * Renews the lease between steps and between the runs of a step; false (and one failure line)
     * if another maintainer took it or it could not be renewed, and from then on for the rest of
     * the check, which then runs nothing more: the runs already committed stay, and the next check
     * starts over from the lease.
     *
     * <p>A renewal writes a new lease epoch only once a third of the timeout has passed since the
     * last one ({@link MaintenanceLease#acquire}), so every run starts with at least two thirds of
     * the timeout left; that a run ends within them is what {@link MaintenanceSettings} asks of
     * {@code lease-timeout} against {@code check-interval}.
     */
    private boolean stillHeld(List<String> failures, String next) {
        if (leaseLost) {
            return false;
        }
        try {
            MaintenanceLease.Outcome o = lease.acquire();
            if (o.acquired()) {
                return true;
            }
            failures.add(next + ": not run, the maintenance lease is now " + o.lease());
        } catch (IOException | RuntimeException e) {
            failures.add(next + ": not run, the maintenance lease could not be renewed: " + e);
        }
        leaseLost = true;
        return false;
    }

    /** Fragments a step compacted over its runs, and the overlays that removed. */
    private record StepTotals(int fragments, long overlaysRemoved) {}

    /**
     * Runs {@code mode} over {@code due} in runs of at most max-fragments-per-run fragments (each
     * planned on the latest version, the fragments with the most overlays first), until every
     * fragment of {@code due} has been planned once, a run fails or plans nothing, fewer than
     * {@code minLeft} fragments are left, {@code budgetEnds} (System.nanoTime) has passed, or the
     * lease, renewed before each further run, was lost; the first run always runs (the lease was
     * taken or renewed just before the step).
     */
    private StepTotals compactInRuns(
            CompactionMode mode,
            int minOverlays,
            Set<Long> due,
            Map<String, String> properties,
            List<String> failures,
            long budgetEnds,
            int minLeft) {
        Set<Long> left = new TreeSet<>(due);
        int fragments = 0;
        long overlaysRemoved = 0;
        for (int run = 1; ; run++) {
            if (run > 1
                    && (left.size() < Math.max(1, minLeft)
                            || System.nanoTime() - budgetEnds >= 0
                            || !stillHeld(failures, mode.cliName() + " run " + run))) {
                break;
            }
            CompactionSummary s = compact(mode, minOverlays, left, properties, failures);
            if (s == null) {
                break;
            }
            fragments += s.fragmentsCompacted();
            overlaysRemoved += s.overlaysBefore() - s.overlaysAfter();
            int before = left.size();
            s.plan().tasks().forEach(task -> left.removeAll(task.fragmentIds()));
            if (left.size() == before || !s.uncompactedFragments().isEmpty()) {
                break; // nothing more to plan, or the run lost fragments to the sink: next check
            }
        }
        return new StepTotals(fragments, overlaysRemoved);
    }

    private CompactionSummary compact(
            CompactionMode mode,
            int minOverlays,
            Set<Long> fragments,
            Map<String, String> properties,
            List<String> failures) {
        try {
            CompactionPolicy policy = mode == CompactionMode.FRAGMENTS
                    ? MaintenanceTriggers.fragmentPolicy(settings)
                    : new CompactionPolicy(minOverlays, 0, 0, settings.maxFragmentsPerRun(), Long.MAX_VALUE);
            // A fold of a fragment the sink overlaid meanwhile is written anew on each re-plan;
            // one re-plan is enough work for one check (the next check tries again).
            int replans = mode == CompactionMode.OVERLAY_FOLD ? 1 : 3;
            CompactionRun run = new CompactionRun(
                            store,
                            store.rootUri(),
                            mode,
                            policy,
                            CommitOptions.defaults().withMaxAttempts(20),
                            replans)
                    .onlyFragments(fragments)
                    .withCommitProperties(properties);
            if (mode == CompactionMode.FRAGMENTS) {
                // The sink overlays and deletes rows of these fragments every checkpoint: a rewrite
                // that needed them unchanged would lose every race (issue #15's benchmark: none
                // landed in 5 minutes). It carries the sink's changes to its new fragments instead.
                run = run.carryingConcurrentChanges();
            }
            TaskExecutor executor =
                    new LocalTaskExecutor(store, allocator, FileWriterOptions.defaults(), settings.parallelism());
            return run.execute(executor, TaskExecutor.ProgressListener.NONE);
        } catch (IOException | RuntimeException e) {
            failures.add(mode.cliName() + ": " + e);
            LOG.warn("Maintenance {} of {} failed; the next check retries it", mode.cliName(), store.rootUri(), e);
            return null;
        }
    }

    /**
     * {@code compact --mode cleanup} with the sink's retention, keeping every version from the
     * sink's newest commit on.
     */
    private CleanupResult cleanup(String commitUser) throws IOException {
        Manifest latest = ManifestIO.read(store, VersionResolver.latest(store));
        long keepFrom = keepFrom(commitUser, latest);
        int keep = settings.retainVersions();
        for (ListedVersion v : listVersions()) {
            if (v.version() >= keepFrom && v.version() <= latest.version()) {
                keep = Math.max(keep, (int) Math.min(Integer.MAX_VALUE, latest.version() - v.version() + 1));
            }
        }
        CleanupPlan plan = cleanupPlan(keep);
        // The plan counts the versions to retain from the latest version it reads itself: when
        // the sink committed meanwhile, that count may no longer reach keepFrom. Count again from
        // the plan's latest version (the sink commits every checkpoint; a few tries are plenty).
        for (int attempt = 0; attempt < 3 && removesFrom(plan, keepFrom); attempt++) {
            keep = (int) Math.min(Integer.MAX_VALUE, Math.max(keep, plan.latestVersion() - keepFrom + 1));
            plan = cleanupPlan(keep);
        }
        for (var removed : plan.versionsToRemove()) {
            if (removed.version() >= keepFrom) {
                throw new IllegalStateException("Cleanup of " + store.rootUri() + " planned to remove version "
                        + removed.version() + ", at or after the version it must keep (" + keepFrom
                        + ": the sink's newest commit, or a compaction its key map may not have learned yet);"
                        + " nothing was deleted");
            }
        }
        if (plan.isEmpty()) {
            return new CleanupResult(store.rootUri(), plan.latestVersion(), 0, Map.of(), 0, List.of(), List.of());
        }
        return TableCleanup.execute(store, plan);
    }

    private CleanupPlan cleanupPlan(int keepNewest) throws IOException {
        CleanupSettings rules =
                new CleanupSettings(settings.retainMinAge(), keepNewest, settings.cleanupGrace(), Set.of());
        return TableCleanup.plan(store, rules.toPolicy(clock.instant()));
    }

    private static boolean removesFrom(CleanupPlan plan, long keepFrom) {
        return plan.versionsToRemove().stream().anyMatch(v -> v.version() >= keepFrom);
    }

    /**
     * The version cleanup keeps every version from: the sink's newest commit, or an older
     * fragment compaction ({@code Rewrite}) that the sink's key map may not have learned yet, or 0
     * (keep every version) if the sink has committed nothing.
     *
     * <p>The commit of the sink's next checkpoint looks for its marker among the versions since
     * the checkpoint's changes were gathered. And the sink's key map learns a compaction's row
     * moves at a checkpoint barrier, from the compaction's version, which must still be there: a
     * version older than the sink's commit of checkpoint c was there when the barrier of
     * checkpoint c + {@value #CHECKPOINTS_BEFORE_CLEANUP} passed the key resolver (that checkpoint
     * starts after c + 1 completed, which the committer acknowledges only after committing c), and
     * once that checkpoint is committed, what the resolver learned is in a completed checkpoint,
     * so also in any state the job restarts from. A compaction newer than that commit is kept.
     */
    long keepFrom(String commitUser, Manifest latest) throws IOException {
        long newestCheckpoint = -1;
        long keep = 0;
        for (long v = latest.version(); v > 0; v--) {
            // Whether the version still exists is asked every time: the cleanup this decides removes versions.
            Optional<TableHistory.Committed> c = history.present(v);
            if (c.isEmpty()) {
                break; // removed: older versions cannot matter more than the ones already walked
            }
            Optional<Transaction> txn = c.get().transaction();
            if (txn.isEmpty()) {
                continue;
            }
            if (newestCheckpoint >= 0 && txn.get().operation() instanceof Operation.Rewrite) {
                keep = v; // not surely learned by the key map yet
                continue;
            }
            Optional<CommitMarker> marker =
                    CommitMarker.fromProperties(txn.get().properties(), "version " + v + " of " + store.rootUri());
            if (marker.isEmpty() || !commitUser.equals(marker.get().commitUser())) {
                continue;
            }
            if (newestCheckpoint < 0) {
                newestCheckpoint = marker.get().checkpointId();
                keep = v;
            }
            if (marker.get().checkpointId() <= newestCheckpoint - CHECKPOINTS_BEFORE_CLEANUP) {
                return keep; // older compactions were learned
            }
        }
        return keep;
    }

    /** Checkpoints the sink commits after a compaction before a cleanup may remove it (see {@link #keepFrom}). */
    static final int CHECKPOINTS_BEFORE_CLEANUP = 2;

    /** A check whose steps took this long looks for due overlay merges once more before it ends. */
    static final long LATE_MERGE_AFTER_MILLIS = 1_000;

    /**
     * The manifest's size for the {@code manifestBytes} metric: from the listing, or asked of the
     * store when the version was found through the version hint (a read of the size only).
     */
    private long manifestBytes(ManifestLocation location) {
        if (location.size() >= 0) {
            return location.size();
        }
        try (RangeReader r = store.openReader(location.path(), -1)) {
            return r.size();
        } catch (IOException e) {
            return -1; // a metric; the check itself does not depend on it
        }
    }

    private List<ListedVersion> listVersions() throws IOException {
        List<ListedVersion> out = new ArrayList<>();
        for (Iterator<ObjectInfo> it = store.list(ManifestNamingScheme.VERSIONS_DIR); it.hasNext(); ) {
            ObjectInfo info = it.next();
            Optional<ManifestLocation> loc = ManifestNamingScheme.parse(info.name(), info.size());
            loc.ifPresent(l -> out.add(new ListedVersion(l.version(), info.lastModifiedMillis())));
        }
        return out;
    }

    private static long millisSince(long startNanos) {
        return (System.nanoTime() - startNanos) / 1_000_000;
    }
}
