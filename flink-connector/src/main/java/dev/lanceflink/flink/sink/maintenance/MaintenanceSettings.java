package dev.lanceflink.flink.sink.maintenance;

import static java.util.Objects.requireNonNull;

import java.io.Serializable;
import java.time.Duration;

/**
 * What the sink's in-job maintenance does and when (table options {@code sink.maintenance.*},
 * DataStream {@code LanceSinkBuilder.maintenance(...)}). Immutable; every {@code with...} returns
 * a checked copy, and a value out of range is refused with a message naming its option.
 *
 * <pre>{@code
 * MaintenanceSettings.enabledWithDefaults()
 *     .withOverlayMerge(8, 64L << 20)
 *     .withCleanup(true, 20, Duration.ofHours(1), Duration.ofHours(1))
 * }</pre>
 *
 * @param enabled whether the sink maintains the table at all (default false)
 * @param checkEveryCommits check what is due after this many checkpoint commits (0: not by count)
 * @param checkInterval also check this often, also while no commit comes (zero: not by time)
 * @param mergeMaxOverlays overlays per fragment to stay under: a fragment with this many gets them
 *     merged into one, or earlier by what arrived between recent checks (0: off)
 * @param mergeMaxOverlayBytes a fragment whose overlays hold this many bytes gets them merged (0: off)
 * @param foldMinCoverage a fragment whose overlays cover this fraction of one column's rows gets
 *     them folded into its base files (0: off)
 * @param foldQuietPeriod after this long without a commit of the sink, every fragment's overlays
 *     are folded (zero: off)
 * @param cleanupEnabled whether old versions and unreferenced files are removed
 * @param retainVersions the newest this many versions are always kept
 * @param retainMinAge versions younger than this are always kept
 * @param cleanupGrace files no version references are deleted only when older than this
 * @param leaseTimeout how long the maintenance lease lasts without renewal; more than 1.5 times the
 *     check interval (a check renews the lease only between its runs)
 * @param parallelism maintenance tasks (threads) working on fragments at once
 * @param maxFragmentsPerRun fragments one merge, fold or fragment compaction run takes at most; a check
 *     runs one run after another until what it found due is done or its interval has passed
 * @param fragments fragment compaction (the standalone job's mode {@code fragments}): off by default
 * @param mergeHardMaxOverlays overlays per fragment that no committed version exceeds: a checkpoint
 *     whose overlays would leave a fragment with more merges them into one in its own commit,
 *     when maintenance has not merged them in time (0: twice {@code mergeMaxOverlays}; see {@link
 *     #effectiveHardMaxOverlays()})
 */
public record MaintenanceSettings(
        boolean enabled,
        int checkEveryCommits,
        Duration checkInterval,
        int mergeMaxOverlays,
        long mergeMaxOverlayBytes,
        double foldMinCoverage,
        Duration foldQuietPeriod,
        boolean cleanupEnabled,
        int retainVersions,
        Duration retainMinAge,
        Duration cleanupGrace,
        Duration leaseTimeout,
        int parallelism,
        int maxFragmentsPerRun,
        FragmentCompaction fragments,
        int mergeHardMaxOverlays)
        implements Serializable {
    private static final long serialVersionUID = 1L;

    public static final String PREFIX = "sink.maintenance.";
    public static final String ENABLED = PREFIX + "enabled";
    public static final String CHECK_EVERY_COMMITS = PREFIX + "check-every-commits";
    public static final String CHECK_INTERVAL = PREFIX + "check-interval";
    public static final String MERGE_MAX_OVERLAYS = PREFIX + "overlay-merge.max-overlays";
    public static final String MERGE_MAX_OVERLAY_BYTES = PREFIX + "overlay-merge.max-overlay-bytes";
    public static final String MERGE_HARD_MAX_OVERLAYS = PREFIX + "overlay-merge.hard-max-overlays";
    public static final String FOLD_MIN_COVERAGE = PREFIX + "overlay-fold.min-coverage";
    public static final String FOLD_QUIET_PERIOD = PREFIX + "overlay-fold.quiet-period";
    public static final String CLEANUP_ENABLED = PREFIX + "cleanup.enabled";
    public static final String RETAIN_VERSIONS = PREFIX + "cleanup.retain-versions";
    public static final String RETAIN_MIN_AGE = PREFIX + "cleanup.min-age";
    public static final String CLEANUP_GRACE = PREFIX + "cleanup.grace";
    public static final String LEASE_TIMEOUT = PREFIX + "lease-timeout";
    public static final String PARALLELISM = PREFIX + "parallelism";
    public static final String MAX_FRAGMENTS_PER_RUN = PREFIX + "max-fragments-per-run";
    public static final String FRAGMENTS_ENABLED = PREFIX + "fragments.enabled";
    public static final String FRAGMENTS_TARGET_ROWS = PREFIX + "fragments.target-rows-per-fragment";
    public static final String FRAGMENTS_SMALL_ROWS = PREFIX + "fragments.small-fragment-rows";
    public static final String FRAGMENTS_MIN_DELETED_RATIO = PREFIX + "fragments.min-deleted-ratio";
    public static final String FRAGMENTS_MIN_FRAGMENTS = PREFIX + "fragments.min-fragments";

    /**
     * Fragment compaction inside the sink job, with the planner and committer of the standalone
     * job's mode {@code fragments} (Lance's rules): fragments whose deleted rows exceed
     * {@code minDeletedRatio} are rewritten, fragments with fewer than {@code smallFragmentRows}
     * rows are merged with small neighbours into fragments of about {@code targetRowsPerFragment}
     * rows; a run is due once it would rewrite at least {@code minFragments} fragments.
     *
     * @param smallFragmentRows 0: the target
     */
    public record FragmentCompaction(
            boolean enabled,
            long targetRowsPerFragment,
            long smallFragmentRows,
            double minDeletedRatio,
            int minFragments)
            implements Serializable {
        private static final long serialVersionUID = 1L;

        public FragmentCompaction {
            atLeast(FRAGMENTS_TARGET_ROWS, targetRowsPerFragment, 1, "");
            if (targetRowsPerFragment > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("'" + FRAGMENTS_TARGET_ROWS + "' must be at most "
                        + Integer.MAX_VALUE + " (rows one fragment can address), got " + targetRowsPerFragment);
            }
            atLeast(FRAGMENTS_SMALL_ROWS, smallFragmentRows, 0, "0 means the target rows per fragment");
            if (!(minDeletedRatio > 0 && minDeletedRatio <= 1)) {
                throw new IllegalArgumentException("'" + FRAGMENTS_MIN_DELETED_RATIO + "' must be a fraction above 0"
                        + " and at most 1 (1: never rewrite a fragment for its deleted rows alone), got "
                        + minDeletedRatio);
            }
            atLeast(FRAGMENTS_MIN_FRAGMENTS, minFragments, 1, "");
        }

        /** Off, every other value at its default. */
        public static final FragmentCompaction OFF = new FragmentCompaction(
                false,
                DEFAULT_FRAGMENTS_TARGET_ROWS,
                0,
                DEFAULT_FRAGMENTS_MIN_DELETED_RATIO,
                DEFAULT_FRAGMENTS_MIN_FRAGMENTS);

        /** Fragments with fewer physical rows are merge candidates. */
        public long effectiveSmallFragmentRows() {
            return smallFragmentRows == 0 ? targetRowsPerFragment : smallFragmentRows;
        }
    }

    /** Lance's default target of 1Mi rows per fragment, as the standalone job's. */
    public static final long DEFAULT_FRAGMENTS_TARGET_ROWS = 1024 * 1024;
    /** Lance's default materialize_deletions_threshold, as the standalone job's. */
    public static final double DEFAULT_FRAGMENTS_MIN_DELETED_RATIO = 0.1;

    public static final int DEFAULT_FRAGMENTS_MIN_FRAGMENTS = 8;

    /** The shortest grace for unreferenced files: they may belong to a checkpoint being committed. */
    public static final Duration MIN_GRACE = Duration.ofMinutes(1);
    /** The shortest lease: a check renews it only between its runs (see also the check interval). */
    public static final Duration MIN_LEASE_TIMEOUT = Duration.ofSeconds(10);

    public MaintenanceSettings {
        requireNonNull(checkInterval, CHECK_INTERVAL + " is null");
        requireNonNull(foldQuietPeriod, FOLD_QUIET_PERIOD + " is null");
        requireNonNull(retainMinAge, RETAIN_MIN_AGE + " is null");
        requireNonNull(cleanupGrace, CLEANUP_GRACE + " is null");
        requireNonNull(leaseTimeout, LEASE_TIMEOUT + " is null");
        requireNonNull(fragments, "fragments is null (use FragmentCompaction.OFF)");
        atLeast(CHECK_EVERY_COMMITS, checkEveryCommits, 0, "0 checks by time only");
        notNegative(CHECK_INTERVAL, checkInterval, "0 checks by commit count only");
        if (checkEveryCommits == 0 && checkInterval.isZero()) {
            throw new IllegalArgumentException("'" + CHECK_EVERY_COMMITS + "' and '" + CHECK_INTERVAL + "' are both 0,"
                    + " so maintenance would never check the table; set one of them");
        }
        if (mergeMaxOverlays == 1 || mergeMaxOverlays < 0) {
            throw new IllegalArgumentException("'" + MERGE_MAX_OVERLAYS + "' must be 0 (off) or at least 2 (one"
                    + " overlay is already merged), got " + mergeMaxOverlays);
        }
        atLeast(MERGE_MAX_OVERLAY_BYTES, mergeMaxOverlayBytes, 0, "0 is off");
        if (mergeHardMaxOverlays == 1 || mergeHardMaxOverlays < 0) {
            throw new IllegalArgumentException("'" + MERGE_HARD_MAX_OVERLAYS + "' must be 0 (twice '"
                    + MERGE_MAX_OVERLAYS + "') or at least 2, got " + mergeHardMaxOverlays);
        }
        if (mergeHardMaxOverlays > 0 && mergeHardMaxOverlays < mergeMaxOverlays) {
            throw new IllegalArgumentException("'" + MERGE_HARD_MAX_OVERLAYS + "' (" + mergeHardMaxOverlays
                    + ") must be at least '" + MERGE_MAX_OVERLAYS + "' (" + mergeMaxOverlays + "): it is the bound"
                    + " checkpoint commits enforce when maintenance's merges at '" + MERGE_MAX_OVERLAYS
                    + "' fall behind");
        }
        if (!(foldMinCoverage >= 0 && foldMinCoverage <= 1)) {
            throw new IllegalArgumentException("'" + FOLD_MIN_COVERAGE + "' must be a fraction from 0 (off) to 1 (a"
                    + " whole column overlaid), got " + foldMinCoverage);
        }
        notNegative(FOLD_QUIET_PERIOD, foldQuietPeriod, "0 is off");
        atLeast(RETAIN_VERSIONS, retainVersions, 1, "the latest version is the table itself");
        notNegative(RETAIN_MIN_AGE, retainMinAge, "0 keeps none by age");
        if (cleanupGrace.compareTo(MIN_GRACE) < 0) {
            throw new IllegalArgumentException("'" + CLEANUP_GRACE + "' must be at least " + MIN_GRACE.toSeconds()
                    + " s: a shorter grace could delete the files of a checkpoint whose commit has not landed yet,"
                    + " got " + cleanupGrace);
        }
        if (leaseTimeout.compareTo(MIN_LEASE_TIMEOUT) < 0) {
            throw new IllegalArgumentException("'" + LEASE_TIMEOUT + "' must be at least "
                    + MIN_LEASE_TIMEOUT.toSeconds() + " s, got " + leaseTimeout);
        }
        atLeast(PARALLELISM, parallelism, 1, "");
        atLeast(MAX_FRAGMENTS_PER_RUN, maxFragmentsPerRun, 1, "");
        // A check renews the lease before each of its steps and runs (TableMaintainer), never
        // during a run. A renewal writes a new epoch only once a third of the timeout has passed
        // (MaintenanceLease.acquire), so a run starts with at least two thirds of the timeout left
        // and must end within them, or another maintainer may take the lease in the middle of it
        // (harmless to the table, whose commits go through its conflict rules, but both then do
        // the same work). Nothing bounds a run's time but the check's budget: the check starts
        // runs only while its interval lasts, which is as long as a run may be meant to take. So
        // two thirds of the lease must outlast the interval. Not merely "timeout > interval": a
        // run starting with two thirds of such a lease left could outlast it. The time between
        // checks does not matter: the lease may lapse then, and the next check takes it again.
        if (enabled
                && leaseTimeout
                                .multipliedBy(2)
                                .compareTo(checkBudget(checkInterval).multipliedBy(3))
                        <= 0) {
            throw new IllegalArgumentException("'" + LEASE_TIMEOUT + "' (" + leaseTimeout + ") must be more than 1.5"
                    + " times '" + CHECK_INTERVAL + "' (" + checkInterval
                    + (checkInterval.isZero() ? ", so checks start runs for up to " + DEFAULT_CHECK_INTERVAL : "")
                    + "): a check starts compaction runs for up to its interval but renews the lease only between"
                    + " runs, each starting with two thirds of the timeout left at least; raise '" + LEASE_TIMEOUT
                    + "' or lower '" + CHECK_INTERVAL + "'");
        }
        if (enabled
                && mergeMaxOverlays == 0
                && mergeMaxOverlayBytes == 0
                && foldMinCoverage == 0
                && foldQuietPeriod.isZero()
                && !cleanupEnabled
                && !fragments.enabled()) {
            throw new IllegalArgumentException("'" + ENABLED + "' is true but every kind of maintenance is off"
                    + " (overlay-merge, overlay-fold, fragments and cleanup); enable one of them or set '" + ENABLED
                    + "' = 'false'");
        }
    }

    /** As before fragment compaction existed in the sink: with it off. */
    public MaintenanceSettings(
            boolean enabled,
            int checkEveryCommits,
            Duration checkInterval,
            int mergeMaxOverlays,
            long mergeMaxOverlayBytes,
            double foldMinCoverage,
            Duration foldQuietPeriod,
            boolean cleanupEnabled,
            int retainVersions,
            Duration retainMinAge,
            Duration cleanupGrace,
            Duration leaseTimeout,
            int parallelism,
            int maxFragmentsPerRun) {
        this(
                enabled,
                checkEveryCommits,
                checkInterval,
                mergeMaxOverlays,
                mergeMaxOverlayBytes,
                foldMinCoverage,
                foldQuietPeriod,
                cleanupEnabled,
                retainVersions,
                retainMinAge,
                cleanupGrace,
                leaseTimeout,
                parallelism,
                maxFragmentsPerRun,
                FragmentCompaction.OFF,
                0);
    }

    /**
     * The hard bound on overlays per fragment (0: twice {@code mergeMaxOverlays}), at least
     * {@code mergeMaxOverlays}: see {@link #effectiveHardMaxOverlays()}.
     */
    public MaintenanceSettings withHardMaxOverlays(int max) {
        return new MaintenanceSettings(
                enabled,
                checkEveryCommits,
                checkInterval,
                mergeMaxOverlays,
                mergeMaxOverlayBytes,
                foldMinCoverage,
                foldQuietPeriod,
                cleanupEnabled,
                retainVersions,
                retainMinAge,
                cleanupGrace,
                leaseTimeout,
                parallelism,
                maxFragmentsPerRun,
                fragments,
                max);
    }

    /**
     * The overlays per fragment that the sink's checkpoint commits never let a committed version
     * exceed, or 0 for no bound: with maintenance on, {@code mergeHardMaxOverlays}, or if that is
     * 0 twice {@code mergeMaxOverlays} (none if overlay merges by count are off too); with
     * maintenance off, none. A checkpoint
     * whose overlays would leave a fragment above it merges all of that fragment's overlays into
     * one in its own commit: a backstop, paid by that checkpoint's commit (it reads the
     * fragment's overlays and writes one file), for when maintenance's asynchronous merges at
     * {@code mergeMaxOverlays} fall behind.
     */
    public int effectiveHardMaxOverlays() {
        if (!enabled) {
            return 0;
        }
        return mergeHardMaxOverlays > 0 ? mergeHardMaxOverlays : 2 * mergeMaxOverlays;
    }

    /** Fragment compaction (the standalone job's mode {@code fragments}) on or off, with its triggers. */
    public MaintenanceSettings withFragmentCompaction(FragmentCompaction compaction) {
        return new MaintenanceSettings(
                enabled,
                checkEveryCommits,
                checkInterval,
                mergeMaxOverlays,
                mergeMaxOverlayBytes,
                foldMinCoverage,
                foldQuietPeriod,
                cleanupEnabled,
                retainVersions,
                retainMinAge,
                cleanupGrace,
                leaseTimeout,
                parallelism,
                maxFragmentsPerRun,
                compaction,
                mergeHardMaxOverlays);
    }

    private static void atLeast(String key, long value, long min, String note) {
        if (value < min) {
            throw new IllegalArgumentException("'" + key + "' must be at least " + min
                    + (note.isEmpty() ? "" : " (" + note + ")") + ", got " + value);
        }
    }

    private static void notNegative(String key, Duration value, String note) {
        if (value.isNegative()) {
            throw new IllegalArgumentException("'" + key + "' must not be negative (" + note + "), got " + value);
        }
    }

    /** Default check cadence: after every 10th commit and every minute. */
    public static final int DEFAULT_CHECK_EVERY_COMMITS = 10;

    public static final Duration DEFAULT_CHECK_INTERVAL = Duration.ofMinutes(1);
    /** As the standalone job's usual trigger: 8 overlays. */
    public static final int DEFAULT_MERGE_MAX_OVERLAYS = 8;

    public static final long DEFAULT_MERGE_MAX_OVERLAY_BYTES = 64L << 20;
    public static final double DEFAULT_FOLD_MIN_COVERAGE = 0.5;
    public static final Duration DEFAULT_FOLD_QUIET_PERIOD = Duration.ofMinutes(10);
    public static final int DEFAULT_RETAIN_VERSIONS = 10;
    public static final Duration DEFAULT_RETAIN_MIN_AGE = Duration.ofHours(1);
    public static final Duration DEFAULT_CLEANUP_GRACE = Duration.ofHours(1);
    public static final Duration DEFAULT_LEASE_TIMEOUT = Duration.ofMinutes(5);
    public static final int DEFAULT_PARALLELISM = 1;
    public static final int DEFAULT_MAX_FRAGMENTS_PER_RUN = 100;

    /** Maintenance off (the default of every sink). */
    public static MaintenanceSettings disabled() {
        return enabledWithDefaults().withEnabled(false);
    }

    /** Maintenance on, every setting at its default. */
    public static MaintenanceSettings enabledWithDefaults() {
        return new MaintenanceSettings(
                true,
                DEFAULT_CHECK_EVERY_COMMITS,
                DEFAULT_CHECK_INTERVAL,
                DEFAULT_MERGE_MAX_OVERLAYS,
                DEFAULT_MERGE_MAX_OVERLAY_BYTES,
                DEFAULT_FOLD_MIN_COVERAGE,
                DEFAULT_FOLD_QUIET_PERIOD,
                true,
                DEFAULT_RETAIN_VERSIONS,
                DEFAULT_RETAIN_MIN_AGE,
                DEFAULT_CLEANUP_GRACE,
                DEFAULT_LEASE_TIMEOUT,
                DEFAULT_PARALLELISM,
                DEFAULT_MAX_FRAGMENTS_PER_RUN,
                FragmentCompaction.OFF,
                0);
    }

    public MaintenanceSettings withEnabled(boolean on) {
        return new MaintenanceSettings(
                on,
                checkEveryCommits,
                checkInterval,
                mergeMaxOverlays,
                mergeMaxOverlayBytes,
                foldMinCoverage,
                foldQuietPeriod,
                cleanupEnabled,
                retainVersions,
                retainMinAge,
                cleanupGrace,
                leaseTimeout,
                parallelism,
                maxFragmentsPerRun,
                fragments,
                mergeHardMaxOverlays);
    }

    /** When to check: after {@code everyCommits} commits (0: not by count) and every {@code interval} (zero: not by time). */
    public MaintenanceSettings withChecks(int everyCommits, Duration interval) {
        return new MaintenanceSettings(
                enabled,
                everyCommits,
                interval,
                mergeMaxOverlays,
                mergeMaxOverlayBytes,
                foldMinCoverage,
                foldQuietPeriod,
                cleanupEnabled,
                retainVersions,
                retainMinAge,
                cleanupGrace,
                leaseTimeout,
                parallelism,
                maxFragmentsPerRun,
                fragments,
                mergeHardMaxOverlays);
    }

    /** Overlay merge triggers: overlays per fragment and overlay bytes per fragment (0: that trigger off). */
    public MaintenanceSettings withOverlayMerge(int maxOverlays, long maxOverlayBytes) {
        return new MaintenanceSettings(
                enabled,
                checkEveryCommits,
                checkInterval,
                maxOverlays,
                maxOverlayBytes,
                foldMinCoverage,
                foldQuietPeriod,
                cleanupEnabled,
                retainVersions,
                retainMinAge,
                cleanupGrace,
                leaseTimeout,
                parallelism,
                maxFragmentsPerRun,
                fragments,
                mergeHardMaxOverlays);
    }

    /** Overlay fold triggers: column coverage (0: off) and a quiet period without commits (zero: off). */
    public MaintenanceSettings withOverlayFold(double minCoverage, Duration quietPeriod) {
        return new MaintenanceSettings(
                enabled,
                checkEveryCommits,
                checkInterval,
                mergeMaxOverlays,
                mergeMaxOverlayBytes,
                minCoverage,
                quietPeriod,
                cleanupEnabled,
                retainVersions,
                retainMinAge,
                cleanupGrace,
                leaseTimeout,
                parallelism,
                maxFragmentsPerRun,
                fragments,
                mergeHardMaxOverlays);
    }

    /** Version cleanup: on or off, versions kept by count and by age, grace of unreferenced files. */
    public MaintenanceSettings withCleanup(boolean on, int keepVersions, Duration minAge, Duration grace) {
        return new MaintenanceSettings(
                enabled,
                checkEveryCommits,
                checkInterval,
                mergeMaxOverlays,
                mergeMaxOverlayBytes,
                foldMinCoverage,
                foldQuietPeriod,
                on,
                keepVersions,
                minAge,
                grace,
                leaseTimeout,
                parallelism,
                maxFragmentsPerRun,
                fragments,
                mergeHardMaxOverlays);
    }

    /** Lease timeout, maintenance threads, and fragments per merge or fold run. */
    public MaintenanceSettings withExecution(Duration lease, int threads, int fragmentsPerRun) {
        return new MaintenanceSettings(
                enabled,
                checkEveryCommits,
                checkInterval,
                mergeMaxOverlays,
                mergeMaxOverlayBytes,
                foldMinCoverage,
                foldQuietPeriod,
                cleanupEnabled,
                retainVersions,
                retainMinAge,
                cleanupGrace,
                lease,
                threads,
                fragmentsPerRun,
                fragments,
                mergeHardMaxOverlays);
    }

    /**
     * How long a check goes on starting runs of what it found due: the check interval, or the
     * default one if checks are by commit count only.
     */
    public Duration checkBudget() {
        return checkBudget(checkInterval);
    }

    private static Duration checkBudget(Duration checkInterval) {
        return checkInterval.isZero() ? DEFAULT_CHECK_INTERVAL : checkInterval;
    }

    /** Whether any overlay merge trigger is on. */
    public boolean mergeEnabled() {
        return mergeMaxOverlays > 0 || mergeMaxOverlayBytes > 0;
    }

    /** Whether any overlay fold trigger is on. */
    public boolean foldEnabled() {
        return foldMinCoverage > 0 || !foldQuietPeriod.isZero();
    }

    /**
     * Refuses a grace for unreferenced files that a checkpoint's files could outlive before their
     * commit lands (checked when the sink is attached to a job with checkpointing).
     *
     * @param checkpointInterval the job's checkpoint interval, zero or negative if unknown
     */
    public void checkAgainstCheckpointInterval(Duration checkpointInterval) {
        if (!enabled || !cleanupEnabled || checkpointInterval.isZero() || checkpointInterval.isNegative()) {
            return;
        }
        if (cleanupGrace.compareTo(checkpointInterval.multipliedBy(3)) < 0) {
            throw new IllegalArgumentException("'" + CLEANUP_GRACE + "' (" + cleanupGrace + ") must be at least three"
                    + " checkpoint intervals (3 x " + checkpointInterval + "): the files of a checkpoint are written"
                    + " before its commit, and a shorter grace could delete them");
        }
    }
}
